/* dataset.c: the image dataset of a results database (dataset.h). */
#include "dataset.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "diag.h"
#include "expand.h"
#include "hash.h"
#include "image.h"
#include "labels.h"

int farm_dataset_label_dir(const char *label, char *buf, size_t n) {
  size_t k = 0;
  for (const char *p = label; *p; p++) {
    char c = *p;
    const char *put = NULL;
    char one[2] = {c, '\0'};
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.')
      put = one;
    else if (c == '*')
      put = "star";
    else
      put = "_";
    for (; *put; put++, k++)
      if (k + 1 < n) buf[k] = *put;
  }
  if (n > 0) buf[k < n ? k : n - 1] = '\0';
  return (int)k;
}

/* Creates dir and its parents (mode 0777 before the umask); an existing directory is fine. */
static int make_dirs(const char *dir, mapf_diag *err) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
    farm_err(err, "%s: path too long", dir);
    return -1;
  }
  for (char *p = path + 1;; p++) {
    if (*p != '/' && *p != '\0') continue;
    char c = *p;
    *p = '\0';
    struct stat sb;
    if (mkdir(path, 0777) != 0 && (errno != EEXIST || stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
      farm_err(err, "%s: cannot create the directory: %s", path,
               errno == EEXIST ? "a file of that name is in the way" : strerror(errno));
      return -1;
    }
    *p = c;
    if (c == '\0') break;
  }
  return 0;
}

/* Writes s as one CSV field (RFC 4180: quoted when it holds a comma, a quote or a line
 * break). */
static void csv_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* The plans of the database, loaded, so that their maps can be found by content hash. */
typedef struct plans {
  farm_plan **plan;
  farm_space *space;
  int32_t n, cap;
  char first_error[600]; /* why the first plan that could not be loaded failed */
} plans;

static void plans_free(plans *ps) {
  for (int32_t i = 0; i < ps->n; i++) {
    farm_space_free(&ps->space[i]);
    farm_plan_free(ps->plan[i]);
  }
  free(ps->plan);
  free(ps->space);
}

/* Loads every distinct plan text of `runs`. A plan that cannot be loaded (a map file moved
 * away) is skipped; its message is kept for the error of a map not found. */
static int plans_load(sqlite3 *db, const farm_plan_opts *maps, plans *ps, mapf_diag *err) {
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT plan_text, plan_path FROM runs WHERE plan_text IS NOT NULL "
                         "GROUP BY plan_hash, plan_text ORDER BY min(run_id)",
                         -1, &s, NULL) != SQLITE_OK) {
    farm_err(err, "cannot read the runs: %s", sqlite3_errmsg(db));
    return -1;
  }
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *text = (const char *)sqlite3_column_text(s, 0);
    const char *path = (const char *)sqlite3_column_text(s, 1);
    int len = sqlite3_column_bytes(s, 0);
    if (ps->n == ps->cap) {
      int32_t cap = ps->cap ? 2 * ps->cap : 4;
      farm_plan **p = realloc(ps->plan, (size_t)cap * sizeof *p);
      if (p) ps->plan = p;
      farm_space *sp = p ? realloc(ps->space, (size_t)cap * sizeof *sp) : NULL;
      if (!p || !sp) {
        sqlite3_finalize(s);
        farm_err(err, "out of memory");
        return -1;
      }
      ps->space = sp;
      ps->cap = cap;
    }
    farm_diags errs = {0, 0, NULL};
    farm_plan *plan = NULL;
    int r = farm_plan_parse(text, (size_t)len, path ? path : "plan.yaml", maps, &plan, &errs);
    if (r == MAPF_OK) {
      memset(&ps->space[ps->n], 0, sizeof ps->space[ps->n]);
      r = farm_space_init(&ps->space[ps->n], plan, &errs);
      if (r == MAPF_OK) {
        ps->plan[ps->n++] = plan;
      } else {
        farm_space_free(&ps->space[ps->n]);
        farm_plan_free(plan);
      }
    }
    if (r != MAPF_OK && !ps->first_error[0] && errs.n > 0)
      mapf_diag_format(&errs.items[0], ps->first_error, sizeof ps->first_error);
    farm_diags_free(&errs);
  }
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) {
    farm_err(err, "cannot read the runs: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

static const mapf_grid *plans_grid(const plans *ps, uint64_t hash) {
  for (int32_t i = 0; i < ps->n; i++)
    for (int32_t m = 0; m < ps->plan[i]->nmaps; m++)
      if (ps->space[i].grids[m]->hash == hash) return ps->space[i].grids[m];
  return NULL;
}

/* One problem instance and where it goes. */
typedef struct inst_row {
  char *map, *generator, *label;
  uint64_t map_hash;
  int32_t agents, instance;
  char key[17];
  uint64_t order; /* the split draws in this order */
  int32_t stratum; /* its label's index in ctx.labels; nlabels for a label not there */
  int train;
} inst_row;

static int cmp_order(const void *a, const void *b) {
  const inst_row *const *x = a, *const *y = b;
  if ((*x)->stratum != (*y)->stratum) return (*x)->stratum < (*y)->stratum ? -1 : 1;
  if ((*x)->order != (*y)->order) return (*x)->order < (*y)->order ? -1 : 1;
  return strcmp((*x)->key, (*y)->key);
}

static char *dup_col(sqlite3_stmt *s, int col) {
  const unsigned char *t = sqlite3_column_text(s, col);
  return strdup(t ? (const char *)t : "");
}

typedef struct ctx {
  sqlite3 *db;
  const farm_dataset_opts *o;
  char **labels, **dirs;
  int32_t nlabels;
  inst_row *rows;
  int64_t nrows;
  sqlite3_stmt *job, *agents, *metrics;
  mapf_diag *err;
} ctx;

/* Binds row r's instance to ?1..?5 of s: a statement on the `where` of farm_dataset_write. */
static void bind_instance(sqlite3_stmt *s, const inst_row *r) {
  sqlite3_bind_text(s, 1, r->map, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 2, r->generator, -1, SQLITE_STATIC);
  sqlite3_bind_int(s, 3, r->agents);
  sqlite3_bind_int(s, 4, r->instance);
  char hash[17];
  snprintf(hash, sizeof hash, "%016" PRIx64, r->map_hash);
  sqlite3_bind_text(s, 5, hash, 16, SQLITE_TRANSIENT);
}

/* The instance of row r: the agent rows of one of its jobs. */
static int read_instance(ctx *c, const inst_row *r, const mapf_grid *g, mapf_instance **out) {
  sqlite3_stmt *s = c->job;
  bind_instance(s, r);
  int64_t id = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
  sqlite3_reset(s);
  mapf_instance *inst = id >= 0 ? mapf_instance_new(r->agents) : NULL;
  if (!inst) {
    farm_err(c->err, "instance %s (%s, %s, %d agents, instance %d): %s", r->key,
             r->map, r->generator, (int)r->agents, (int)r->instance,
             id < 0 ? "no job with agent rows (a plan with store: {agents: false} stores none)"
                    : "out of memory");
    return -1;
  }
  s = c->agents;
  sqlite3_bind_int64(s, 1, id);
  int32_t n = 0, rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW && n < r->agents) {
    int sx = sqlite3_column_int(s, 1), sy = sqlite3_column_int(s, 2);
    int gx = sqlite3_column_int(s, 3), gy = sqlite3_column_int(s, 4);
    if (sqlite3_column_int(s, 0) != n || sx < 0 || sx >= g->width || sy < 0 ||
        sy >= g->height || gx < 0 || gx >= g->width || gy < 0 || gy >= g->height)
      break;
    inst->start[n] = mapf_grid_id(g, sx, sy);
    inst->goal[n] = mapf_grid_id(g, gx, gy);
    n++;
  }
  sqlite3_reset(s);
  if (n != r->agents) {
    farm_err(c->err, "instance %s (%s): the agent rows of result %" PRId64 " do not make %d "
             "agents on the %dx%d map",
             r->key, r->map, id, (int)r->agents, (int)g->width, (int)g->height);
    mapf_instance_free(inst);
    return -1;
  }
  *out = inst;
  return 0;
}

/* Writes the CSV columns of every label's metrics on row r (empty where a label did not run). */
static void write_metrics(ctx *c, const inst_row *r, FILE *f) {
  enum { NM = 4 };
  double *v = calloc((size_t)c->nlabels * NM, sizeof *v);
  char *have = calloc((size_t)c->nlabels * NM, 1);
  sqlite3_stmt *s = c->metrics;
  bind_instance(s, r);
  while (v && have && sqlite3_step(s) == SQLITE_ROW) {
    const char *label = (const char *)sqlite3_column_text(s, 0);
    int32_t l = 0;
    while (l < c->nlabels && strcmp(c->labels[l], label) != 0) l++;
    if (l == c->nlabels) continue;
    for (int m = 0; m < NM; m++) {
      if (have[l * NM + m] || sqlite3_column_type(s, 1 + m) == SQLITE_NULL) continue;
      have[l * NM + m] = 1;
      v[l * NM + m] = sqlite3_column_double(s, 1 + m);
    }
  }
  sqlite3_reset(s);
  for (int32_t l = 0; l < c->nlabels; l++)
    for (int m = 0; m < NM; m++) {
      fputc(',', f);
      if (have && have[l * NM + m]) fprintf(f, "%.10g", v[l * NM + m]);
    }
  free(v);
  free(have);
}

static int write_all(ctx *c, const plans *ps) {
  const farm_dataset_opts *o = c->o;
  char path[4096], tmp[4200];
  snprintf(path, sizeof path, "%s/labels.csv", o->out_dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    farm_err(c->err, "%s: cannot write: %s", tmp, strerror(errno));
    return -1;
  }
  fputs("key,map,generator,agents,instance,label,split", f);
  static const char *const metric[] = {"completion_rate", "travel_distance", "completion_steps",
                                       "completion_seconds"};
  for (int32_t l = 0; l < c->nlabels; l++)
    for (int m = 0; m < 4; m++) {
      char col[600];
      snprintf(col, sizeof col, "%s %s", c->labels[l], metric[m]);
      fputc(',', f);
      csv_field(f, col);
    }
  fputc('\n', f);
  int rc = 0;
  for (int64_t i = 0; i < c->nrows && rc == 0; i++) {
    const inst_row *r = &c->rows[i];
    const mapf_grid *g = plans_grid(ps, r->map_hash);
    if (!g) {
      farm_err(c->err, "map %s (content hash %016" PRIx64 ") is not among the maps of the "
               "plans in the database%s%s; give its directory with --maps DIR",
               r->map, r->map_hash, ps->first_error[0] ? ": " : "", ps->first_error);
      rc = -1;
      break;
    }
    int32_t l = 0;
    while (l < c->nlabels && strcmp(c->labels[l], r->label) != 0) l++;
    const char *split = r->train ? "train" : "test";
    snprintf(path, sizeof path, "%s/%s/%s", o->out_dir, split,
             l < c->nlabels ? c->dirs[l] : "_");
    if (make_dirs(path, c->err) < 0) {
      rc = -1;
      break;
    }
    mapf_instance *inst = NULL;
    if (read_instance(c, r, g, &inst) < 0) {
      rc = -1;
      break;
    }
    farm_image *full = NULL, *im = NULL;
    mapf_diag d = {0};
    int e = farm_image_render(g, inst, &full, &d);
    if (e == MAPF_OK) e = farm_image_resize(full, o->size, o->size, &im, &d);
    snprintf(tmp, sizeof tmp, "%s/%s.png", path, r->key);
    if (e == MAPF_OK) e = farm_image_write_png(im, tmp, &d);
    if (e != MAPF_OK) {
      char msg[sizeof d.msg];
      mapf_diag_format(&d, msg, sizeof msg);
      rc = farm_err(c->err, "%s", msg);
    }
    farm_image_free(full);
    farm_image_free(im);
    mapf_instance_free(inst);
    if (rc) break;
    fprintf(f, "%s,", r->key);
    csv_field(f, r->map);
    fputc(',', f);
    csv_field(f, r->generator);
    fprintf(f, ",%d,%d,", (int)r->agents, (int)r->instance);
    csv_field(f, r->label);
    fprintf(f, ",%s", split);
    write_metrics(c, r, f);
    fputc('\n', f);
  }
  snprintf(path, sizeof path, "%s/labels.csv", o->out_dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  if (fclose(f) != 0 && rc == 0) {
    farm_err(c->err, "%s: cannot write: %s", tmp, strerror(errno));
    rc = -1;
  }
  if (rc == 0 && rename(tmp, path) != 0) {
    farm_err(c->err, "%s: cannot write: %s", path, strerror(errno));
    rc = -1;
  }
  if (rc) remove(tmp);
  return rc;
}

/* How many instances of each of the L strata go to train/ (take), for a share `train` of the
 * size[] instances of each. The total is the share of all instances, rounded half up, as
 * without strata; each stratum gets the floor of its own share, and the rest go one each to
 * the strata with the largest remainders (the largest remainder method; ties to the first).
 * A stratum of two or more instances keeps at least one on each side when 0 < train < 1, so
 * that no label is seen in one split only. */
static void split_quotas(double train, const int64_t *size, int32_t L, int64_t *take) {
  int64_t all = 0, sum = 0;
  for (int32_t l = 0; l < L; l++) all += size[l];
  int64_t want = (int64_t)floor(train * (double)all + 0.5);
  int both = train > 0 && train < 1;
  for (int32_t l = 0; l < L; l++) {
    take[l] = (int64_t)floor(train * (double)size[l]);
    if (both && size[l] >= 2 && take[l] < 1) take[l] = 1;
    if (both && size[l] >= 2 && take[l] > size[l] - 1) take[l] = size[l] - 1;
    sum += take[l];
  }
  /* Move the total to `want` one instance at a time, through the stratum whose share is least
   * off by the move, within the bounds above. */
  while (sum != want) {
    int up = sum < want;
    int32_t best = -1;
    double best_gap = 0;
    for (int32_t l = 0; l < L; l++) {
      int64_t lo = both && size[l] >= 2 ? 1 : 0, hi = both && size[l] >= 2 ? size[l] - 1 : size[l];
      if (up ? take[l] >= hi : take[l] <= lo) continue;
      double gap = train * (double)size[l] - (double)take[l]; /* what the stratum is owed */
      if (best < 0 || (up ? gap > best_gap : gap < best_gap)) {
        best = l;
        best_gap = gap;
      }
    }
    if (best < 0) break; /* the bounds leave no room: keep them */
    take[best] += up ? 1 : -1;
    sum += up ? 1 : -1;
  }
}

/* Reads the labels and the instances with their best label; assigns the split. */
static int read_rows(ctx *c) {
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v2(c->db,
                              "SELECT label FROM results WHERE status <> 'error' GROUP BY label "
                              "ORDER BY min(plan_index), label",
                              -1, &s, NULL);
  int32_t cap = 0;
  while (rc == SQLITE_OK || rc == SQLITE_ROW) {
    if ((rc = sqlite3_step(s)) != SQLITE_ROW) break;
    if (c->nlabels == cap) {
      cap = cap ? 2 * cap : 8;
      char **l = realloc(c->labels, (size_t)cap * sizeof *l);
      if (l) c->labels = l;
      char **dd = l ? realloc(c->dirs, (size_t)cap * sizeof *dd) : NULL;
      if (!dd) {
        sqlite3_finalize(s);
        farm_err(c->err, "out of memory");
        return -1;
      }
      c->dirs = dd;
    }
    c->labels[c->nlabels] = dup_col(s, 0);
    char dir[512];
    farm_dataset_label_dir(c->labels[c->nlabels], dir, sizeof dir);
    c->dirs[c->nlabels] = strdup(dir);
    c->nlabels++;
  }
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) {
    farm_err(c->err, "cannot read the labels: %s", sqlite3_errmsg(c->db));
    return -1;
  }
  /* Two labels in one directory would mix their classes. */
  for (int32_t i = 0; i < c->nlabels; i++)
    for (int32_t j = 0; j < i; j++)
      if (strcmp(c->dirs[i], c->dirs[j]) == 0) {
        farm_err(c->err,
                 "labels \"%s\" and \"%s\" both become the directory \"%s\"; rename one in the "
                 "plan",
                 c->labels[j], c->labels[i], c->dirs[i]);
        return -1;
      }

  s = NULL;
  rc = sqlite3_prepare_v2(c->db,
                          "SELECT map, map_hash, generator, agents, instance, best_label "
                          "FROM portfolio_labels ORDER BY map_hash, generator, agents, instance",
                          -1, &s, NULL);
  int64_t rcap = 0;
  while (rc == SQLITE_OK || rc == SQLITE_ROW) {
    if ((rc = sqlite3_step(s)) != SQLITE_ROW) break;
    if (c->nrows == rcap) {
      rcap = rcap ? 2 * rcap : 256;
      inst_row *r = realloc(c->rows, (size_t)rcap * sizeof *r);
      if (!r) {
        sqlite3_finalize(s);
        farm_err(c->err, "out of memory");
        return -1;
      }
      c->rows = r;
    }
    inst_row *r = &c->rows[c->nrows];
    memset(r, 0, sizeof *r);
    r->map = dup_col(s, 0);
    const char *h = (const char *)sqlite3_column_text(s, 1);
    r->map_hash = h ? strtoull(h, NULL, 16) : 0;
    r->generator = dup_col(s, 2);
    r->agents = sqlite3_column_int(s, 3);
    r->instance = sqlite3_column_int(s, 4);
    r->label = dup_col(s, 5);
    c->nrows++;
    char text[1200];
    int n = snprintf(text, sizeof text, "%016" PRIx64 "\n%s\n%d\n%d\n", r->map_hash, r->generator,
                     (int)r->agents, (int)r->instance);
    size_t used = (size_t)(n < (int)sizeof text ? n : (int)sizeof text - 1);
    mapf_hash128 k = mapf_hash128_of(text, used);
    char hex[33];
    mapf_hash128_hex(k, hex);
    memcpy(r->key, hex, 16);
    r->key[16] = '\0';
    r->order = mapf_hash64(r->key, 16, c->o->seed);
  }
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) {
    farm_err(c->err, "cannot read the portfolio labels: %s", sqlite3_errmsg(c->db));
    return -1;
  }
  /* The split, stratified by label: each label's instances in the order of a seeded hash of
   * their key, the first of them to train/, so that every label keeps its share on both sides
   * (a split over all instances at once can leave a rare label with test images only). */
  int32_t L = c->nlabels + 1; /* the last stratum: a best label missing from the list */
  int64_t *size = calloc((size_t)L, sizeof *size), *take = calloc((size_t)L, sizeof *take);
  inst_row **by = malloc((size_t)(c->nrows ? c->nrows : 1) * sizeof *by);
  if (!by || !size || !take) {
    free(by);
    free(size);
    free(take);
    farm_err(c->err, "out of memory");
    return -1;
  }
  for (int64_t i = 0; i < c->nrows; i++) {
    inst_row *r = &c->rows[i];
    r->stratum = 0;
    while (r->stratum < c->nlabels && strcmp(c->labels[r->stratum], r->label) != 0) r->stratum++;
    size[r->stratum]++;
    by[i] = r;
  }
  qsort(by, (size_t)c->nrows, sizeof *by, cmp_order);
  split_quotas(c->o->train, size, L, take);
  for (int64_t i = 0, first = 0; i < c->nrows; i++) {
    if (i > 0 && by[i]->stratum != by[i - 1]->stratum) first = i;
    by[i]->train = i - first < take[by[i]->stratum];
  }
  free(size);
  free(take);
  free(by);
  return 0;
}

void farm_dataset_result_free(farm_dataset_result *res) {
  if (!res || !res->per_label) return;
  for (int32_t l = 0; l < res->labels; l++) free(res->per_label[l].label);
  free(res->per_label);
  res->per_label = NULL;
}

int farm_dataset_write(farm_store *st, const farm_dataset_opts *o, farm_dataset_result *res,
                       mapf_diag *err) {
  memset(res, 0, sizeof *res);
  farm_dataset_opts opts = *o;
  if (opts.size == 0) opts.size = FARM_IMAGE_SIDE;
  ctx c = {0};
  c.db = farm_store_db(st);
  c.o = &opts;
  c.err = err;
  plans ps = {0};
  int rc = -1;
  /* Its labels name what suits an instance best: each must be one configuration. */
  if (farm_labels_check(c.db, NULL, 0, err) < 0) return -1;
  static const char where[] =
      " FROM results WHERE map = ?1 AND generator = ?2 AND agents = ?3 AND instance = ?4 AND "
      "map_hash = ?5 AND status <> 'error'";
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT id%s AND EXISTS (SELECT 1 FROM agent_results WHERE result_id = results.id) "
           "ORDER BY id LIMIT 1",
           where);
  if (sqlite3_prepare_v2(c.db, sql, -1, &c.job, NULL) != SQLITE_OK) goto sql_error;
  if (sqlite3_prepare_v2(c.db,
                         "SELECT agent, start_x, start_y, goal_x, goal_y FROM agent_results "
                         "WHERE result_id = ?1 ORDER BY agent",
                         -1, &c.agents, NULL) != SQLITE_OK)
    goto sql_error;
  snprintf(sql, sizeof sql,
           "SELECT label, completion_rate, mean_travel_distance, mean_completion_steps_capped, "
           "mean_completion_seconds_capped%s ORDER BY job_key",
           where);
  if (sqlite3_prepare_v2(c.db, sql, -1, &c.metrics, NULL) != SQLITE_OK) goto sql_error;
  if (read_rows(&c) < 0 || plans_load(c.db, &opts.maps, &ps, err) < 0) goto done;
  if (make_dirs(opts.out_dir, err) < 0 || write_all(&c, &ps) < 0) goto done;
  res->instances = c.nrows;
  for (int64_t i = 0; i < c.nrows; i++) res->train += c.rows[i].train;
  res->test = c.nrows - res->train;
  res->labels = c.nlabels;
  res->per_label = calloc((size_t)(c.nlabels ? c.nlabels : 1), sizeof *res->per_label);
  if (!res->per_label) {
    farm_err(err, "out of memory");
    goto done;
  }
  for (int32_t l = 0; l < c.nlabels; l++) {
    res->per_label[l].label = c.labels[l];
    c.labels[l] = NULL; /* now res's */
  }
  for (int64_t i = 0; i < c.nrows; i++) {
    if (c.rows[i].stratum >= c.nlabels) continue;
    farm_dataset_count *n = &res->per_label[c.rows[i].stratum];
    if (c.rows[i].train) n->train++;
    else n->test++;
  }
  rc = 0;
  goto done;
sql_error:
  farm_err(err, "cannot read the database: %s", sqlite3_errmsg(c.db));
done:
  sqlite3_finalize(c.job);
  sqlite3_finalize(c.agents);
  sqlite3_finalize(c.metrics);
  for (int32_t i = 0; i < c.nlabels; i++) {
    free(c.labels[i]);
    free(c.dirs[i]);
  }
  free(c.labels);
  free(c.dirs);
  for (int64_t i = 0; i < c.nrows; i++) {
    free(c.rows[i].map);
    free(c.rows[i].generator);
    free(c.rows[i].label);
  }
  free(c.rows);
  plans_free(&ps);
  return rc;
}
