/* portfolio.c: algorithm portfolios over a results database (portfolio.h).
 *
 * "Seed line N" is line N of the thesis's text, seeds/003_9f3b88291bed8cd2.txt; "Alg. 2 line
 * N" is a line of the thesis's Algorithm 2 itself. The quality of a selection is the
 * completion rate averaged over the instances (seed line 204, footnote 1 to Eq. 2.1), ties
 * broken by travel distance and then completion time (seed line 198); the perfect selector
 * pi* picks the best algorithm of every instance (Eq. 2.2, seed line 196); the worst selector
 * "always selects the worst algorithm for the problem" (seed line 548).
 *
 * The matrix is loaded in one pass over the jobs sorted by instance: each instance's jobs are
 * gathered (a label's handful), reduced to one cell per label, the worst job and the sums,
 * and dropped, so memory is the cells plus one instance. */
#include "portfolio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"

/* ---- the rule ------------------------------------------------------------------------------ */

void farm_pf_stat_add(farm_pf_stat *s, const farm_pf_metrics *m) {
  const double v[FARM_PF_NMETRICS] = {m->rate, m->distance, m->steps, m->seconds};
  for (int k = 0; k < FARM_PF_NMETRICS; k++) {
    if (isnan(v[k])) continue;
    s->n[k]++;
    s->sum[k] += v[k];
    s->sumsq[k] += v[k] * v[k];
  }
}

double farm_pf_stat_mean(const farm_pf_stat *s, int k) {
  return s->n[k] > 0 ? s->sum[k] / (double)s->n[k] : NAN;
}

double farm_pf_stat_se(const farm_pf_stat *s, int k) {
  if (s->n[k] < 2) return NAN;
  double n = (double)s->n[k], mean = s->sum[k] / n;
  double var = (s->sumsq[k] - n * mean * mean) / (n - 1.0);
  return var > 0.0 ? sqrt(var / n) : 0.0; /* rounding can leave a tiny negative variance */
}

/* The keys of the rule, NULL (NaN) last: a missing rate counts as -1, a missing distance or
 * step count as +infinity, as schema/views.sql's coalesce(..., -1) and coalesce(..., 9e999). */
static double key_rate(double v) { return isnan(v) ? -1.0 : v; }
static double key_cost(double v) { return isnan(v) ? INFINITY : v; }

int farm_pf_cmp(const farm_pf_metrics *a, const farm_pf_metrics *b) {
  double x = key_rate(a->rate), y = key_rate(b->rate);
  if (x != y) return x > y ? -1 : 1;
  x = key_cost(a->distance), y = key_cost(b->distance);
  if (x != y) return x < y ? -1 : 1;
  x = key_cost(a->steps), y = key_cost(b->steps);
  if (x != y) return x < y ? -1 : 1;
  return 0;
}

/* v rounded to `digits` decimals the way SQLite's round() does it (through its decimal
 * text), so farm_pf_stat_cmp and the portfolio_best_single view round alike. */
static double round_to(double v, int digits) {
  if (isnan(v) || isinf(v) || fabs(v) > 4503599627370496.0) return v;
  char buf[400];
  snprintf(buf, sizeof buf, "%.*f", digits, v);
  return strtod(buf, NULL);
}

int farm_pf_stat_cmp(const farm_pf_stat *a, const farm_pf_stat *b) {
  farm_pf_metrics x = {round_to(farm_pf_stat_mean(a, FARM_PF_RATE), 9),
                       round_to(farm_pf_stat_mean(a, FARM_PF_DISTANCE), 6),
                       round_to(farm_pf_stat_mean(a, FARM_PF_STEPS), 6), NAN};
  farm_pf_metrics y = {round_to(farm_pf_stat_mean(b, FARM_PF_RATE), 9),
                       round_to(farm_pf_stat_mean(b, FARM_PF_DISTANCE), 6),
                       round_to(farm_pf_stat_mean(b, FARM_PF_STEPS), 6), NAN};
  return farm_pf_cmp(&x, &y);
}

/* ---- loading -------------------------------------------------------------------------------- */

/* A label or a generator with the position it first appears at (plan order, as report.c). */
typedef struct pf_name {
  char *name;
  int64_t first;
  int32_t index; /* in the final (plan) order */
} pf_name;

typedef struct pf_names {
  pf_name *v;
  int32_t n, cap;
  pf_name **sorted; /* by name, for lookups */
} pf_names;

static void pf_names_free(pf_names *l) {
  for (int32_t i = 0; i < l->n; i++) free(l->v[i].name);
  free(l->v);
  free(l->sorted);
}

/* Adds name (or lowers its first position). Linear: called once per label and generator
 * pair of the first query. Returns 0, or -1 when out of memory. */
static int pf_names_add(pf_names *l, const char *name, int64_t first) {
  for (int32_t i = 0; i < l->n; i++) {
    if (strcmp(l->v[i].name, name) == 0) {
      if (first < l->v[i].first) l->v[i].first = first;
      return 0;
    }
  }
  if (l->n == l->cap) {
    int32_t c = l->cap ? 2 * l->cap : 16;
    pf_name *v = realloc(l->v, (size_t)c * sizeof *v);
    if (!v) return -1;
    l->v = v;
    l->cap = c;
  }
  if (!(l->v[l->n].name = strdup(name))) return -1;
  l->v[l->n].first = first;
  l->n++;
  return 0;
}

static int by_first(const void *a, const void *b) {
  const pf_name *x = a, *y = b;
  if (x->first != y->first) return (x->first > y->first) - (x->first < y->first);
  return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b) {
  const pf_name *const *x = a, *const *y = b;
  return strcmp((*x)->name, (*y)->name);
}

/* Puts the names in plan order and builds the by-name index. */
static int pf_names_order(pf_names *l) {
  if (l->n > 1) qsort(l->v, (size_t)l->n, sizeof *l->v, by_first);
  l->sorted = malloc((size_t)(l->n ? l->n : 1) * sizeof *l->sorted);
  if (!l->sorted) return -1;
  for (int32_t i = 0; i < l->n; i++) {
    l->v[i].index = i;
    l->sorted[i] = &l->v[i];
  }
  if (l->n > 1) qsort(l->sorted, (size_t)l->n, sizeof *l->sorted, by_name);
  return 0;
}

/* The plan-order index of name, -1 when absent. O(log n). */
static int32_t pf_names_find(const pf_names *l, const char *name) {
  int32_t lo = 0, hi = l->n - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    int c = strcmp(l->sorted[mid]->name, name);
    if (c == 0) return l->sorted[mid]->index;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* One job of the instance being gathered. */
typedef struct pf_job {
  int32_t label;
  char key[33];
  farm_pf_metrics m;
} pf_job;

typedef struct pf_loader {
  farm_pf_matrix *m;
  pf_names labels, gens;
  pf_job *jobs; /* the current instance's */
  int32_t njobs, capjobs;
  int64_t caprows;
  int64_t group;   /* instances seen, stamps seen[] */
  int64_t *seen;   /* per label: the group it last appeared in */
  int32_t *best;   /* per label: its best job in the current group */
  int moved;       /* the names belong to the matrix (setup_matrix) */
} pf_loader;

/* The whole rule on two jobs: metrics, then label name, then job key. <0 when a ranks first. */
static int job_cmp(const farm_pf_matrix *m, const pf_job *a, const pf_job *b) {
  int c = farm_pf_cmp(&a->m, &b->m);
  if (c) return c;
  if (a->label != b->label) return m->name_rank[a->label] < m->name_rank[b->label] ? -1 : 1;
  return strcmp(a->key, b->key);
}

static int grow_rows(pf_loader *ld) {
  farm_pf_matrix *m = ld->m;
  if (m->ninstances < ld->caprows) return 0;
  int64_t c = ld->caprows ? 2 * ld->caprows : 256;
  size_t L = (size_t)m->nlabels;
  farm_pf_metrics *cell = realloc(m->cell, (size_t)c * L * sizeof *cell);
  if (!cell) return -1;
  m->cell = cell;
  farm_pf_metrics *worst = realloc(m->worst, (size_t)c * sizeof *worst);
  if (!worst) return -1;
  m->worst = worst;
  int32_t *wl = realloc(m->worst_label, (size_t)c * sizeof *wl);
  if (!wl) return -1;
  m->worst_label = wl;
  int32_t *g = realloc(m->generator, (size_t)c * sizeof *g);
  if (!g) return -1;
  m->generator = g;
  ld->caprows = c;
  return 0;
}

/* Ends the instance gathered in ld->jobs: when every label has a job there, a row with each
 * label's best job, the worst job and the sums; otherwise it is counted as left out. */
static int flush_instance(pf_loader *ld, int32_t gen) {
  farm_pf_matrix *m = ld->m;
  int32_t k = ld->njobs, distinct = 0;
  if (k == 0) return 0;
  ld->njobs = 0;
  int64_t stamp = ++ld->group;
  int32_t worst = 0;
  for (int32_t j = 0; j < k; j++) {
    const pf_job *job = &ld->jobs[j];
    int32_t l = job->label;
    if (ld->seen[l] != stamp) {
      ld->seen[l] = stamp;
      ld->best[l] = j;
      distinct++;
    } else if (job_cmp(m, job, &ld->jobs[ld->best[l]]) < 0) {
      ld->best[l] = j;
    }
    if (job_cmp(m, job, &ld->jobs[worst]) > 0) worst = j;
  }
  if (distinct < m->nlabels) {
    m->partial++;
    m->partial_jobs += k;
    return 0;
  }
  if (grow_rows(ld) < 0) return -1;
  int64_t r = m->ninstances++;
  farm_pf_metrics *row = &m->cell[(size_t)r * (size_t)m->nlabels];
  for (int32_t l = 0; l < m->nlabels; l++) row[l] = ld->jobs[ld->best[l]].m;
  m->worst[r] = ld->jobs[worst].m;
  m->worst_label[r] = ld->jobs[worst].label;
  m->generator[r] = gen;
  for (int32_t j = 0; j < k; j++) {
    const pf_job *job = &ld->jobs[j];
    farm_pf_stat_add(&m->label_stat[job->label], &job->m);
    farm_pf_stat_add(&m->type_stat[(size_t)gen * (size_t)m->nlabels + (size_t)job->label],
                     &job->m);
  }
  m->jobs += k;
  return 0;
}

static double column_real(sqlite3_stmt *s, int i) {
  return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

int farm_pf_read_error(sqlite3 *db, const char *where, mapf_diag *err) {
  if (where && *where)
    farm_err(err, "--where \"%s\": %s", where, sqlite3_errmsg(db));
  else
    farm_err(err, "cannot read results: %s", sqlite3_errmsg(db));
  return -1;
}

/* Prepares sql (a format with one %s for the filter) and binds max_agents to ?1. */
static sqlite3_stmt *prepare_filtered(sqlite3 *db, const char *fmt, const char *where,
                                      int32_t max_agents, mapf_diag *err) {
  const char *w = where && *where ? where : "1";
  size_t len = strlen(fmt) + strlen(w) + 1;
  char *sql = malloc(len);
  if (!sql) {
    farm_err(err, "out of memory");
    return NULL;
  }
  snprintf(sql, len, fmt, w);
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    farm_pf_read_error(db, where, err);
    sqlite3_finalize(s);
    s = NULL;
  }
  free(sql);
  if (s) sqlite3_bind_int(s, 1, max_agents);
  return s;
}

/* The labels and generators of the jobs that ran, with their first plan positions (ranked
 * by the first run of their plan, as report.c orders its columns), and the error count. The
 * filter text ends with a line break so that a trailing `--` comment cannot swallow the
 * parenthesis. */
static const char sql_names[] =
    "SELECT g.label, g.generator, sum(g.jobs), sum(g.errors), "
    "min(coalesce(p.rank, 0) * 4294967296 + g.first) FROM (SELECT run_id, label, generator, "
    "min(plan_index) AS first, sum(status <> 'error') AS jobs, sum(status = 'error') AS "
    "errors FROM results WHERE (?1 <= 0 OR agents <= ?1) AND (%s\n) GROUP BY run_id, label, "
    "generator) AS g LEFT JOIN (SELECT u.run_id, (SELECT min(w.run_id) FROM runs AS w WHERE "
    "w.plan_hash IS u.plan_hash) AS rank FROM runs AS u) AS p ON p.run_id = g.run_id GROUP BY "
    "g.label, g.generator";

/* The jobs that ran, instance by instance; the first %s is the distance column, the second the
 * seconds column (pf_seconds), %%s the filter. */
static const char sql_jobs[] =
    "SELECT map_hash, generator, agents, instance, label, job_key, completion_rate, %s, "
    "mean_completion_steps_capped, %s FROM results WHERE status <> 'error' AND (?1 <= 0 OR "
    "agents <= ?1) AND (%%s\n) ORDER BY map_hash, generator, agents, instance";

/* Completion time in seconds: under a work budget the work charged when each agent arrived
 * (deterministic, unfinished agents counting as the budget: Table 5.1's rule with the budget
 * in place of the thesis's 30 s), otherwise the wall clock. A file older than schema version
 * 6, read as it is, has only the wall clock. */
static const char *pf_seconds(sqlite3 *db) {
  sqlite3_stmt *s = NULL;
  int has = sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('results') WHERE name = "
                                   "'mean_completion_work_at_limit'",
                               -1, &s, NULL) == SQLITE_OK &&
            sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  return has ? "coalesce(CASE WHEN limit_work > 0 THEN mean_completion_work_at_limit END, "
               "mean_completion_seconds_capped)"
             : "mean_completion_seconds_capped";
}

static int load_names(sqlite3 *db, const char *where, int32_t max_agents, pf_loader *ld,
                      mapf_diag *err) {
  sqlite3_stmt *s = prepare_filtered(db, sql_names, where, max_agents, err);
  if (!s) return -1;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *label = (const char *)sqlite3_column_text(s, 0);
    const char *gen = (const char *)sqlite3_column_text(s, 1);
    int64_t jobs = sqlite3_column_int64(s, 2), first = sqlite3_column_int64(s, 4);
    ld->m->errors += sqlite3_column_int64(s, 3);
    if (jobs == 0) continue;
    if (pf_names_add(&ld->labels, label ? label : "", first) < 0 ||
        pf_names_add(&ld->gens, gen ? gen : "", first) < 0) {
      sqlite3_finalize(s);
      farm_err(err, "out of memory");
      return -1;
    }
  }
  if (rc != SQLITE_DONE) {
    farm_pf_read_error(db, where, err);
    sqlite3_finalize(s);
    return -1;
  }
  sqlite3_finalize(s);
  return 0;
}

/* Copies the ordered names into the matrix and allocates its per-label arrays. */
static int setup_matrix(pf_loader *ld) {
  farm_pf_matrix *m = ld->m;
  int32_t L = ld->labels.n, G = ld->gens.n;
  m->labels = calloc((size_t)L, sizeof *m->labels);
  m->name_rank = calloc((size_t)L, sizeof *m->name_rank);
  m->generators = calloc((size_t)(G ? G : 1), sizeof *m->generators);
  m->label_stat = calloc((size_t)L, sizeof *m->label_stat);
  m->type_stat = calloc((size_t)L * (size_t)(G ? G : 1), sizeof *m->type_stat);
  ld->seen = calloc((size_t)L, sizeof *ld->seen);
  ld->best = calloc((size_t)L, sizeof *ld->best);
  if (!m->labels || !m->name_rank || !m->generators || !m->label_stat || !m->type_stat ||
      !ld->seen || !ld->best)
    return -1;
  m->nlabels = L;
  for (int32_t i = 0; i < L; i++) {
    /* Moved, not copied: the loader's list keeps pointers for lookups until the end. */
    m->labels[i] = ld->labels.v[i].name;
  }
  for (int32_t i = 0; i < L; i++) m->name_rank[ld->labels.sorted[i]->index] = i;
  m->ngenerators = G;
  for (int32_t i = 0; i < G; i++) m->generators[i] = ld->gens.v[i].name;
  ld->moved = 1;
  return 0;
}

static int load_jobs(sqlite3 *db, const char *where, int32_t max_agents, pf_loader *ld,
                     mapf_diag *err) {
  /* FARM_PF_BY_SUBOPTIMALITY: the rule's second key is suboptimality instead of distance
   * (thesis Ch. 4 ranks single-agent configurations by it). */
  char fmt[sizeof sql_jobs + 256];
  snprintf(fmt, sizeof fmt, sql_jobs,
           ld->m->by == FARM_PF_BY_SUBOPTIMALITY ? "suboptimality" : "mean_travel_distance",
           pf_seconds(db));
  sqlite3_stmt *s = prepare_filtered(db, fmt, where, max_agents, err);
  if (!s) return -1;
  char hash[64] = "", *gen = NULL;
  size_t gencap = 0;
  int64_t agents = -1, instance = -1;
  int32_t gidx = -1;
  int rc = SQLITE_DONE, r = 0;
  while (r == 0 && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *h = (const char *)sqlite3_column_text(s, 0);
    const char *g = (const char *)sqlite3_column_text(s, 1);
    int64_t a = sqlite3_column_int64(s, 2), i = sqlite3_column_int64(s, 3);
    if (!h) h = "";
    if (!g) g = "";
    if (!gen || a != agents || i != instance || strcmp(h, hash) != 0 || strcmp(g, gen) != 0) {
      if (gen && flush_instance(ld, gidx) < 0) goto oom;
      size_t glen = strlen(g) + 1;
      if (glen > gencap) {
        char *ng = realloc(gen, glen);
        if (!ng) goto oom;
        gen = ng;
        gencap = glen;
      }
      memcpy(gen, g, glen);
      snprintf(hash, sizeof hash, "%s", h);
      agents = a;
      instance = i;
      gidx = pf_names_find(&ld->gens, gen);
    }
    const char *label = (const char *)sqlite3_column_text(s, 4);
    int32_t l = pf_names_find(&ld->labels, label ? label : "");
    if (l < 0 || gidx < 0) {
      /* Both lists come from the same snapshot, so this means a bug, not bad input. */
      farm_err(err, "label \"%s\" or generator \"%s\" missing from the first query",
               label ? label : "", gen);
      r = -1;
      break;
    }
    if (ld->njobs == ld->capjobs) {
      int32_t c = ld->capjobs ? 2 * ld->capjobs : 64;
      pf_job *nj = realloc(ld->jobs, (size_t)c * sizeof *nj);
      if (!nj) goto oom;
      ld->jobs = nj;
      ld->capjobs = c;
    }
    pf_job *job = &ld->jobs[ld->njobs++];
    job->label = l;
    const char *key = (const char *)sqlite3_column_text(s, 5);
    snprintf(job->key, sizeof job->key, "%s", key ? key : "");
    job->m.rate = column_real(s, 6);
    job->m.distance = column_real(s, 7);
    job->m.steps = column_real(s, 8);
    job->m.seconds = column_real(s, 9);
  }
  if (r == 0 && rc != SQLITE_DONE) r = farm_pf_read_error(db, where, err);
  if (r == 0 && gen && flush_instance(ld, gidx) < 0) goto oom;
  sqlite3_finalize(s);
  free(gen);
  return r;
oom:
  sqlite3_finalize(s);
  free(gen);
  farm_err(err, "out of memory");
  return -1;
}

int farm_pf_load(sqlite3 *db, const char *where, int32_t max_agents, farm_pf_matrix **out,
                 mapf_diag *err) {
  return farm_pf_load_by(db, where, max_agents, FARM_PF_BY_DISTANCE, out, err);
}

int farm_pf_load_by(sqlite3 *db, const char *where, int32_t max_agents, int by,
                    farm_pf_matrix **out, mapf_diag *err) {
  *out = NULL;
  pf_loader ld;
  memset(&ld, 0, sizeof ld);
  ld.m = calloc(1, sizeof *ld.m);
  if (!ld.m) {
    farm_err(err, "out of memory");
    return -1;
  }
  ld.m->by = by;
  /* Both queries in one read transaction: a run writing the file meanwhile cannot add a
   * label between them. */
  int own_txn =
      sqlite3_get_autocommit(db) && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
  /* Labels are what a portfolio chooses among: each must be one configuration. */
  int r = farm_labels_check(db, where, max_agents, err);
  if (r == 0) r = load_names(db, where, max_agents, &ld, err);
  if (r == 0 && ld.labels.n == 0) r = 1;
  if (r == 0 && (pf_names_order(&ld.labels) < 0 || pf_names_order(&ld.gens) < 0 ||
                 setup_matrix(&ld) < 0)) {
    farm_err(err, "out of memory");
    r = -1;
  }
  if (r == 0) r = load_jobs(db, where, max_agents, &ld, err);
  if (own_txn) sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  if (ld.moved) {
    for (int32_t i = 0; i < ld.labels.n; i++) ld.labels.v[i].name = NULL;
    for (int32_t i = 0; i < ld.gens.n; i++) ld.gens.v[i].name = NULL;
  }
  pf_names_free(&ld.labels);
  pf_names_free(&ld.gens);
  free(ld.jobs);
  free(ld.seen);
  free(ld.best);
  if (r != 0) {
    farm_pf_matrix_free(ld.m);
    return r;
  }
  *out = ld.m;
  return 0;
}

void farm_pf_matrix_free(farm_pf_matrix *m) {
  if (!m) return;
  for (int32_t i = 0; m->labels && i < m->nlabels; i++) free(m->labels[i]);
  for (int32_t i = 0; m->generators && i < m->ngenerators; i++) free(m->generators[i]);
  free(m->labels);
  free(m->name_rank);
  free(m->generators);
  free(m->generator);
  free(m->cell);
  free(m->worst);
  free(m->worst_label);
  free(m->label_stat);
  free(m->type_stat);
  free(m);
}

/* ---- selectors ------------------------------------------------------------------------------ */

/* Whether label a's cell ranks before label b's on row `row` (cells): the rule, then the
 * smaller label (a cell is already its label's best job, so job keys never meet here). */
static int cell_before(const farm_pf_matrix *m, const farm_pf_metrics *row, int32_t a,
                       int32_t b) {
  int c = farm_pf_cmp(&row[a], &row[b]);
  return c < 0 || (c == 0 && m->name_rank[a] < m->name_rank[b]);
}

void farm_pf_select(const farm_pf_matrix *m, const uint8_t *member, int32_t *choice,
                    farm_pf_stat *all, farm_pf_stat *per_type) {
  for (int64_t r = 0; r < m->ninstances; r++) {
    const farm_pf_metrics *row = &m->cell[(size_t)r * (size_t)m->nlabels];
    int32_t best = -1;
    for (int32_t l = 0; l < m->nlabels; l++)
      if ((!member || member[l]) && (best < 0 || cell_before(m, row, l, best))) best = l;
    if (choice) choice[r] = best;
    if (best < 0) continue;
    if (all) farm_pf_stat_add(all, &row[best]);
    if (per_type) farm_pf_stat_add(&per_type[m->generator[r]], &row[best]);
  }
}

int32_t farm_pf_best_single(const farm_pf_matrix *m) {
  int32_t best = -1;
  for (int32_t l = 0; l < m->nlabels; l++) {
    if (best < 0) {
      best = l;
      continue;
    }
    int c = farm_pf_stat_cmp(&m->label_stat[l], &m->label_stat[best]);
    if (c < 0 || (c == 0 && m->name_rank[l] < m->name_rank[best])) best = l;
  }
  return best;
}

/* ---- greedy portfolio formation ------------------------------------------------------------ */

/* Thesis 4.4.2, Algorithm 2 (seed lines 338-343; explained at seed line 330), with the
 * thesis's MAPF quality (seed lines 198 and 204) as the performance of a portfolio:
 *   Alg. 2 line 1   P <- {}                       member[] all 0, no choice on any row
 *   Alg. 2 line 2   for i in 1..n                 the outer loop, at most `size` times
 *   Alg. 2 line 3   a <- argmin_{a in A} f(P, a)  f(P, a): pi* over P u {a},
 *                                                 its means over every row ranked by
 *                                                 farm_pf_stat_cmp (rate, distance, steps);
 *                                                 ties to the smaller label (deterministic)
 *   Alg. 2 line 4   P <- P u {a}
 * For a member a, P u {a} = P, so line 3 returns a member (P does not grow) unless some other
 * label makes pi* strictly better: "If none of the remaining algorithms increase the
 * portfolio's performance under pi* then the portfolio does not increase" (seed line 330). Every
 * later iteration would then see the same P, so the loop ends there. In the first iteration
 * f(P, a) is label a's own performance: the best single label (by its cells).
 *
 * Each iteration visits the rows once and, per row, every label not in P: pi* over P u {a}
 * on a row is a's cell if it ranks before the row's current choice, else that choice; the
 * sums of every candidate are kept side by side. O(rows x labels) per iteration. */
int32_t farm_pf_greedy(const farm_pf_matrix *m, int32_t size, farm_pf_step *steps) {
  int32_t L = m->nlabels;
  if (size < 1 || L < 1 || m->ninstances < 1) return 0;
  int32_t *choice = malloc((size_t)m->ninstances * sizeof *choice);
  uint8_t *member = calloc((size_t)L, 1);
  farm_pf_stat *cand = malloc((size_t)L * sizeof *cand);
  int64_t *wins = malloc((size_t)L * sizeof *wins);
  if (!choice || !member || !cand || !wins) {
    free(choice);
    free(member);
    free(cand);
    free(wins);
    return -1;
  }
  for (int64_t r = 0; r < m->ninstances; r++) choice[r] = -1;
  farm_pf_stat current;
  memset(&current, 0, sizeof current);
  int32_t taken = 0;
  for (int32_t i = 0; i < size; i++) { /* Alg. 2 line 2 */
    memset(cand, 0, (size_t)L * sizeof *cand);
    memset(wins, 0, (size_t)L * sizeof *wins);
    for (int64_t r = 0; r < m->ninstances; r++) {
      const farm_pf_metrics *row = &m->cell[(size_t)r * (size_t)L];
      int32_t c = choice[r];
      for (int32_t a = 0; a < L; a++) {
        if (member[a]) continue;
        if (c < 0 || cell_before(m, row, a, c)) {
          farm_pf_stat_add(&cand[a], &row[a]);
          wins[a]++;
        } else {
          farm_pf_stat_add(&cand[a], &row[c]);
        }
      }
    }
    int32_t best = -1; /* Alg. 2 line 3, over the labels outside P */
    for (int32_t a = 0; a < L; a++) {
      if (member[a]) continue;
      int c = best < 0 ? -1 : farm_pf_stat_cmp(&cand[a], &cand[best]);
      if (c < 0 || (c == 0 && m->name_rank[a] < m->name_rank[best])) best = a;
    }
    /* No label left, or none strictly better than P alone: the argmin is a member. */
    if (best < 0 || (taken > 0 && farm_pf_stat_cmp(&cand[best], &current) >= 0)) break;
    member[best] = 1; /* Alg. 2 line 4 */
    for (int64_t r = 0; r < m->ninstances; r++) {
      const farm_pf_metrics *row = &m->cell[(size_t)r * (size_t)L];
      if (choice[r] < 0 || cell_before(m, row, best, choice[r])) choice[r] = best;
    }
    current = cand[best];
    steps[taken].label = best;
    steps[taken].score = cand[best];
    steps[taken].chosen = wins[best];
    taken++;
  }
  free(choice);
  free(member);
  free(cand);
  free(wins);
  return taken;
}
