/* plan_algos.c: the `algorithms` and `defaults` sections of a plan (farm/plan.c).
 *
 * An algorithm entry is resolved completely here: `defaults` fold into its base parameters,
 * `zip` groups become tables of rows, `sample` is drawn (core/rng.h, one generator per
 * parameter seeded from the sample seed and the parameter's name) and its repeated draws
 * dropped, `exclude` is applied once over the raw combinations (at most PLAN_MAX_COMBOS in all),
 * leaving the ascending indices of the survivors, and a label template is parsed into pieces.
 * Decoding a combination (farm_algo_combo, with the expansion in expand.c) is then
 * O(parameters), with no allocation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "expand.h"
#include "external.h"
#include "hash.h"
#include "plan_int.h"
#include "rng.h"

/* ---- algorithms ------------------------------------------------------------------------- */

typedef struct value_at {
  double v;
  int32_t i;
} value_at;

static int cmp_value_at(const void *a, const void *b) {
  const value_at *x = a, *y = b;
  if (x->v != y->v) return (x->v > y->v) - (x->v < y->v);
  return (x->i > y->i) - (x->i < y->i);
}

/* Parses the scalar v as a value of parameter i of def: type and declared range through the
 * registry (mapf_param_parse), so `sqrt(2)` and 1.4142135623730951 are one value. Returns 0,
 * or -1 (reported, with the registry's "expected ..., found ..."). */
static int parse_value(pctx *c, const mapf_algo_def *def, int32_t i, const pnode *v, double *out) {
  char fbuf[80];
  const mapf_param_def *pd = &def->params[i];
  if (farm__plan_bad(c, v)) return -1;
  if (pd->type == MAPF_PARAM_LIST) {
    /* A list is one value per entry: its text is kept beside the numbers, which sweeps, zip
     * groups, samples and exclusions hold alone. */
    farm__plan_perr(c, v->line, v->col,
                    "%s: a list takes one value per entry, in params or defaults; it cannot be "
                    "swept, zipped, sampled or excluded (write one entry per %s)",
                    pd->name, pd->name);
    return -1;
  }
  if (v->kind != PN_SCALAR || farm__plan_is_null(v)) {
    farm__plan_perr(c, v->line, v->col, "%s: expected a value, found %s", pd->name, FOUND(v));
    return -1;
  }
  /* YAML writes booleans also as True, TRUE, Yes, ON...: the registry takes lower case. */
  char lower[8];
  const char *text = v->str;
  size_t len = strlen(text);
  if (pd->type == MAPF_PARAM_BOOL && v->plain && len < sizeof lower) {
    for (size_t j = 0; j <= len; j++)
      lower[j] = text[j] >= 'A' && text[j] <= 'Z' ? (char)(text[j] - 'A' + 'a') : text[j];
    text = lower;
  }
  mapf_diag d;
  memset(&d, 0, sizeof d);
  if (mapf_param_parse(def, i, text, out, &d) == MAPF_OK) return 0;
  if (text != v->str) /* the message quotes the value as written */
    mapf_param_parse(def, i, v->str, out, &d);
  farm__plan_perr(c, v->line, v->col, "%s", d.msg);
  return -1;
}

/* One value, not a list (`defaults`, `exclude`). */
int farm__plan_parse_single(pctx *c, const mapf_algo_def *def, int32_t i, const pnode *v,
                            double *out) {
  char fbuf[80];
  if (farm__plan_bad(c, v)) return -1;
  if (v->kind == PN_SEQ || v->kind == PN_MAP) {
    farm__plan_perr(c, v->line, v->col, "%s: expected a single value, found %s",
                    def->params[i].name, FOUND(v));
    return -1;
  }
  return parse_value(c, def, i, v, out);
}

/* Values of parameter i: a non-empty list, or (scalar_ok) one value. With `unique`, a value
 * given twice (as parsed: 1 and 1.0 are one value) is an error at the later one. Returns the
 * count and the values in *out (malloc'd), or -1 (reported; *out NULL). O(n log n). */
static int32_t parse_values(pctx *c, const mapf_algo_def *def, int32_t i, const pnode *v,
                            int scalar_ok, int unique, double **out) {
  char fbuf[80];
  const mapf_param_def *pd = &def->params[i];
  *out = NULL;
  if (farm__plan_bad(c, v)) return -1;
  int32_t n = v->kind == PN_SEQ ? v->nkids : 1;
  if (v->kind == PN_MAP || n <= 0 || farm__plan_is_null(v) || (!scalar_ok && v->kind != PN_SEQ)) {
    if (scalar_ok)
      farm__plan_perr(c, v->line, v->col,
                      "%s: expected a value or a non-empty list of values, found %s", pd->name,
                      FOUND(v));
    else
      farm__plan_perr(c, v->line, v->col, "%s: expected a non-empty list of values, found %s",
                      pd->name, FOUND(v));
    return -1;
  }
  if (pd->type == MAPF_PARAM_LIST) {
    parse_value(c, def, i, v, NULL); /* reports that a list is one value per entry */
    return -1;
  }
  double *values = malloc((size_t)n * sizeof *values);
  if (!values) {
    farm__plan_perr_fatal_oom(c);
    return -1;
  }
  int32_t before = c->nfail;
  for (int32_t k = 0; k < n; k++)
    parse_value(c, def, i, v->kind == PN_SEQ ? v->kids[k] : v, &values[k]);
  if (c->nfail != before) {
    free(values);
    return -1;
  }
  if (unique && n > 1) {
    value_at *sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted) {
      free(values);
      farm__plan_perr_fatal_oom(c);
      return -1;
    }
    for (int32_t k = 0; k < n; k++) sorted[k] = (value_at){values[k], k};
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_value_at);
    for (int32_t k = 1; k < n; k++) {
      if (sorted[k].v != sorted[k - 1].v) continue;
      char val[64];
      const pnode *it = v->kids[sorted[k].i];
      mapf_param_format(def, i, sorted[k].v, val, sizeof val);
      farm__plan_perr(c, it->line, it->col, "%s: %s is listed twice", pd->name, val);
    }
    free(sorted);
    if (c->nfail != before) {
      free(values);
      return -1;
    }
  }
  *out = values;
  return n;
}

/* Where an entry varies a parameter. */
enum { SRC_BASE, SRC_AXIS, SRC_ZIP, SRC_SAMPLE };
static const char *const src_names[] = {"defaults", "params", "zip", "sample"};

enum { DIST_UNIFORM, DIST_LOGUNIFORM, DIST_CHOICE, DIST_N };
static const char *const dist_names[DIST_N] = {"uniform", "loguniform", "choice"};

/* A distribution of `sample`. */
typedef struct dist {
  int kind;
  double lo, hi;   /* uniform, loguniform: inclusive bounds, checked against the declared range */
  double *choices; /* choice: distinct values */
  int32_t nchoices;
} dist;

/* A partial assignment of `exclude`. */
typedef struct excl {
  int32_t n;
  int32_t index[MAPF_MAX_PARAMS];
  double value[MAPF_MAX_PARAMS];
} excl;

/* What parsing one algorithm entry needs beyond its farm_algo_spec. */
typedef struct entry {
  farm_algo_spec *as;
  const char *names[MAPF_MAX_PARAMS]; /* the algorithm's parameter names, for suggestions */
  char in[96];                        /* scratch for "params of bmaa" and the like */
  const pnode *src_key[MAPF_MAX_PARAMS]; /* where the entry varies parameter i; NULL: base */
  int src[MAPF_MAX_PARAMS];
  int32_t src_at[MAPF_MAX_PARAMS];    /* axis or zip group */
  int32_t src_col[MAPF_MAX_PARAMS];   /* column of the zip group or the sample */
  dist dists[MAPF_MAX_PARAMS];        /* by column of the sample */
  excl *excls;
  int32_t nexcl;
  uint32_t varied; /* bit i: parameter i takes more than one value over the combinations */
} entry;

static void entry_free(entry *e) {
  for (int32_t k = 0; k < MAPF_MAX_PARAMS; k++) free(e->dists[k].choices);
  free(e->excls);
}

/* Records that the entry varies parameter i at key (params, zip or sample). A parameter varied
 * in two places is an error at the later one: its values would be ambiguous. */
static int claim(pctx *c, entry *e, int32_t i, const pnode *key, int src, int32_t at,
                 int32_t col) {
  if (e->src_key[i]) {
    farm__plan_perr(
        c, key->line, key->col,
        "%s: already varied in %s (line %d, column %d); a parameter may be in only one of "
        "params, zip and sample",
        e->as->def->params[i].name, src_names[e->src[i]], e->src_key[i]->line, e->src_key[i]->col);
    return -1;
  }
  e->src_key[i] = key;
  e->src[i] = src;
  e->src_at[i] = at;
  e->src_col[i] = col;
  return 0;
}

/* `params` of one algorithm entry: each named parameter is an axis (a value or a list), in
 * plan order. */
static void parse_params(pctx *c, entry *e, const kv *pf) {
  char fbuf[80];
  farm_algo_spec *as = e->as;
  const mapf_algo_def *def = as->def;
  const pnode *m = pf->val;
  if (farm__plan_is_null(m) || farm__plan_bad(c, m)) return;
  if (m->kind != PN_MAP) {
    farm__plan_perr(c, m->line, m->col,
                    "params: expected a mapping of parameter names to values, found %s", FOUND(m));
    return;
  }
  snprintf(e->in, sizeof e->in, "params of %s", def->name);
  kv f[MAPF_MAX_PARAMS];
  farm__plan_walk_map(c, m, e->names, def->nparams, f, e->in);
  as->axes =
      calloc((size_t)(farm__plan_node_pairs(m) ? farm__plan_node_pairs(m) : 1), sizeof *as->axes);
  if (!as->axes) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  /* In plan order: the first named parameter is the outermost axis. */
  for (int32_t p = 0; p < farm__plan_node_pairs(m) && !c->stop; p++) {
    const pnode *k = m->kids[2 * p];
    if (k->kind != PN_SCALAR) continue;
    int32_t i = mapf_param_index(def, k->str);
    if (i < 0 || f[i].key != k) continue; /* unknown or repeated: reported */
    if (def->params[i].type == MAPF_PARAM_LIST) { /* one value: the entry's base */
      farm__plan_parse_list(c, def, i, f[i].val, &as->base);
      continue;
    }
    if (claim(c, e, i, k, SRC_AXIS, as->naxes, 0) != 0) continue;
    farm_param_axis *ax = &as->axes[as->naxes++];
    ax->index = i;
    int32_t n = parse_values(c, def, i, f[i].val, 1, 1, &ax->values);
    if (n > 0) ax->nvalues = n;
  }
}

typedef struct row_at {
  mapf_hash128 h;
  int32_t i;
} row_at;

static int cmp_row_at(const void *a, const void *b) {
  const row_at *x = a, *y = b;
  if (x->h.hi != y->h.hi) return (x->h.hi > y->h.hi) - (x->h.hi < y->h.hi);
  if (x->h.lo != y->h.lo) return (x->h.lo > y->h.lo) - (x->h.lo < y->h.lo);
  return (x->i > y->i) - (x->i < y->i);
}

/* Finds the rows of t equal to an earlier row (bit for bit, as job keys would see them): sorts
 * rows by a hash of their values and compares neighbours with equal hashes. Returns a fresh
 * array: for each row, the index of the earliest row equal to it (itself when none); NULL when
 * out of memory. O(R log R) for R rows. */
static int32_t *table_repeats(const farm_param_table *t) {
  int32_t n = t->nrows;
  row_at *r = malloc((size_t)(n ? n : 1) * sizeof *r);
  int32_t *first = malloc((size_t)(n ? n : 1) * sizeof *first);
  if (!r || !first) {
    free(r);
    free(first);
    return NULL;
  }
  size_t bytes = (size_t)t->ncols * sizeof *t->values;
  for (int32_t i = 0; i < n; i++) {
    r[i] = (row_at){mapf_hash128_of(t->values + (size_t)i * (size_t)t->ncols, bytes), i};
    first[i] = i;
  }
  qsort(r, (size_t)n, sizeof *r, cmp_row_at);
  for (int32_t i = 1; i < n; i++) {
    /* Within a run of equal hashes (in row order), the earliest equal row. */
    for (int32_t j = i - 1; j >= 0 && r[j].h.hi == r[i].h.hi && r[j].h.lo == r[i].h.lo; j--) {
      const double *a = t->values + (size_t)r[i].i * (size_t)t->ncols;
      const double *b = t->values + (size_t)r[j].i * (size_t)t->ncols;
      if (memcmp(a, b, bytes) == 0) first[r[i].i] = first[r[j].i];
    }
  }
  free(r);
  return first;
}

/* Writes "expansions 16, moves 8" for row `row` of t. */
static void table_row_text(const mapf_algo_def *def, const farm_param_table *t, int32_t row,
                           char *buf, size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int32_t k = 0; k < t->ncols && len < n; k++) {
    char val[64];
    mapf_param_format(def, t->index[k], t->values[(size_t)row * (size_t)t->ncols + (size_t)k],
                      val, sizeof val);
    int w = snprintf(buf + len, n - len, "%s%s %s", k ? ", " : "", def->params[t->index[k]].name,
                     val);
    if (w < 0) break;
    len += (size_t)w;
  }
}

/* One zip group: a mapping of parameter names to lists of one length; row r takes the r-th
 * value of every list. A row given twice is an error (its jobs would repeat). */
static void parse_zip_group(pctx *c, entry *e, int32_t z, const pnode *g) {
  char fbuf[80];
  const mapf_algo_def *def = e->as->def;
  farm_param_table *t = &e->as->zips[z];
  if (farm__plan_bad(c, g)) return;
  if (g->kind != PN_MAP || g->nkids == 0) {
    farm__plan_perr(c, g->line, g->col,
                    "zip: expected a mapping of parameter names to lists, found %s", FOUND(g));
    return;
  }
  int32_t before = c->nfail;
  snprintf(e->in, sizeof e->in, "zip of %s", def->name);
  kv f[MAPF_MAX_PARAMS];
  farm__plan_walk_map(c, g, e->names, def->nparams, f, e->in);
  double *cols[MAPF_MAX_PARAMS];
  int32_t lens[MAPF_MAX_PARAMS];
  const pnode *nodes[MAPF_MAX_PARAMS];
  int32_t ncols = 0;
  for (int32_t p = 0; p < farm__plan_node_pairs(g) && !c->stop; p++) {
    const pnode *k = g->kids[2 * p];
    if (k->kind != PN_SCALAR) continue;
    int32_t i = mapf_param_index(def, k->str);
    if (i < 0 || f[i].key != k) continue;
    if (claim(c, e, i, k, SRC_ZIP, z, ncols) != 0) continue;
    double *vals = NULL;
    int32_t n = parse_values(c, def, i, f[i].val, 0, 0, &vals);
    if (n < 0) continue;
    t->index[ncols] = i;
    cols[ncols] = vals;
    lens[ncols] = n;
    nodes[ncols] = f[i].val;
    ncols++;
  }
  for (int32_t k = 1; k < ncols; k++)
    if (lens[k] != lens[0])
      farm__plan_perr(
          c, nodes[k]->line, nodes[k]->col,
          "zip: %s has %d values and %s has %d; the lists of a zip group must have equal "
          "lengths",
          def->params[t->index[k]].name, (int)lens[k], def->params[t->index[0]].name, (int)lens[0]);
  if (c->nfail == before && ncols > 0) {
    t->values = malloc((size_t)lens[0] * (size_t)ncols * sizeof *t->values);
    if (!t->values) {
      farm__plan_perr_fatal_oom(c);
    } else {
      for (int32_t r = 0; r < lens[0]; r++)
        for (int32_t k = 0; k < ncols; k++) t->values[(size_t)r * (size_t)ncols + (size_t)k] = cols[k][r];
      t->ncols = ncols;
      t->nrows = lens[0];
      int32_t *first = table_repeats(t);
      if (!first) farm__plan_perr_fatal_oom(c);
      for (int32_t r = 0; first && r < t->nrows; r++) {
        if (first[r] == r) continue;
        char row[400];
        table_row_text(def, t, r, row, sizeof row);
        const pnode *at = nodes[0]->kids[r];
        farm__plan_perr(c, at->line, at->col, "zip: %s is listed twice (positions %d and %d)", row,
                        (int)first[r] + 1, (int)r + 1);
      }
      free(first);
    }
  }
  for (int32_t k = 0; k < ncols; k++) free(cols[k]);
}

/* `zip`: one group (a mapping) or a list of groups. */
static void parse_zip(pctx *c, entry *e, const kv *zf) {
  char fbuf[80];
  const pnode *v = zf->val;
  if (farm__plan_bad(c, v)) return;
  int32_t n = v->kind == PN_MAP && v->nkids ? 1 : v->kind == PN_SEQ ? v->nkids : 0;
  if (n == 0) {
    farm__plan_perr(
        c, v->line, v->col,
        "zip: expected a mapping of parameter names to lists, or a list of such mappings, "
        "found %s",
        FOUND(v));
    return;
  }
  e->as->zips = calloc((size_t)n, sizeof *e->as->zips);
  if (!e->as->zips) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  e->as->nzips = n;
  for (int32_t z = 0; z < n && !c->stop; z++)
    parse_zip_group(c, e, z, v->kind == PN_MAP ? v : v->kids[z]);
}

/* One distribution of `sample` for parameter i: {uniform: [lo, hi]}, {loguniform: [lo, hi]} or
 * {choice: [values]}. Bounds and choices are checked against the declared type and range, so
 * no draw can leave it. */
static void parse_dist(pctx *c, entry *e, int32_t i, const pnode *v, dist *d) {
  char fbuf[80], in[96];
  const mapf_algo_def *def = e->as->def;
  const mapf_param_def *pd = &def->params[i];
  if (farm__plan_bad(c, v)) return;
  if (v->kind != PN_MAP || v->nkids == 0) {
    farm__plan_perr(c, v->line, v->col,
                    "%s: expected a distribution ({uniform: [lo, hi]}, {loguniform: [lo, hi]} or "
                    "{choice: [values]}), found %s",
                    pd->name, FOUND(v));
    return;
  }
  snprintf(in, sizeof in, "distribution of %s", pd->name);
  kv f[DIST_N];
  farm__plan_walk_map(c, v, dist_names, DIST_N, f, in);
  int kind = -1;
  for (int k = 0; k < DIST_N; k++) {
    if (!f[k].key) continue;
    if (kind < 0) {
      kind = k;
    } else {
      farm__plan_perr(c, f[k].key->line, f[k].key->col,
                      "%s: expected one distribution, found %s and %s", pd->name, dist_names[kind],
                      dist_names[k]);
      return;
    }
  }
  if (kind < 0) return; /* only unknown keys: reported */
  d->kind = kind;
  const pnode *r = f[kind].val;
  if (kind == DIST_CHOICE) {
    int32_t n = parse_values(c, def, i, r, 1, 1, &d->choices);
    if (n > 0) d->nchoices = n;
    return;
  }
  if (pd->type == MAPF_PARAM_BOOL) {
    farm__plan_perr(c, f[kind].key->line, f[kind].key->col,
                    "%s: %s is a boolean; use choice: [false, true]", dist_names[kind], pd->name);
    return;
  }
  if (pd->type == MAPF_PARAM_ENUM) {
    char list[256];
    mapf_param_choice_list(pd, list, sizeof list);
    farm__plan_perr(c, f[kind].key->line, f[kind].key->col,
                    "%s: %s is an enumeration; use choice: [%s]", dist_names[kind], pd->name, list);
    return;
  }
  if (farm__plan_bad(c, r)) return;
  if (r->kind != PN_SEQ || r->nkids != 2) {
    farm__plan_perr(c, r->line, r->col, "%s: expected [lo, hi], found %s", dist_names[kind],
                    FOUND(r));
    return;
  }
  if ((parse_value(c, def, i, r->kids[0], &d->lo) | parse_value(c, def, i, r->kids[1], &d->hi)) !=
      0)
    return;
  char lo[64], hi[64];
  mapf_param_format(def, i, d->lo, lo, sizeof lo);
  mapf_param_format(def, i, d->hi, hi, sizeof hi);
  if (!(d->lo < d->hi))
    farm__plan_perr(c, r->line, r->col, "%s: expected lo < hi, found [%s, %s]", dist_names[kind],
                    lo, hi);
  else if (kind == DIST_LOGUNIFORM && !(d->lo > 0))
    farm__plan_perr(c, r->line, r->col, "loguniform: expected lo > 0, found [%s, %s]", lo, hi);
}

/* `sample: {count, seed, params}`: the distributions are parsed here; the draws are made by
 * draw_sample once the entry is known to be valid and within bounds. */
static void parse_sample(pctx *c, entry *e, const kv *sf) {
  static const char *const keys[] = {"count", "seed", "params"};
  char fbuf[80];
  farm_algo_spec *as = e->as;
  const mapf_algo_def *def = as->def;
  const pnode *v = sf->val;
  if (farm__plan_bad(c, v)) return;
  if (v->kind != PN_MAP) {
    farm__plan_perr(c, v->line, v->col,
                    "sample: expected a mapping (count, seed, params), found %s", FOUND(v));
    return;
  }
  kv f[3];
  farm__plan_walk_map(c, v, keys, 3, f, "sample");
  long long x;
  if (farm__plan_require(c, v, &f[0], "count", "sample") == 0 &&
      farm__plan_get_int(c, f[0].val, "count", 1, PLAN_MAX_SAMPLES, &x) == 0)
    as->sample_count = (int32_t)x;
  if (f[1].val) farm__plan_get_u64(c, f[1].val, "seed", &as->sample_seed);
  if (farm__plan_require(c, v, &f[2], "params", "sample") != 0) return;
  const pnode *m = f[2].val;
  if (farm__plan_bad(c, m)) return;
  if (m->kind != PN_MAP || m->nkids == 0) {
    farm__plan_perr(c, m->line, m->col,
                    "params: expected a mapping of parameter names to distributions, found %s",
                    FOUND(m));
    return;
  }
  snprintf(e->in, sizeof e->in, "sample params of %s", def->name);
  kv fp[MAPF_MAX_PARAMS];
  farm__plan_walk_map(c, m, e->names, def->nparams, fp, e->in);
  farm_param_table *t = &as->sample;
  for (int32_t p = 0; p < farm__plan_node_pairs(m) && !c->stop; p++) {
    const pnode *k = m->kids[2 * p];
    if (k->kind != PN_SCALAR) continue;
    int32_t i = mapf_param_index(def, k->str);
    if (i < 0 || fp[i].key != k) continue;
    if (claim(c, e, i, k, SRC_SAMPLE, 0, t->ncols) != 0) continue;
    parse_dist(c, e, i, fp[i].val, &e->dists[t->ncols]);
    t->index[t->ncols++] = i;
  }
}

/* Rounds x to 12 significant digits. exp and log are not correctly rounded on every C
 * library; rounding their result keeps log-uniform draws (and so job keys) the same on every
 * platform unless a result falls within an ulp of a 12-digit boundary. */
static double round12(double x) {
  char buf[40];
  snprintf(buf, sizeof buf, "%.11e", x);
  return strtod(buf, NULL);
}

/* One draw of distribution d for parameter pd, inside [lo, hi] (or among the choices).
 * uniform: a real lo + (hi - lo) u, u in [0, 1) with 53 bits (exact IEEE arithmetic, the same
 * everywhere), or for an int a uniform integer in [lo, hi]; loguniform: exp of a uniform in
 * [log lo, log hi] rounded to 12 digits, or for an int the floor of one in [lo, hi + 1). */
static double draw(const dist *d, const mapf_param_def *pd, mapf_rng *r) {
  if (d->kind == DIST_CHOICE) return d->choices[mapf_rng_below(r, (uint64_t)d->nchoices)];
  double x, span = d->hi - d->lo;
  if (d->kind == DIST_UNIFORM) {
    if (pd->type == MAPF_PARAM_INT && span < 9007199254740992.0) /* 2^53 */
      return d->lo + (double)mapf_rng_below(r, (uint64_t)span + 1);
    double u = mapf_rng_double(r);
    x = d->lo + span * u;
    if (!isfinite(x)) x = d->lo * (1 - u) + d->hi * u; /* a span beyond DBL_MAX */
    if (pd->type == MAPF_PARAM_INT) x = floor(x);
  } else {
    double top = pd->type == MAPF_PARAM_INT ? d->hi + 1 : d->hi;
    x = round12(exp(log(d->lo) + (log(top) - log(d->lo)) * mapf_rng_double(r)));
    if (pd->type == MAPF_PARAM_INT) x = floor(x);
  }
  return x < d->lo ? d->lo : x > d->hi ? d->hi : x;
}

/* Draws as->sample_count configurations and keeps the distinct ones, in draw order. Each
 * parameter has its own generator, seeded from the sample seed and the parameter's name only:
 * its draws do not depend on the other parameters, the entry's position or the plan, and a
 * larger count keeps the first draws. O(count x parameters) time and memory, then O(count log
 * count) for the repeats. Returns 0, or -1 out of memory (reported). */
static int draw_sample(pctx *c, entry *e) {
  farm_algo_spec *as = e->as;
  farm_param_table *t = &as->sample;
  int32_t n = as->sample_count, m = t->ncols;
  t->values = malloc((size_t)n * (size_t)m * sizeof *t->values);
  if (!t->values) {
    farm__plan_perr_fatal_oom(c);
    return -1;
  }
  for (int32_t k = 0; k < m; k++) {
    const mapf_param_def *pd = &as->def->params[t->index[k]];
    mapf_rng r;
    mapf_rng_seed(&r, mapf_hash64(pd->name, strlen(pd->name), as->sample_seed));
    for (int32_t row = 0; row < n; row++)
      t->values[(size_t)row * (size_t)m + (size_t)k] = draw(&e->dists[k], pd, &r);
  }
  t->nrows = n;
  int32_t *first = table_repeats(t);
  if (!first) {
    farm__plan_perr_fatal_oom(c);
    return -1;
  }
  int32_t kept = 0;
  for (int32_t row = 0; row < n; row++) {
    if (first[row] != row) continue;
    if (kept != row)
      memmove(t->values + (size_t)kept * (size_t)m, t->values + (size_t)row * (size_t)m,
              (size_t)m * sizeof *t->values);
    kept++;
  }
  free(first);
  t->nrows = kept;
  return 0;
}

/* Whether the entry can give parameter i the value x; if not, describes what it gives. */
static int value_occurs(const entry *e, int32_t i, double x, char *buf, size_t n) {
  const farm_algo_spec *as = e->as;
  const double *vals = NULL;
  int32_t nvals = 0, stride = 1;
  switch (e->src[i]) {
  case SRC_AXIS:
    vals = as->axes[e->src_at[i]].values;
    nvals = as->axes[e->src_at[i]].nvalues;
    break;
  case SRC_ZIP: {
    const farm_param_table *t = &as->zips[e->src_at[i]];
    vals = t->values + e->src_col[i];
    nvals = t->nrows;
    stride = t->ncols;
    break;
  }
  case SRC_SAMPLE: {
    const dist *d = &e->dists[e->src_col[i]];
    if (d->kind == DIST_CHOICE) {
      vals = d->choices;
      nvals = d->nchoices;
      break;
    }
    if (x >= d->lo && x <= d->hi) return 1;
    char lo[64], hi[64];
    mapf_param_format(as->def, i, d->lo, lo, sizeof lo);
    mapf_param_format(as->def, i, d->hi, hi, sizeof hi);
    snprintf(buf, n, "it is drawn from %s [%s, %s]", dist_names[d->kind], lo, hi);
    return 0;
  }
  default:
    vals = &as->base.v[i];
    nvals = 1;
    break;
  }
  for (int32_t k = 0; k < nvals; k++)
    if (vals[(size_t)k * (size_t)stride] == x) return 1;
  size_t len = (size_t)snprintf(buf, n, "its value%s: ", nvals == 1 ? "" : "s");
  for (int32_t k = 0; k < nvals && len < n; k++) {
    char val[64];
    if (k == 8) {
      snprintf(buf + len, n - len, ", ...");
      break;
    }
    mapf_param_format(as->def, i, vals[(size_t)k * (size_t)stride], val, sizeof val);
    int w = snprintf(buf + len, n - len, "%s%s", k ? ", " : "", val);
    if (w < 0) break;
    len += (size_t)w;
  }
  return 0;
}

/* `exclude`: a list of partial assignments (or one). A value the entry never gives to that
 * parameter is an error (a misspelt value would otherwise exclude nothing, silently); the
 * check needs the entry's params, zip and sample to be valid (sources_ok). */
static void parse_exclude(pctx *c, entry *e, const kv *xf, int sources_ok) {
  char fbuf[80];
  const mapf_algo_def *def = e->as->def;
  const pnode *v = xf->val;
  if (farm__plan_bad(c, v)) return;
  int32_t n = v->kind == PN_MAP && v->nkids ? 1 : v->kind == PN_SEQ ? v->nkids : 0;
  if (n == 0) {
    farm__plan_perr(c, v->line, v->col,
                    "exclude: expected a list of mappings of parameter names to values, found %s",
                    FOUND(v));
    return;
  }
  e->excls = calloc((size_t)n, sizeof *e->excls);
  if (!e->excls) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  e->nexcl = n;
  snprintf(e->in, sizeof e->in, "exclude of %s", def->name);
  for (int32_t x = 0; x < n && !c->stop; x++) {
    const pnode *it = v->kind == PN_MAP ? v : v->kids[x];
    excl *ex = &e->excls[x];
    if (farm__plan_bad(c, it)) continue;
    if (it->kind != PN_MAP || it->nkids == 0) {
      farm__plan_perr(c, it->line, it->col,
                      "exclude: expected a mapping of parameter names to values, found %s",
                      FOUND(it));
      continue;
    }
    kv f[MAPF_MAX_PARAMS];
    farm__plan_walk_map(c, it, e->names, def->nparams, f, e->in);
    for (int32_t p = 0; p < farm__plan_node_pairs(it); p++) {
      const pnode *k = it->kids[2 * p];
      if (k->kind != PN_SCALAR) continue;
      int32_t i = mapf_param_index(def, k->str);
      if (i < 0 || f[i].key != k) continue;
      double val;
      if (farm__plan_parse_single(c, def, i, f[i].val, &val) != 0) continue;
      char what[400], text[64];
      if (sources_ok && !value_occurs(e, i, val, what, sizeof what)) {
        mapf_param_format(def, i, val, text, sizeof text);
        farm__plan_perr(c, f[i].val->line, f[i].val->col,
                        "exclude: %s: %s never occurs in this entry (%s)", def->params[i].name,
                        text, what);
        continue;
      }
      ex->index[ex->n] = i;
      ex->value[ex->n++] = val;
    }
  }
}

static int excluded(const entry *e, const mapf_params *p) {
  for (int32_t x = 0; x < e->nexcl; x++) {
    const excl *ex = &e->excls[x];
    int32_t k = 0;
    while (k < ex->n && p->v[ex->index[k]] == ex->value[k]) k++;
    if (k == ex->n) return 1;
  }
  return 0;
}

/* The first control character of a label (C0, DEL or a UTF-8-encoded C1), or NULL. A label is
 * one line of printable text: a table's header cell, a CSV field, a column of results. */
static const char *label_control(const char *s) {
  for (const unsigned char *u = (const unsigned char *)s; *u; u++)
    if (*u < 0x20 || *u == 0x7f || (u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f))
      return (const char *)u;
  return NULL;
}

/* The label: plain text, or a template where {name} stands for the value of parameter name
 * and {{ and }} for literal braces. Parsed once here (unknown names are errors, with a
 * suggestion); farm_algo_label renders it per job. */
static void parse_label(pctx *c, entry *e, const pnode *v, const char *text) {
  char fbuf[80], h[480];
  farm_algo_spec *as = e->as;
  const mapf_algo_def *def = as->def;
  size_t len = strlen(text);
  as->label_text = malloc(len + 1);
  as->label_parts = malloc((len + 1) * sizeof *as->label_parts);
  if (!as->label_text || !as->label_parts) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  size_t out = 0;
  int32_t np = 0, nparams = 0;
  int failed = 0;
  for (size_t i = 0; i < len;) {
    if (text[i] == '{' && text[i + 1] != '{') {
      const char *close = strchr(text + i + 1, '}');
      if (!close) {
        farm__plan_perr(
            c, v->line, v->col,
            "label: \"{\" without a matching \"}\" in %s; write \"{{\" for a literal brace",
            FOUND(v));
        failed = 1;
        break;
      }
      size_t nlen = (size_t)(close - text) - i - 1;
      char name[128];
      snprintf(name, sizeof name, "%.*s", (int)(nlen < sizeof name ? nlen : sizeof name - 1),
               text + i + 1);
      int32_t idx = nlen > 0 && nlen < sizeof name ? mapf_param_index(def, name) : -1;
      if (nlen == 0) {
        farm__plan_perr(
            c, v->line, v->col,
            "label: an empty placeholder \"{}\" in %s; write a parameter name, e.g. \"{%s}\"",
            FOUND(v), def->nparams ? def->params[0].name : "name");
        failed = 1;
      } else if (idx < 0) {
        farm__plan_hint(name, e->names, def->nparams, h, sizeof h);
        farm__plan_perr(c, v->line, v->col, "label: unknown parameter \"%s\" in \"{%s}\"%s", name,
                        name, h);
        failed = 1;
      } else {
        as->label_parts[np++] = (farm_label_part){idx, 0, 0};
        nparams++;
      }
      i = (size_t)(close - text) + 1;
      continue;
    }
    if (text[i] == '}' && text[i + 1] != '}') {
      farm__plan_perr(
          c, v->line, v->col,
          "label: \"}\" without a matching \"{\" in %s; write \"}}\" for a literal brace",
          FOUND(v));
      failed = 1;
      break;
    }
    /* Literal text up to the next brace; a doubled brace gives one. */
    if (np == 0 || as->label_parts[np - 1].param >= 0)
      as->label_parts[np++] = (farm_label_part){-1, (int32_t)out, 0};
    if (text[i] == '{' || text[i] == '}') {
      as->label_text[out++] = text[i];
      i += 2;
    } else {
      as->label_text[out++] = text[i++];
    }
    as->label_parts[np - 1].len++;
  }
  as->label_text[out] = '\0';
  as->nlabel_parts = np;
  if (failed) return;
  as->label_template = nparams > 0;
  as->label = farm__plan_xstrdup(c, as->label_template ? text : as->label_text);
}

/* An entry whose parameters vary and whose label names none of them gets a label that names
 * what varies, in registry order: `whca` with `window: [4, 8]` is "WHCA* window=4" and
 * "WHCA* window=8", never two configurations under one "WHCA*". Rewritten as a template (braces
 * of the plain label doubled) and parsed as the plan's own would be. */
static void auto_label(pctx *c, entry *e, const pnode *at) {
  farm_algo_spec *as = e->as;
  if (as->label_template || !e->varied || !as->label) return;
  const mapf_algo_def *def = as->def;
  size_t cap = 2 * strlen(as->label) + 1;
  for (int32_t i = 0; i < def->nparams; i++) cap += 2 * strlen(def->params[i].name) + 4;
  char *t = malloc(cap);
  if (!t) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  size_t k = 0;
  for (const char *s = as->label; *s; s++) {
    if (*s == '{' || *s == '}') t[k++] = *s;
    t[k++] = *s;
  }
  for (int32_t i = 0; i < def->nparams; i++)
    if (e->varied & (UINT32_C(1) << i))
      k += (size_t)sprintf(t + k, " %s={%s}", def->params[i].name, def->params[i].name);
  t[k] = '\0';
  free(as->label);
  free(as->label_text);
  free(as->label_parts);
  as->label = as->label_text = NULL;
  as->label_parts = NULL;
  parse_label(c, e, at, t);
  free(t);
}

/* After the entry's keys are parsed and valid: bounds the raw combinations (every draw of a
 * sample and every excluded combination counts against PLAN_MAX_COMBOS; exclude work against
 * PLAN_MAX_EXCLUDE_CHECKS) before anything is allocated for them, draws the sample, then
 * enumerates the raw combinations once: drops the excluded ones, keeping the indices of the
 * others, and checks the survivors against the algorithm's cross-parameter rules (def->rules,
 * as mapf_params_check would: bmaa refuses flow: true), reported at `at`. O(raw x (parameters +
 * exclude entries)). */
static void finish_entry(pctx *c, entry *e, const pnode *at, const pnode *exclude_key,
                         long long *combos_left, long long *checks_left) {
  farm_algo_spec *as = e->as;
  const mapf_algo_def *def = as->def;
  long long n = 1, n_params = 1, n_zip = 1;
  for (int32_t a = 0; a < as->naxes; a++)
    n_params = farm__plan_sat_mul(n_params, as->axes[a].nvalues);
  for (int32_t z = 0; z < as->nzips; z++) n_zip = farm__plan_sat_mul(n_zip, as->zips[z].nrows);
  n = farm__plan_sat_mul(farm__plan_sat_mul(n_params, n_zip),
                         as->sample_count ? as->sample_count : 1);
  if (n > *combos_left) {
    if (!as->nzips && !as->sample_count) {
      farm__plan_perr(c, at->line, at->col,
                      "params of %s: %lld combinations; the algorithms may give at most %d in all",
                      def->name, n, PLAN_MAX_COMBOS);
    } else {
      char detail[160];
      int w = snprintf(detail, sizeof detail, "%lld from params", n_params);
      if (as->nzips && w > 0 && (size_t)w < sizeof detail)
        w += snprintf(detail + w, sizeof detail - (size_t)w, " x %lld from zip", n_zip);
      if (as->sample_count && w > 0 && (size_t)w < sizeof detail)
        snprintf(detail + w, sizeof detail - (size_t)w, " x %d drawn", (int)as->sample_count);
      farm__plan_perr(
          c, at->line, at->col,
          "%s: %lld parameter combinations (%s); the algorithms may give at most %d in all",
          def->name, n, detail, PLAN_MAX_COMBOS);
    }
    return;
  }
  long long checks = farm__plan_sat_mul(n, e->nexcl);
  if (checks > *checks_left) {
    farm__plan_perr(
        c, exclude_key->line, exclude_key->col,
        "exclude: %d entries over %lld combinations; the algorithms may make at most %lld "
        "such checks in all",
        (int)e->nexcl, n, PLAN_MAX_EXCLUDE_CHECKS);
    return;
  }
  *combos_left -= n;
  *checks_left -= checks;
  if (as->sample_count && draw_sample(c, e) != 0) return;
  as->nraw = farm__plan_sat_mul(farm__plan_sat_mul(n_params, n_zip),
                                as->sample_count ? as->sample.nrows : 1);
  int32_t *keep = NULL;
  if (e->nexcl) {
    keep = malloc((size_t)as->nraw * sizeof *keep);
    if (!keep) {
      farm__plan_perr_fatal_oom(c);
      return;
    }
  }
  int64_t kept = 0;
  long long failing = 0;
  mapf_diag first;
  mapf_params first_p;
  memset(&first, 0, sizeof first);
  memset(&first_p, 0, sizeof first_p);
  mapf_params p0;
  for (int64_t raw = 0; raw < as->nraw; raw++) {
    mapf_params p;
    farm_algo_raw(as, raw, &p);
    if (e->nexcl && excluded(e, &p)) continue;
    if (keep) keep[kept] = (int32_t)raw;
    if (kept++ == 0) p0 = p;
    for (int32_t i = 0; i < def->nparams; i++)
      if (p.v[i] != p0.v[i]) e->varied |= UINT32_C(1) << i;
    /* Every value was checked against its declared type and range when it was parsed (or
     * drawn inside a checked range), so only the cross-parameter rules remain: calling them
     * directly keeps a million combinations well under a second. */
    mapf_diag d;
    memset(&d, 0, sizeof d);
    if (mapf_params_check_rules(def, &p, &d) == MAPF_OK) continue;
    if (failing++ == 0) {
      first = d;
      first_p = p;
    }
  }
  if (kept == 0) {
    free(keep);
    farm__plan_perr(
        c, exclude_key->line, exclude_key->col,
        "exclude: all %lld combinations of this entry are excluded; it would give no jobs",
        (long long)as->nraw);
    return;
  }
  if (keep && kept == as->nraw) {
    free(keep);
    keep = NULL;
  } else if (keep) {
    int32_t *k = realloc(keep, (size_t)kept * sizeof *keep);
    if (k) keep = k;
  }
  as->keep = keep;
  as->ncombos = kept;
  if (!failing) return;
  if (kept == 1) {
    farm__plan_perr(c, at->line, at->col, "%s", first.msg);
  } else {
    char json[1024];
    mapf_params_json(def, &first_p, json, sizeof json);
    farm__plan_perr(c, at->line, at->col, "%s (%lld of %lld combinations, first %s)", first.msg,
                    failing, (long long)kept, json);
  }
}

typedef struct combo_key {
  mapf_hash128 h;
  int32_t algo;
  int64_t combo;
} combo_key;

static int cmp_combo_key(const void *a, const void *b) {
  const combo_key *x = a, *y = b;
  if (x->h.hi != y->h.hi) return (x->h.hi > y->h.hi) - (x->h.hi < y->h.hi);
  if (x->h.lo != y->h.lo) return (x->h.lo > y->h.lo) - (x->h.lo < y->h.lo);
  if (x->algo != y->algo) return (x->algo > y->algo) - (x->algo < y->algo);
  return (x->combo > y->combo) - (x->combo < y->combo);
}

/* Hashes what job keys take of one combination: the algorithm's name and its parameters'
 * canonical JSON. The JSON is a function of the values that tells distinct values apart
 * (shortest round-trip reals, integers, booleans), except that -0 prints as 0: so hashing the
 * values, with -0 folded into 0, gives equal hashes exactly for
 * equal texts, without formatting a million JSON texts (O(parameters) per combination). */
static mapf_hash128 combo_hash(const farm_plan *plan, const farm_algo_spec *as, int64_t combo) {
  mapf_params p;
  farm_algo_combo(as, combo, &p);
  unsigned char buf[128 + MAPF_MAX_PARAMS * sizeof(double) + sizeof(mapf_limits)];
  size_t len = strlen(as->def->name);
  if (len > 127) len = 127; /* registry names are short identifiers */
  memcpy(buf, as->def->name, len);
  buf[len++] = '\n';
  for (int32_t i = 0; i < as->def->nparams; i++) {
    double v = p.v[i] + 0.0; /* -0 -> +0, as the JSON prints it */
    memcpy(buf + len, &v, sizeof v);
    len += sizeof v;
  }
  /* The entry's limits are part of its jobs' keys: entries that differ only in them are two
   * configurations. The plan's `limits` are parsed before `algorithms`. */
  mapf_limits l = farm_algo_limits(plan, as);
  double lv[4] = {(double)l.steps, l.seconds + 0.0, (double)l.expansions, l.work + 0.0};
  memcpy(buf + len, lv, sizeof lv);
  len += sizeof lv;
  return mapf_hash128_of(buf, len);
}

/* A combination given by two algorithm entries (e.g. bmaa twice, with different labels) is an
 * error: labels are not part of job keys. One message per later entry. O(C log C) for C
 * combinations over all entries (at most PLAN_MAX_COMBOS). Within one entry no combination can
 * repeat (axis values, zip rows and sampled configurations are distinct, and a parameter is
 * varied in one place only), so the same-entry message is only a safeguard. */
static void check_combo_repeats(pctx *c, const farm_plan *plan, long long total) {
  combo_key *k = malloc((size_t)(total ? total : 1) * sizeof *k);
  if (!k) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  int64_t n = 0;
  for (int32_t a = 0; a < plan->nalgos; a++)
    for (int64_t i = 0; plan->algos[a].def && i < plan->algos[a].ncombos; i++)
      k[n++] = (combo_key){combo_hash(plan, &plan->algos[a], i), a, i};
  qsort(k, (size_t)n, sizeof *k, cmp_combo_key);
  /* Per later entry, its first repeated combination and the earliest entry that gives it;
   * reported afterwards in plan order, so the messages do not depend on hash order. */
  typedef struct repeat {
    int64_t combo;
    int32_t first; /* the earliest entry, or -1: none */
  } repeat;
  repeat *rep = malloc((size_t)plan->nalgos * sizeof *rep);
  if (!rep) {
    free(k);
    farm__plan_perr_fatal_oom(c);
    return;
  }
  for (int32_t a = 0; a < plan->nalgos; a++) rep[a] = (repeat){0, -1};
  int64_t run = 0; /* start of the run of equal keys that k[i] is in: its earliest entry */
  for (int64_t i = 1; i < n; i++) {
    if (k[i].h.hi != k[i - 1].h.hi || k[i].h.lo != k[i - 1].h.lo) {
      run = i;
      continue;
    }
    repeat *r = &rep[k[i].algo];
    if (r->first < 0 || k[i].combo < r->combo) *r = (repeat){k[i].combo, k[run].algo};
  }
  for (int32_t a = 0; a < plan->nalgos; a++) {
    if (rep[a].first < 0) continue;
    const farm_algo_spec *later = &plan->algos[a], *first = &plan->algos[rep[a].first];
    mapf_params p;
    char json[1024];
    farm_algo_combo(later, rep[a].combo, &p);
    mapf_params_json(later->def, &p, json, sizeof json);
    if (rep[a].first == a)
      farm__plan_perr(c, later->line, later->col, "algorithm %s gives the parameters %s twice",
                      later->def->name, json);
    else
      farm__plan_perr(c, later->line, later->col,
                      "algorithm %s with parameters %s is also the entry at "
                      "line %d, column %d; its jobs would run twice (labels are not part of a job)",
                      later->def->name, json, first->line, first->col);
  }
  free(rep);
  free(k);
}

/* Names of the registered algorithms (at most 64), for suggestions. */
static int32_t algo_names(const char **names) {
  int32_t n = 0;
  for (int32_t i = 0; i < mapf_algo_count() && n < 64; i++) names[n++] = mapf_algo_at(i)->name;
  return n;
}

/* `defaults: {ALGORITHM: {PARAM: value, ...}, ...}`: single values that replace the registry's
 * defaults for every entry of that algorithm (bases[i] for mapf_algo_at(i), filled with the
 * registry's defaults first). Each value is checked like a params value. */
void farm__plan_parse_defaults(pctx *c, const pnode *v, mapf_params *bases) {
  char fbuf[80], in[96];
  const char *names[64];
  int32_t nnames = algo_names(names);
  if (farm__plan_bad(c, v)) return;
  if (farm__plan_is_null(v)) return;
  if (v->kind != PN_MAP) {
    farm__plan_perr(c, v->line, v->col,
                    "defaults: expected a mapping of algorithm names to parameter values, found %s",
                    FOUND(v));
    return;
  }
  kv f[64];
  farm__plan_walk_map(c, v, names, nnames, f, "defaults");
  for (int32_t a = 0; a < nnames && !c->stop; a++) {
    const pnode *m = f[a].val;
    if (!m || farm__plan_bad(c, m)) continue;
    const mapf_algo_def *def = mapf_algo_at(a);
    if (m->kind != PN_MAP) {
      farm__plan_perr(c, m->line, m->col,
                      "defaults of %s: expected a mapping of parameter names to values, found %s",
                      def->name, FOUND(m));
      continue;
    }
    const char *pnames[MAPF_MAX_PARAMS];
    for (int32_t i = 0; i < def->nparams; i++) pnames[i] = def->params[i].name;
    snprintf(in, sizeof in, "defaults of %s", def->name);
    kv fp[MAPF_MAX_PARAMS];
    farm__plan_walk_map(c, m, pnames, def->nparams, fp, in);
    for (int32_t i = 0; i < def->nparams; i++) {
      if (!fp[i].val) continue;
      if (def->params[i].type == MAPF_PARAM_LIST)
        farm__plan_parse_list(c, def, i, fp[i].val, &bases[a]);
      else
        farm__plan_parse_single(c, def, i, fp[i].val, &bases[a].v[i]);
    }
  }
}

int farm__plan_parse_list(pctx *c, const mapf_algo_def *def, int32_t i, const pnode *v,
                          mapf_params *p) {
  char fbuf[80];
  const char *name = def->params[i].name;
  if (farm__plan_bad(c, v)) return -1;
  if (v->kind != PN_SEQ) {
    farm__plan_perr(c, v->line, v->col,
                    "%s: expected a list of strings, e.g. [\"./solver\", \"{map}\"], found %s",
                    name, FOUND(v));
    return -1;
  }
  const char **items = malloc(((size_t)v->nkids + 1) * sizeof *items);
  char **lists = realloc(c->plan ? c->plan->lists : NULL,
                         ((size_t)(c->plan ? c->plan->nlists : 0) + 1) * sizeof *lists);
  if (lists && c->plan) c->plan->lists = lists;
  if (!items || !lists || !c->plan) {
    free(items);
    if (!c->plan) free(lists);
    farm__plan_perr_fatal_oom(c);
    return -1;
  }
  for (int32_t k = 0; k < v->nkids; k++) {
    const pnode *it = v->kids[k];
    if (farm__plan_bad(c, it)) {
      free(items);
      return -1;
    }
    if (it->kind == PN_SCALAR && !farm__plan_is_null(it)) {
      items[k] = it->str;
      continue;
    }
    /* An unquoted {map} is a YAML mapping: say so. */
    if (it->kind == PN_MAP && it->nkids == 2 && it->kids[0]->kind == PN_SCALAR &&
        farm__plan_is_null(it->kids[1]))
      farm__plan_perr(c, it->line, it->col,
                      "%s: item %d is the YAML mapping {%s}; quote a placeholder: \"{%s}\"", name,
                      (int)k + 1, it->kids[0]->str, it->kids[0]->str);
    else
      farm__plan_perr(c, it->line, it->col, "%s: item %d: expected a string, found %s", name,
                      (int)k + 1, FOUND(it));
    free(items);
    return -1;
  }
  char *json = mapf_list_json(items, v->nkids);
  free(items);
  if (!json) {
    farm__plan_perr_fatal_oom(c);
    return -1;
  }
  if (strlen(json) > MAPF_LIST_MAX_JSON) {
    farm__plan_perr(c, v->line, v->col,
                    "%s: %zu characters of JSON; at most %d are allowed (a longer command goes "
                    "in a wrapper script)",
                    name, strlen(json), MAPF_LIST_MAX_JSON);
    free(json);
    return -1;
  }
  c->plan->lists[c->plan->nlists++] = json;
  mapf_params_set_list(def, p, i, json);
  return 0;
}

/* One combination's label and configuration, for check_label_repeats. */
typedef struct label_key {
  mapf_hash128 label, config;
  int32_t algo;
  int64_t combo;
} label_key;

static int cmp_label_key(const void *a, const void *b) {
  const label_key *x = a, *y = b;
  if (x->label.hi != y->label.hi) return (x->label.hi > y->label.hi) - (x->label.hi < y->label.hi);
  if (x->label.lo != y->label.lo) return (x->label.lo > y->label.lo) - (x->label.lo < y->label.lo);
  if (x->algo != y->algo) return (x->algo > y->algo) - (x->algo < y->algo);
  return (x->combo > y->combo) - (x->combo < y->combo);
}

/* " {name}" for each parameter whose value differs between p and q (same algorithm), into
 * buf: the placeholders that would tell the two apart. */
static void differing_placeholders(const mapf_algo_def *def, const mapf_params *p,
                                   const mapf_params *q, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = '\0';
  for (int32_t i = 0; i < def->nparams && k < n; i++)
    if (p->v[i] != q->v[i]) {
      int w = snprintf(buf + k, n - k, " {%s}", def->params[i].name);
      k += w > 0 ? (size_t)w : 0;
    }
}

/* Two combinations with one label and different configurations (another algorithm, other
 * parameters) are an error: every table groups by label, and would average them as one. This
 * catches two entries with one plain label, and a template that leaves out a varied parameter.
 * One message per entry, at its first clash, in plan order. O(C log C) for C combinations. */

/* " under limits {steps: S, ...}" for a message: the limits an entry's jobs run under. */
static void limits_json(const mapf_limits *l, char *buf, size_t n) {
  char secs[40], work[40];
  mapf_format_real(l->seconds, MAPF_REAL_DIGITS, secs, sizeof secs);
  mapf_format_real(l->work, MAPF_REAL_DIGITS, work, sizeof work);
  snprintf(buf, n, " under limits {steps: %lld, seconds: %s, expansions: %lld, work: %s}",
           (long long)l->steps, secs, (long long)l->expansions, work);
}

static void check_label_repeats(pctx *c, const farm_plan *plan, long long total) {
  label_key *k = malloc((size_t)(total ? total : 1) * sizeof *k);
  if (!k) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  int64_t n = 0;
  char label[1024];
  for (int32_t a = 0; a < plan->nalgos; a++) {
    const farm_algo_spec *as = &plan->algos[a];
    for (int64_t i = 0; i < as->ncombos; i++) {
      mapf_params p;
      farm_algo_combo(as, i, &p);
      int len = farm_algo_label(as, &p, label, sizeof label);
      size_t used = len < 0 ? 0 : (size_t)len < sizeof label ? (size_t)len : sizeof label - 1;
      k[n++] = (label_key){mapf_hash128_of(label, used), combo_hash(plan, as, i), a, i};
    }
  }
  qsort(k, (size_t)n, sizeof *k, cmp_label_key);
  /* Per entry, its first clash: the pair (earlier, later) with the smallest later combination. */
  typedef struct clash {
    int64_t i;      /* index into k of the later combination, or -1 */
    int64_t first;  /* index into k of the earliest combination with that label */
  } clash;
  clash *cl = malloc((size_t)plan->nalgos * sizeof *cl);
  if (!cl) {
    free(k);
    farm__plan_perr_fatal_oom(c);
    return;
  }
  for (int32_t a = 0; a < plan->nalgos; a++) cl[a] = (clash){-1, -1};
  int64_t run = 0;
  for (int64_t i = 1; i < n; i++) {
    if (k[i].label.hi != k[run].label.hi || k[i].label.lo != k[run].label.lo) {
      run = i;
      continue;
    }
    if (k[i].config.hi == k[run].config.hi && k[i].config.lo == k[run].config.lo) continue;
    clash *x = &cl[k[i].algo];
    if (x->i < 0 || k[i].combo < k[x->i].combo) *x = (clash){i, run};
  }
  for (int32_t a = 0; a < plan->nalgos; a++) {
    if (cl[a].i < 0) continue;
    const label_key *later = &k[cl[a].i], *first = &k[cl[a].first];
    const farm_algo_spec *la = &plan->algos[later->algo], *fa = &plan->algos[first->algo];
    mapf_params lp, fp;
    char ljson[1024], fjson[1024], hint_text[256];
    farm_algo_combo(la, later->combo, &lp);
    farm_algo_combo(fa, first->combo, &fp);
    farm_algo_label(la, &lp, label, sizeof label);
    mapf_params_json(la->def, &lp, ljson, sizeof ljson);
    mapf_params_json(fa->def, &fp, fjson, sizeof fjson);
    hint_text[0] = '\0';
    if (la->def == fa->def) differing_placeholders(la->def, &lp, &fp, hint_text, sizeof hint_text);
    /* Entries that differ only in their own limits: say so, or the two look alike. */
    mapf_limits ll = farm_algo_limits(plan, la), fl = farm_algo_limits(plan, fa);
    if (memcmp(&ll, &fl, sizeof ll) != 0) {
      limits_json(&fl, fjson + strlen(fjson), sizeof fjson - strlen(fjson));
      limits_json(&ll, ljson + strlen(ljson), sizeof ljson - strlen(ljson));
    }
    if (first->algo == later->algo)
      farm__plan_perr(
          c, la->line, la->col,
          "label \"%s\" names two configurations of this entry, %s %s and %s; name every "
          "varied parameter in the label (add%s)",
          label, la->def->name, fjson, ljson, hint_text);
    else
      farm__plan_perr(
          c, la->line, la->col,
          "label \"%s\" is also the label of the entry at line %d, column %d, which has "
          "another configuration (%s %s there, %s %s here); tables would average the two as "
          "one: give each its own label%s%s%s",
          label, fa->line, fa->col, fa->def->name, fjson, la->def->name, ljson,
          hint_text[0] ? " or name what differs (add" : "", hint_text, hint_text[0] ? ")" : "");
  }
  free(cl);
  free(k);
}

enum { A_NAME, A_LABEL, A_PARAMS, A_ZIP, A_EXCLUDE, A_SAMPLE, A_LIMITS, A_N };

/* One entry of `algorithms`. */
static void parse_entry(pctx *c, farm_algo_spec *as, const pnode *it, const mapf_params *bases,
                        long long *combos_left, long long *checks_left) {
  static const char *const keys[A_N] = {"name",    "label",  "params", "zip",
                                        "exclude", "sample", "limits"};
  char h[480];
  const char *names[64];
  int32_t nnames = algo_names(names);
  kv f[A_N];
  farm__plan_walk_map(c, it, keys, A_N, f, "algorithm");
  int32_t algo = -1;
  if (farm__plan_require(c, it, &f[A_NAME], "name", "algorithm") == 0) {
    const char *name = farm__plan_get_str(c, f[A_NAME].val, "name");
    if (name) {
      as->def = mapf_algo_find(name);
      for (int32_t i = 0; as->def && i < nnames; i++)
        if (mapf_algo_at(i) == as->def) algo = i;
      if (!as->def) {
        farm__plan_hint(name, names, nnames, h, sizeof h);
        farm__plan_perr(c, f[A_NAME].val->line, f[A_NAME].val->col, "unknown algorithm \"%s\"%s",
                        name, h);
      }
    }
  }
  const char *label = NULL;
  if (f[A_LABEL].val) {
    label = farm__plan_get_str(c, f[A_LABEL].val, "label");
    const char *cc = label ? label_control(label) : NULL;
    if (cc) {
      char fbuf[80];
      farm__plan_perr(
          c, f[A_LABEL].val->line, f[A_LABEL].val->col,
          "label: %s holds a control character (byte 0x%02x at offset %d); a label is one line "
          "of printable text",
          FOUND(f[A_LABEL].val), (unsigned)(unsigned char)*cc, (int)(cc - label));
      label = NULL;
    }
    if (label && !as->def) as->label = farm__plan_xstrdup(c, label);
  } else if (as->def) {
    as->label = farm__plan_xstrdup(c, as->def->label);
  }
  if (f[A_LIMITS].val) farm__plan_parse_limits(c, f[A_LIMITS].val, &as->limits, &as->limits_set);
  if (!as->def) return;
  if (algo >= 0)
    as->base = bases[algo];
  else
    mapf_params_default(as->def, &as->base);
  entry e;
  memset(&e, 0, sizeof e);
  e.as = as;
  for (int32_t i = 0; i < as->def->nparams; i++) e.names[i] = as->def->params[i].name;
  int32_t before = c->nfail;
  if (f[A_PARAMS].val) parse_params(c, &e, &f[A_PARAMS]);
  if (f[A_ZIP].val && !c->stop) parse_zip(c, &e, &f[A_ZIP]);
  if (f[A_SAMPLE].val && !c->stop) parse_sample(c, &e, &f[A_SAMPLE]);
  if (f[A_EXCLUDE].val && !c->stop) parse_exclude(c, &e, &f[A_EXCLUDE], c->nfail == before);
  if (label && !c->stop) parse_label(c, &e, f[A_LABEL].val, label);
  if (c->nfail == before && !c->stop) {
    /* Combination errors go to the first of params, zip and sample, else to the entry. */
    const pnode *at = f[A_PARAMS].key   ? f[A_PARAMS].key
                      : f[A_ZIP].key    ? f[A_ZIP].key
                      : f[A_SAMPLE].key ? f[A_SAMPLE].key
                                        : it;
    finish_entry(c, &e, at, f[A_EXCLUDE].key, combos_left, checks_left);
    if (c->nfail == before && !c->stop) auto_label(c, &e, f[A_LABEL].val ? f[A_LABEL].val : it);
  }
  entry_free(&e);
}

void farm__plan_parse_algorithms(pctx *c, farm_plan *plan, const pnode *v,
                                 const mapf_params *bases) {
  char fbuf[80];
  if (farm__plan_bad(c, v)) return;
  if (v->kind != PN_SEQ || v->nkids == 0) {
    farm__plan_perr(c, v->line, v->col, "algorithms: expected a non-empty list, found %s",
                    FOUND(v));
    return;
  }
  if (v->nkids > PLAN_MAX_ALGORITHMS) {
    farm__plan_perr(c, v->line, v->col, "algorithms: %d entries; at most %d are allowed",
                    (int)v->nkids, PLAN_MAX_ALGORITHMS);
    return;
  }
  plan->algos = calloc((size_t)v->nkids, sizeof *plan->algos);
  if (!plan->algos) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  plan->nalgos = v->nkids;
  int32_t before = c->nfail;
  long long combos_left = PLAN_MAX_COMBOS, checks_left = PLAN_MAX_EXCLUDE_CHECKS;
  for (int32_t a = 0; a < v->nkids && !c->stop; a++) {
    const pnode *it = v->kids[a];
    farm_algo_spec *as = &plan->algos[a];
    as->line = it->line;
    as->col = it->col;
    as->ncombos = 1;
    as->nraw = 1;
    if (farm__plan_bad(c, it)) continue;
    if (it->kind != PN_MAP) {
      farm__plan_perr(c, it->line, it->col,
                      "algorithms: expected a mapping (name, label, params, zip, exclude, sample, "
                      "limits), found %s",
                      FOUND(it));
      continue;
    }
    parse_entry(c, as, it, bases, &combos_left, &checks_left);
  }
  if (c->nfail != before || c->stop) return;
  /* A work budget needs the algorithm's work model (core/algo.h). */
  for (int32_t a = 0; a < plan->nalgos; a++) {
    const farm_algo_spec *as = &plan->algos[a];
    if (farm_algo_limits(plan, as).work > 0 && !mapf_work_model_set(&as->def->work))
      farm__plan_perr(c, as->line, as->col,
                      "algorithm %s has no work model, so `limits: work` cannot budget it; use "
                      "steps, expansions or seconds for this entry",
                      as->def->name);
  }
  if (c->nfail != before || c->stop) return;
  /* A program (external's command) runs under a wall-clock limit, and its file's content is
   * part of the job keys: found and hashed here, once per entry, before any job runs. */
  for (int32_t a = 0; a < plan->nalgos; a++) {
    farm_algo_spec *as = &plan->algos[a];
    if (!as->def->program) continue;
    if (!(farm_algo_limits(plan, as).seconds > 0)) {
      farm__plan_perr(c, as->line, as->col,
                      "algorithm %s runs a program, which needs a wall-clock limit to be "
                      "killed at: set limits: {seconds: S} for the plan or this entry",
                      as->def->name);
      continue;
    }
    int32_t i = mapf_param_index(as->def, as->def->program);
    mapf_diag d;
    memset(&d, 0, sizeof d);
    if (mapf_external_hash(as->base.text[i], as->program_hash, &d) != MAPF_OK)
      farm__plan_perr(c, as->line, as->col, "algorithm %s: %s", as->def->name, d.msg);
  }
  if (c->nfail != before || c->stop) return;
  long long total = 0;
  for (int32_t a = 0; a < plan->nalgos; a++) total += plan->algos[a].ncombos;
  check_combo_repeats(c, plan, total);
  if (c->nfail == before && !c->stop) check_label_repeats(c, plan, total);
}
