/* report.c: the paper-style result tables of `mapfarm report` (seed 001 Tables I-III).
 *
 * A table has a row per map and a column per label (the display name of an algorithm with its
 * parameters), in the order they first appear in the database: by the plan that first wrote
 * them (the first run of each plan_hash), then by position in that plan, so the order is the
 * plan's whichever thread or shard finished first, and a second plan run into the same
 * database (WHCA* beside the paper's six algorithms) adds its labels after the first plan's. The Overall column is the mean over every job of a map, the Overall row the
 * mean over every job of a label, and the corner the mean over every job: means over jobs, not
 * means of cells, as in the paper. Error jobs have no metrics and are left out; the title line
 * says how many. One SQL query groups the jobs by map and label; the rest is done here. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suggest.h"

/* One report: which column of `results` it averages and how it prints. */
typedef struct report_def {
  const char *name;
  const char *title;
  const char *column; /* a metric column of results (schema/schema.sql) */
  double scale;       /* printed value = scale * mean */
  int decimals;
} report_def;

/* Table I prints completion rates as integer percentages, Table II completion times with one
 * decimal (in seconds there; in steps here, the deterministic measure, with unfinished agents
 * counted as the step limit), Table III travel distances as integers. */
static const report_def report_defs[] = {
    {"completion-rate", "Completion rate (%)", "completion_rate", 100.0, 0},
    {"completion-time", "Completion time (steps, unfinished agents count as the limit)",
     "mean_completion_steps_capped", 1.0, 1},
    {"travel-distance", "Travel distance", "mean_travel_distance", 1.0, 0},
    /* Table II's own unit: wall-clock seconds, planning included, so it depends on the machine
     * and its load; unfinished agents count as the seconds limit, or the run's wall time. */
    {"completion-seconds",
     "Completion time (wall-clock seconds, unfinished agents count as the limit or the run's "
     "time)",
     "mean_completion_seconds_capped", 1.0, 3},
};
#define REPORT_COUNT ((int32_t)(sizeof report_defs / sizeof report_defs[0]))

const char *const farm_report_names[] = {"completion-rate", "completion-time",
                                         "travel-distance", "completion-seconds", NULL};

/* Per map and label: jobs that ran, and the sum and count of the metric's non-NULL values. */
typedef struct report_acc {
  int64_t jobs, n;
  double sum;
} report_acc;

/* A row or column name (a map, a label, an agent count...) with the smallest plan_index it
 * appears at (plan order) and, when the database holds it as a number, its value. */
typedef struct report_name {
  char *name;
  int64_t first;
  int32_t found; /* position in the list before sorting */
  int numeric;
  double value;
} report_name;

typedef struct report_table {
  report_name *maps, *labels;
  int32_t nmaps, nlabels, capmaps, caplabels;
  report_acc *acc; /* (nmaps + 1) x (nlabels + 1); the last row and column are Overall */
  int64_t jobs, errors;
} report_table;

static void report_table_free(report_table *t) {
  for (int32_t i = 0; i < t->nmaps; i++) free(t->maps[i].name);
  for (int32_t i = 0; i < t->nlabels; i++) free(t->labels[i].name);
  free(t->maps);
  free(t->labels);
  free(t->acc);
}

/* Returns the index of name in the list, adding it when new (and lowering its first plan_index);
 * -1 when out of memory. Linear: tables have tens of maps and labels. */
static int32_t name_index(report_name **list, int32_t *n, int32_t *cap, const char *name,
                          int64_t first, int numeric, double value) {
  for (int32_t i = 0; i < *n; i++) {
    if (strcmp((*list)[i].name, name) == 0) {
      if (first < (*list)[i].first) (*list)[i].first = first;
      return i;
    }
  }
  if (*n == *cap) {
    int32_t c = *cap ? *cap * 2 : 16;
    report_name *l = realloc(*list, (size_t)c * sizeof *l);
    if (!l) return -1;
    *list = l;
    *cap = c;
  }
  char *copy = strdup(name);
  if (!copy) return -1;
  (*list)[*n].name = copy;
  (*list)[*n].first = first;
  (*list)[*n].found = *n;
  (*list)[*n].numeric = numeric;
  (*list)[*n].value = value;
  return (*n)++;
}

static int by_first(const void *a, const void *b) {
  const report_name *x = a, *y = b;
  /* Numbers (agent counts, parameter values) in ascending order, whatever the plan's order. */
  if (x->numeric && y->numeric && x->value != y->value) return (x->value > y->value) ? 1 : -1;
  if (x->first != y->first) return (x->first > y->first) - (x->first < y->first);
  return (x->found > y->found) - (x->found < y->found);
}

/* ---- rows and columns ---------------------------------------------------------------- */

/* The dimensions a table can have as rows or columns: the option's word, the SQL expression
 * on results and the header of the first column. */
typedef struct report_dim {
  const char *name, *expr, *header;
} report_dim;

static const report_dim report_dims[] = {
    {"map", "map", "Map"},
    {"label", "label", "Label"},
    {"algorithm", "algorithm", "Algorithm"},
    {"generator", "generator", "Generator"},
    {"agents", "agents", "Agents"},
};
#define DIM_COUNT ((int32_t)(sizeof report_dims / sizeof report_dims[0]))

/* A parameter name as the registry spells them (core/algo.c): lowercase letters, digits and
 * '_'. Checking it keeps the JSON path below free of quotes. */
static int param_name_ok(const char *p) {
  if (!*p || strlen(p) > 40) return 0;
  for (; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) return 0;
  return 1;
}

int farm_report_check_dim(const char *dim, char *err, size_t errlen) {
  for (int32_t i = 0; i < DIM_COUNT; i++)
    if (strcmp(dim, report_dims[i].name) == 0) return 0;
  if (strncmp(dim, "param:", 6) == 0 && param_name_ok(dim + 6)) return 0;
  static const char *const names[] = {"map", "label", "algorithm", "generator", "agents", NULL};
  const char *near = farm_suggest(dim, names, -1);
  snprintf(err, errlen,
           "unknown table dimension \"%s\"%s%s%s; expected map, label, algorithm, generator, "
           "agents or param:NAME (NAME a parameter, e.g. param:vision)",
           dim, near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
  return -1;
}

/* The SQL expression and header of dimension dim (checked). */
static void dim_sql(const char *dim, char *expr, size_t n, const char **header) {
  for (int32_t i = 0; i < DIM_COUNT; i++) {
    if (strcmp(dim, report_dims[i].name) == 0) {
      snprintf(expr, n, "%s", report_dims[i].expr);
      *header = report_dims[i].header;
      return;
    }
  }
  /* JSON booleans come out of json_extract as 1 and 0; keep their names. */
  snprintf(expr, n,
           "CASE json_type(params, '$.%s') WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' "
           "ELSE json_extract(params, '$.%s') END",
           dim + 6, dim + 6);
  *header = dim + 6;
}

/* One grouped row of the query, kept until the maps and labels are ordered. */
typedef struct report_cell {
  int32_t map, label;
  report_acc acc;
} report_cell;

/* Reads the cells of report def into t: maps and labels ordered by first appearance, the
 * Overall row, column and corner summed from the cells. Returns 0, 1 when no job passes the
 * filter, or -1 with err. */
static int report_load(sqlite3 *db, const report_def *def, const farm_report_opts *o,
                       report_table *t, char *err, size_t errlen) {
  char rows[256], cols[256];
  const char *rh, *ch;
  dim_sql(o->rows ? o->rows : "map", rows, sizeof rows, &rh);
  dim_sql(o->cols ? o->cols : "label", cols, sizeof cols, &ch);
  const char *where = o->where && *o->where ? o->where : "1";
  size_t len = strlen(where) + 1536;
  char *sql = malloc(len);
  if (!sql) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  /* Cells grouped per run first; a run's rank is the first run of the same plan (plan_hash),
   * so shards and resumed runs of one plan rank alike and names sort by plan position. */
  snprintf(sql, len,
           "SELECT r, c, min(coalesce(p.rank, 0) * 4294967296 + g.first), sum(g.jobs), "
           "sum(g.errors), sum(g.sv), sum(g.cv) FROM (SELECT run_id, r, c, min(plan_index) AS "
           "first, sum(status <> 'error') AS jobs, sum(status = 'error') AS errors, sum(v) AS "
           "sv, count(v) AS cv FROM (SELECT run_id, plan_index, %s AS r, %s AS c, status, CASE "
           "WHEN status <> 'error' THEN %s END AS v FROM results WHERE (?1 <= 0 OR agents <= "
           "?1) AND (%s\n)) GROUP BY run_id, r, c) AS g LEFT JOIN (SELECT u.run_id, (SELECT "
           "min(w.run_id) FROM runs AS w WHERE w.plan_hash IS u.plan_hash) AS rank FROM runs "
           "AS u) AS p ON p.run_id = g.run_id GROUP BY r, c",
           rows, cols, def->column, where);
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    if (o->where && *o->where)
      snprintf(err, errlen, "--where \"%s\": %s", o->where, sqlite3_errmsg(db));
    else
      snprintf(err, errlen, "cannot read results: %s", sqlite3_errmsg(db));
    free(sql);
    return -1;
  }
  free(sql);
  sqlite3_bind_int(s, 1, o->max_agents);
  report_cell *cells = NULL;
  int32_t ncells = 0, cap = 0;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    int rnum = sqlite3_column_type(s, 0) == SQLITE_INTEGER ||
               sqlite3_column_type(s, 0) == SQLITE_FLOAT;
    int cnum = sqlite3_column_type(s, 1) == SQLITE_INTEGER ||
               sqlite3_column_type(s, 1) == SQLITE_FLOAT;
    double rval = sqlite3_column_double(s, 0), cval = sqlite3_column_double(s, 1);
    const char *map = (const char *)sqlite3_column_text(s, 0);
    const char *label = (const char *)sqlite3_column_text(s, 1);
    int64_t first = sqlite3_column_int64(s, 2);
    if (ncells == cap) {
      int32_t ncap = cap ? cap * 2 : 64;
      report_cell *nc = realloc(cells, (size_t)ncap * sizeof *nc);
      if (!nc) goto oom;
      cells = nc;
      cap = ncap;
    }
    report_cell *c = &cells[ncells++];
    /* A job without the parameter (another algorithm) has NULL there: "-". */
    c->map = name_index(&t->maps, &t->nmaps, &t->capmaps, map ? map : "-", first, rnum, rval);
    c->label =
        name_index(&t->labels, &t->nlabels, &t->caplabels, label ? label : "-", first, cnum, cval);
    if (c->map < 0 || c->label < 0) goto oom;
    c->acc.jobs = sqlite3_column_int64(s, 3);
    t->errors += sqlite3_column_int64(s, 4);
    c->acc.sum = sqlite3_column_double(s, 5);
    c->acc.n = sqlite3_column_int64(s, 6);
  }
  if (rc != SQLITE_DONE) {
    if (o->where && *o->where)
      snprintf(err, errlen, "--where \"%s\": %s", o->where, sqlite3_errmsg(db));
    else
      snprintf(err, errlen, "cannot read results: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    free(cells);
    return -1;
  }
  sqlite3_finalize(s);
  s = NULL;
  if (ncells == 0) {
    free(cells);
    return 1;
  }

  /* Order by first appearance, then map the cells' list positions to their sorted rows. */
  int32_t *map_row = calloc((size_t)t->nmaps, sizeof *map_row);
  int32_t *label_col = calloc((size_t)t->nlabels, sizeof *label_col);
  t->acc = calloc((size_t)(t->nmaps + 1) * (size_t)(t->nlabels + 1), sizeof *t->acc);
  if (!map_row || !label_col || !t->acc) {
    free(map_row);
    free(label_col);
    goto oom;
  }
  qsort(t->maps, (size_t)t->nmaps, sizeof *t->maps, by_first);
  qsort(t->labels, (size_t)t->nlabels, sizeof *t->labels, by_first);
  for (int32_t i = 0; i < t->nmaps; i++) map_row[t->maps[i].found] = i;
  for (int32_t i = 0; i < t->nlabels; i++) label_col[t->labels[i].found] = i;

  int32_t w = t->nlabels + 1;
  for (int32_t k = 0; k < ncells; k++) {
    int32_t r = map_row[cells[k].map], c = label_col[cells[k].label];
    report_acc a = cells[k].acc;
    report_acc *targets[4] = {&t->acc[r * w + c], &t->acc[r * w + t->nlabels],
                              &t->acc[t->nmaps * w + c], &t->acc[t->nmaps * w + t->nlabels]};
    for (int i = 0; i < 4; i++) {
      targets[i]->jobs += a.jobs;
      targets[i]->n += a.n;
      targets[i]->sum += a.sum;
    }
    t->jobs += a.jobs;
  }
  free(map_row);
  free(label_col);
  free(cells);
  return 0;
oom:
  sqlite3_finalize(s);
  free(cells);
  snprintf(err, errlen, "out of memory");
  return -1;
}

/* The printed text of every cell: row 0 is the header, then a row per map, then Overall;
 * column 0 holds the names. A NULL cell has no value (no jobs, or no defined metric). */
typedef struct report_text {
  int32_t rows, cols;
  const char **cell;
  char (*num)[32];
  size_t *width; /* per column, the longest cell ("-" for a missing value) */
} report_text;

static int report_text_build(const report_table *t, const report_def *def, const char *header,
                             report_text *x) {
  x->rows = t->nmaps + 2;
  x->cols = t->nlabels + 2;
  size_t n = (size_t)x->rows * (size_t)x->cols;
  x->cell = calloc(n, sizeof *x->cell);
  x->num = calloc(n, sizeof *x->num);
  x->width = calloc((size_t)x->cols, sizeof *x->width);
  if (!x->cell || !x->num || !x->width) return -1;
  x->cell[0] = header;
  for (int32_t c = 0; c < t->nlabels; c++) x->cell[1 + c] = t->labels[c].name;
  x->cell[x->cols - 1] = "Overall";
  for (int32_t r = 0; r <= t->nmaps; r++) {
    size_t row = (size_t)(r + 1) * (size_t)x->cols;
    x->cell[row] = r < t->nmaps ? t->maps[r].name : "Overall";
    for (int32_t c = 0; c <= t->nlabels; c++) {
      const report_acc *a = &t->acc[r * (t->nlabels + 1) + c];
      if (a->jobs == 0 || a->n == 0) continue;
      /* Round half away from zero at the printed precision, so 62.5 prints as 63. */
      double p = pow(10.0, def->decimals);
      double v = round(def->scale * a->sum / (double)a->n * p) / p;
      if (v == 0.0) v = 0.0; /* no "-0" */
      snprintf(x->num[row + 1 + (size_t)c], sizeof x->num[0], "%.*f", def->decimals, v);
      x->cell[row + 1 + (size_t)c] = x->num[row + 1 + (size_t)c];
    }
  }
  for (int32_t c = 0; c < x->cols; c++) {
    for (int32_t r = 0; r < x->rows; r++) {
      const char *s = x->cell[r * x->cols + c];
      size_t len = strlen(s ? s : "-");
      if (len > x->width[c]) x->width[c] = len;
    }
  }
  return 0;
}

static void report_text_free(report_text *x) {
  free(x->cell);
  free(x->num);
  free(x->width);
}

/* Aligned columns: names left, numbers right, a rule under the header and above Overall. */
static void write_rule(const report_text *x, FILE *out) {
  for (int32_t c = 0; c < x->cols; c++) {
    fputs(c ? "  " : "", out);
    for (size_t i = 0; i < x->width[c]; i++) fputc('-', out);
  }
  fputc('\n', out);
}

static void write_text(const report_text *x, const char *title, FILE *out) {
  const size_t *width = x->width;
  fprintf(out, "%s\n", title);
  for (int32_t r = 0; r < x->rows; r++) {
    if (r == x->rows - 1) write_rule(x, out);
    for (int32_t c = 0; c < x->cols; c++) {
      const char *s = x->cell[r * x->cols + c];
      if (c == 0)
        fprintf(out, "%-*s", (int)width[0], s);
      else
        fprintf(out, "  %*s", (int)width[c], s ? s : "-");
    }
    fputc('\n', out);
    if (r == 0) write_rule(x, out);
  }
}

/* A Markdown cell: backslash-escapes the characters that would end the cell or start
 * emphasis or code (labels such as "BMAA*-f" carry asterisks). */
static void write_md_cell(const char *s, FILE *out) {
  for (; *s; s++) {
    if (strchr("\\|*_`", *s)) fputc('\\', out);
    fputc(*s, out);
  }
}

/* A GitHub Markdown table: names left-aligned, numbers right-aligned. */
static void write_md(const report_text *x, FILE *out) {
  for (int32_t r = 0; r < x->rows; r++) {
    for (int32_t c = 0; c < x->cols; c++) {
      const char *s = x->cell[r * x->cols + c];
      fputs("| ", out);
      write_md_cell(s ? s : "-", out);
      fputc(' ', out);
    }
    fputs("|\n", out);
    if (r == 0) {
      for (int32_t c = 0; c < x->cols; c++) fputs(c ? "| ---: " : "| :--- ", out);
      fputs("|\n", out);
    }
  }
}

/* RFC 4180: a field holding a comma, a quote or a line break is quoted, quotes doubled. */
static void write_csv_field(const char *s, FILE *out) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

/* CSV for programs: the same rows and columns; a cell without a value is an empty field,
 * which CSV readers take as missing. */
static void write_csv(const report_text *x, FILE *out) {
  for (int32_t r = 0; r < x->rows; r++) {
    for (int32_t c = 0; c < x->cols; c++) {
      const char *s = x->cell[r * x->cols + c];
      if (c) fputc(',', out);
      write_csv_field(s ? s : "", out);
    }
    fputc('\n', out);
  }
}

/* Formats the unknown-name message: the valid names, and the nearest one if it is close. */
static void unknown_report(const char *name, char *err, size_t errlen) {
  char list[256] = "";
  for (int32_t i = 0; farm_report_names[i]; i++) {
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", farm_report_names[i]);
  }
  if (!name) {
    snprintf(err, errlen, "no report name given; reports: %s", list);
    return;
  }
  const char *near = farm_suggest(name, farm_report_names, -1);
  if (near)
    snprintf(err, errlen, "unknown report \"%s\"; did you mean \"%s\"? Reports: %s", name, near,
             list);
  else
    snprintf(err, errlen, "unknown report \"%s\"; reports: %s", name, list);
}

int farm_report(farm_store *st, const char *name, const farm_report_opts *opts, FILE *out,
                char *err, size_t errlen) {
  char scratch[8];
  if (!err || errlen == 0) {
    err = scratch;
    errlen = sizeof scratch;
  }
  const report_def *def = NULL;
  for (int32_t i = 0; name && i < REPORT_COUNT; i++)
    if (strcmp(name, report_defs[i].name) == 0) def = &report_defs[i];
  if (!def) {
    unknown_report(name, err, errlen);
    return -1;
  }
  farm_report_opts o = {FARM_FORMAT_TEXT, 0, NULL, NULL, NULL};
  if (opts) o = *opts;
  if ((o.rows && farm_report_check_dim(o.rows, err, errlen) < 0) ||
      (o.cols && farm_report_check_dim(o.cols, err, errlen) < 0))
    return -1;
  if (o.format != FARM_FORMAT_TEXT && o.format != FARM_FORMAT_MD && o.format != FARM_FORMAT_CSV) {
    snprintf(err, errlen, "unknown report format %d", (int)o.format);
    return -1;
  }
  sqlite3 *db = farm_store_db(st);
  if (!db) {
    snprintf(err, errlen, "no database");
    return -1;
  }

  /* Tell an empty database from a filter that leaves nothing. */
  int64_t rows = 0, min_agents = 0;
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v2(db, "SELECT count(*), min(agents) FROM results", -1, &s, NULL);
  if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    rows = sqlite3_column_int64(s, 0);
    min_agents = sqlite3_column_int64(s, 1);
    rc = SQLITE_OK;
  }
  if (rc != SQLITE_OK) {
    snprintf(err, errlen, "cannot read results: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return -1;
  }
  sqlite3_finalize(s);
  if (rows == 0) {
    snprintf(err, errlen, "no results in DB");
    return -1;
  }

  report_table t;
  memset(&t, 0, sizeof t);
  int r = report_load(db, def, &o, &t, err, errlen);
  if (r == 1 && o.where && *o.where) {
    snprintf(err, errlen, "no results in DB%s match --where \"%s\"",
             o.max_agents > 0 ? " with at most that many agents" : "", o.where);
    r = -1;
  } else if (r == 1) {
    snprintf(err, errlen,
             "no results in DB with at most %d agents (the smallest instance has %lld)",
             (int)o.max_agents, (long long)min_agents);
    r = -1;
  }
  if (r < 0) {
    report_table_free(&t);
    return -1;
  }
  report_text x;
  memset(&x, 0, sizeof x);
  /* A parameter no job has (a typing error: param:visoin) gives only NULLs: say so. */
  const char *dims[2] = {o.rows, o.cols};
  for (int k = 0; r == 0 && k < 2; k++) {
    if (!dims[k] || strncmp(dims[k], "param:", 6) != 0) continue;
    const report_name *l = k ? t.labels : t.maps;
    int32_t n = k ? t.nlabels : t.nmaps, named = 0;
    for (int32_t i = 0; i < n; i++) named += strcmp(l[i].name, "-") != 0;
    if (named == 0) {
      snprintf(err, errlen, "no job in DB has the parameter \"%s\" (--%s %s)", dims[k] + 6,
               k ? "cols" : "rows", dims[k]);
      r = -1;
    }
  }
  if (r < 0) {
    report_table_free(&t);
    return -1;
  }
  char rexpr[256];
  const char *header;
  dim_sql(o.rows ? o.rows : "map", rexpr, sizeof rexpr, &header);
  if (report_text_build(&t, def, header, &x) < 0) {
    snprintf(err, errlen, "out of memory");
    report_text_free(&x);
    report_table_free(&t);
    return -1;
  }

  switch (o.format) {
  case FARM_FORMAT_TEXT: {
    char title[1400], agents[64] = "", errors[64] = "", where[1100] = "";
    if (o.max_agents > 0)
      snprintf(agents, sizeof agents, " with at most %d agents", (int)o.max_agents);
    if (o.where && *o.where) snprintf(where, sizeof where, " where %.1000s", o.where);
    if (t.errors > 0)
      snprintf(errors, sizeof errors, "; %lld error job%s left out", (long long)t.errors,
               t.errors == 1 ? "" : "s");
    snprintf(title, sizeof title, "%s: mean over %lld job%s%s%s%s", def->title,
             (long long)t.jobs, t.jobs == 1 ? "" : "s", agents, where, errors);
    write_text(&x, title, out);
    break;
  }
  case FARM_FORMAT_MD:
    write_md(&x, out);
    break;
  case FARM_FORMAT_CSV:
    write_csv(&x, out);
    break;
  }
  report_text_free(&x);
  report_table_free(&t);
  if (fflush(out) != 0 || ferror(out)) {
    snprintf(err, errlen, "cannot write the report");
    return -1;
  }
  return 0;
}
