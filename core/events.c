/* events.c: the re-tasking generator and lifelong task sequences (events.h). */
#include "events.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "rng.h"

int mapf_retask_generate(const mapf_grid *g, mapf_instance *inst, int64_t every,
                         double fraction, int32_t rounds, uint64_t seed, mapf_diag *d) {
  if (every < 1 || !(fraction > 0 && fraction <= 1) || rounds < 1)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "retask: expected every >= 1, 0 < fraction <= 1 and rounds >= 1");
  int32_t n = inst->n;
  free(inst->retask);
  inst->retask = NULL;
  inst->nretask = 0;
  if (n == 0) return MAPF_OK;
  int32_t per = (int32_t)lround(fraction * n);
  if (per < 1) per = 1;
  if ((int64_t)per * rounds > INT32_MAX / 2)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "retask: too many events");
  mapf_retask *ev = malloc((size_t)per * (size_t)rounds * sizeof *ev);
  int32_t *goal = malloc((size_t)n * sizeof *goal), *order = malloc((size_t)n * sizeof *order);
  uint8_t *taken = calloc((size_t)g->ncells, 1); /* cells that are some agent's goal now */
  if (!ev || !goal || !order || !taken) {
    free(ev);
    free(goal);
    free(order);
    free(taken);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  memcpy(goal, inst->goal, (size_t)n * sizeof *goal);
  for (int32_t a = 0; a < n; a++) taken[goal[a]] = 1;
  mapf_rng rng;
  mapf_rng_seed(&rng, mapf_mix64(seed ^ UINT64_C(0x72657461736b))); /* "retask" */
  int rc = MAPF_OK;
  int32_t k = 0;
  for (int32_t r = 1; r <= rounds && rc == MAPF_OK; r++) {
    /* The first `per` agents of a partial Fisher-Yates shuffle, in agent order within the
     * round so the list is sorted by (step, agent). */
    for (int32_t a = 0; a < n; a++) order[a] = a;
    for (int32_t i = 0; i < per; i++) {
      int32_t j = i + (int32_t)mapf_rng_below(&rng, (uint64_t)(n - i));
      int32_t t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (int32_t i = 1; i < per; i++) /* insertion sort: per is small beside n */
      for (int32_t j = i; j > 0 && order[j - 1] > order[j]; j--) {
        int32_t t = order[j];
        order[j] = order[j - 1];
        order[j - 1] = t;
      }
    for (int32_t i = 0; i < per && rc == MAPF_OK; i++) {
      int32_t a = order[i], comp = g->component[inst->start[a]];
      const int32_t *cells = g->usable_by_comp + g->usable_off[comp];
      int32_t size = g->usable_off[comp + 1] - g->usable_off[comp];
      /* Rejection first (the usual case: most cells are free), then a scan of the free ones;
       * the first drawn free cell either way, so the result is a uniform free cell. */
      int32_t cell = -1;
      for (int tries = 0; tries < 64 && cell < 0; tries++) {
        int32_t c = cells[mapf_rng_below(&rng, (uint64_t)size)];
        if (!taken[c]) cell = c;
      }
      if (cell < 0) {
        int32_t nfree = 0;
        for (int32_t j = 0; j < size; j++) nfree += !taken[cells[j]];
        if (nfree == 0) {
          rc = mapf_diag_set(d, MAPF_ENOSPACE, NULL, 0, 0,
                             "retask: agent %d's component has no cell that is not another "
                             "agent's goal",
                             (int)a);
          break;
        }
        int32_t pick = (int32_t)mapf_rng_below(&rng, (uint64_t)nfree);
        for (int32_t j = 0; j < size; j++)
          if (!taken[cells[j]] && pick-- == 0) {
            cell = cells[j];
            break;
          }
      }
      taken[goal[a]] = 0;
      taken[cell] = 1;
      goal[a] = cell;
      ev[k++] = (mapf_retask){(int64_t)r * every, a, cell};
    }
  }
  free(goal);
  free(order);
  free(taken);
  if (rc != MAPF_OK) {
    free(ev);
    return rc;
  }
  inst->retask = ev;
  inst->nretask = k;
  return MAPF_OK;
}

int32_t mapf_lifelong_task(const mapf_grid *g, uint64_t seed, int32_t a, int64_t k,
                           int32_t current) {
  int32_t comp = g->component[current];
  const int32_t *cells = g->usable_by_comp + g->usable_off[comp];
  int32_t size = g->usable_off[comp + 1] - g->usable_off[comp];
  if (size < 2) return current;
  mapf_rng rng;
  mapf_rng_seed(&rng, mapf_mix64(seed ^ mapf_mix64((uint64_t)(uint32_t)a << 32 ^ (uint64_t)k)));
  /* Uniform over the other size - 1 cells: draw among them and step over current. */
  int32_t i = (int32_t)mapf_rng_below(&rng, (uint64_t)(size - 1));
  int32_t c = cells[i];
  return c == current ? cells[size - 1] : c;
}

/* Appends door d to *out (grown by doubling). Returns 0, or -1 when out of memory. */
static int door_add(mapf_door **out, int32_t *n, int32_t *cap, mapf_door d) {
  if (*n == *cap) {
    int32_t c = *cap ? 2 * *cap : 64;
    mapf_door *p = realloc(*out, (size_t)c * sizeof *p);
    if (!p) return -1;
    *out = p;
    *cap = c;
  }
  (*out)[(*n)++] = d;
  return 0;
}

int32_t mapf_doors_find(const mapf_grid *g, int32_t width, mapf_door **out) {
  *out = NULL;
  int32_t n = 0, cap = 0;
  const uint8_t *p = g->passable;
  int32_t w = g->width, h = g->height;
  /* Rows: runs across a corridor that goes north-south; then columns, across one that goes
   * east-west. A run is maximal: blocked (or the map's edge) at both ends. */
  for (int pass = 0; pass < 2; pass++) {
    int32_t lines = pass ? w : h, along = pass ? h : w, step = pass ? w : 1;
    for (int32_t l = 0; l < lines; l++) {
      for (int32_t k = 0; k < along;) {
        int32_t c0 = pass ? k * w + l : l * w + k;
        if (!p[c0]) {
          k++;
          continue;
        }
        int32_t len = 0, ok = 1;
        for (; k < along && p[c0 + len * step]; k++, len++) {
          int32_t c = c0 + len * step;
          /* Both sides across the run: the corridor goes on through each cell. */
          int32_t x = mapf_grid_x(g, c), y = mapf_grid_y(g, c);
          int side1 = pass ? x > 0 && p[c - 1] : y > 0 && p[c - w];
          int side2 = pass ? x + 1 < w && p[c + 1] : y + 1 < h && p[c + w];
          ok &= side1 && side2;
        }
        if (ok && len <= width && door_add(out, &n, &cap, (mapf_door){c0, len, step}) < 0) {
          free(*out);
          *out = NULL;
          return -1;
        }
      }
    }
  }
  return n;
}

typedef struct change_order {
  mapf_mapchange c;
  int64_t k;
} change_order;

/* By step, openings first, then as made. */
static int cmp_change(const void *a, const void *b) {
  const change_order *x = a, *y = b;
  if (x->c.step != y->c.step) return x->c.step < y->c.step ? -1 : 1;
  if (x->c.open != y->c.open) return x->c.open ? -1 : 1;
  return (x->k > y->k) - (x->k < y->k);
}

int mapf_doors_generate(const mapf_grid *g, mapf_instance *inst, int64_t every, int32_t count,
                        int32_t width, int64_t duration, int32_t rounds, uint64_t seed,
                        mapf_diag *d) {
  if (every < 1 || count < 1 || width < 1 || width > MAPF_DOOR_MAX_WIDTH || duration < 1 ||
      rounds < 1 || every > INT64_MAX / 4 / rounds || duration > INT64_MAX / 4)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "doors: expected every >= 1, count >= 1, 1 <= width <= %d, duration >= 1 "
                         "and rounds >= 1", MAPF_DOOR_MAX_WIDTH);
  if ((int64_t)count * rounds * width > INT32_MAX / 4)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "doors: too many map changes");
  free(inst->change);
  inst->change = NULL;
  inst->nchange = 0;
  mapf_door *door = NULL;
  int32_t nd = mapf_doors_find(g, width, &door);
  int64_t *until = NULL; /* per cell: the step it opens again (0: open) */
  int32_t *avail = NULL;
  change_order *o = malloc(2 * (size_t)count * (size_t)rounds * (size_t)width * sizeof *o);
  if (nd > 0) avail = malloc((size_t)nd * sizeof *avail);
  until = calloc((size_t)g->ncells, sizeof *until);
  int rc = MAPF_OK;
  if (nd < 0 || !o || !until || (nd > 0 && !avail)) rc = MAPF_ENOMEM;
  mapf_rng rng;
  mapf_rng_seed(&rng, seed);
  int64_t no = 0;
  for (int32_t r = 1; r <= rounds && rc == MAPF_OK; r++) {
    int64_t t = r * every;
    int32_t na = 0;
    for (int32_t i = 0; i < nd; i++) {
      int open = 1;
      for (int32_t k = 0; k < door[i].len && open; k++)
        open = until[door[i].cell + k * door[i].step] <= t;
      if (open) avail[na++] = i;
    }
    /* A partial Fisher-Yates draw; doors that share a cell with one drawn before them in the
     * round are skipped. */
    int32_t drawn = 0;
    for (int32_t i = 0; i < na && drawn < count; i++) {
      int32_t j = i + (int32_t)mapf_rng_below(&rng, (uint64_t)(na - i));
      int32_t tmp = avail[i];
      avail[i] = avail[j];
      avail[j] = tmp;
      const mapf_door *dr = &door[avail[i]];
      int open = 1;
      for (int32_t k = 0; k < dr->len && open; k++) open = until[dr->cell + k * dr->step] <= t;
      if (!open) continue;
      for (int32_t k = 0; k < dr->len; k++) {
        int32_t c = dr->cell + k * dr->step;
        until[c] = t + duration;
        o[no] = (change_order){{t, c, 0}, no};
        no++;
        o[no] = (change_order){{t + duration, c, 1}, no};
        no++;
      }
      drawn++;
    }
    if (drawn < count) {
      rc = mapf_diag_set(d, MAPF_ENOSPACE, NULL, 0, 0,
                         "doors: map %s has %d doors of width at most %d (passages that narrow)"
                         "%s; cannot close %d at once",
                         g->name, (int)nd, (int)width,
                         na < nd ? ", not all open again in time" : "", (int)count);
      break;
    }
  }
  if (rc == MAPF_OK) {
    qsort(o, (size_t)no, sizeof *o, cmp_change);
    inst->change = malloc((size_t)(no ? no : 1) * sizeof *inst->change);
    if (!inst->change) rc = MAPF_ENOMEM;
    for (int64_t i = 0; i < no && inst->change; i++) inst->change[i] = o[i].c;
    if (inst->change) inst->nchange = (int32_t)no;
  }
  if (rc == MAPF_ENOMEM) mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  free(door);
  free(until);
  free(avail);
  free(o);
  return rc;
}

/* ---- events files ------------------------------------------------------------------------ */

void mapf_events_free(mapf_events_file *f) {
  if (!f) return;
  free(f->step);
  free(f->agent);
  free(f->x);
  free(f->y);
  free(f->line);
  free(f->col_agent);
  free(f->col_x);
  free(f);
}

/* Events files are small beside the maps they run on; a larger file is a mistake. */
#define EVENTS_FILE_MAX ((size_t)256 << 20)

/* Reads a decimal integer in [lo, hi] at *p (no sign for lo >= 0); advances *p. Returns 0 or
 * -1. */
static int read_int(const char **p, const char *end, int64_t lo, int64_t hi, int64_t *v) {
  const char *q = *p;
  int neg = q < end && *q == '-' && lo < 0;
  if (neg) q++;
  if (q >= end || *q < '0' || *q > '9') return -1;
  int64_t x = 0;
  for (; q < end && *q >= '0' && *q <= '9'; q++) {
    if (x > (INT64_MAX - 9) / 10) return -1;
    x = x * 10 + (*q - '0');
  }
  if (q < end && *q != ' ' && *q != '\t' && *q != '\r' && *q != '#') return -1;
  if (neg) x = -x;
  if (x < lo || x > hi) return -1;
  *v = x;
  *p = q;
  return 0;
}

static const char *skip_blank(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
  return p;
}

typedef struct ev_order {
  int64_t step;
  int32_t k;
} ev_order;

static int cmp_ev_order(const void *a, const void *b) {
  const ev_order *x = a, *y = b;
  if (x->step != y->step) return x->step < y->step ? -1 : 1;
  return (x->k > y->k) - (x->k < y->k);
}

int mapf_events_load(const char *path, mapf_events_file **out, mapf_diag *d) {
  *out = NULL;
  char *buf = NULL;
  size_t len = 0;
  int rc = mapf_read_file(path, EVENTS_FILE_MAX, &buf, &len, d);
  if (rc != MAPF_OK) return rc;
  size_t lines = 1;
  for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
  mapf_events_file *f = calloc(1, sizeof *f);
  if (f) {
    snprintf(f->path, sizeof f->path, "%s", path);
    f->step = malloc(lines * sizeof *f->step);
    f->agent = malloc(lines * sizeof *f->agent);
    f->x = malloc(lines * sizeof *f->x);
    f->y = malloc(lines * sizeof *f->y);
    f->line = malloc(lines * sizeof *f->line);
    f->col_agent = malloc(lines * sizeof *f->col_agent);
    f->col_x = malloc(lines * sizeof *f->col_x);
  }
  if (!f || !f->step || !f->agent || !f->x || !f->y || !f->line || !f->col_agent || !f->col_x) {
    free(buf);
    mapf_events_free(f);
    return mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory");
  }
  const char *p = buf, *end = buf + len;
  int line = 0;
  while (p < end && rc == MAPF_OK) {
    line++;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    const char *q = skip_blank(p, eol), *ls = p;
    p = eol < end ? eol + 1 : end;
    if (q == eol || *q == '#') continue;
#define COL(at) ((int)((at) - ls) + 1)
    int64_t step, agent, x, y;
    const char *at = q;
    if (read_int(&q, eol, 1, INT64_MAX / 4, &step) < 0) {
      rc = mapf_diag_set(d, MAPF_EPARSE, path, line, COL(at),
                         "expected a step (an integer >= 1) to begin the event");
      break;
    }
    q = skip_blank(q, eol);
    at = q;
    size_t wl = 0;
    while (q + wl < eol && q[wl] != ' ' && q[wl] != '\t' && q[wl] != '\r') wl++;
    /* The verb: retask, or a map change (close, open: its cell in place of an agent). */
    if (wl == 6 && memcmp(q, "retask", 6) == 0)
      agent = 0;
    else if (wl == 5 && memcmp(q, "close", 5) == 0)
      agent = MAPF_EVENT_CLOSE;
    else if (wl == 4 && memcmp(q, "open", 4) == 0)
      agent = MAPF_EVENT_OPEN;
    else {
      rc = mapf_diag_set(d, MAPF_EPARSE, path, line, COL(at),
                         wl ? "unknown event \"%.*s\"; expected retask, close or open"
                            : "expected an event (retask, close or open) after the step",
                         (int)(wl < 40 ? wl : 40), q);
      break;
    }
    int change = agent < 0;
    q = skip_blank(q + wl, eol);
    const char *at_agent = q;
    if (!change && read_int(&q, eol, 0, INT32_MAX, &agent) < 0) {
      rc = mapf_diag_set(d, MAPF_EPARSE, path, line, COL(at_agent),
                         "expected an agent (its 0-based index in the instance)");
      break;
    }
    q = skip_blank(q, eol);
    const char *at_x = q;
    if (read_int(&q, eol, 0, INT32_MAX, &x) < 0) {
      rc = mapf_diag_set(d, MAPF_EPARSE, path, line, COL(at_x),
                         change ? "expected the cell's x (a column, from 0)"
                                : "expected the new goal's x (a column, from 0)");
      break;
    }
    q = skip_blank(q, eol);
    at = q;
    if (read_int(&q, eol, 0, INT32_MAX, &y) < 0) {
      rc = mapf_diag_set(d, MAPF_EPARSE, path, line, COL(at),
                         change ? "expected the cell's y (a row, from 0)"
                                : "expected the new goal's y (a row, from 0)");
      break;
    }
    q = skip_blank(q, eol);
    if (q < eol && *q != '#') {
      rc = mapf_diag_set(d, MAPF_EPARSE, path, line, COL(q),
                         change ? "unexpected text after the event: `STEP %s X Y`"
                                : "unexpected text after the event: `STEP retask AGENT X Y`",
                         agent == MAPF_EVENT_CLOSE ? "close" : "open");
      break;
    }
    int32_t k = f->n++;
    f->step[k] = step;
    f->agent[k] = (int32_t)agent;
    f->x[k] = (int32_t)x;
    f->y[k] = (int32_t)y;
    f->line[k] = line;
    f->col_agent[k] = COL(at_agent);
    f->col_x[k] = COL(at_x);
#undef COL
  }
  free(buf);
  if (rc != MAPF_OK) {
    mapf_events_free(f);
    return rc;
  }
  /* In order of step, those of one step as listed (a stable sort by index). */
  ev_order *o = malloc((size_t)(f->n ? f->n : 1) * sizeof *o);
  int64_t *s2 = malloc((size_t)(f->n ? f->n : 1) * sizeof *s2);
  int32_t *i2 = malloc((size_t)(f->n ? f->n : 1) * sizeof *i2);
  if (!o || !s2 || !i2) {
    free(o);
    free(s2);
    free(i2);
    mapf_events_free(f);
    return mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory");
  }
  for (int32_t k = 0; k < f->n; k++) o[k] = (ev_order){f->step[k], k};
  qsort(o, (size_t)f->n, sizeof *o, cmp_ev_order);
  for (int32_t k = 0; k < f->n; k++) s2[k] = f->step[o[k].k];
  memcpy(f->step, s2, (size_t)f->n * sizeof *s2);
  int32_t *cols[] = {f->agent, f->x, f->y, f->line, f->col_agent, f->col_x};
  for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
    for (int32_t k = 0; k < f->n; k++) i2[k] = cols[c][o[k].k];
    memcpy(cols[c], i2, (size_t)f->n * sizeof *i2);
  }
  free(o);
  free(s2);
  free(i2);
  f->max_agent = -1;
  for (int32_t k = 0; k < f->n; k++) {
    /* A map change hashes with its negative code in the agent's place, so a file of
     * re-tasking events alone keeps the hash (and the job keys) it had before map changes. */
    int64_t w[4] = {f->step[k], f->agent[k], f->x[k], f->y[k]};
    f->hash = mapf_hash64(w, sizeof w, f->hash);
    f->nchange += f->agent[k] < 0;
    if (f->step[k] >= f->last_step) {
      f->last_step = f->step[k];
      f->line_last = f->line[k];
    }
    if (f->agent[k] > f->max_agent) {
      f->max_agent = f->agent[k];
      f->line_max_agent = f->line[k];
    }
  }
  *out = f;
  return MAPF_OK;
}

int mapf_events_check(const mapf_events_file *f, const mapf_grid *g, int32_t agents,
                      int64_t steps, mapf_diag *d) {
  for (int32_t k = 0; k < f->n; k++) {
    if (f->agent[k] < 0) { /* a map change: any cell of the map may close or open */
      if (f->x[k] >= g->width || f->y[k] >= g->height)
        return mapf_diag_set(d, MAPF_EINVAL, f->path, f->line[k], f->col_x[k],
                             "cell (%d,%d) is outside the map (%d x %d)", (int)f->x[k],
                             (int)f->y[k], (int)g->width, (int)g->height);
      if (steps >= 0 && f->step[k] > steps)
        return mapf_diag_set(d, MAPF_EINVAL, f->path, f->line[k], 1,
                             "event at step %lld is past the step limit (%lld): it would "
                             "never happen", (long long)f->step[k], (long long)steps);
      continue;
    }
    if (f->agent[k] >= agents)
      return mapf_diag_set(d, MAPF_EINVAL, f->path, f->line[k], f->col_agent[k],
                           "unknown agent %d: the instance has %d agents (0 to %d)",
                           (int)f->agent[k], (int)agents, (int)agents - 1);
    if (steps >= 0 && f->step[k] > steps)
      return mapf_diag_set(d, MAPF_EINVAL, f->path, f->line[k], 1,
                           "event at step %lld is past the step limit (%lld): it would never "
                           "happen", (long long)f->step[k], (long long)steps);
    if (f->x[k] >= g->width || f->y[k] >= g->height)
      return mapf_diag_set(d, MAPF_EINVAL, f->path, f->line[k], f->col_x[k],
                           "goal (%d,%d) is outside the map (%d x %d)", (int)f->x[k],
                           (int)f->y[k], (int)g->width, (int)g->height);
    if (!g->passable[mapf_grid_id(g, f->x[k], f->y[k])])
      return mapf_diag_set(d, MAPF_EINVAL, f->path, f->line[k], f->col_x[k],
                           "goal (%d,%d) is a blocked cell of the map", (int)f->x[k],
                           (int)f->y[k]);
  }
  return MAPF_OK;
}

int mapf_events_apply(const mapf_events_file *f, const mapf_grid *g, mapf_instance *inst,
                      mapf_diag *d) {
  int rc = mapf_events_check(f, g, inst->n, -1, d);
  if (rc != MAPF_OK) return rc;
  mapf_retask *ev = malloc((size_t)(f->n ? f->n : 1) * sizeof *ev);
  mapf_mapchange *ch = malloc((size_t)(f->nchange ? f->nchange : 1) * sizeof *ch);
  int32_t *line_of = malloc((size_t)(f->n ? f->n : 1) * sizeof *line_of); /* retask k's event */
  if (!ev || !ch || !line_of) {
    free(ev);
    free(ch);
    free(line_of);
    return mapf_diag_set(d, MAPF_ENOMEM, f->path, 0, 0, "out of memory");
  }
  int32_t nr = 0, nc = 0;
  for (int32_t k = 0; k < f->n; k++) {
    int32_t cell = mapf_grid_id(g, f->x[k], f->y[k]);
    if (f->agent[k] < 0) {
      ch[nc++] = (mapf_mapchange){f->step[k], cell, f->agent[k] == MAPF_EVENT_OPEN};
    } else {
      line_of[nr] = k;
      ev[nr++] = (mapf_retask){f->step[k], f->agent[k], cell};
    }
  }
  free(inst->retask);
  inst->retask = nr ? ev : NULL;
  inst->nretask = nr;
  if (!nr) free(ev);
  free(inst->change);
  inst->change = nc ? ch : NULL;
  inst->nchange = nc;
  if (!nc) free(ch);
  /* The rules that depend on the instance (a new goal reachable from the agent's start and
   * no other agent's goal at that step: scen.h), checked now so that a failure names the
   * event's line. mapf_instance_check's messages begin "event K: ". */
  rc = mapf_instance_check(inst, g, d);
  int k = -1;
  if (rc != MAPF_OK && d && sscanf(d->msg, "event %d: ", &k) == 1 && k >= 0 && k < nr) {
    char msg[sizeof d->msg];
    const char *rest = strchr(d->msg, ':') + 2;
    snprintf(msg, sizeof msg, "%s", rest);
    k = line_of[k];
    mapf_diag_set(d, rc, f->path, f->line[k], f->col_x[k], "%s", msg);
  }
  free(line_of);
  return rc;
}

/* ---- task lists (events.h; docs/robot-runners.md) ------------------------------------- */

int mapf_tasks_begin(mapf_tasks *t, const mapf_instance *inst) {
  t->next = 0;
  t->idle = NULL;
  if (!inst->task) return MAPF_OK;
  int32_t n = inst->n;
  t->idle = calloc((size_t)(n > 0 ? n : 1), 1);
  if (!t->idle) return MAPF_ENOMEM;
  for (int32_t a = 0; a < n; a++) t->idle[a] = mapf_tasks_first(inst, a) < 0;
  /* Greedy deals task a to agent a first (the League's start: agents in order, each taking the
   * next task of the list). */
  if (inst->task_rule == MAPF_TASKS_GREEDY) t->next = n < inst->ntask ? n : inst->ntask;
  return MAPF_OK;
}

void mapf_tasks_end(mapf_tasks *t) {
  free(t->idle);
  t->idle = NULL;
}

int32_t mapf_tasks_first(const mapf_instance *inst, int32_t a) {
  if (inst->task_rule == MAPF_TASKS_ROUNDROBIN) return inst->task[a % inst->ntask];
  return a < inst->ntask ? inst->task[a] : -1;
}

int32_t mapf_tasks_next(mapf_tasks *t, const mapf_grid *g, const mapf_instance *inst, int32_t a,
                        int64_t *done, int32_t current) {
  if (!inst->task) return mapf_lifelong_task(g, inst->task_seed, a, *done, current);
  int64_t m = inst->ntask, n = inst->n, k = *done;
  /* k: the agent's task counter, its next task's number from 0 (one task revealed at a time,
   * so the tasks it has finished). */
  for (int64_t tries = 0;; tries++, k++) {
    int64_t i = -1;
    switch (inst->task_rule) {
    case MAPF_TASKS_GREEDY:
      if (t->next < m) i = t->next++;
      break;
    case MAPF_TASKS_ROUNDROBIN:
      /* (k n + a) mod m without overflow (m < 2^31). Its turn repeats after at most m tasks: a
       * turn that is all `current` leaves it nowhere to go. */
      if (tries < m) i = ((k % m) * (n % m) + a) % m;
      break;
    default: /* MAPF_TASKS_ROUNDROBIN_FIXED: task k n + a while there is one */
      if (a < m && k <= (m - 1 - a) / n) i = k * n + a;
      break;
    }
    if (i < 0) {
      t->idle[a] = 1;
      if (inst->task_rule != MAPF_TASKS_ROUNDROBIN) *done = k;
      return -1;
    }
    if (inst->task[i] != current) {
      *done = k;
      return inst->task[i];
    }
  }
}

static int64_t gcd64(int64_t x, int64_t y) {
  while (y) {
    int64_t r = x % y;
    x = y;
    y = r;
  }
  return x;
}

int64_t mapf_tasks_unreachable(const mapf_grid *g, const mapf_instance *inst, int32_t *agent) {
  const int32_t *comp = g->component, *task = inst->task, *start = inst->start;
  int64_t m = inst->ntask;
  int32_t n = inst->n;
  if (!task || n == 0) return -1;
  switch (inst->task_rule) {
  case MAPF_TASKS_GREEDY: {
    /* Task i < n is agent i's first; with more tasks than agents, any agent may take any later
     * one. other: an agent outside agent 0's component, if there is one. */
    int32_t other = 0;
    for (int32_t a = 1; m > n && a < n && !other; a++)
      if (comp[start[a]] != comp[start[0]]) other = a;
    for (int64_t i = 0; i < m; i++) {
      int32_t b = i < n                              ? (int32_t)i
                  : comp[task[i]] != comp[start[0]] ? 0
                                                     : other;
      if (comp[task[i]] != comp[start[b]]) {
        *agent = b;
        return i;
      }
    }
    return -1;
  }
  case MAPF_TASKS_ROUNDROBIN: {
    /* Agent a's turn is every task i = a (mod q), q = gcd(n, m); agent r < q stands for its
     * class, then each other agent of it must share r's component. */
    int64_t q = gcd64(n, m);
    for (int64_t i = 0; i < m; i++)
      if (comp[task[i]] != comp[start[i % q]]) {
        *agent = (int32_t)(i % q);
        return i;
      }
    for (int32_t a = (int32_t)q; a < n; a++)
      if (comp[start[a]] != comp[start[a % q]]) {
        *agent = a;
        return a % m; /* its first task, in agent a % q's component */
      }
    return -1;
  }
  default: /* MAPF_TASKS_ROUNDROBIN_FIXED: task i is agent i mod n's */
    for (int64_t i = 0; i < m; i++)
      if (comp[task[i]] != comp[start[i % n]]) {
        *agent = (int32_t)(i % n);
        return i;
      }
    return -1;
  }
}
