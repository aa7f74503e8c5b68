/* plan_maps.c: the `maps` and `scenarios` sections of a plan (farm/plan.c): map paths resolved
 * against the plan's directory and the map directories, map-generator entries checked against
 * the generator's parameter table, scenario files and generators, agent counts and instances.
 * A map or an agent count listed twice is refused here: its jobs would repeat with the same
 * keys. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "algo.h"
#include "events.h"
#include "hash.h"
#include "plan_int.h"
#include "scen.h"
#include "scengen.h"

/* ---- maps ------------------------------------------------------------------------------- */

/* Whether something is at path, or we may not look: the loader then says what is wrong when it
 * is not a regular file we can read ("is a directory", "Permission denied"). */
static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

/* dir + "/" + rel in fresh memory ("." adds nothing). */
static char *join_path(const char *dir, const char *rel) {
  if (!strcmp(dir, ".")) return strdup(rel);
  size_t ld = strlen(dir), lr = strlen(rel);
  int slash = ld > 0 && dir[ld - 1] == '/';
  char *s = malloc(ld + lr + 2);
  if (!s) return NULL;
  memcpy(s, dir, ld);
  if (!slash) s[ld++] = '/';
  memcpy(s + ld, rel, lr + 1);
  return s;
}

/* Finds a map file: an absolute path as is; a relative one under the plan's directory, then
 * under each opts->map_dirs entry. Returns the path found (malloc'd) or NULL (reported). */
static char *resolve_file(pctx *c, const pnode *v, const char *dir, const farm_plan_opts *opts,
                          const char *what) {
  const char *rel = v->str;
  if (rel[0] == '/') {
    if (file_exists(rel)) return farm__plan_xstrdup(c, rel);
    farm__plan_perr(c, v->line, v->col, "%s not found: \"%s\"", what, rel);
    return NULL;
  }
  char looked[400];
  size_t k = 0;
  looked[0] = '\0';
  int32_t ndirs = opts ? opts->nmap_dirs : 0;
  for (int32_t i = -1; i < ndirs; i++) {
    const char *d = i < 0 ? dir : opts->map_dirs[i];
    if (!d || !d[0]) continue;
    char *p = join_path(d, rel);
    if (!p) {
      farm__plan_perr_fatal_oom(c);
      return NULL;
    }
    if (file_exists(p)) return p;
    free(p);
    if (k < sizeof looked) {
      int w = snprintf(looked + k, sizeof looked - k, "%s%s", k ? ", " : "", d);
      if (w > 0) k += (size_t)w;
    }
  }
  farm__plan_perr(c, v->line, v->col, "%s not found: \"%s\" (looked in: %s)", what, rel, looked);
  return NULL;
}

static char *resolve_map(pctx *c, const pnode *v, const char *dir, const farm_plan_opts *opts) {
  return resolve_file(c, v, dir, opts, "map file");
}

/* The generated map's name, exactly as mapgen.c names its grid ("random-64x64-d0.2-s7",
 * "rooms-64x64-r8-k1-s0", "maze-63x63-c2-s0"; the density with %g and a '.' whatever the
 * locale), so a map spec's source and its grid's name agree (tests/test_expand.c checks it).
 * `exact` gets a key that tells every parameter apart (the name rounds the density to six
 * digits), for finding a generate entry given twice. */
static void gen_name(const mapf_mapgen_params *g, char *buf, size_t n, char *exact, size_t ne) {
  char tmp[64], d[64];
  double density = g->density == 0 ? 0.0 : g->density;
  snprintf(tmp, sizeof tmp, "%g", density);
  size_t o = 0;
  for (size_t i = 0; tmp[i] && o + 1 < sizeof d; i++)
    d[o++] = (tmp[i] >= '0' && tmp[i] <= '9') || tmp[i] == '-' || tmp[i] == '+' || tmp[i] == 'e'
                 ? tmp[i]
                 : '.';
  d[o] = '\0';
  switch (g->kind) {
  case MAPF_MAPGEN_RANDOM:
    snprintf(buf, n, "random-%dx%d-d%s-s%llu", (int)g->width, (int)g->height, d,
             (unsigned long long)g->seed);
    break;
  case MAPF_MAPGEN_ROOMS:
    snprintf(buf, n, "rooms-%dx%d-r%d-k%d-s%llu", (int)g->width, (int)g->height, (int)g->room,
             (int)g->doors, (unsigned long long)g->seed);
    break;
  default:
    snprintf(buf, n, "maze-%dx%d-c%d-s%llu", (int)g->width, (int)g->height, (int)g->corridor,
             (unsigned long long)g->seed);
    break;
  }
  snprintf(exact, ne, "generate:%s:%.17g", buf, g->kind == MAPF_MAPGEN_RANDOM ? density : 0.0);
}

/* The keys of `generate` are core's table (core/mapgen.h): parse_generate reads only it, as
 * `mapfarm generators` and mapf_mapgen_defaults do. `kind` comes first: it decides which
 * other keys apply. */

/* Stores x in the field of p that key k names. */
static void gen_set(mapf_mapgen_params *p, const mapf_mapgen_key *k, double x, uint64_t u) {
  char *field = (char *)p + k->offset;
  switch (k->type) {
  case MAPF_MAPGEN_KEY_INT:
    *(int32_t *)(void *)field = (int32_t)x;
    break;
  case MAPF_MAPGEN_KEY_REAL:
    *(double *)(void *)field = x;
    break;
  case MAPF_MAPGEN_KEY_U64:
    *(uint64_t *)(void *)field = u;
    break;
  default:
    break;
  }
}

/* `generate: {kind, width, height, ...}`, checked against core's table of keys. The map seed defaults to 0
 * and does not depend on the plan seed: the same generate entry gives the same map in every
 * plan. */
static void parse_generate(pctx *c, farm_map_spec *ms, const pnode *g) {
  static const char *const kinds[3] = {"random", "rooms", "maze"};
  const char *keys[MAPF_MAPGEN_NKEYS];
  for (int32_t i = 0; i < MAPF_MAPGEN_NKEYS; i++) keys[i] = mapf_mapgen_key_at(i)->name;
  char fbuf[80], h[480];
  int32_t before = c->nfail;
  kv f[MAPF_MAPGEN_NKEYS];
  farm__plan_walk_map(c, g, keys, MAPF_MAPGEN_NKEYS, f, "generate");
  int kind = -1;
  if (farm__plan_require(c, g, &f[0], "kind", "generate") == 0) {
    const pnode *v = f[0].val;
    if (v->kind == PN_SCALAR && !farm__plan_is_null(v)) {
      kind = mapf_mapgen_kind_parse(v->str);
      if (kind < 0) {
        farm__plan_hint(v->str, kinds, 3, h, sizeof h);
        farm__plan_perr(c, v->line, v->col, "unknown map kind \"%s\"%s", v->str, h);
      }
    } else if (!farm__plan_bad(c, v)) {
      farm__plan_perr(c, v->line, v->col, "kind: expected random, rooms or maze, found %s",
                      FOUND(v));
    }
  }
  mapf_mapgen_params *p = &ms->gen;
  mapf_mapgen_defaults(p, kind >= 0 ? (mapf_mapgen_kind)kind : MAPF_MAPGEN_RANDOM);
  for (int32_t i = 1; i < MAPF_MAPGEN_NKEYS; i++) {
    const mapf_mapgen_key *k = mapf_mapgen_key_at(i);
    if (k->required)
      farm__plan_require(c, g, &f[i], k->name, "generate");
    else if (kind >= 0 && (k->kinds >> kind & 1u))
      gen_set(p, k, k->def, (uint64_t)k->def);
  }
  for (int32_t i = 1; i < MAPF_MAPGEN_NKEYS; i++) {
    const mapf_mapgen_key *k = mapf_mapgen_key_at(i);
    const pnode *v = f[i].val;
    if (!v) continue;
    if (kind >= 0 && !(k->kinds >> kind & 1u)) {
      farm__plan_perr(c, f[i].key->line, f[i].key->col, "key \"%s\" does not apply to kind %s",
                      k->name, kinds[kind]);
      continue;
    }
    long long x;
    double r;
    uint64_t u;
    switch (k->type) {
    case MAPF_MAPGEN_KEY_INT:
      if (farm__plan_get_int(c, v, k->name, (long long)k->min, (long long)k->max, &x) == 0)
        gen_set(p, k, (double)x, 0);
      break;
    case MAPF_MAPGEN_KEY_REAL:
      if (farm__plan_get_real(c, v, k->name, k->min, k->max, &r) == 0) gen_set(p, k, r, 0);
      break;
    case MAPF_MAPGEN_KEY_U64:
      if (farm__plan_get_u64(c, v, k->name, &u) == 0) gen_set(p, k, 0, u);
      break;
    default:
      break;
    }
  }
  if (c->nfail != before) return;
  if ((long long)p->width * p->height > MAPF_GRID_MAX_CELLS) {
    farm__plan_perr(c, g->line, g->col, "a %dx%d map has more than %d cells", (int)p->width,
                    (int)p->height, MAPF_GRID_MAX_CELLS);
    return;
  }
  char name[160], exact[256];
  gen_name(p, name, sizeof name, exact, sizeof exact);
  ms->generated = 1;
  ms->source = farm__plan_xstrdup(c, name);
}

typedef struct keyed {
  char *key;
  int32_t i;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  int r = strcmp(x->key, y->key);
  return r ? r : (x->i > y->i) - (x->i < y->i);
}

/* `maps`: paths and generate entries. A map listed twice (the same resolved path, or the same
 * generator parameters) is an error: its jobs would repeat with the same keys. Maps with equal
 * content under different names are caught when they are loaded (farm_space_init). */
void farm__plan_parse_maps(pctx *c, farm_plan *plan, const pnode *v, const char *dir,
                           const farm_plan_opts *opts) {
  char fbuf[80];
  if (farm__plan_bad(c, v)) return;
  if (v->kind != PN_SEQ || v->nkids == 0) {
    farm__plan_perr(c, v->line, v->col,
                    "maps: expected a non-empty list of map files and generate "
                    "entries, found %s",
                    FOUND(v));
    return;
  }
  plan->maps = calloc((size_t)v->nkids, sizeof *plan->maps);
  if (!plan->maps) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  plan->nmaps = v->nkids;
  int32_t before = c->nfail;
  for (int32_t i = 0; i < v->nkids && !c->stop; i++) {
    const pnode *it = v->kids[i];
    farm_map_spec *ms = &plan->maps[i];
    ms->line = it->line;
    ms->col = it->col;
    if (farm__plan_bad(c, it)) continue;
    if (it->kind == PN_SCALAR && !farm__plan_is_null(it) && it->str[0]) {
      ms->source = farm__plan_xstrdup(c, it->str);
      ms->path = resolve_map(c, it, dir, opts);
    } else if (it->kind == PN_MAP) {
      static const char *const keys[] = {"generate"};
      kv f[1];
      farm__plan_walk_map(c, it, keys, 1, f, "map entry");
      if (farm__plan_require(c, it, &f[0], "generate", "map entry") != 0) continue;
      const pnode *g = f[0].val;
      if (g->kind == PN_MAP)
        parse_generate(c, ms, g);
      else if (!farm__plan_bad(c, g))
        farm__plan_perr(c, g->line, g->col,
                        "generate: expected a mapping (kind, width, height, ...), "
                        "found %s",
                        FOUND(g));
    } else {
      farm__plan_perr(c, it->line, it->col,
                      "maps: expected a map file or a mapping with generate, "
                      "found %s",
                      FOUND(it));
    }
  }
  if (c->nfail != before || c->stop) return;
  /* Repetitions, by resolved path or generator parameters: sort, then compare neighbours. */
  keyed *k = calloc((size_t)plan->nmaps, sizeof *k);
  if (!k) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  int32_t nk = 0;
  for (; nk < plan->nmaps; nk++) {
    const farm_map_spec *ms = &plan->maps[nk];
    char name[160], exact[256];
    if (ms->generated) gen_name(&ms->gen, name, sizeof name, exact, sizeof exact);
    size_t len = ms->generated ? strlen(exact) + 1 : strlen(ms->path) + 6;
    char *key = malloc(len);
    if (!key) break;
    snprintf(key, len, "%s%s", ms->generated ? "" : "file:", ms->generated ? exact : ms->path);
    k[nk].key = key;
    k[nk].i = nk;
  }
  if (nk == plan->nmaps) {
    qsort(k, (size_t)nk, sizeof *k, cmp_keyed);
    for (int32_t j = 1; j < nk; j++) {
      if (strcmp(k[j].key, k[j - 1].key)) continue;
      /* The first of a run of equal keys is the earliest entry. */
      int32_t first = j - 1;
      while (first > 0 && !strcmp(k[first - 1].key, k[j].key)) first--;
      const farm_map_spec *a = &plan->maps[k[first].i], *b = &plan->maps[k[j].i];
      farm__plan_perr(c, b->line, b->col,
                      "map \"%s\" is listed twice (first at line %d, column %d); its "
                      "jobs would repeat",
                      b->source, a->line, a->col);
    }
  } else {
    farm__plan_perr_fatal_oom(c);
  }
  for (int32_t j = 0; j < nk; j++) free(k[j].key);
  free(k);
}

/* ---- scenarios -------------------------------------------------------------------------- */

typedef struct agent_at {
  int32_t group;      /* scenarios of one generator configuration share a group */
  int32_t agents;
  int32_t scen, item; /* item: index of the list entry, or -1 */
} agent_at;

static int cmp_agent_at(const void *a, const void *b) {
  const agent_at *x = a, *y = b;
  if (x->group != y->group) return (x->group > y->group) - (x->group < y->group);
  if (x->agents != y->agents) return (x->agents > y->agents) - (x->agents < y->agents);
  if (x->scen != y->scen) return (x->scen > y->scen) - (x->scen < y->scen);
  return (x->item > y->item) - (x->item < y->item);
}

/* `agents`: an integer, a list of them, or {range: [from, to, step]} (to inclusive; step
 * defaults to 1). At most PLAN_MAX_LIST values. */
static void parse_agents(pctx *c, farm_scen_spec *ss, const pnode *v) {
  char fbuf[80];
  long long x;
  if (farm__plan_bad(c, v)) return;
  if (v->kind == PN_SCALAR) {
    if (farm__plan_get_int(c, v, "agents", 1, MAPF_GRID_MAX_CELLS, &x) != 0) return;
    ss->agents = malloc(sizeof *ss->agents);
    if (!ss->agents) {
      farm__plan_perr_fatal_oom(c);
      return;
    }
    ss->agents[0] = (int32_t)x;
    ss->nagents = 1;
    return;
  }
  if (v->kind == PN_SEQ) {
    const int32_t n = v->nkids;
    if (n <= 0) {
      farm__plan_perr(c, v->line, v->col,
                      "agents: expected an integer >= 1 or a non-empty list of them, "
                      "found an empty list");
      return;
    }
    ss->agents = malloc((size_t)n * sizeof *ss->agents);
    if (!ss->agents) {
      farm__plan_perr_fatal_oom(c);
      return;
    }
    int32_t before = c->nfail;
    for (int32_t i = 0; i < n; i++)
      if (farm__plan_get_int(c, v->kids[i], "agents", 1, MAPF_GRID_MAX_CELLS, &x) == 0)
        ss->agents[i] = (int32_t)x;
    if (c->nfail != before) return;
    ss->nagents = n;
    /* Repeated counts, reported at the later entry. */
    agent_at *a = malloc((size_t)n * sizeof *a);
    if (!a) {
      farm__plan_perr_fatal_oom(c);
      return;
    }
    for (int32_t i = 0; i < n; i++) a[i] = (agent_at){0, ss->agents[i], 0, i};
    qsort(a, (size_t)n, sizeof *a, cmp_agent_at);
    for (int32_t i = 1; i < n; i++)
      if (a[i].agents == a[i - 1].agents) {
        const pnode *it = v->kids[a[i].item];
        farm__plan_perr(c, it->line, it->col, "agents: %d is listed twice", (int)a[i].agents);
      }
    free(a);
    return;
  }
  if (v->kind != PN_MAP) return;
  static const char *const keys[] = {"range"};
  kv f[1];
  farm__plan_walk_map(c, v, keys, 1, f, "agents");
  if (farm__plan_require(c, v, &f[0], "range", "agents") != 0) return;
  const pnode *r = f[0].val;
  if (farm__plan_bad(c, r)) return;
  if (r->kind != PN_SEQ || r->nkids < 2 || r->nkids > 3) {
    farm__plan_perr(c, r->line, r->col, "range: expected [from, to, step], found %s", FOUND(r));
    return;
  }
  long long from = 0, to = 0, step = 1;
  int bad = farm__plan_get_int(c, r->kids[0], "range", 1, MAPF_GRID_MAX_CELLS, &from);
  bad |= farm__plan_get_int(c, r->kids[1], "range", 1, MAPF_GRID_MAX_CELLS, &to);
  if (r->nkids == 3)
    bad |= farm__plan_get_int(c, r->kids[2], "range", 1, MAPF_GRID_MAX_CELLS, &step);
  if (bad) return;
  if (to < from) {
    farm__plan_perr(c, r->line, r->col, "range: expected from <= to, found [%lld, %lld, %lld]",
                    from, to, step);
    return;
  }
  long long count = (to - from) / step + 1;
  if (count > PLAN_MAX_LIST) {
    farm__plan_perr(c, r->line, r->col,
                    "range: [%lld, %lld, %lld] gives %lld agent counts; at most %d "
                    "are allowed",
                    from, to, step, count, PLAN_MAX_LIST);
    return;
  }
  ss->agents = malloc((size_t)count * sizeof *ss->agents);
  if (!ss->agents) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  for (long long i = 0; i < count; i++) ss->agents[i] = (int32_t)(from + i * step);
  ss->nagents = (int32_t)count;
}


/* `params` of a scenario: single values of the generator's declared parameters (a sweep over
 * them is one scenario entry per value). Fills ss->gparams, ss->generator and
 * ss->generator_key. */
static void parse_gen_params(pctx *c, farm_scen_spec *ss, const pnode *v) {
  char fbuf[80];
  const mapf_scengen_def *gd = ss->gdef;
  const mapf_algo_def *view = gd->view;
  mapf_scengen_params_default(gd, &ss->gparams);
  if (v && !farm__plan_bad(c, v)) {
    if (v->kind != PN_MAP) {
      farm__plan_perr(c, v->line, v->col, "params: expected a mapping of %s's parameters, found %s",
                      gd->name, FOUND(v));
    } else if (gd->nparams == 0) {
      if (farm__plan_node_pairs(v) > 0)
        farm__plan_perr(c, v->line, v->col, "params: generator %s has no parameters", gd->name);
    } else {
      const char *names[MAPF_MAX_PARAMS];
      for (int32_t i = 0; i < gd->nparams; i++) names[i] = gd->params[i].name;
      char in[64];
      snprintf(in, sizeof in, "params of %s", gd->name);
      kv f[MAPF_MAX_PARAMS];
      farm__plan_walk_map(c, v, names, gd->nparams, f, in);
      for (int32_t i = 0; i < gd->nparams; i++)
        if (f[i].val) farm__plan_parse_single(c, view, i, f[i].val, &ss->gparams.v[i]);
    }
  }
  char json[1024], text[1100];
  if (gd->nparams == 0) {
    ss->generator = farm__plan_xstrdup(c, gd->name);
    ss->generator_key = farm__plan_xstrdup(c, gd->name);
    return;
  }
  mapf_params_json(view, &ss->gparams, json, sizeof json);
  snprintf(text, sizeof text, "%s %s", gd->name, json);
  ss->generator_key = farm__plan_xstrdup(c, text);
  mapf_params def;
  mapf_scengen_params_default(gd, &def);
  int all_default = 1;
  for (int32_t i = 0; i < gd->nparams; i++) all_default &= def.v[i] == ss->gparams.v[i];
  ss->generator = farm__plan_xstrdup(c, all_default ? gd->name : text);
}

/* `scenarios`. An agent count in two scenarios of the same generator configuration is an
 * error: their instances would have the same keys. */
/* `generator: scen` with `file`: loads the scenario file and names the configuration by the
 * content of its problems (so a moved or reformatted file keeps its jobs' keys). */
static void parse_scen_file(pctx *c, farm_scen_spec *ss, const pnode *file, const char *dir,
                            const farm_plan_opts *opts) {
  const char *rel = farm__plan_get_str(c, file, "file");
  if (!rel) return;
  ss->scen_path = resolve_file(c, file, dir, opts, "scenario file");
  if (!ss->scen_path) return;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  if (mapf_scen_load(ss->scen_path, NULL, 0, &ss->scen, &d) != MAPF_OK) {
    /* As a map's error reads: "cannot load scenario: F: is a directory", "... F:3:7: ...". */
    if (d.line > 0)
      farm__plan_perr(c, file->line, file->col, "cannot load scenario: %s:%d:%d: %s", d.file,
                      d.line, d.col, d.msg);
    else
      farm__plan_perr(c, file->line, file->col, "cannot load scenario: %s: %s", d.file, d.msg);
    ss->scen = NULL;
    return;
  }
  if (ss->scen->n == 0) {
    farm__plan_perr(c, file->line, file->col, "scenario file \"%s\" has no problems", rel);
    return;
  }
  uint64_t h = 0;
  for (int32_t i = 0; i < ss->scen->n; i++) {
    const mapf_scen_entry *e = &ss->scen->entries[i];
    int32_t w[6] = {e->width, e->height, e->sx, e->sy, e->gx, e->gy};
    h = mapf_hash64(w, sizeof w, h);
  }
  char text[600];
  const char *base = strrchr(rel, '/');
  snprintf(text, sizeof text, "scen %s", base ? base + 1 : rel);
  ss->generator = farm__plan_xstrdup(c, text);
  snprintf(text, sizeof text, "scen %016llx", (unsigned long long)h);
  ss->generator_key = farm__plan_xstrdup(c, text);
}

int farm_events_texts(farm_scen_spec *ss, const char *file) {
  char shown[700] = "", key[720] = "";
  if (ss->retask_every > 0 || ss->doors_every > 0) {
    /* Re-tasking alone keeps the text it had before doors existed (its plans' keys). */
    int k = 0;
    if (ss->retask_every > 0) {
      char fr[40];
      mapf_format_real(ss->retask_fraction, MAPF_REAL_DIGITS, fr, sizeof fr);
      k = snprintf(shown, sizeof shown, "retask every:%lld,fraction:%s,rounds:%d",
                   (long long)ss->retask_every, fr, (int)ss->retask_rounds);
    }
    if (ss->doors_every > 0)
      snprintf(shown + k, sizeof shown - (size_t)k,
               "%sdoors every:%lld,count:%d,width:%d,duration:%lld,rounds:%d", k ? "; " : "",
               (long long)ss->doors_every, (int)ss->doors_count, (int)ss->doors_width,
               (long long)ss->doors_duration, (int)ss->doors_rounds);
    snprintf(key, sizeof key, "events=%s\n", shown);
  } else if (ss->events_file) {
    /* Named by content, as a scenario file is: a moved file keeps its jobs' keys. */
    const char *base = file ? strrchr(file, '/') : NULL;
    snprintf(shown, sizeof shown, "file %s", base ? base + 1 : file ? file : ss->events_file->path);
    snprintf(key, sizeof key, "events=file %016llx\n", (unsigned long long)ss->events_file->hash);
  }
  if (ss->lifelong) {
    size_t k = strlen(key);
    snprintf(key + k, sizeof key - k, "lifelong=1\n");
  }
  ss->events = shown[0] ? strdup(shown) : NULL;
  ss->events_key = key[0] ? strdup(key) : NULL;
  return (shown[0] && !ss->events) || (key[0] && !ss->events_key) ? MAPF_ENOMEM : MAPF_OK;
}

/* A scenario's `events` (ev) and `lifelong` (life) values (docs/events.md): fills the spec's
 * event fields and the texts for results.events and the job key. */
static void parse_events(pctx *c, farm_scen_spec *ss, const pnode *ev, const pnode *life,
                         const char *dir, const farm_plan_opts *opts) {
  static const char *const ev_keys[] = {"retask", "file", "doors"};
  static const char *const rt_keys[] = {"every", "fraction", "rounds"};
  static const char *const dr_keys[] = {"every", "count", "duration", "rounds", "width"};
  char fbuf[80];
  const char *file = NULL;
  if (life && !farm__plan_bad(c, life))
    farm__plan_get_bool(c, life, "lifelong", &ss->lifelong);
  if (ev && !farm__plan_bad(c, ev)) {
    ss->events_line = ev->line;
    ss->events_col = ev->col;
    kv f[3];
    if (ev->kind != PN_MAP) {
      farm__plan_perr(c, ev->line, ev->col,
                      "events: expected a mapping (retask, doors or file), found %s", FOUND(ev));
      return;
    }
    farm__plan_walk_map(c, ev, ev_keys, 3, f, "events");
    if (f[1].val && (f[0].val || f[2].val)) {
      farm__plan_perr(c, f[1].key->line, f[1].key->col,
                      "events: give generated events (retask, doors) or a file, not both");
      return;
    }
    if (!f[0].val && !f[1].val && !f[2].val) {
      farm__plan_perr(c, ev->line, ev->col, "events: expected retask, doors or file");
      return;
    }
    /* Lifelong goals come from each agent's task sequence: no re-tasking beside them. */
    if (ss->lifelong && f[0].val) {
      farm__plan_perr(c, f[0].key->line, f[0].key->col,
                      "retask: an agent's goals come from its task sequence under lifelong; "
                      "not with retask");
      return;
    }
    if (f[2].val) {
      const pnode *r = f[2].val;
      if (farm__plan_bad(c, r)) return;
      if (r->kind != PN_MAP) {
        farm__plan_perr(c, r->line, r->col,
                        "doors: expected a mapping (every, count, duration, rounds, width), "
                        "found %s",
                        FOUND(r));
        return;
      }
      kv g[5];
      farm__plan_walk_map(c, r, dr_keys, 5, g, "doors");
      long long every = 0, count = 0, duration = 0, rounds = 0, width = 1;
      for (int k = 0; k < 4; k++)
        if (farm__plan_require(c, r, &g[k], dr_keys[k], "doors") < 0) return;
      if (farm__plan_get_int(c, g[0].val, "every", 1, INT64_MAX / 4 / 1000000, &every) < 0 ||
          farm__plan_get_int(c, g[1].val, "count", 1, 100000, &count) < 0 ||
          farm__plan_get_int(c, g[2].val, "duration", 1, INT64_MAX / 8, &duration) < 0 ||
          farm__plan_get_int(c, g[3].val, "rounds", 1, 1000000, &rounds) < 0 ||
          (g[4].val &&
           farm__plan_get_int(c, g[4].val, "width", 1, MAPF_DOOR_MAX_WIDTH, &width) < 0))
        return;
      if (count * rounds * width > INT32_MAX / 4) {
        farm__plan_perr(c, g[1].val->line, g[1].val->col,
                        "doors: count x rounds x width is at most %d", INT32_MAX / 4);
        return;
      }
      ss->doors_every = every;
      ss->doors_count = (int32_t)count;
      ss->doors_width = (int32_t)width;
      ss->doors_duration = duration;
      ss->doors_rounds = (int32_t)rounds;
    }
    if (f[0].val) {
      const pnode *r = f[0].val;
      if (farm__plan_bad(c, r)) return;
      if (r->kind != PN_MAP) {
        farm__plan_perr(c, r->line, r->col,
                        "retask: expected a mapping (every, fraction, rounds), found %s",
                        FOUND(r));
        return;
      }
      kv g[3];
      farm__plan_walk_map(c, r, rt_keys, 3, g, "retask");
      long long every = 0, rounds = 0;
      double fraction = 0;
      for (int k = 0; k < 3; k++)
        if (farm__plan_require(c, r, &g[k], rt_keys[k], "retask") < 0) return;
      if (farm__plan_get_int(c, g[0].val, "every", 1, INT64_MAX / 4, &every) < 0 ||
          farm__plan_get_real(c, g[1].val, "fraction", 0, 1, &fraction) < 0 ||
          farm__plan_get_int(c, g[2].val, "rounds", 1, 1000000, &rounds) < 0)
        return;
      if (!(fraction > 0)) {
        farm__plan_perr(c, g[1].val->line, g[1].val->col,
                        "fraction: expected a share of the agents in (0, 1], found 0");
        return;
      }
      ss->retask_every = every;
      ss->retask_fraction = fraction;
      ss->retask_rounds = (int32_t)rounds;
    } else if (f[1].val) {
      const char *rel = farm__plan_get_str(c, f[1].val, "file");
      if (!rel) return;
      char *path = resolve_file(c, f[1].val, dir, opts, "events file");
      if (!path) return;
      mapf_diag d;
      memset(&d, 0, sizeof d);
      if (mapf_events_load(path, &ss->events_file, &d) != MAPF_OK) {
        char msg[1200];
        mapf_diag_format(&d, msg, sizeof msg);
        farm__plan_perr(c, f[1].val->line, f[1].val->col, "cannot load events: %s", msg);
        free(path);
        return;
      }
      free(path);
      if (ss->events_file->n == 0) {
        farm__plan_perr(c, f[1].val->line, f[1].val->col, "events file \"%s\" has no events",
                        rel);
        return;
      }
      if (ss->lifelong && ss->events_file->n > ss->events_file->nchange) {
        farm__plan_perr(c, f[1].val->line, f[1].val->col,
                        "events file \"%s\" re-tasks agents; under lifelong their goals come "
                        "from their task sequences (only close and open lines go with it)",
                        rel);
        return;
      }
      file = rel;
    }
  }
  if (farm_events_texts(ss, file) != MAPF_OK) farm__plan_perr_fatal_oom(c);
}

void farm__plan_parse_scenarios(pctx *c, farm_plan *plan, const pnode *v, const char *dir,
                                const farm_plan_opts *opts) {
  static const char *const keys[] = {"generator", "agents", "instances", "params", "file",
                                     "events", "lifelong"};
  const char *generators[64];
  int32_t ngen = mapf_scengen_count();
  for (int32_t i = 0; i < ngen && i < 63; i++) generators[i] = mapf_scengen_at(i)->name;
  generators[ngen < 63 ? ngen++ : 63] = "scen";
  char fbuf[80], h[480];
  if (farm__plan_bad(c, v)) return;
  if (v->kind != PN_SEQ || v->nkids == 0) {
    farm__plan_perr(c, v->line, v->col, "scenarios: expected a non-empty list, found %s", FOUND(v));
    return;
  }
  if (v->nkids > PLAN_MAX_SCENARIOS) {
    farm__plan_perr(c, v->line, v->col, "scenarios: %d entries; at most %d are allowed",
                    (int)v->nkids, PLAN_MAX_SCENARIOS);
    return;
  }
  plan->scens = calloc((size_t)v->nkids, sizeof *plan->scens);
  if (!plan->scens) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  plan->nscens = v->nkids;
  const pnode **agents_node = calloc((size_t)v->nkids, sizeof *agents_node);
  if (!agents_node) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  long long total = 0;
  for (int32_t s = 0; s < v->nkids && !c->stop; s++) {
    const pnode *it = v->kids[s];
    farm_scen_spec *ss = &plan->scens[s];
    ss->line = it->line;
    ss->col = it->col;
    ss->instances = 1;
    if (farm__plan_bad(c, it)) continue;
    if (it->kind != PN_MAP) {
      farm__plan_perr(c, it->line, it->col,
                      "scenarios: expected a mapping (generator, agents, instances), "
                      "found %s",
                      FOUND(it));
      continue;
    }
    kv f[7];
    farm__plan_walk_map(c, it, keys, 7, f, "scenario");
    parse_events(c, ss, f[5].val, f[6].val, dir, opts);
    const char *gen = "random";
    if (f[0].val) {
      const pnode *g = f[0].val;
      gen = farm__plan_get_str(c, g, "generator");
      if (gen && strcmp(gen, "scen") != 0 && !mapf_scengen_find(gen)) {
        farm__plan_hint(gen, generators, ngen, h, sizeof h);
        farm__plan_perr(c, g->line, g->col, "unknown scenario generator \"%s\"%s", gen, h);
        gen = NULL;
      }
    }
    int from_file = gen && strcmp(gen, "scen") == 0;
    if (from_file) {
      if (f[3].val)
        farm__plan_perr(c, f[3].key->line, f[3].key->col,
                        "params: generator scen has no parameters");
      if (farm__plan_require(c, it, &f[4], "file", "scenario") == 0)
        parse_scen_file(c, ss, f[4].val, dir, opts);
    } else if (f[4].val) {
      farm__plan_perr(c, f[4].key->line, f[4].key->col, "file: only generator scen reads a file");
    }
    if (gen && !from_file) {
      ss->gdef = mapf_scengen_find(gen);
      parse_gen_params(c, ss, f[3].val);
    }
    if (from_file && !f[1].val) {
      /* One single-agent problem per line. */
      ss->scen_single = 1;
      ss->agents = malloc(sizeof *ss->agents);
      if (!ss->agents) {
        farm__plan_perr_fatal_oom(c);
        continue;
      }
      ss->agents[0] = 1;
      ss->nagents = 1;
      total += 1;
    } else if (farm__plan_require(c, it, &f[1], "agents", "scenario") == 0) {
      parse_agents(c, ss, f[1].val);
      agents_node[s] = f[1].val;
      total += ss->nagents;
    }
    long long x;
    if (f[2].val && farm__plan_get_int(c, f[2].val, "instances", 1, PLAN_MAX_INSTANCES, &x) == 0)
      ss->instances = (int32_t)x;
    if (from_file && ss->scen) {
      int32_t lines = ss->scen->n;
      if (ss->scen_single) {
        if (!f[2].val) ss->instances = lines; /* every line */
        if (ss->instances > lines)
          farm__plan_perr(c, f[2].val->line, f[2].val->col,
                          "instances: %d, but the scenario file has %d problems",
                          (int)ss->instances, (int)lines);
      } else {
        if (f[2].val && ss->instances != 1)
          farm__plan_perr(
              c, f[2].val->line, f[2].val->col,
              "instances: a scenario file with `agents` gives one instance per agent count (its "
              "first lines); remove `agents` for one single-agent problem per line");
        for (int32_t i = 0; i < ss->nagents; i++)
          if (ss->agents[i] > lines) {
            farm__plan_perr(c, f[1].val->line, f[1].val->col,
                            "agents: %d, but the scenario file has %d lines", (int)ss->agents[i],
                            (int)lines);
            break;
          }
      }
    }
  }
  if (!c->stop && total > PLAN_MAX_AGENT_COUNTS)
    farm__plan_perr(c, v->line, v->col,
                    "scenarios: %lld agent counts in all; at most %d are allowed", total,
                    PLAN_MAX_AGENT_COUNTS);
  if (c->stop || total > PLAN_MAX_AGENT_COUNTS) {
    free(agents_node);
    return;
  }
  /* Agent counts shared between scenarios of one generator configuration, over the scenarios
   * whose counts are valid: O(T log T) for T counts in all (and O(S^2) to group S scenarios). */
  agent_at *a = malloc((size_t)(total ? total : 1) * sizeof *a);
  if (!a) {
    free(agents_node);
    farm__plan_perr_fatal_oom(c);
    return;
  }
  int32_t n = 0;
  for (int32_t s = 0; s < plan->nscens; s++) {
    int32_t group = s;
    const char *gk = plan->scens[s].generator_key, *ek = plan->scens[s].events_key;
    for (int32_t t = 0; t < s && gk; t++)
      if (plan->scens[t].generator_key && strcmp(plan->scens[t].generator_key, gk) == 0 &&
          !ek == !plan->scens[t].events_key && (!ek || !strcmp(plan->scens[t].events_key, ek))) {
        group = t;
        break;
      }
    for (int32_t i = 0; i < plan->scens[s].nagents; i++)
      a[n++] = (agent_at){group, plan->scens[s].agents[i], s, i};
  }
  qsort(a, (size_t)n, sizeof *a, cmp_agent_at);
  char reported[PLAN_MAX_SCENARIOS] = {0};
  int32_t run = 0;
  for (int32_t i = 1; i < n; i++) {
    if (a[i].agents != a[i - 1].agents || a[i].group != a[i - 1].group) run = i;
    if (a[i].scen == a[run].scen || reported[a[i].scen]) continue;
    /* One message per later scenario, naming the earliest scenario with that count. */
    const farm_scen_spec *first = &plan->scens[a[run].scen];
    /* A scenario file without `agents` has no agents node: point at the scenario. */
    const pnode *an = agents_node[a[i].scen];
    const farm_scen_spec *later = &plan->scens[a[i].scen];
    farm__plan_perr(c, an ? an->line : later->line, an ? an->col : later->col,
                    "agents: %d is also in the scenario at line %d, column %d; its "
                    "instances would run twice",
                    (int)a[i].agents, first->line, first->col);
    reported[a[i].scen] = 1;
  }
  free(a);
  free(agents_node);
}
