/* select.c: the algorithm selector and its evaluation (select.h). */
#include "select.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "inst_features.h"
#include "labels.h"
#include "portfolio.h"
#include "scengen.h"
#include "store.h"

int farm_sel_objective_parse(const char *name) {
  if (strcmp(name, "completion") == 0) return FARM_SEL_COMPLETION;
  if (strcmp(name, "steps") == 0) return FARM_SEL_STEPS;
  if (strcmp(name, "distance") == 0) return FARM_SEL_DISTANCE;
  return -1;
}

const char *farm_sel_objective_name(farm_sel_objective o) {
  return o == FARM_SEL_STEPS ? "steps" : o == FARM_SEL_DISTANCE ? "distance" : "completion";
}

int farm_sel_protocol_parse(const char *name) {
  if (strcmp(name, "within-maps") == 0) return FARM_SEL_WITHIN_MAPS;
  if (strcmp(name, "leave-map-out") == 0) return FARM_SEL_LEAVE_MAP_OUT;
  if (strcmp(name, "leave-type-out") == 0) return FARM_SEL_LEAVE_TYPE_OUT;
  return -1;
}

const char *farm_sel_protocol_name(farm_sel_protocol p) {
  return p == FARM_SEL_LEAVE_MAP_OUT    ? "leave-map-out"
         : p == FARM_SEL_LEAVE_TYPE_OUT ? "leave-type-out"
                                        : "within-maps";
}

#ifndef MAPFARM_XGBOOST

int farm_select_available(void) { return 0; }

int farm_select_train(const char *db_path, const char *out_path, const farm_sel_opts *o,
                      FILE *out, mapf_diag *err) {
  return farm_err(err, FARM_SELECT_NO_XGBOOST);
}

int farm_select_eval(const char *db_path, farm_sel_protocol p, int32_t k,
                     const farm_sel_opts *o, int md, const char *regret_csv, FILE *out,
                     mapf_diag *err) {
  return farm_err(err, FARM_SELECT_NO_XGBOOST);
}

int farm_select_test(const char *db_path, const char *model_path, FILE *out, mapf_diag *err) {
  return farm_err(err, FARM_SELECT_NO_XGBOOST);
}

int farm_sel_model_load(const char *model_path, farm_sel_model **out, mapf_diag *err) {
  *out = NULL;
  return farm_err(err, FARM_SELECT_NO_XGBOOST);
}

void farm_sel_model_free(farm_sel_model *m) { (void)m; }

int32_t farm_sel_model_predict(farm_sel_model *m, const mapf_grid *g, const mapf_instance *inst,
                               const char *generator, double *probs, mapf_diag *err) {
  return farm_err(err, FARM_SELECT_NO_XGBOOST);
}

int32_t farm_sel_model_nlabels(const farm_sel_model *m) { return 0; }
const char *farm_sel_model_label(const farm_sel_model *m, int32_t i) { return NULL; }
const char *farm_sel_model_algorithm(const farm_sel_model *m, int32_t i) { return NULL; }
const char *farm_sel_model_params(const farm_sel_model *m, int32_t i) { return NULL; }

#else

#include <xgboost/c_api.h>

int farm_select_available(void) { return 1; }

/* ---- the input vector ------------------------------------------------------------------------ */

/* The numeric features, then one indicator per problem type: the generators of the registry
 * and "scen" (a scenario file). A type held out of training (leave-type-out) is all zeros in
 * the training rows: the trees then never split on its indicator. */
static int32_t n_types(void) { return mapf_scengen_count() + 1; }

static const char *type_name(int32_t t) {
  return t < mapf_scengen_count() ? mapf_scengen_at(t)->name : "scen";
}

static int32_t n_inputs(void) { return farm_nfeatures + n_types(); }

/* The name of input j, as the model records it: the column name, or "type=NAME". */
static void input_name(int32_t j, char *buf, size_t n) {
  if (j < farm_nfeatures) snprintf(buf, n, "%s", farm_feature_columns[j].name);
  else snprintf(buf, n, "type=%s", type_name(j - farm_nfeatures));
}

static int32_t type_index(const char *type) {
  for (int32_t t = 0; t < n_types(); t++)
    if (strcmp(type_name(t), type) == 0) return t;
  return -1;
}

static void input_row(const double *num, int32_t type, float *x) {
  for (int32_t j = 0; j < farm_nfeatures; j++) x[j] = (float)num[j];
  for (int32_t t = 0; t < n_types(); t++) x[farm_nfeatures + t] = t == type ? 1.0f : 0.0f;
}

/* ---- the objective ---------------------------------------------------------------------------- */

static double key_rate(double v) { return isnan(v) ? -1.0 : v; }
static double key_cost(double v) { return isnan(v) ? INFINITY : v; }

/* <0 when a ranks before b under the objective: its metric first, then the thesis's rule. */
static int obj_cmp(farm_sel_objective o, const farm_pf_metrics *a, const farm_pf_metrics *b) {
  if (o != FARM_SEL_COMPLETION) {
    double x = o == FARM_SEL_STEPS ? a->steps : a->distance;
    double y = o == FARM_SEL_STEPS ? b->steps : b->distance;
    x = key_cost(x), y = key_cost(y);
    if (x != y) return x < y ? -1 : 1;
  }
  double x = key_rate(a->rate), y = key_rate(b->rate);
  if (x != y) return x > y ? -1 : 1;
  return farm_pf_cmp(a, b);
}

/* The utility of a cell under the objective, higher better: the completion rate in percent,
 * or minus the steps or the distance. Regret and the gap are differences of it. */
static double utility(farm_sel_objective o, const farm_pf_metrics *m) {
  double v = o == FARM_SEL_COMPLETION ? m->rate : o == FARM_SEL_STEPS ? m->steps : m->distance;
  if (isnan(v)) return o == FARM_SEL_COMPLETION ? 0.0 : -1e9;
  return o == FARM_SEL_COMPLETION ? 100.0 * v : -v;
}

/* ---- the data of a database -------------------------------------------------------------------- */

typedef struct sel_data {
  int32_t L;
  char **label, **algo, **params;
  int32_t *name_rank;     /* per label: its place in byte order (the rule's last tie-break) */
  int64_t n;              /* instances (rows): every label ran there, features computed */
  float *x;               /* n x n_inputs() */
  farm_pf_metrics *cell;  /* n x L: each label's best job on the row */
  int32_t *map, *type;    /* per row: index into maps, and the problem type (type_index) */
  char **maps;            /* map names (the first seen of each content hash) */
  char **map_hashes;
  int32_t nmaps;
  uint64_t *key;          /* per row: a hash of its instance key (the within-maps split) */
  int64_t partial;        /* instances left out: some label has no job that ran there */
} sel_data;

static void sel_data_free(sel_data *d) {
  for (int32_t l = 0; l < d->L; l++) {
    free(d->label[l]);
    free(d->algo[l]);
    free(d->params[l]);
  }
  free(d->label), free(d->algo), free(d->params), free(d->name_rank);
  free(d->x), free(d->cell), free(d->map), free(d->type), free(d->key);
  for (int32_t m = 0; m < d->nmaps; m++) {
    free(d->maps[m]);
    free(d->map_hashes[m]);
  }
  free(d->maps), free(d->map_hashes);
  memset(d, 0, sizeof *d);
}

static char *dup_col(sqlite3_stmt *s, int i) {
  const unsigned char *t = sqlite3_column_text(s, i);
  return strdup(t ? (const char *)t : "");
}

static double col_real(sqlite3_stmt *s, int i) {
  return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

/* Compares the instance key of row s (columns 0..3: map_hash, generator, agents, instance)
 * with that of row t, as SQLite's ORDER BY orders them. */
static int key_cmp(sqlite3_stmt *s, sqlite3_stmt *t) {
  int c = strcmp((const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(t, 0));
  if (c) return c;
  c = strcmp((const char *)sqlite3_column_text(s, 1), (const char *)sqlite3_column_text(t, 1));
  if (c) return c;
  int64_t a = sqlite3_column_int64(s, 2), b = sqlite3_column_int64(t, 2);
  if (a != b) return a < b ? -1 : 1;
  a = sqlite3_column_int64(s, 3), b = sqlite3_column_int64(t, 3);
  return a < b ? -1 : a > b;
}

/* Reads the labels, features and metrics of the database. */
static int sel_load(sqlite3 *db, const char *path, sel_data *d, mapf_diag *err) {
  memset(d, 0, sizeof *d);
  sqlite3_stmt *s = NULL, *f = NULL;
  int64_t nfeat = 0, vmin = 0, vmax = 0;
  if (sqlite3_prepare_v2(db, "SELECT count(*), min(version), max(version) FROM features", -1, &s,
                         NULL) != SQLITE_OK) {
    sqlite3_finalize(s);
    return farm_err(err, "%s has no features table: run `mapfarm features --db %s` first",
                    path, path);
  }
  if (sqlite3_step(s) == SQLITE_ROW) {
    nfeat = sqlite3_column_int64(s, 0);
    vmin = sqlite3_column_int64(s, 1);
    vmax = sqlite3_column_int64(s, 2);
  }
  sqlite3_finalize(s);
  if (nfeat == 0)
    return farm_err(err, "%s: its features table is empty: run `mapfarm features --db %s`", path,
                    path);
  if (vmin != FARM_FEATURES_VERSION || vmax != FARM_FEATURES_VERSION)
    return farm_err(err,
                    "%s: its features are of version %lld, this mapfarm computes version %d: "
                    "run `mapfarm features --db %s` again",
                    path, (long long)vmin, FARM_FEATURES_VERSION, path);
  /* A label must be one configuration: what the selector chooses is run as one. */
  if (farm_labels_check(db, NULL, 0, err) < 0) return -1;
  if (sqlite3_prepare_v2(db,
                         "SELECT label, algorithm, params FROM results WHERE status <> 'error' "
                         "GROUP BY label ORDER BY min(plan_index), label",
                         -1, &s, NULL) != SQLITE_OK)
    goto sql_error;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    int32_t L = d->L + 1;
    char **a = realloc(d->label, (size_t)L * sizeof *a);
    if (a) d->label = a;
    char **b = a ? realloc(d->algo, (size_t)L * sizeof *b) : NULL;
    if (b) d->algo = b;
    char **c = b ? realloc(d->params, (size_t)L * sizeof *c) : NULL;
    if (!c) goto oom;
    d->params = c;
    d->label[d->L] = dup_col(s, 0);
    d->algo[d->L] = dup_col(s, 1);
    d->params[d->L] = dup_col(s, 2);
    d->L = L;
  }
  if (rc != SQLITE_DONE) goto sql_error;
  sqlite3_finalize(s);
  s = NULL;
  if (d->L == 0)
    return farm_err(err, "%s holds no job that ran: no labels to learn (run a plan into it)",
                    path);
  if (d->L == 1)
    return farm_err(err, "%s has one label (%s): a selector needs two or more to choose from",
                    path, d->label[0]);
  d->name_rank = malloc((size_t)d->L * sizeof *d->name_rank);
  if (!d->name_rank) goto oom;
  for (int32_t l = 0; l < d->L; l++) {
    d->name_rank[l] = 0;
    for (int32_t j = 0; j < d->L; j++) d->name_rank[l] += strcmp(d->label[j], d->label[l]) < 0;
  }
  /* Features and jobs, both in instance order: a merge. */
  char sql[8192];
  size_t len = (size_t)snprintf(sql, sizeof sql,
                                "SELECT map_hash, generator, agents, instance, map, problem_type");
  for (int32_t j = 0; j < farm_nfeatures; j++)
    len += (size_t)snprintf(sql + len, sizeof sql - len, ", %s", farm_feature_columns[j].name);
  snprintf(sql + len, sizeof sql - len,
           " FROM features ORDER BY map_hash, generator, agents, instance");
  if (sqlite3_prepare_v2(db, sql, -1, &f, NULL) != SQLITE_OK) goto sql_error;
  if (sqlite3_prepare_v2(db,
                         "SELECT map_hash, generator, agents, instance, label, completion_rate, "
                         "mean_travel_distance, mean_completion_steps_capped FROM results WHERE "
                         "status <> 'error' ORDER BY map_hash, generator, agents, instance",
                         -1, &s, NULL) != SQLITE_OK)
    goto sql_error;
  int32_t NI = n_inputs(), L = d->L;
  int64_t cap = 0, missing = 0;
  farm_pf_metrics *row = malloc((size_t)L * sizeof *row);
  uint8_t *have = malloc((size_t)L);
  double *num = malloc((size_t)farm_nfeatures * sizeof *num);
  if (!row || !have || !num) {
    free(row), free(have), free(num);
    goto oom;
  }
  int frc = sqlite3_step(f);
  rc = sqlite3_step(s);
  while (rc == SQLITE_ROW) {
    /* One instance's jobs. */
    memset(have, 0, (size_t)L);
    char hash[40], gen[1024];
    snprintf(hash, sizeof hash, "%s", (const char *)sqlite3_column_text(s, 0));
    snprintf(gen, sizeof gen, "%s", (const char *)sqlite3_column_text(s, 1));
    int64_t agents = sqlite3_column_int64(s, 2), instance = sqlite3_column_int64(s, 3);
    while (frc == SQLITE_ROW && key_cmp(f, s) < 0) frc = sqlite3_step(f);
    int feat = frc == SQLITE_ROW && key_cmp(f, s) == 0;
    if (feat) {
      for (int32_t j = 0; j < farm_nfeatures; j++) num[j] = col_real(f, 6 + j);
    }
    int32_t type = -1;
    char *mapname = NULL;
    if (feat) {
      type = type_index((const char *)sqlite3_column_text(f, 5));
      mapname = dup_col(f, 4);
    }
    for (; rc == SQLITE_ROW; rc = sqlite3_step(s)) {
      if (strcmp((const char *)sqlite3_column_text(s, 0), hash) != 0 ||
          strcmp((const char *)sqlite3_column_text(s, 1), gen) != 0 ||
          sqlite3_column_int64(s, 2) != agents || sqlite3_column_int64(s, 3) != instance)
        break;
      const char *lab = (const char *)sqlite3_column_text(s, 4);
      int32_t l = 0;
      while (l < L && strcmp(d->label[l], lab ? lab : "") != 0) l++;
      if (l == L) continue;
      farm_pf_metrics m = {col_real(s, 5), col_real(s, 6), col_real(s, 7), NAN};
      if (!have[l] || farm_pf_cmp(&m, &row[l]) < 0) row[l] = m;
      have[l] = 1;
    }
    int all = 1;
    for (int32_t l = 0; l < L; l++) all &= have[l];
    if (!all) {
      d->partial++;
      free(mapname);
      continue;
    }
    if (!feat) {
      missing++;
      continue;
    }
    if (d->n == cap) {
      int64_t c = cap ? 2 * cap : 256;
      float *x = realloc(d->x, (size_t)c * (size_t)NI * sizeof *x);
      if (x) d->x = x;
      farm_pf_metrics *ce = x ? realloc(d->cell, (size_t)c * (size_t)L * sizeof *ce) : NULL;
      if (ce) d->cell = ce;
      int32_t *mp = ce ? realloc(d->map, (size_t)c * sizeof *mp) : NULL;
      if (mp) d->map = mp;
      int32_t *ty = mp ? realloc(d->type, (size_t)c * sizeof *ty) : NULL;
      if (ty) d->type = ty;
      uint64_t *k = ty ? realloc(d->key, (size_t)c * sizeof *k) : NULL;
      if (!k) {
        free(mapname), free(row), free(have), free(num);
        goto oom;
      }
      d->key = k;
      cap = c;
    }
    int64_t r = d->n++;
    input_row(num, type, &d->x[r * NI]);
    memcpy(&d->cell[r * L], row, (size_t)L * sizeof *row);
    d->type[r] = type;
    char text[1200];
    int tl = snprintf(text, sizeof text, "%s\n%s\n%lld\n%lld\n", hash, gen, (long long)agents,
                      (long long)instance);
    d->key[r] = mapf_hash64(text, (size_t)(tl < (int)sizeof text ? tl : (int)sizeof text - 1), 0);
    int32_t m = 0;
    while (m < d->nmaps && strcmp(d->map_hashes[m], hash) != 0) m++;
    if (m == d->nmaps) {
      char **a = realloc(d->maps, (size_t)(m + 1) * sizeof *a);
      if (a) d->maps = a;
      char **b = a ? realloc(d->map_hashes, (size_t)(m + 1) * sizeof *b) : NULL;
      if (!b) {
        free(mapname), free(row), free(have), free(num);
        goto oom;
      }
      d->map_hashes = b;
      d->maps[m] = mapname;
      d->map_hashes[m] = strdup(hash);
      mapname = NULL;
      d->nmaps++;
    }
    free(mapname);
    d->map[r] = m;
  }
  free(row), free(have), free(num);
  if (rc != SQLITE_DONE || (frc != SQLITE_DONE && frc != SQLITE_ROW)) goto sql_error;
  sqlite3_finalize(s);
  sqlite3_finalize(f);
  if (missing > 0)
    return farm_err(err,
                    "%s: %lld instances have no features (results were added since `mapfarm "
                    "features` ran): run `mapfarm features --db %s` again",
                    path, (long long)missing, path);
  if (d->n == 0)
    return farm_err(err, "%s: no instance on which every label ran: no labels to learn from",
                    path);
  return 0;
sql_error:
  farm_err(err, "%s: cannot read the database: %s", path, sqlite3_errmsg(db));
  sqlite3_finalize(s);
  sqlite3_finalize(f);
  return -1;
oom:
  sqlite3_finalize(s);
  sqlite3_finalize(f);
  return farm_err(err, "out of memory");
}

static int open_data(const char *path, sel_data *d, mapf_diag *err) {
  farm_store *st = NULL;
  if (farm_store_open(path, FARM_STORE_READONLY, &st, err) < 0) return -1;
  sqlite3 *db = farm_store_db(st);
  int own = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
  int rc = sel_load(db, path, d, err);
  if (own) sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  farm_store_close(st);
  if (rc < 0) sel_data_free(d);
  return rc;
}

/* The best label of row r under the objective (ties: the smaller label). */
static int32_t best_label(const sel_data *d, farm_sel_objective o, int64_t r) {
  const farm_pf_metrics *row = &d->cell[r * d->L];
  int32_t best = 0;
  for (int32_t l = 1; l < d->L; l++) {
    int c = obj_cmp(o, &row[l], &row[best]);
    if (c < 0 || (c == 0 && d->name_rank[l] < d->name_rank[best])) best = l;
  }
  return best;
}

/* The best single label over the rows with use[r] != 0: the best means under the objective
 * (its metric, then the rule), ties to the smaller label. */
static int32_t single_best(const sel_data *d, farm_sel_objective o, const uint8_t *use) {
  farm_pf_stat *st = calloc((size_t)d->L, sizeof *st);
  if (!st) return 0;
  for (int64_t r = 0; r < d->n; r++)
    if (use[r])
      for (int32_t l = 0; l < d->L; l++) farm_pf_stat_add(&st[l], &d->cell[r * d->L + l]);
  int32_t best = 0;
  for (int32_t l = 0; l < d->L; l++) {
    farm_pf_metrics a = {farm_pf_stat_mean(&st[l], FARM_PF_RATE),
                         farm_pf_stat_mean(&st[l], FARM_PF_DISTANCE),
                         farm_pf_stat_mean(&st[l], FARM_PF_STEPS), NAN};
    farm_pf_metrics b = {farm_pf_stat_mean(&st[best], FARM_PF_RATE),
                         farm_pf_stat_mean(&st[best], FARM_PF_DISTANCE),
                         farm_pf_stat_mean(&st[best], FARM_PF_STEPS), NAN};
    int c = obj_cmp(o, &a, &b);
    if (c < 0 || (c == 0 && d->name_rank[l] < d->name_rank[best])) best = l;
  }
  free(st);
  return best;
}

/* ---- XGBoost ------------------------------------------------------------------------------------ */

/* XGBoost's last error, its first line (a stack trace follows). */
static void xgb_msg(char *buf, size_t n) {
  const char *e = XGBGetLastError();
  size_t len = strcspn(e ? e : "", "\n");
  snprintf(buf, n, "%.*s", (int)len, e ? e : "");
}

static int xgb_fail(mapf_diag *err, const char *what) {
  char m[512];
  xgb_msg(m, sizeof m);
  return farm_err(err, "XGBoost: %s: %s", what, m);
}

/* Quiet: XGBoost's warnings would go to stderr between mapfarm's own lines. */
static void xgb_quiet(void) { XGBSetGlobalConfig("{\"verbosity\":0}"); }

/* Trains a booster on the rows with use[r] != 0. The label of a row is its best label under the
 * objective; its weight what a wrong choice can cost there (the spread of the labels'
 * utilities) plus a tenth of the mean spread, so that ties still teach a little. */
static int train(const sel_data *d, const farm_sel_opts *o, const uint8_t *use,
                 BoosterHandle *out, mapf_diag *err) {
  int32_t NI = n_inputs();
  int64_t m = 0;
  for (int64_t r = 0; r < d->n; r++) m += use[r] != 0;
  float *x = malloc((size_t)(m ? m : 1) * (size_t)NI * sizeof *x);
  float *y = malloc((size_t)(m ? m : 1) * sizeof *y), *w = malloc((size_t)(m ? m : 1) * sizeof *w);
  if (!x || !y || !w) {
    free(x), free(y), free(w);
    return farm_err(err, "out of memory");
  }
  double spread_sum = 0;
  int64_t k = 0;
  for (int64_t r = 0; r < d->n; r++) {
    if (!use[r]) continue;
    memcpy(&x[k * NI], &d->x[r * NI], (size_t)NI * sizeof *x);
    y[k] = (float)best_label(d, o->objective, r);
    double hi = -INFINITY, lo = INFINITY;
    for (int32_t l = 0; l < d->L; l++) {
      double u = utility(o->objective, &d->cell[r * d->L + l]);
      if (u > hi) hi = u;
      if (u < lo) lo = u;
    }
    w[k] = (float)(hi - lo);
    spread_sum += hi - lo;
    k++;
  }
  double floor_w = m > 0 && spread_sum > 0 ? 0.1 * spread_sum / (double)m : 1.0;
  for (int64_t i = 0; i < m; i++) w[i] = (float)(w[i] + floor_w);
  DMatrixHandle dm = NULL;
  BoosterHandle b = NULL;
  int rc = 0;
  const char **names = malloc((size_t)NI * sizeof *names);
  char (*nb)[96] = malloc((size_t)NI * sizeof *nb);
  if (!names || !nb) rc = farm_err(err, "out of memory");
  for (int32_t j = 0; rc == 0 && j < NI; j++) {
    input_name(j, nb[j], sizeof nb[j]);
    names[j] = nb[j];
  }
  if (rc == 0 && XGDMatrixCreateFromMat(x, (bst_ulong)m, (bst_ulong)NI, NAN, &dm) != 0)
    rc = xgb_fail(err, "the training matrix");
  if (rc == 0 && (XGDMatrixSetFloatInfo(dm, "label", y, (bst_ulong)m) != 0 ||
                  XGDMatrixSetFloatInfo(dm, "weight", w, (bst_ulong)m) != 0 ||
                  XGDMatrixSetStrFeatureInfo(dm, "feature_name", names, (bst_ulong)NI) != 0))
    rc = xgb_fail(err, "the training labels");
  if (rc == 0 && XGBoosterCreate(&dm, 1, &b) != 0) rc = xgb_fail(err, "the booster");
  char ncls[32], nthr[32];
  snprintf(ncls, sizeof ncls, "%d", (int)d->L);
  snprintf(nthr, sizeof nthr, "%d", (int)(o->threads > 0 ? o->threads : 1));
  /* No sampling of rows or columns and a fixed seed: the same trees every time. The histogram
   * method sums gradients per thread and then in a fixed order, so the thread count does not
   * change them either (tests/test_select.c checks both). */
  const char *params[][2] = {{"objective", "multi:softprob"}, {"num_class", ncls},
                             {"tree_method", "hist"},         {"max_depth", "6"},
                             {"eta", "0.15"},                 {"min_child_weight", "1"},
                             {"subsample", "1"},              {"colsample_bytree", "1"},
                             {"lambda", "1"},                 {"seed", "0"},
                             {"nthread", nthr},               {"verbosity", "0"}};
  for (size_t i = 0; rc == 0 && i < sizeof params / sizeof params[0]; i++)
    if (XGBoosterSetParam(b, params[i][0], params[i][1]) != 0) rc = xgb_fail(err, params[i][0]);
  int rounds = o->rounds > 0 ? o->rounds : FARM_SEL_ROUNDS;
  for (int it = 0; rc == 0 && it < rounds; it++)
    if (XGBoosterUpdateOneIter(b, it, dm) != 0) rc = xgb_fail(err, "training");
  XGDMatrixFree(dm);
  free(x), free(y), free(w), free(names), free(nb);
  if (rc != 0) {
    if (b) XGBoosterFree(b);
    return -1;
  }
  *out = b;
  return 0;
}

/* Each row's chosen label (argmax of the probabilities; ties to the smaller index) for the rows
 * with use[r] != 0, into choice[r]; probs (n x L, when not NULL) the probabilities. */
static int predict_rows(BoosterHandle b, const float *x, int64_t n, int32_t L, int32_t *choice,
                        double *probs, mapf_diag *err) {
  int32_t NI = n_inputs();
  DMatrixHandle dm = NULL;
  if (XGDMatrixCreateFromMat(x, (bst_ulong)n, (bst_ulong)NI, NAN, &dm) != 0)
    return xgb_fail(err, "the matrix to predict");
  bst_ulong len = 0;
  const float *p = NULL;
  int rc = 0;
  if (XGBoosterPredict(b, dm, 0, 0, 0, &len, &p) != 0) rc = xgb_fail(err, "predicting");
  else if (len != (bst_ulong)(n * L))
    rc = farm_err(err, "XGBoost: %llu predictions for %lld rows of %d labels", (unsigned long long)len,
                  (long long)n, (int)L);
  for (int64_t r = 0; rc == 0 && r < n; r++) {
    int32_t best = 0;
    for (int32_t l = 1; l < L; l++)
      if (p[r * L + l] > p[r * L + best]) best = l;
    choice[r] = best;
    if (probs)
      for (int32_t l = 0; l < L; l++) probs[r * L + l] = p[r * L + l];
  }
  XGDMatrixFree(dm);
  return rc;
}

/* ---- evaluation ---------------------------------------------------------------------------------- */

/* Sums of one fold, or of all folds together. */
typedef struct fold_sum {
  int64_t n, correct;
  double u_vbs, u_sbs, u_sel;   /* utilities summed */
  farm_pf_stat sel, sbs, vbs;   /* the metrics of each choice */
  int32_t sbs_label;            /* the fold's SBS (-1 for the pooled sums) */
} fold_sum;

static double gap_closed(const fold_sum *s) {
  double den = s->u_vbs - s->u_sbs;
  return den > 1e-12 ? 100.0 * (s->u_sel - s->u_sbs) / den : NAN;
}

/* Student's t quantile for a two-sided 95 % interval with df degrees of freedom. */
static double t95(int64_t df) {
  static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
                             2.228,  2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
                             2.093,  2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
                             2.048,  2.045, 2.042};
  if (df < 1) return NAN;
  return df <= 30 ? t[df - 1] : 1.96;
}

/* "m ± h" over the values v (n): the mean and the half-width of the 95 % t interval. */
static void mean_ci(const double *v, int32_t n, double *mean, double *half) {
  double s = 0, ss = 0;
  int32_t k = 0;
  for (int32_t i = 0; i < n; i++)
    if (!isnan(v[i])) {
      s += v[i];
      k++;
    }
  *mean = k ? s / k : NAN;
  for (int32_t i = 0; i < n; i++)
    if (!isnan(v[i])) ss += (v[i] - *mean) * (v[i] - *mean);
  *half = k > 1 ? t95(k - 1) * sqrt(ss / (k - 1) / k) : NAN;
}

static void fmt_num(char *buf, size_t n, double v, int digits) {
  if (isnan(v)) snprintf(buf, n, "-");
  else snprintf(buf, n, "%.*f", digits, v);
}

static void fmt_ci(char *buf, size_t n, double m, double h, int digits) {
  if (isnan(m)) snprintf(buf, n, "-");
  else if (isnan(h)) snprintf(buf, n, "%.*f", digits, m);
  else snprintf(buf, n, "%.*f ± %.*f", digits, m, digits, h);
}

/* One table row: cells separated as Markdown or padded text. */
static void table_row(FILE *out, int md, const char *const *cells, int ncells, const int *width) {
  for (int i = 0; i < ncells; i++) {
    if (md) fprintf(out, "| %s ", cells[i]);
    else fprintf(out, i == 0 ? "%-*s" : "  %*s", width[i], cells[i]);
  }
  fprintf(out, md ? "|\n" : "\n");
}

static void table_rule(FILE *out, int md, int ncells, const int *width) {
  if (!md) return;
  for (int i = 0; i < ncells; i++) fprintf(out, i == 0 ? "| :--- " : "| ---: ");
  fprintf(out, "|\n");
  (void)width;
}

static void add_choice(const sel_data *d, farm_sel_objective o, int64_t r, int32_t chosen,
                       int32_t sbs, fold_sum *s) {
  const farm_pf_metrics *row = &d->cell[r * d->L];
  int32_t best = best_label(d, o, r);
  s->n++;
  s->correct += chosen == best;
  s->u_vbs += utility(o, &row[best]);
  s->u_sbs += utility(o, &row[sbs]);
  s->u_sel += utility(o, &row[chosen]);
  farm_pf_stat_add(&s->sel, &row[chosen]);
  farm_pf_stat_add(&s->sbs, &row[sbs]);
  farm_pf_stat_add(&s->vbs, &row[best]);
}

/* The fold of every row under the protocol; returns the number of folds (or -1 with err). The
 * name of fold f (the map or type held out, or "f/K") goes into fold_name. */
static int32_t assign_folds(const sel_data *d, farm_sel_protocol p, int32_t k, uint64_t seed,
                            int32_t *fold, char ***fold_name, mapf_diag *err) {
  int32_t K = 0;
  *fold_name = NULL;
  if (p == FARM_SEL_WITHIN_MAPS) {
    K = k > 0 ? k : 10;
    if (K > d->n) K = (int32_t)d->n;
    if (K < 2) return farm_err(err, "within-maps needs two or more instances");
    /* Rows in the order of a seeded hash of their instance key, dealt out in turn. */
    int64_t *ord = malloc((size_t)d->n * sizeof *ord);
    uint64_t *h = malloc((size_t)d->n * sizeof *h);
    if (!ord || !h) {
      free(ord), free(h);
      return farm_err(err, "out of memory");
    }
    for (int64_t r = 0; r < d->n; r++) {
      uint64_t z = d->key[r] ^ (seed * 0x9e3779b97f4a7c15ULL);
      h[r] = mapf_hash64(&z, sizeof z, seed);
      ord[r] = r;
    }
    /* Insertion by hash would be O(n^2): sort indices by (hash, row). */
    for (int64_t gap = d->n / 2; gap > 0; gap /= 2) /* Shell sort: no global for qsort */
      for (int64_t i = gap; i < d->n; i++)
        for (int64_t j = i; j >= gap; j -= gap) {
          int64_t a = ord[j - gap], b = ord[j];
          if (h[a] < h[b] || (h[a] == h[b] && a < b)) break;
          ord[j - gap] = b;
          ord[j] = a;
        }
    for (int64_t i = 0; i < d->n; i++) fold[ord[i]] = (int32_t)(i % K);
    free(ord), free(h);
  } else if (p == FARM_SEL_LEAVE_MAP_OUT) {
    K = k > 0 ? k : d->nmaps;
    if (K > d->nmaps) K = d->nmaps;
    if (K < 2) return farm_err(err, "leave-map-out needs instances on two or more maps");
    /* Maps in name order, dealt out in turn: with one fold per map, each holds out one. */
    int32_t *rank = calloc((size_t)d->nmaps, sizeof *rank);
    if (!rank) return farm_err(err, "out of memory");
    for (int32_t m = 0; m < d->nmaps; m++)
      for (int32_t j = 0; j < d->nmaps; j++)
        rank[m] += strcmp(d->maps[j], d->maps[m]) < 0 ||
                   (strcmp(d->maps[j], d->maps[m]) == 0 && j < m);
    for (int64_t r = 0; r < d->n; r++) fold[r] = rank[d->map[r]] % K;
    if (K == d->nmaps) {
      *fold_name = calloc((size_t)K, sizeof **fold_name);
      for (int32_t m = 0; *fold_name && m < d->nmaps; m++)
        (*fold_name)[rank[m]] = strdup(d->maps[m]);
    }
    free(rank);
  } else {
    /* One fold per problem type present, in the registry's order. */
    int32_t T = n_types(), *idx = malloc((size_t)T * sizeof *idx);
    if (!idx) return farm_err(err, "out of memory");
    for (int32_t t = 0; t < T; t++) idx[t] = -1;
    for (int64_t r = 0; r < d->n; r++) idx[d->type[r] >= 0 ? d->type[r] : 0] = 0;
    for (int32_t t = 0; t < T; t++)
      if (idx[t] == 0) idx[t] = K++;
    if (K < 2) {
      free(idx);
      return farm_err(err, "leave-type-out needs instances of two or more problem types");
    }
    for (int64_t r = 0; r < d->n; r++) fold[r] = idx[d->type[r] >= 0 ? d->type[r] : 0];
    *fold_name = calloc((size_t)K, sizeof **fold_name);
    for (int32_t t = 0; *fold_name && t < T; t++)
      if (idx[t] >= 0) (*fold_name)[idx[t]] = strdup(type_name(t));
    free(idx);
  }
  return K;
}

int farm_select_eval(const char *db_path, farm_sel_protocol p, int32_t k,
                     const farm_sel_opts *o, int md, const char *regret_csv, FILE *out,
                     mapf_diag *err) {
  xgb_quiet();
  sel_data d;
  if (open_data(db_path, &d, err) < 0) return -1;
  int32_t *fold = malloc((size_t)d.n * sizeof *fold), *choice = malloc((size_t)d.n * sizeof *choice);
  int32_t *sbs_of = malloc((size_t)d.n * sizeof *sbs_of);
  uint8_t *use = malloc((size_t)d.n);
  char **fold_name = NULL;
  int32_t K = -1;
  int rc = 0;
  if (!fold || !choice || !sbs_of || !use) rc = farm_err(err, "out of memory");
  if (rc == 0) K = assign_folds(&d, p, k, o->seed, fold, &fold_name, err);
  if (K < 0) rc = -1;
  fold_sum *fs = rc == 0 ? calloc((size_t)K, sizeof *fs) : NULL;
  if (rc == 0 && !fs) rc = farm_err(err, "out of memory");
  int32_t NI = n_inputs();
  float *xt = rc == 0 ? malloc((size_t)d.n * (size_t)NI * sizeof *xt) : NULL;
  int64_t *rows = rc == 0 ? malloc((size_t)d.n * sizeof *rows) : NULL;
  if (rc == 0 && (!xt || !rows)) rc = farm_err(err, "out of memory");
  for (int32_t f = 0; rc == 0 && f < K; f++) {
    for (int64_t r = 0; r < d.n; r++) use[r] = fold[r] != f;
    int32_t sbs = single_best(&d, o->objective, use);
    fs[f].sbs_label = sbs;
    BoosterHandle b = NULL;
    if (train(&d, o, use, &b, err) < 0) {
      rc = -1;
      break;
    }
    int64_t m = 0;
    for (int64_t r = 0; r < d.n; r++)
      if (fold[r] == f) {
        memcpy(&xt[m * NI], &d.x[r * NI], (size_t)NI * sizeof *xt);
        rows[m++] = r;
      }
    int32_t *ch = malloc((size_t)(m ? m : 1) * sizeof *ch);
    if (!ch) rc = farm_err(err, "out of memory");
    if (rc == 0 && m > 0) rc = predict_rows(b, xt, m, d.L, ch, NULL, err);
    for (int64_t i = 0; rc == 0 && i < m; i++) {
      choice[rows[i]] = ch[i];
      sbs_of[rows[i]] = sbs;
      add_choice(&d, o->objective, rows[i], ch[i], sbs, &fs[f]);
    }
    free(ch);
    XGBoosterFree(b);
  }
  if (rc == 0) {
    fold_sum all;
    memset(&all, 0, sizeof all);
    for (int64_t r = 0; r < d.n; r++) add_choice(&d, o->objective, r, choice[r], sbs_of[r], &all);
    const char *unit = o->objective == FARM_SEL_COMPLETION ? "completion rate, %"
                       : o->objective == FARM_SEL_STEPS    ? "completion steps"
                                                           : "travel distance";
    int sign = o->objective == FARM_SEL_COMPLETION ? 1 : -1;
    fprintf(out, "%sSelection, %s, %d folds, objective %s (%s); %lld instances on %d maps, %d "
                 "labels",
            md ? "**" : "", farm_sel_protocol_name(p), (int)K, farm_sel_objective_name(o->objective),
            unit, (long long)d.n, (int)d.nmaps, (int)d.L);
    if (d.partial) fprintf(out, " (%lld instances left out: not every label ran)", (long long)d.partial);
    fprintf(out, "%s\n\n", md ? "**" : "");
    enum { NC = 10 };
    static const char *const head[NC] = {"Fold", "Test", "SBS (train)", "VBS", "SBS",
                                         "Selector", "Gap closed (%)", "Accuracy (%)",
                                         "Regret", "SBS regret"};
    int width[NC] = {18, 5, 12, 8, 8, 8, 14, 12, 8, 10};
    table_row(out, md, head, NC, width);
    table_rule(out, md, NC, width);
    double *gap = malloc((size_t)K * sizeof *gap), *acc = malloc((size_t)K * sizeof *acc);
    double *reg = malloc((size_t)K * sizeof *reg), *sreg = malloc((size_t)K * sizeof *sreg);
    for (int32_t f = 0; f <= K; f++) {
      const fold_sum *s = f < K ? &fs[f] : &all;
      if (s->n == 0) continue;
      char c[NC][128];
      if (f == K) snprintf(c[0], sizeof c[0], "%s", md ? "**all (pooled)**" : "all (pooled)");
      else if (fold_name && fold_name[f]) snprintf(c[0], sizeof c[0], "%s", fold_name[f]);
      else snprintf(c[0], sizeof c[0], "%d/%d", (int)f + 1, (int)K);
      snprintf(c[1], sizeof c[1], "%lld", (long long)s->n);
      snprintf(c[2], sizeof c[2], "%s", f < K ? d.label[s->sbs_label] : "(per fold)");
      fmt_num(c[3], sizeof c[3], sign * s->u_vbs / s->n, o->objective == FARM_SEL_COMPLETION ? 1 : 1);
      fmt_num(c[4], sizeof c[4], sign * s->u_sbs / s->n, 1);
      fmt_num(c[5], sizeof c[5], sign * s->u_sel / s->n, 1);
      double g = gap_closed(s), a = 100.0 * (double)s->correct / s->n;
      double rg = (s->u_vbs - s->u_sel) / s->n, srg = (s->u_vbs - s->u_sbs) / s->n;
      fmt_num(c[6], sizeof c[6], g, 1);
      fmt_num(c[7], sizeof c[7], a, 1);
      fmt_num(c[8], sizeof c[8], rg, 2);
      fmt_num(c[9], sizeof c[9], srg, 2);
      if (f < K && gap && acc && reg && sreg) {
        gap[f] = g, acc[f] = a, reg[f] = rg, sreg[f] = srg;
      }
      const char *cells[NC];
      for (int i = 0; i < NC; i++) cells[i] = c[i];
      table_row(out, md, cells, NC, width);
    }
    if (gap && acc && reg && sreg) {
      double gm, gh, am, ah, rm, rh, sm, sh;
      mean_ci(gap, K, &gm, &gh);
      mean_ci(acc, K, &am, &ah);
      mean_ci(reg, K, &rm, &rh);
      mean_ci(sreg, K, &sm, &sh);
      char c[NC][128];
      snprintf(c[0], sizeof c[0], "%s", md ? "**fold mean ± 95% CI**" : "fold mean, 95% CI");
      for (int i = 1; i < 6; i++) c[i][0] = '\0';
      fmt_ci(c[6], sizeof c[6], gm, gh, 1);
      fmt_ci(c[7], sizeof c[7], am, ah, 1);
      fmt_ci(c[8], sizeof c[8], rm, rh, 2);
      fmt_ci(c[9], sizeof c[9], sm, sh, 2);
      const char *cells[NC];
      for (int i = 0; i < NC; i++) cells[i] = c[i];
      table_row(out, md, cells, NC, width);
    }
    free(gap), free(acc), free(reg), free(sreg);
    /* Table 5.1's form over the test choices: every instance was tested once. */
    fprintf(out, "\n");
    enum { NM = 4 };
    static const char *const mh[NM] = {"Choice", "Completion rate (%)", "Distance", "Steps"};
    int mw[NM] = {18, 19, 10, 10};
    table_row(out, md, mh, NM, mw);
    table_rule(out, md, NM, mw);
    for (int i = 0; i < 3 + d.L; i++) {
      farm_pf_stat one;
      const farm_pf_stat *st;
      char name[300];
      if (i == 0) st = &all.vbs, snprintf(name, sizeof name, "pi* (VBS)");
      else if (i == 1) st = &all.sel, snprintf(name, sizeof name, "selector");
      else if (i == 2) st = &all.sbs, snprintf(name, sizeof name, "SBS (per fold)");
      else {
        memset(&one, 0, sizeof one);
        for (int64_t r = 0; r < d.n; r++) farm_pf_stat_add(&one, &d.cell[r * d.L + (i - 3)]);
        st = &one;
        snprintf(name, sizeof name, "%s", d.label[i - 3]);
      }
      char c[NM][300];
      snprintf(c[0], sizeof c[0], "%s", name);
      fmt_num(c[1], sizeof c[1], 100.0 * farm_pf_stat_mean(st, FARM_PF_RATE), 1);
      fmt_num(c[2], sizeof c[2], farm_pf_stat_mean(st, FARM_PF_DISTANCE), 1);
      fmt_num(c[3], sizeof c[3], farm_pf_stat_mean(st, FARM_PF_STEPS), 1);
      const char *cells[NM] = {c[0], c[1], c[2], c[3]};
      table_row(out, md, cells, NM, mw);
    }
    if (regret_csv) {
      FILE *f = fopen(regret_csv, "w");
      if (!f) {
        rc = farm_err(err, "%s: cannot write: %s", regret_csv, strerror(errno));
      } else {
        fprintf(f, "fold,map,type,chosen,best,sbs,regret,sbs_regret\n");
        for (int64_t r = 0; r < d.n; r++) {
          int32_t best = best_label(&d, o->objective, r);
          const farm_pf_metrics *row = &d.cell[r * d.L];
          fprintf(f, "%d,\"%s\",%s,\"%s\",\"%s\",\"%s\",%.10g,%.10g\n", (int)fold[r] + 1,
                  d.maps[d.map[r]], d.type[r] >= 0 ? type_name(d.type[r]) : "?",
                  d.label[choice[r]], d.label[best], d.label[sbs_of[r]],
                  utility(o->objective, &row[best]) - utility(o->objective, &row[choice[r]]),
                  utility(o->objective, &row[best]) - utility(o->objective, &row[sbs_of[r]]));
        }
        if (fclose(f) != 0) rc = farm_err(err, "%s: cannot write: %s", regret_csv, strerror(errno));
      }
    }
  }
  if (fold_name)
    for (int32_t f = 0; f < K; f++) free(fold_name[f]);
  free(fold_name);
  free(fs), free(xt), free(rows), free(fold), free(choice), free(sbs_of), free(use);
  sel_data_free(&d);
  return rc;
}

/* ---- models ------------------------------------------------------------------------------------- */

struct farm_sel_model {
  BoosterHandle b;
  int32_t L;
  char **label, **algo, **params;
  int32_t nin;          /* the model's inputs */
  int32_t *src;         /* per model input: this mapfarm's input index */
  farm_feat_ws *ws;
  int objective;
};

#define ATTR_MODEL "mapfarm_model"
#define ATTR_LABELS "mapfarm_labels"
#define ATTR_INPUTS "mapfarm_inputs"
#define ATTR_OBJECTIVE "mapfarm_objective"
#define ATTR_VERSION "mapfarm_features_version"

/* Appends text to a growing string; returns -1 out of memory. */
static int cat(char **s, size_t *len, size_t *cap, const char *t) {
  size_t n = strlen(t);
  if (*len + n + 1 > *cap) {
    size_t c = (*len + n + 1) * 2;
    char *ns = realloc(*s, c);
    if (!ns) return -1;
    *s = ns;
    *cap = c;
  }
  memcpy(*s + *len, t, n + 1);
  *len += n;
  return 0;
}

int farm_select_train(const char *db_path, const char *out_path, const farm_sel_opts *o,
                      FILE *out, mapf_diag *err) {
  xgb_quiet();
  sel_data d;
  if (open_data(db_path, &d, err) < 0) return -1;
  uint8_t *use = malloc((size_t)d.n);
  if (!use) {
    sel_data_free(&d);
    return farm_err(err, "out of memory");
  }
  memset(use, 1, (size_t)d.n);
  BoosterHandle b = NULL;
  int rc = train(&d, o, use, &b, err);
  free(use);
  /* The attributes: what a prediction needs besides the trees. */
  char *labels = NULL, *inputs = NULL;
  size_t ll = 0, lc = 0, il = 0, ic = 0;
  for (int32_t l = 0; rc == 0 && l < d.L; l++)
    if (cat(&labels, &ll, &lc, d.label[l]) < 0 || cat(&labels, &ll, &lc, "\t") < 0 ||
        cat(&labels, &ll, &lc, d.algo[l]) < 0 || cat(&labels, &ll, &lc, "\t") < 0 ||
        cat(&labels, &ll, &lc, d.params[l]) < 0 || cat(&labels, &ll, &lc, "\n") < 0)
      rc = farm_err(err, "out of memory");
  for (int32_t j = 0; rc == 0 && j < n_inputs(); j++) {
    char name[96];
    input_name(j, name, sizeof name);
    if (cat(&inputs, &il, &ic, name) < 0 || cat(&inputs, &il, &ic, "\n") < 0)
      rc = farm_err(err, "out of memory");
  }
  char version[16];
  snprintf(version, sizeof version, "%d", FARM_FEATURES_VERSION);
  if (rc == 0 && (XGBoosterSetAttr(b, ATTR_MODEL, "1") != 0 ||
                  XGBoosterSetAttr(b, ATTR_LABELS, labels) != 0 ||
                  XGBoosterSetAttr(b, ATTR_INPUTS, inputs) != 0 ||
                  XGBoosterSetAttr(b, ATTR_OBJECTIVE, farm_sel_objective_name(o->objective)) != 0 ||
                  XGBoosterSetAttr(b, ATTR_VERSION, version) != 0))
    rc = xgb_fail(err, "the model's attributes");
  free(labels), free(inputs);
  bst_ulong len = 0;
  const char *buf = NULL;
  if (rc == 0 && XGBoosterSaveModelToBuffer(b, "{\"format\": \"json\"}", &len, &buf) != 0)
    rc = xgb_fail(err, "saving the model");
  if (rc == 0) {
    /* Written beside it and renamed: a failure leaves an older model as it was. */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", out_path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
      rc = farm_err(err, "%s: cannot write: %s", tmp, strerror(errno));
    } else {
      int bad = fwrite(buf, 1, (size_t)len, f) != (size_t)len;
      bad |= fclose(f) != 0;
      if (bad || rename(tmp, out_path) != 0) {
        rc = farm_err(err, "%s: cannot write: %s", out_path, strerror(errno));
        remove(tmp);
      }
    }
  }
  if (rc == 0 && out) {
    int64_t counts[64] = {0};
    for (int64_t r = 0; r < d.n; r++) {
      int32_t bl = best_label(&d, o->objective, r);
      if (bl < 64) counts[bl]++;
    }
    fprintf(out, "%s: trained on %lld instances of %d maps (objective %s); best label:", out_path,
            (long long)d.n, (int)d.nmaps, farm_sel_objective_name(o->objective));
    for (int32_t l = 0; l < d.L; l++)
      fprintf(out, "%s %s %lld", l ? "," : "", d.label[l], (long long)(l < 64 ? counts[l] : 0));
    fprintf(out, "\n");
    /* What the trees split on, by total gain (Kaduri et al. 2020 report the same kind). */
    bst_ulong nf = 0, dim = 0;
    const char **fn = NULL;
    const bst_ulong *shape = NULL;
    const float *score = NULL;
    if (XGBoosterFeatureScore(b, "{\"importance_type\": \"total_gain\"}", &nf, &fn, &dim, &shape,
                              &score) == 0 &&
        nf > 0) {
      double total = 0;
      for (bst_ulong i = 0; i < nf; i++) total += score[i];
      fprintf(out, "features by total gain (share of all):");
      for (int shown = 0; shown < 12; shown++) {
        bst_ulong best = nf;
        for (bst_ulong i = 0; i < nf; i++)
          if (score[i] >= 0 && (best == nf || score[i] > score[best])) best = i;
        if (best == nf) break;
        /* XGBoost names the inputs f0, f1, ... when the booster was not told their names. */
        char name[96];
        if (fn[best][0] == 'f' && fn[best][1] >= '0' && fn[best][1] <= '9')
          input_name(atoi(fn[best] + 1), name, sizeof name);
        else
          snprintf(name, sizeof name, "%s", fn[best]);
        fprintf(out, "%s %s %.1f%%", shown ? "," : "", name, 100.0 * score[best] / total);
        ((float *)score)[best] = -1; /* XGBoost's buffer, ours until the next call */
      }
      fprintf(out, "\n");
    }
  }
  if (b) XGBoosterFree(b);
  sel_data_free(&d);
  return rc;
}

void farm_sel_model_free(farm_sel_model *m) {
  if (!m) return;
  if (m->b) XGBoosterFree(m->b);
  for (int32_t l = 0; l < m->L; l++) {
    free(m->label[l]);
    free(m->algo[l]);
    free(m->params[l]);
  }
  free(m->label), free(m->algo), free(m->params), free(m->src);
  farm_feat_ws_free(m->ws);
  free(m);
}

/* A copy of attribute key (XGBoost's own string lasts only until its next call), or NULL. */
static char *get_attr(BoosterHandle b, const char *key) {
  const char *v = NULL;
  int ok = 0;
  if (XGBoosterGetAttr(b, key, &v, &ok) != 0 || !ok || !v) return NULL;
  return strdup(v);
}

int farm_sel_model_load(const char *path, farm_sel_model **out, mapf_diag *err) {
  *out = NULL;
  xgb_quiet();
  char *buf = NULL;
  size_t len = 0;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  if (mapf_read_file(path, (size_t)1 << 30, &buf, &len, &d) != MAPF_OK)
    return farm_err(err, "%s: %s", path, d.msg);
  farm_sel_model *m = calloc(1, sizeof *m);
  if (!m) {
    free(buf);
    return farm_err(err, "out of memory");
  }
  int rc = 0;
  /* XGBoost takes any bytes for a model of its old binary format: a file that is not JSON is
   * refused here first. */
  size_t i = 0;
  while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\t' || buf[i] == '\r')) i++;
  if (i == len || buf[i] != '{')
    rc = farm_err(err, "%s: not a model of `mapfarm select train` (not XGBoost's JSON)", path);
  if (rc == 0 && XGBoosterCreate(NULL, 0, &m->b) != 0) rc = xgb_fail(err, "a booster");
  if (rc == 0 && XGBoosterLoadModelFromBuffer(m->b, buf, (bst_ulong)len) != 0) {
    char msg[512];
    xgb_msg(msg, sizeof msg);
    rc = farm_err(err, "%s: not a model of `mapfarm select train` (XGBoost: %s)", path, msg);
  }
  free(buf);
  char *labels = rc == 0 ? get_attr(m->b, ATTR_LABELS) : NULL;
  char *inputs = rc == 0 ? get_attr(m->b, ATTR_INPUTS) : NULL;
  char *version = rc == 0 ? get_attr(m->b, ATTR_VERSION) : NULL;
  char *objective = rc == 0 ? get_attr(m->b, ATTR_OBJECTIVE) : NULL;
  char *mark = rc == 0 ? get_attr(m->b, ATTR_MODEL) : NULL;
  if (rc == 0 && (!mark || !labels || !inputs || !version || !objective))
    rc = farm_err(err, "%s: an XGBoost model, but not one of `mapfarm select train` (it lacks "
                       "the labels and features it chooses by)",
                  path);
  if (rc == 0 && atoi(version) != FARM_FEATURES_VERSION)
    rc = farm_err(err, "%s: a model of features version %s, this mapfarm computes version %d: "
                       "train it again",
                  path, version, FARM_FEATURES_VERSION);
  if (rc == 0) m->objective = farm_sel_objective_parse(objective);
  /* The labels: "label\talgorithm\tparams\n" each. */
  for (const char *p = labels; rc == 0 && p && *p;) {
    const char *t1 = strchr(p, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
    const char *nl = t2 ? strchr(t2 + 1, '\n') : NULL;
    if (!nl) {
      rc = farm_err(err, "%s: its label list is damaged", path);
      break;
    }
    char **a = realloc(m->label, (size_t)(m->L + 1) * sizeof *a);
    if (a) m->label = a;
    char **b = a ? realloc(m->algo, (size_t)(m->L + 1) * sizeof *b) : NULL;
    if (b) m->algo = b;
    char **c = b ? realloc(m->params, (size_t)(m->L + 1) * sizeof *c) : NULL;
    if (!c) {
      rc = farm_err(err, "out of memory");
      break;
    }
    m->params = c;
    m->label[m->L] = strndup(p, (size_t)(t1 - p));
    m->algo[m->L] = strndup(t1 + 1, (size_t)(t2 - t1 - 1));
    m->params[m->L] = strndup(t2 + 1, (size_t)(nl - t2 - 1));
    m->L++;
    p = nl + 1;
  }
  if (rc == 0 && m->L < 2) rc = farm_err(err, "%s: its label list is damaged", path);
  /* The inputs, by name: each must be one this mapfarm computes. */
  for (const char *p = inputs; rc == 0 && p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    int32_t j = 0;
    char name[96];
    for (; j < n_inputs(); j++) {
      input_name(j, name, sizeof name);
      if (strlen(name) == n && memcmp(name, p, n) == 0) break;
    }
    if (j == n_inputs()) {
      rc = farm_err(err, "%s: the model reads input \"%.*s\", which this mapfarm does not "
                         "compute: train it again",
                    path, (int)n, p);
      break;
    }
    int32_t *s = realloc(m->src, (size_t)(m->nin + 1) * sizeof *s);
    if (!s) {
      rc = farm_err(err, "out of memory");
      break;
    }
    m->src = s;
    m->src[m->nin++] = j;
    p = nl ? nl + 1 : p + n;
  }
  if (rc == 0 && !(m->ws = farm_feat_ws_new())) rc = farm_err(err, "out of memory");
  free(labels), free(inputs), free(version), free(objective), free(mark);
  if (rc != 0) {
    farm_sel_model_free(m);
    return -1;
  }
  *out = m;
  return 0;
}

int32_t farm_sel_model_nlabels(const farm_sel_model *m) { return m->L; }
const char *farm_sel_model_label(const farm_sel_model *m, int32_t i) { return m->label[i]; }
const char *farm_sel_model_algorithm(const farm_sel_model *m, int32_t i) { return m->algo[i]; }
const char *farm_sel_model_params(const farm_sel_model *m, int32_t i) { return m->params[i]; }

/* Predicts from rows in this mapfarm's input order (n x n_inputs()), reordered into the
 * model's. */
static int model_predict_rows(farm_sel_model *m, const float *x, int64_t n, int32_t *choice,
                              double *probs, mapf_diag *err) {
  int32_t NI = n_inputs();
  float *mx = malloc((size_t)(n ? n : 1) * (size_t)m->nin * sizeof *mx);
  if (!mx) return farm_err(err, "out of memory");
  for (int64_t r = 0; r < n; r++)
    for (int32_t j = 0; j < m->nin; j++) mx[r * m->nin + j] = x[r * NI + m->src[j]];
  /* predict_rows reads n_inputs() columns: the model's inputs are a permutation of ours unless
   * it was trained by another build; then its own count is used. */
  DMatrixHandle dm = NULL;
  int rc = 0;
  bst_ulong len = 0;
  const float *p = NULL;
  if (XGDMatrixCreateFromMat(mx, (bst_ulong)n, (bst_ulong)m->nin, NAN, &dm) != 0)
    rc = xgb_fail(err, "the matrix to predict");
  if (rc == 0 && XGBoosterPredict(m->b, dm, 0, 0, 0, &len, &p) != 0) rc = xgb_fail(err, "predicting");
  if (rc == 0 && len != (bst_ulong)(n * m->L))
    rc = farm_err(err, "the model gives %llu probabilities for %lld instances of %d labels",
                  (unsigned long long)len, (long long)n, (int)m->L);
  for (int64_t r = 0; rc == 0 && r < n; r++) {
    int32_t best = 0;
    for (int32_t l = 1; l < m->L; l++)
      if (p[r * m->L + l] > p[r * m->L + best]) best = l;
    choice[r] = best;
    if (probs)
      for (int32_t l = 0; l < m->L; l++) probs[r * m->L + l] = p[r * m->L + l];
  }
  if (dm) XGDMatrixFree(dm);
  free(mx);
  return rc;
}

int32_t farm_sel_model_predict(farm_sel_model *m, const mapf_grid *g, const mapf_instance *inst,
                               const char *generator, double *probs, mapf_diag *err) {
  double *num = malloc((size_t)farm_nfeatures * sizeof *num);
  float *x = malloc((size_t)n_inputs() * sizeof *x);
  int rc = 0;
  if (!num || !x) rc = farm_err(err, "out of memory");
  if (rc == 0 && farm_features_map(g, num) != MAPF_OK) rc = farm_err(err, "out of memory");
  mapf_landmarks *lm = rc == 0 ? farm_features_landmarks(g) : NULL;
  if (rc == 0 && !lm) rc = farm_err(err, "out of memory");
  mapf_diag d;
  memset(&d, 0, sizeof d);
  if (rc == 0 && farm_features_instance(g, lm, inst, m->ws, num, &d) != MAPF_OK)
    rc = farm_err(err, "%s", d.msg[0] ? d.msg : "out of memory");
  mapf_landmarks_free(lm);
  int32_t choice = -1;
  if (rc == 0) {
    char type[128];
    farm_problem_type(generator, type, sizeof type);
    input_row(num, type_index(type), x);
    rc = model_predict_rows(m, x, 1, &choice, probs, err);
  }
  free(num), free(x);
  return rc == 0 ? choice : -1;
}

int farm_select_test(const char *db_path, const char *model_path, FILE *out, mapf_diag *err) {
  farm_sel_model *m = NULL;
  if (farm_sel_model_load(model_path, &m, err) < 0) return -1;
  sel_data d;
  if (open_data(db_path, &d, err) < 0) {
    farm_sel_model_free(m);
    return -1;
  }
  /* The model's labels must be the database's, by name (their order may differ). */
  int32_t *to_db = malloc((size_t)m->L * sizeof *to_db);
  int rc = to_db ? 0 : farm_err(err, "out of memory");
  int same = rc == 0 && m->L == d.L;
  for (int32_t l = 0; rc == 0 && l < m->L; l++) {
    to_db[l] = -1;
    for (int32_t j = 0; j < d.L; j++)
      if (strcmp(m->label[l], d.label[j]) == 0) to_db[l] = j;
    same &= to_db[l] >= 0;
  }
  if (rc == 0 && !same) {
    char a[1024] = "", b[1024] = "";
    size_t al = 0, bl = 0;
    for (int32_t l = 0; l < m->L; l++)
      al += (size_t)snprintf(a + al, al < sizeof a ? sizeof a - al : 0, "%s%s", l ? ", " : "",
                             m->label[l]);
    for (int32_t l = 0; l < d.L; l++)
      bl += (size_t)snprintf(b + bl, bl < sizeof b ? sizeof b - bl : 0, "%s%s", l ? ", " : "",
                             d.label[l]);
    rc = farm_err(err, "%s: a model for other algorithms: it chooses among %s; %s holds %s",
                  model_path, a, db_path, b);
  }
  int32_t *choice = rc == 0 ? malloc((size_t)d.n * sizeof *choice) : NULL;
  if (rc == 0 && !choice) rc = farm_err(err, "out of memory");
  if (rc == 0) rc = model_predict_rows(m, d.x, d.n, choice, NULL, err);
  if (rc == 0) {
    farm_sel_objective o = m->objective >= 0 ? (farm_sel_objective)m->objective : FARM_SEL_COMPLETION;
    uint8_t *use = malloc((size_t)d.n);
    if (use) memset(use, 1, (size_t)d.n);
    int32_t sbs = use ? single_best(&d, o, use) : 0;
    free(use);
    fold_sum s;
    memset(&s, 0, sizeof s);
    for (int64_t r = 0; r < d.n; r++) add_choice(&d, o, r, to_db[choice[r]], sbs, &s);
    fprintf(out,
            "%s on %s: %lld instances; objective %s; pi* %.2f, selector %.2f, best single (%s, "
            "chosen on this database) %.2f; gap closed %.1f%%; accuracy %.1f%%; regret %.3f\n",
            model_path, db_path, (long long)s.n, farm_sel_objective_name(o),
            (o == FARM_SEL_COMPLETION ? 1 : -1) * s.u_vbs / s.n,
            (o == FARM_SEL_COMPLETION ? 1 : -1) * s.u_sel / s.n, d.label[sbs],
            (o == FARM_SEL_COMPLETION ? 1 : -1) * s.u_sbs / s.n, gap_closed(&s),
            100.0 * (double)s.correct / s.n, (s.u_vbs - s.u_sel) / s.n);
  }
  free(choice), free(to_db);
  sel_data_free(&d);
  farm_sel_model_free(m);
  return rc;
}

#endif
