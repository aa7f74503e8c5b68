/* external.c: algorithm `external`, a plan made by another program (docs/external.md).
 *
 * Per run, the planner's set-up writes the instance as a MovingAI .map and a MAPF .scen
 * (version 1) into a private temporary directory, runs the user's command there with the
 * placeholders filled in (no shell; proc.h: its own process group, a wall-clock limit, the
 * tails of its output kept), reads the plan it wrote in the format of lacam3 and
 * mapf-visualizer (`key=value` header lines, `solution=`, then `t:(x,y),(x,y),...` per step,
 * x the column and y the row), checks every step under the joint rule with the simulator's
 * own checker, and removes the directory. The simulator then executes the plan step by step
 * under the joint rule and measures it as it measures any planner; when the plan ends before
 * every agent is on its goal, the agents stand where it left them.
 *
 * Reentrant: the state is per run, the directory's name is mkdtemp's, and the process is
 * nothing but the child it started (no chdir, no signal handlers). */
#include "external.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "algo.h"
#include "grid.h"
#include "hash.h"
#include "proc.h"
#include "scen.h"
#include "sim_int.h"

typedef struct external_params {
  const char *command; /* canonical JSON list */
  double grace;
} external_params;

static const mapf_param_def external_param_table[] = {
    {"command", MAPF_PARAM_LIST, 0, 0, 0,
     "the solver's argument vector, program first; placeholders {map} {scen} {agents} {out} "
     "{seconds} {ms} {seed} {seed_hex} {steps} {dir} {connectivity} (docs/external.md)",
     NULL, offsetof(external_params, command)},
    {"grace", MAPF_PARAM_REAL, 0, 3600, 1,
     "seconds the solver may run past the wall-clock limit, to write its plan, before it is "
     "killed",
     NULL, offsetof(external_params, grace)},
};

/* ---- placeholders --------------------------------------------------------------------- */

enum { PH_MAP, PH_SCEN, PH_AGENTS, PH_OUT, PH_SECONDS, PH_MS, PH_SEED, PH_SEED_HEX, PH_STEPS,
       PH_DIR, PH_CONNECTIVITY, PH_N };
static const char *const ph_names[PH_N] = {"map",   "scen",    "agents",  "out",
                                           "seconds", "ms",    "seed",    "seed_hex",
                                           "steps", "dir",     "connectivity"};

/* Expands the placeholders of arg: {name} by values[name's index], {{ and }} by one brace.
 * values NULL: only checks the names. Writes at most n - 1 bytes into out (NULL: none) and
 * returns the length the expansion needs, or -1 with why. */
static long expand(const char *arg, const char *const *values, char *out, size_t n, char *why,
                   size_t wn) {
  size_t len = 0;
#define PUT(s, k)                                                                           \
  do {                                                                                      \
    if (out && len + (k) < n) memcpy(out + len, (s), (k));                                  \
    len += (k);                                                                             \
  } while (0)
  for (const char *p = arg; *p;) {
    if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
      PUT(p, 1);
      p += 2;
      continue;
    }
    if (*p == '}') {
      snprintf(why, wn, "a lone } in \"%s\" (}} stands for one)", arg);
      return -1;
    }
    if (*p != '{') {
      PUT(p, 1);
      p++;
      continue;
    }
    const char *end = strchr(p, '}');
    if (!end) {
      snprintf(why, wn, "an unclosed { in \"%s\" ({{ stands for one)", arg);
      return -1;
    }
    size_t k = (size_t)(end - p - 1);
    int ph = -1;
    for (int i = 0; i < PH_N; i++)
      if (strlen(ph_names[i]) == k && strncmp(p + 1, ph_names[i], k) == 0) ph = i;
    if (ph < 0) {
      snprintf(why, wn,
               "unknown placeholder {%.*s} in \"%s\"; known: {map} {scen} {agents} {out} "
               "{seconds} {ms} {seed} {seed_hex} {steps} {dir} {connectivity}",
               (int)(k < 40 ? k : 40), p + 1, arg);
      return -1;
    }
    if (values) PUT(values[ph], strlen(values[ph]));
    p = end + 1;
  }
#undef PUT
  if (out && n) out[len < n ? len : n - 1] = '\0';
  return (long)len;
}

/* Why an empty command or program cannot run. */
#define EMPTY_PROGRAM                                                                        \
  "no program; give the solver's program and its arguments, e.g. [\"./solver\", \"{map}\", "  \
  "\"{scen}\", \"{out}\"]"

static int external_rules(const void *params, mapf_diag *d) {
  const external_params *p = params;
  char **argv = NULL;
  int32_t argc = 0;
  int rc = mapf_list_split(p->command, &argv, &argc);
  if (rc == MAPF_ENOMEM) return mapf_diag_set(d, rc, NULL, 0, 0, "out of memory");
  if (rc != MAPF_OK) return mapf_diag_set(d, rc, NULL, 0, 0, "command: not a list of strings");
  char why[400];
  /* The empty list, the default, passes here (a registry's defaults pass their own checks);
   * a run refuses it, and so does the farm before any job runs (mapf_external_hash). */
  if (argc > 0 && !argv[0][0])
    rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "command: %s", EMPTY_PROGRAM);
  else if (argc > 0 && (strchr(argv[0], '{') || strchr(argv[0], '}')))
    rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                       "command: the program \"%.100s\" (the first item) may not hold a "
                       "placeholder: its file is hashed into the job keys before any job runs",
                       argv[0]);
  for (int32_t i = 1; i < argc && rc == MAPF_OK; i++)
    if (expand(argv[i], NULL, NULL, 0, why, sizeof why) < 0)
      rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "command: item %d: %s", (int)i + 1, why);
  free(argv);
  return rc;
}

/* ---- the instance's files ---------------------------------------------------------------- */

/* The map's file name: the grid's own when it is a plain .map name (the .scen names it, and
 * lacam3 reads only lines whose map ends in .map), else map.map. */
static void map_file_name(const mapf_grid *g, char *buf, size_t n) {
  const char *name = g->name ? g->name : "";
  size_t len = strlen(name);
  int plain = len > 4 && len < 100 && strcmp(name + len - 4, ".map") == 0;
  for (size_t i = 0; plain && i < len; i++)
    plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
                   name[i]) != NULL;
  snprintf(buf, n, "%s", plain ? name : "map.map");
}

/* The grid as a MovingAI .map: `.` passable, `@` blocked (the passability the grid has, so
 * every solver reads the same map whatever terrain letters the original used). */
static int write_map(const mapf_grid *g, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  char *row = malloc((size_t)g->width + 1);
  int ok = row && fprintf(f, "type octile\nheight %d\nwidth %d\nmap\n", (int)g->height,
                          (int)g->width) > 0;
  for (int32_t y = 0; ok && y < g->height; y++) {
    for (int32_t x = 0; x < g->width; x++)
      row[x] = g->passable[mapf_grid_id(g, x, y)] ? '.' : '@';
    row[g->width] = '\n';
    ok = fwrite(row, 1, (size_t)g->width + 1, f) == (size_t)g->width + 1;
  }
  free(row);
  if (fclose(f) != 0) ok = 0;
  return ok ? 0 : -1;
}

static int write_scen(const mapf_instance *inst, const mapf_grid *g, const char *map_name,
                      const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int ok = mapf_instance_write_scen(inst, g, map_name, inst->optimal, f) == MAPF_OK;
  if (fclose(f) != 0) ok = 0;
  return ok ? 0 : -1;
}

/* ---- the plan ---------------------------------------------------------------------------- */

typedef struct external {
  int32_t n;
  int64_t steps;  /* lines of the plan: time 0 .. steps - 1 */
  int32_t *cells; /* steps x n cells, line t at cells + t * n */
} external;

static void external_free(void *state) {
  external *X = state;
  if (!X) return;
  free(X->cells);
  free(X);
}

/* The next line of text[*at .. len), without its end of line (\n or \r\n); 0 at the end. */
static int next_line(const char *text, size_t len, size_t *at, const char **s, size_t *k) {
  if (*at >= len) return 0;
  const char *p = text + *at, *nl = memchr(p, '\n', len - *at);
  size_t n = nl ? (size_t)(nl - p) : len - *at;
  *at += n + (nl ? 1 : 0);
  while (n > 0 && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
  *s = p;
  *k = n;
  return 1;
}

static int read_uint(const char **p, const char *end, long long *v) {
  const char *q = *p;
  long long x = 0;
  if (q >= end || *q < '0' || *q > '9') return -1;
  while (q < end && *q >= '0' && *q <= '9') {
    if (x > 100000000000LL) return -1;
    x = x * 10 + (*q++ - '0');
  }
  *p = q;
  *v = x;
  return 0;
}

static const char *skip_sp(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  return p;
}

/* Reads the solver's output: header lines up to `solution=` (comp_time= in ms into *comp_ms,
 * else NaN; other lines are skipped, lacam3 writes free text there too), then one line per
 * step, `t:(x,y),(x,y),...` with t counting from 0, every agent on every line, every cell in
 * the map. No step line at all is a plan that leaves the agents on their starts. Fills X, or
 * returns -1 with why. */
static int parse_plan(const char *text, size_t len, const mapf_grid *g, int32_t n, external *X,
                      double *comp_ms, char *why, size_t wn) {
  size_t at = 0;
  const char *s;
  size_t k;
  int line = 0, solution = 0;
  *comp_ms = NAN;
  while (next_line(text, len, &at, &s, &k)) {
    line++;
    if (k == 9 && memcmp(s, "solution=", 9) == 0) {
      solution = 1;
      break;
    }
    if (k > 10 && memcmp(s, "comp_time=", 10) == 0) {
      char num[64];
      snprintf(num, sizeof num, "%.*s", (int)(k - 10 < 63 ? k - 10 : 63), s + 10);
      char *end = NULL;
      double v = strtod(num, &end);
      if (end != num && *end == '\0' && isfinite(v) && v >= 0) *comp_ms = v;
    }
  }
  if (!solution) {
    snprintf(why, wn,
             "no line \"solution=\" in its %d lines (lacam3's format: key=value lines, "
             "solution=, then one line per step t:(x,y),(x,y),...)",
             line);
    return -1;
  }
  int64_t cap = 0;
  X->steps = 0;
  while (next_line(text, len, &at, &s, &k)) {
    line++;
    const char *p = skip_sp(s, s + k), *end = s + k;
    if (p == end) continue; /* a blank line */
    long long t, x, y;
    if (read_uint(&p, end, &t) < 0 || p >= end || *p != ':') {
      snprintf(why, wn, "line %d: expected \"%lld:(x,y),...\", found \"%.*s\"", line,
               (long long)X->steps, (int)(k < 40 ? k : 40), s);
      return -1;
    }
    if (t != X->steps) {
      snprintf(why, wn, "line %d: step %lld where step %lld comes next", line, t,
               (long long)X->steps);
      return -1;
    }
    if (X->steps == cap) {
      int64_t c = cap ? 2 * cap : 64;
      int32_t *m = realloc(X->cells, (size_t)c * (size_t)(n > 0 ? n : 1) * sizeof *m);
      if (!m) {
        snprintf(why, wn, "out of memory for a plan of %lld steps", (long long)c);
        return -1;
      }
      X->cells = m;
      cap = c;
    }
    int32_t *row = X->cells + X->steps * n;
    int32_t a = 0;
    p++;
    for (;;) {
      p = skip_sp(p, end);
      if (p == end) break;
      const char *item = p;
      if (*p++ != '(' || read_uint(&p, end, &x) < 0 || (p = skip_sp(p, end)) >= end ||
          *p++ != ',' || (p = skip_sp(p, end), read_uint(&p, end, &y)) < 0 ||
          (p = skip_sp(p, end)) >= end || *p++ != ')') {
        snprintf(why, wn, "line %d (step %lld): expected (x,y) at \"%.*s\"", line, t,
                 (int)(end - item < 30 ? end - item : 30), item);
        return -1;
      }
      if (a == n) {
        snprintf(why, wn, "line %d (step %lld): more than %d positions, one per agent", line, t,
                 (int)n);
        return -1;
      }
      if (x >= g->width || y >= g->height) {
        snprintf(why, wn, "line %d (step %lld): agent %d at (%lld,%lld), outside the %dx%d map",
                 line, t, (int)a, x, y, (int)g->width, (int)g->height);
        return -1;
      }
      row[a++] = mapf_grid_id(g, (int32_t)x, (int32_t)y);
      p = skip_sp(p, end);
      if (p < end && *p == ',') p++;
    }
    if (a != n) {
      snprintf(why, wn, "line %d (step %lld): %d positions for %d agents", line, t, (int)a,
               (int)n);
      return -1;
    }
    X->steps++;
  }
  return 0;
}

/* Checks the plan: its first line the starts, then every step under the joint rule (every
 * move a move of the grid, no two agents on one cell, no swap). An illegal step is described
 * by the simulator's checker (sim_int.h), so it reads as a step the simulator refused would.
 * O(agents) per step. Returns 0, -1 with why, or -2 when out of memory. */
static int check_plan(const mapf_grid *g, const mapf_instance *inst, const external *X,
                      char *why, size_t wn) {
  int32_t n = X->n;
  for (int32_t a = 0; a < n; a++)
    if (X->cells[a] != inst->start[a]) {
      snprintf(why, wn, "step 0: agent %d at (%d,%d), not on its start (%d,%d)", (int)a,
               (int)mapf_grid_x(g, X->cells[a]), (int)mapf_grid_y(g, X->cells[a]),
               (int)mapf_grid_x(g, inst->start[a]), (int)mapf_grid_y(g, inst->start[a]));
      return -1;
    }
  /* occ: the agent on each cell before the step; end: the agent ending on it (-1 between
   * steps). */
  int32_t *occ = malloc((size_t)g->ncells * sizeof *occ);
  int32_t *end = malloc((size_t)g->ncells * sizeof *end);
  if (!occ || !end) {
    free(occ);
    free(end);
    return -2;
  }
  for (int32_t c = 0; c < g->ncells; c++) occ[c] = end[c] = -1;
  int rc = 0;
  for (int64_t t = 1; t < X->steps && rc == 0; t++) {
    const int32_t *prev = X->cells + (t - 1) * n, *cur = X->cells + t * n;
    int bad = 0;
    for (int32_t a = 0; a < n; a++) occ[prev[a]] = a;
    for (int32_t a = 0; a < n && !bad; a++) {
      int32_t from = prev[a], to = cur[a];
      if (from != to) {
        int d = mapf_grid_dir(g, from, to);
        if (d < 0 || !(g->moves[from] >> d & 1)) bad = 1;
        int32_t b = occ[to];
        if (b >= 0 && cur[b] == from) bad = 1;
      }
      if (end[to] >= 0) bad = 1;
      end[to] = a;
    }
    if (bad) {
      /* The simulator's checker says which move and why, on a run state of this step. */
      mapf__sim sim;
      memset(&sim, 0, sizeof sim);
      sim.grid = g;
      sim.n = n;
      sim.pos = (int32_t *)prev;
      sim.want = (int32_t *)cur;
      sim.occ = occ;
      sim.time = t - 1;
      if (!mapf__joint_describe(&sim, why, wn))
        snprintf(why, wn, "illegal joint step %lld", (long long)t);
      rc = -1;
    }
    for (int32_t a = 0; a < n; a++) {
      occ[prev[a]] = -1;
      end[cur[a]] = -1;
    }
  }
  free(occ);
  free(end);
  return rc;
}

/* ---- the run ----------------------------------------------------------------------------- */

/* The last ~200 characters of a child's stream as one line: newlines as " | ", other control
 * characters as spaces, blanks at both ends dropped. */
static void tail_line(const char *s, char *out, size_t n) {
  size_t len = strlen(s);
  while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' ' ||
                     s[len - 1] == '\t'))
    len--;
  size_t from = len > 200 ? len - 200 : 0;
  while (from < len && (s[from] == '\n' || s[from] == ' ')) from++;
  size_t k = 0;
  if (from > 0 && k + 3 < n) k += (size_t)snprintf(out + k, n - k, "...");
  for (size_t i = from; i < len && k + 4 < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\n') {
      memcpy(out + k, " | ", 3);
      k += 3;
    } else {
      out[k++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
    }
  }
  out[k < n ? k : n - 1] = '\0';
}

/* "; stderr: TAIL" (or its stdout's when its stderr is empty, or "; no output") for a message
 * about the solver. */
static void output_note(const mapf__proc_result *pr, char *buf, size_t n) {
  char t[256];
  tail_line(pr->err, t, sizeof t);
  if (t[0]) {
    snprintf(buf, n, "; stderr: %s", t);
    return;
  }
  tail_line(pr->out, t, sizeof t);
  snprintf(buf, n, t[0] ? "; stdout: %s" : "; no output", t);
}

static int external_init(mapf__sim *sim, void **state, mapf_diag *d) {
  external_params P;
  int rc = mapf_params_fill(sim->cfg->algo, &sim->cfg->params, &P, sizeof P, d);
  if (rc != MAPF_OK) return rc;
  const mapf_run_config *cfg = sim->cfg;
  const mapf_grid *g = sim->grid;
  const mapf_instance *inst = cfg->inst;
  if (!(cfg->limits.seconds > 0))
    return mapf_diag_set(d, MAPF_EUNSUPPORTED, NULL, 0, 0,
                         "external: the solver needs a wall-clock limit (limits: seconds; solve "
                         "--seconds), at which it is killed");
  /* A plan is made once, before the run, for one goal per agent: targets that change during
   * the run (patrol turns, re-tasking, lifelong tasks) would need the solver again. */
  if (inst->loops > 0 || inst->nretask > 0 || inst->lifelong)
    return mapf_diag_set(d, MAPF_EUNSUPPORTED, NULL, 0, 0,
                         "external: %s is not a MAPF problem a solver's plan can answer (one goal "
                         "per agent, fixed before the run)",
                         inst->loops > 0      ? "a patrol instance"
                         : inst->nretask > 0 ? "an instance with re-tasking events"
                                             : "a lifelong instance");
  char **cmd = NULL;
  int32_t argc = 0;
  rc = mapf_list_split(P.command, &cmd, &argc);
  if (rc != MAPF_OK)
    return mapf_diag_set(d, rc, NULL, 0, 0, "external: command: %s", mapf_strerror(rc));
  if (argc == 0) {
    free(cmd);
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "external: command: %s", EMPTY_PROGRAM);
  }
  external *X = calloc(1, sizeof *X);
  char **argv = calloc((size_t)argc + 1, sizeof *argv);
  char dir[1024] = "", map_path[1200], scen_path[1200], out_path[1200], map_name[128];
  char *text = NULL;
  if (!X || !argv) {
    rc = mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
    goto done;
  }
  X->n = sim->n;
  rc = mapf__proc_tmpdir("mapfarm-external", dir, sizeof dir, d);
  if (rc != MAPF_OK) {
    dir[0] = '\0';
    goto done;
  }
  map_file_name(g, map_name, sizeof map_name);
  snprintf(map_path, sizeof map_path, "%s/%s", dir, map_name);
  snprintf(scen_path, sizeof scen_path, "%s/instance.scen", dir);
  snprintf(out_path, sizeof out_path, "%s/solution.txt", dir);
  if (write_map(g, map_path) < 0 || write_scen(inst, g, map_name, scen_path) < 0) {
    rc = mapf_diag_set(d, MAPF_EIO, NULL, 0, 0, "external: cannot write the instance into %s",
                       dir);
    goto done;
  }
  /* The placeholders' values. {seed} fits a C int, which solvers parse it into (lacam3's
   * stoi); {seed_hex} is the whole seed as results.seed prints it. */
  char agents[24], seconds[40], ms[24], seed[24], seed_hex[24], steps[24];
  snprintf(agents, sizeof agents, "%d", (int)sim->n);
  mapf_format_real(cfg->limits.seconds, MAPF_REAL_DIGITS, seconds, sizeof seconds);
  snprintf(ms, sizeof ms, "%lld", (long long)llround(cfg->limits.seconds * 1000));
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)(cfg->seed & 0x7fffffffu));
  snprintf(seed_hex, sizeof seed_hex, "%016llx", (unsigned long long)cfg->seed);
  snprintf(steps, sizeof steps, "%lld", (long long)cfg->limits.steps);
  /* The grid's move set, as a solver needs to know it: 4 when it has no diagonal move at all
   * (connectivity 4, or a map where no diagonal can be taken, which is the same), else 8. */
  const char *connectivity = "4";
  for (int32_t c = 0; c < g->ncells; c++)
    if (g->moves[c] >> MAPF_DIR_NE) {
      connectivity = "8";
      break;
    }
  const char *values[PH_N] = {map_path, scen_path, agents, out_path, seconds,     ms,
                              seed,     seed_hex,  steps,  dir,      connectivity};
  for (int32_t i = 0; i < argc; i++) {
    char why[400];
    long k = expand(cmd[i], values, NULL, 0, why, sizeof why);
    if (k < 0) {
      rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "external: command: item %d: %s", (int)i + 1,
                         why);
      goto done;
    }
    if (!(argv[i] = malloc((size_t)k + 1))) {
      rc = mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
      goto done;
    }
    expand(cmd[i], values, argv[i], (size_t)k + 1, why, sizeof why);
  }
  mapf__proc_result *pr = malloc(sizeof *pr);
  if (!pr) {
    rc = mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
    goto done;
  }
  rc = mapf__proc_run(argv, cfg->limits.seconds + P.grace, pr, d);
  char note[300], why[400];
  size_t len = 0;
  mapf_diag rd;
  if (rc != MAPF_OK) {
    char msg[sizeof d->msg];
    snprintf(msg, sizeof msg, "%s", d->msg);
    rc = mapf_diag_set(d, rc, NULL, 0, 0, "external: %s", msg);
  } else if ((output_note(pr, note, sizeof note), pr->timed_out)) {
    char lim[40], gr[40];
    mapf_format_real(cfg->limits.seconds, MAPF_REAL_DIGITS, lim, sizeof lim);
    mapf_format_real(P.grace, MAPF_REAL_DIGITS, gr, sizeof gr);
    rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                       "external: the solver was killed at its wall-clock limit (%s s, grace %s "
                       "s)%s",
                       lim, gr, note);
  } else if (!pr->exited) {
    rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "external: the solver was ended by signal %d%s",
                       pr->signal, note);
  } else if (pr->code != 0) {
    rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                       "external: the solver exited with status %d%s", pr->code, note);
  } else if (mapf_read_file(out_path, (size_t)1 << 31, &text, &len, &rd) != MAPF_OK) {
    rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                       "external: the solver wrote no plan ({out}: %s)%s",
                       strstr(rd.msg, "No such file") ? "no such file" : rd.msg, note);
  } else {
    double comp_ms;
    int e = parse_plan(text, len, g, sim->n, X, &comp_ms, why, sizeof why);
    if (e == 0 && X->steps == 0) {
      /* `solution=` and no step: no plan (lacam3 when it fails); the agents stay. */
      free(X->cells);
      X->cells = malloc((size_t)(sim->n > 0 ? sim->n : 1) * sizeof *X->cells);
      if (X->cells) {
        memcpy(X->cells, inst->start, (size_t)sim->n * sizeof *X->cells);
        X->steps = 1;
      } else {
        e = -2;
      }
    }
    if (e == 0) e = check_plan(g, inst, X, why, sizeof why);
    if (e == -2)
      rc = mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
    else if (e < 0 && strncmp(why, "illegal joint step", 18) == 0)
      rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "external: the solver's plan has an %s",
                         why);
    else if (e < 0)
      rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "external: the solver's plan ({out}): %s%s",
                         why, note);
    sim->solver_seconds = comp_ms / 1000.0;
  }
  free(pr);
done:
  if (dir[0]) mapf__proc_rmtree(dir);
  free(text);
  for (int32_t i = 0; argv && i < argc; i++) free(argv[i]);
  free(argv);
  free(cmd);
  if (rc != MAPF_OK) {
    external_free(X);
    return rc;
  }
  /* The limit was the solver's: executing its plan is no search, so it runs to the plan's end
   * (or the step limit) whatever the clock says. */
  sim->deadline = 0;
  sim->push = 0;
  *state = X;
  return MAPF_OK;
}

/* The plan's next line as the joint step; past its end every agent waits. */
static int external_plan(mapf__sim *sim, void *state) {
  const external *X = state;
  int64_t t = sim->time + 1;
  const int32_t *row = t < X->steps ? X->cells + t * X->n : NULL;
  for (int32_t a = 0; a < sim->n; a++)
    sim->want[a] = row && row[a] != sim->pos[a] ? row[a] : MAPF__WAIT;
  return MAPF_OK;
}

static const mapf__planner_vt external_vt = {
    .init = external_init,
    .plan = external_plan,
    .free = external_free,
};

MAPF_ALGORITHM(external, 90) = {
    .name = "external",
    .label = "External",
    .doc = "a plan made by another program (lacam3, pibt2, your own): mapfarm writes the "
           "instance as .map and .scen, runs `command` under the wall-clock limit, reads its "
           "plan in lacam3's format, checks every step under the joint rule and executes it "
           "(docs/external.md)",
    .params = external_param_table,
    .nparams = MAPF_NPARAMS(external_param_table),
    .size = sizeof(external_params),
    .rules = external_rules,
    .vt = &external_vt,
    .joint = true,
    .program = "command",
};

/* ---- the program, for job keys ------------------------------------------------------------ */

/* Whether path is a regular file this user may execute; errno-like reason in *e otherwise. */
static int runnable(const char *path, int *e) {
  struct stat sb;
  if (stat(path, &sb) < 0) {
    *e = errno;
    return 0;
  }
  if (!S_ISREG(sb.st_mode)) {
    *e = S_ISDIR(sb.st_mode) ? EISDIR : EACCES;
    return 0;
  }
  if (access(path, X_OK) < 0) {
    *e = errno;
    return 0;
  }
  return 1;
}

int mapf_external_find(const char *program, char *path, size_t n, mapf_diag *d) {
  int e = 0;
  char why[128];
  if (!*program) return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "command: %s", EMPTY_PROGRAM);
  if (strchr(program, '/')) {
    if (runnable(program, &e)) {
      snprintf(path, n, "%s", program);
      return MAPF_OK;
    }
    if (e == EACCES || e == EISDIR)
      return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                           "program \"%.200s\" is not an executable file%s", program,
                           e == EISDIR ? " (a directory)" : "");
    if (strerror_r(e, why, sizeof why) != 0) snprintf(why, sizeof why, "error %d", e);
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "program \"%.200s\": %s", program, why);
  }
  const char *env = getenv("PATH");
  const char *dirs = env ? env : "/bin:/usr/bin";
  int denied = 0;
  for (const char *p = dirs;;) {
    const char *colon = strchr(p, ':');
    size_t k = colon ? (size_t)(colon - p) : strlen(p);
    /* An empty entry is the current directory, as execvp takes it. */
    int w = k ? snprintf(path, n, "%.*s/%s", (int)k, p, program) : snprintf(path, n, "%s", program);
    if (w > 0 && (size_t)w < n) {
      if (runnable(path, &e)) return MAPF_OK;
      if (e == EACCES) denied = 1;
    }
    if (!colon) break;
    p = colon + 1;
  }
  return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                       denied ? "program \"%.200s\" is on PATH but not executable"
                              : "program \"%.200s\" is not on PATH",
                       program);
}

/* Adds the content of the regular file at path to the two hash chains; -1 with errno. */
static int hash_file(const char *path, uint64_t h[2]) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  char *buf = malloc(1 << 16);
  if (!buf) {
    close(fd);
    errno = ENOMEM;
    return -1;
  }
  int rc = 0;
  for (;;) {
    ssize_t k = read(fd, buf, 1 << 16);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) rc = -1;
    if (k <= 0) break;
    h[0] = mapf_hash64(buf, (size_t)k, h[0]);
    h[1] = mapf_hash64(buf, (size_t)k, h[1]);
  }
  free(buf);
  close(fd);
  return rc;
}

int mapf_external_hash(const char *command, char hex[33], mapf_diag *d) {
  char **argv = NULL;
  int32_t argc = 0;
  int rc = mapf_list_split(command, &argv, &argc);
  if (rc != MAPF_OK) return mapf_diag_set(d, rc, NULL, 0, 0, "command: %s", mapf_strerror(rc));
  if (argc == 0) {
    free(argv);
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "command: %s", EMPTY_PROGRAM);
  }
  char path[4096], why[128];
  rc = mapf_external_find(argv[0], path, sizeof path, d);
  uint64_t h[2] = {0x6d61706661726d31ULL, 0x65787465726e616cULL};
  if (rc == MAPF_OK && hash_file(path, h) < 0) {
    int e = errno;
    if (strerror_r(e, why, sizeof why) != 0) snprintf(why, sizeof why, "error %d", e);
    rc = mapf_diag_set(d, MAPF_EIO, NULL, 0, 0, "program \"%.200s\": cannot read it: %s", path,
                       why);
  }
  /* The arguments that are files (with the item's index, so moving content between them
   * changes the hash); placeholders name per-run files, never hashed. */
  for (int32_t i = 1; i < argc && rc == MAPF_OK; i++) {
    struct stat sb;
    if (strchr(argv[i], '{') || stat(argv[i], &sb) < 0 || !S_ISREG(sb.st_mode)) continue;
    h[0] = mapf_hash64(&i, sizeof i, h[0]);
    h[1] = mapf_hash64(&i, sizeof i, h[1]);
    if (hash_file(argv[i], h) < 0) {
      int e = errno;
      if (strerror_r(e, why, sizeof why) != 0) snprintf(why, sizeof why, "error %d", e);
      rc = mapf_diag_set(d, MAPF_EIO, NULL, 0, 0,
                         "command: item %d, \"%.200s\": cannot read it: %s", (int)i + 1, argv[i],
                         why);
    }
  }
  free(argv);
  if (rc != MAPF_OK) return rc;
  mapf_hash128_hex((mapf_hash128){h[0], h[1]}, hex);
  return MAPF_OK;
}
