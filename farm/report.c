/* report.c: the paper-style result tables of `mapfarm report` (Sigurdson et al. 2018 Tables I-III).
 *
 * A table has a row per map and a column per label (the display name of an algorithm with its
 * parameters), in the order they first appear in the database: by the plan that first wrote
 * them (the first run of each plan_hash), then by position in that plan, so the order is the
 * plan's whichever thread or shard finished first, and a second plan run into the same
 * database (WHCA* beside the paper's six algorithms) adds its labels after the first plan's. The Overall column is the mean over every job of a map, the Overall row the
 * mean over every job of a label, and the corner the mean over every job: means over jobs, not
 * means of cells, as in the paper. Error jobs have no metrics and are left out; the title line
 * says how many. One SQL query groups the jobs by map and label; the rest is done here.
 *
 * The portfolio tables (thesis Tables 5.1 and 5.2, and the steps of greedy portfolio
 * formation) are rendered here from farm/portfolio.c's matrix, through the same text,
 * Markdown and CSV writers. They compute from the jobs rather than from the portfolio views
 * of schema/views.sql, because --where must filter the jobs before the best label of an
 * instance is chosen (leaving a label out changes it); so they also work on a read-only file
 * whose views are older than this mapfarm. */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "labels.h"
#include "portfolio.h"
#include "suggest.h"

/* One report: which column of `results` it averages and how it prints; made from that
 * column's row of the table of result columns (farm/columns.h). */
typedef struct report_def {
  const char *name;
  const char *title;
  const char *column; /* a metric column of results (schema/schema.sql), or an expression */
  double scale;       /* printed value = scale * mean */
  int decimals;
} report_def;

/* The metric reports first (their columns' rows say what they print), in the order of
 * Sigurdson et al. 2018's Tables I-III, then the other metrics and the portfolio tables. */
const char *const farm_report_names[] = {
    "completion-rate", "completion-time", "travel-distance", "completion-time-at-limit",
    "completion-work-at-limit", "completion-seconds", "failed-moves", "coherence",
    "suboptimality", "solved", "soc", "makespan", "soc-ratio", "makespan-ratio", "work",
    "retask-expansions", "event-spike", "throughput", "change-expansions", "portfolio",
    "problem-types", NULL};

const char *farm_report_doc(const char *name) {
  const farm_column *col = name ? farm_column_report(name) : NULL;
  if (col) return col->title;
  if (name && strcmp(name, "portfolio") == 0)
    return "Algorithm performance on all problems: the labels and the selectors over them "
           "(thesis Table 5.1)";
  if (name && strcmp(name, "problem-types") == 0)
    return "Completion rate (%) by problem type (thesis Table 5.2)";
  return NULL;
}

/* Per map and label: jobs that ran, and the sum and count of the metric's non-NULL values. */
typedef struct report_acc {
  int64_t jobs, n;
  double sum, sumsq; /* sumsq: for the spread of the HTML report's intervals */
  int64_t binary;    /* values that are 0 or 1: all of them make the mean a proportion */
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

int farm_report_check_dim(const char *dim, mapf_diag *err) {
  for (int32_t i = 0; i < DIM_COUNT; i++)
    if (strcmp(dim, report_dims[i].name) == 0) return 0;
  if (strncmp(dim, "param:", 6) == 0 && param_name_ok(dim + 6)) return 0;
  static const char *const names[] = {"map", "label", "algorithm", "generator", "agents", NULL};
  const char *near = farm_suggest(dim, names, -1);
  farm_err(err,
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
                       const farm_labels *lb, report_table *t, mapf_diag *err) {
  char rows[1024], cols[1024];
  const char *rh, *ch;
  dim_sql(o->rows ? o->rows : "map", rows, sizeof rows, &rh);
  dim_sql(o->cols ? o->cols : "label", cols, sizeof cols, &ch);
  /* A label of several configurations: group on the configuration, named apart below. */
  int split[2] = {0, 0};
  char *dims[2] = {rows, cols};
  for (int k = 0; k < 2; k++) {
    if (strcmp(dims[k], "label") != 0 || !farm_labels_mixed(lb)) continue;
    snprintf(dims[k], sizeof rows, "%s", farm_labels_key_sql(lb));
    split[k] = 1;
  }
  const char *where = o->where && *o->where ? o->where : "1";
  size_t len = strlen(where) + 4096;
  char *sql = malloc(len);
  if (!sql) {
    farm_err(err, "out of memory");
    return -1;
  }
  /* Cells grouped per run first; a run's rank is the first run of the same plan (plan_hash),
   * so shards and resumed runs of one plan rank alike and names sort by plan position. */
  snprintf(sql, len,
           "SELECT r, c, min(coalesce(p.rank, 0) * 4294967296 + g.first), sum(g.jobs), "
           "sum(g.errors), sum(g.sv), sum(g.cv), sum(g.sq), sum(g.bin) FROM (SELECT run_id, r, c, "
           "min(plan_index) AS first, sum(status <> 'error') AS jobs, sum(status = 'error') AS "
           "errors, sum(v) AS sv, count(v) AS cv, sum(v * v) AS sq, sum(v IN (0, 1)) AS bin FROM "
           "(SELECT run_id, plan_index, %s AS r, %s AS c, status, CASE "
           "WHEN status <> 'error' THEN %s END AS v FROM results WHERE (?1 <= 0 OR agents <= "
           "?1) AND (%s\n)) GROUP BY run_id, r, c) AS g LEFT JOIN (SELECT u.run_id, (SELECT "
           "min(w.run_id) FROM runs AS w WHERE w.plan_hash IS u.plan_hash) AS rank FROM runs "
           "AS u) AS p ON p.run_id = g.run_id GROUP BY r, c",
           rows, cols, def->column, where);
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    farm_pf_read_error(db, o->where, err);
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
    if (split[0] && map) map = farm_labels_name(lb, map);
    if (split[1] && label) label = farm_labels_name(lb, label);
    /* A parameter value as a plan writes it: sqrt(2) is the one value a plan may spell as an
     * expression (core/algo.c), and its 17 digits say less. */
    if (rnum && rval == MAPF_SQRT2) map = "sqrt(2)";
    if (cnum && cval == MAPF_SQRT2) label = "sqrt(2)";
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
    c->acc.sumsq = sqlite3_column_double(s, 7);
    c->acc.binary = sqlite3_column_int64(s, 8);
  }
  if (rc != SQLITE_DONE) {
    farm_pf_read_error(db, o->where, err);
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
      targets[i]->sumsq += a.sumsq;
      targets[i]->binary += a.binary;
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
  farm_err(err, "out of memory");
  return -1;
}

/* The printed text of every cell: row 0 is the header, then the body rows; column 0 holds
 * the names. A NULL cell has no value (no jobs, or no defined metric). Cells point at names
 * owned elsewhere, at num (numbers of the paper tables) or at own (formatted text, freed with
 * the table). rule[r] draws a rule above row r in text output. */
typedef struct report_text {
  int32_t rows, cols;
  const char **cell;
  char (*num)[32];
  char **own;
  unsigned char *rule;
  unsigned char *left; /* per column: names, aligned left (column 0 always is) */
  size_t *width; /* per column, the widest cell in characters ("-" for a missing value) */
  int full;      /* numbers at full precision (CSV), not rounded to the display's decimals */
} report_text;

static int report_text_alloc(report_text *x, int32_t rows, int32_t cols) {
  x->rows = rows;
  x->cols = cols;
  size_t n = (size_t)rows * (size_t)cols;
  x->cell = calloc(n, sizeof *x->cell);
  x->num = calloc(n, sizeof *x->num);
  x->own = calloc(n, sizeof *x->own);
  x->rule = calloc((size_t)rows, sizeof *x->rule);
  x->left = calloc((size_t)cols, sizeof *x->left);
  x->width = calloc((size_t)cols, sizeof *x->width);
  if (!x->cell || !x->num || !x->own || !x->rule || !x->left || !x->width) return -1;
  x->left[0] = 1;
  return 0;
}

/* A control character in a name (a label stored by an older mapfarm, which did not refuse
 * them) would break a text or Markdown table's line: it is shown escaped, C-style. Returns the
 * escape's length, 0 for a character shown as it is; esc gets the escape. */
static size_t control_escape(unsigned char ch, char esc[5]) {
  if (ch >= 0x20 && ch != 0x7f) return 0;
  if (ch == '\n') return (size_t)snprintf(esc, 5, "\\n");
  if (ch == '\t') return (size_t)snprintf(esc, 5, "\\t");
  if (ch == '\r') return (size_t)snprintf(esc, 5, "\\r");
  return (size_t)snprintf(esc, 5, "\\x%02x", ch);
}

/* Writes s with its control characters escaped. */
static void put_escaped(const char *s, FILE *out) {
  char esc[5];
  for (; *s; s++) {
    if (control_escape((unsigned char)*s, esc))
      fputs(esc, out);
    else
      fputc(*s, out);
  }
}

/* Characters as shown, not bytes, so that UTF-8 names and the "±" of the portfolio table line
 * up. */
static size_t text_width(const char *s) {
  size_t n = 0;
  char esc[5];
  for (; *s; s++) {
    size_t e = control_escape((unsigned char)*s, esc);
    n += e ? e : ((unsigned char)*s & 0xc0) != 0x80;
  }
  return n;
}

static void report_text_widths(report_text *x) {
  for (int32_t c = 0; c < x->cols; c++) {
    for (int32_t r = 0; r < x->rows; r++) {
      const char *s = x->cell[r * x->cols + c];
      size_t len = text_width(s ? s : "-");
      if (len > x->width[c]) x->width[c] = len;
    }
  }
}

/* Sets cell (r, c) to formatted text that the table owns. Returns 0, or -1 out of memory. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int text_printf(report_text *x, int32_t r, int32_t c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return -1;
  char *p = malloc((size_t)n + 1);
  if (!p) return -1;
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  size_t i = (size_t)r * (size_t)x->cols + (size_t)c;
  free(x->own[i]);
  x->own[i] = p;
  x->cell[i] = p;
  return 0;
}

/* v rounded half away from zero at `decimals`, as the paper tables print, without "-0". */
static double rounded(double v, int decimals) {
  double p = pow(10.0, decimals);
  v = round(v * p) / p;
  return v == 0.0 ? 0.0 : v;
}

/* scale x raw as CSV writes it: the shortest "%.*g" form d with d / scale == raw (the
 * division is correctly rounded), so a program gets every bit of the mean back from the
 * printed unit, without the noise of the scaling (100 x 0.6 is 60.00000000000001 in binary,
 * 60 here); %.17g of the product where no form reads back exactly. */
static void shortest_scaled(double raw, double scale, char *buf, size_t n) {
  double v = scale * raw;
  if (v == 0.0) v = 0.0; /* no "-0" */
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, n, "%.*g", prec, v);
    /* Few digits of a large number come out as "6e+01": not that form. */
    if (strchr(buf, 'e') && fabs(v) >= 1e-4 && fabs(v) < 1e15) continue;
    if (strtod(buf, NULL) / scale == raw) return;
  }
  snprintf(buf, n, "%.17g", v);
}

/* Sets cell (r, c) to scale x raw: at full precision in a CSV table, else rounded half away
 * from zero at `decimals`. */
static int put_number(report_text *x, int32_t r, int32_t c, double raw, double scale,
                      int decimals) {
  if (x->full) {
    char buf[40];
    shortest_scaled(raw, scale, buf, sizeof buf);
    return text_printf(x, r, c, "%s", buf);
  }
  return text_printf(x, r, c, "%.*f", decimals, rounded(scale * raw, decimals));
}

/* How a table shows each cell's job count (--counts): not at all, after the value ("63 (10)"),
 * or in a column of its own after each value column (CSV, for programs). */
enum { COUNTS_NONE, COUNTS_INLINE, COUNTS_COLUMNS };

static int report_text_build(const report_table *t, const report_def *def, const char *header,
                             int counts, int full, report_text *x) {
  int32_t per = counts == COUNTS_COLUMNS ? 2 : 1; /* text columns per label column */
  if (report_text_alloc(x, t->nmaps + 2, 1 + per * (t->nlabels + 1)) < 0) return -1;
  x->full = full;
  x->rule[1] = x->rule[x->rows - 1] = 1; /* under the header and above Overall */
  x->cell[0] = header;
  for (int32_t c = 0; c <= t->nlabels; c++) {
    const char *name = c < t->nlabels ? t->labels[c].name : "Overall";
    x->cell[1 + per * c] = name;
    if (per == 2 && text_printf(x, 0, 2 + 2 * c, "%s jobs", name) < 0) return -1;
  }
  for (int32_t r = 0; r <= t->nmaps; r++) {
    size_t row = (size_t)(r + 1) * (size_t)x->cols;
    x->cell[row] = r < t->nmaps ? t->maps[r].name : "Overall";
    for (int32_t c = 0; c <= t->nlabels; c++) {
      const report_acc *a = &t->acc[r * (t->nlabels + 1) + c];
      if (a->jobs == 0 || a->n == 0) continue;
      /* Round half away from zero at the printed precision, so 62.5 prints as 63. */
      double v = rounded(def->scale * a->sum / (double)a->n, def->decimals);
      int32_t col = 1 + per * c;
      int bad = counts == COUNTS_INLINE
                    ? text_printf(x, r + 1, col, "%.*f (%lld)", def->decimals, v, (long long)a->n)
                    : put_number(x, r + 1, col, a->sum / (double)a->n, def->scale,
                                 def->decimals);
      if (!bad && per == 2) bad = text_printf(x, r + 1, col + 1, "%lld", (long long)a->n);
      if (bad) return -1;
    }
  }
  report_text_widths(x);
  return 0;
}

/* The smallest and largest job count of the body's cells that have a value (Overall left
 * out: it sums cells). */
static void count_range(const report_table *t, int64_t *lo, int64_t *hi) {
  *lo = INT64_MAX;
  *hi = 0;
  for (int32_t r = 0; r < t->nmaps; r++)
    for (int32_t c = 0; c < t->nlabels; c++) {
      const report_acc *a = &t->acc[r * (t->nlabels + 1) + c];
      if (a->jobs == 0 || a->n == 0) continue;
      if (a->n < *lo) *lo = a->n;
      if (a->n > *hi) *hi = a->n;
    }
}

static void report_text_free(report_text *x) {
  if (x->own)
    for (size_t i = 0; i < (size_t)x->rows * (size_t)x->cols; i++) free(x->own[i]);
  free(x->cell);
  free(x->num);
  free(x->own);
  free(x->rule);
  free(x->left);
  free(x->width);
}

static void pad(size_t n, FILE *out) {
  for (size_t i = 0; i < n; i++) fputc(' ', out);
}

/* Aligned columns: names left, numbers right, rules where x->rule asks. */
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
    if (x->rule[r]) write_rule(x, out);
    for (int32_t c = 0; c < x->cols; c++) {
      const char *s = x->cell[r * x->cols + c];
      if (!s && c) s = "-";
      if (!s) s = "";
      size_t w = text_width(s);
      fputs(c ? "  " : "", out);
      if (x->left[c]) {
        put_escaped(s, out);
        /* No trailing blanks after the last column. */
        if (c + 1 < x->cols) pad(width[c] - w, out);
      } else {
        pad(width[c] - w, out);
        put_escaped(s, out);
      }
    }
    fputc('\n', out);
  }
}

/* A Markdown cell: backslash-escapes the characters that would end the cell or start
 * emphasis or code (labels such as "BMAA*-f" carry asterisks). */
static void write_md_cell(const char *s, FILE *out) {
  char esc[5];
  for (; *s; s++) {
    if (control_escape((unsigned char)*s, esc)) {
      fputc('\\', out); /* the escape's backslash, itself escaped */
      fputs(esc, out);
      continue;
    }
    if (strchr("\\|*_`", *s)) fputc('\\', out);
    fputc(*s, out);
  }
}

/* Lines of plain text as Markdown: escaped as cells are, each line ending in a hard break. */
static void write_md_text(const char *s, FILE *out) {
  while (*s) {
    size_t n = strcspn(s, "\n");
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), s);
    write_md_cell(line, out);
    fputs(s[n] == '\n' && s[n + 1] ? "  \n" : "\n", out);
    s += n + (s[n] == '\n');
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
      for (int32_t c = 0; c < x->cols; c++) fputs(x->left[c] ? "| :--- " : "| ---: ", out);
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

/* ---- portfolios: thesis Tables 5.1 and 5.2, greedy formation (farm/portfolio.c) ------------ */

/* A number, or no value (NaN: a mean over nothing). */
static int put_value(report_text *x, int32_t r, int32_t c, double v, int decimals) {
  if (isnan(v)) return 0;
  return put_number(x, r, c, v, 1.0, decimals);
}

/* scale x raw, or no value (NaN). */
static int put_scaled(report_text *x, int32_t r, int32_t c, double raw, double scale,
                      int decimals) {
  if (isnan(raw)) return 0;
  return put_number(x, r, c, raw, scale, decimals);
}

/* "mean ± standard error" as Table 5.1 prints it; the mean alone when there is no error (one
 * instance). */
static int put_mean_se(report_text *x, int32_t r, int32_t c, double mean, double se,
                       int decimals) {
  if (isnan(mean)) return 0;
  if (isnan(se)) return put_value(x, r, c, mean, decimals);
  return text_printf(x, r, c, "%.*f \u00b1 %.*f", decimals, rounded(mean, decimals), decimals,
                     rounded(se, decimals));
}

/* The metric columns of Table 5.1 (completion rate in percent, distance, completion time) and
 * of the greedy steps. Time twice: in steps, the deterministic measure that ranks, and in
 * seconds, Table 5.1's own unit (machine-dependent; three decimals, as runs here are short). */
typedef struct pf_col {
  const char *header;
  int metric;
  double scale;
  int decimals;
} pf_col;

static const pf_col pf_cols[] = {
    {"Completion rate (%)", FARM_PF_RATE, 100.0, 1},
    {"Distance", FARM_PF_DISTANCE, 1.0, 1},
    {"Completion time (steps)", FARM_PF_STEPS, 1.0, 1},
    {"Completion time (s)", FARM_PF_SECONDS, 1.0, 3},
};
#define PF_COLS 4

static int put_stat_by(report_text *x, int32_t r, int32_t c0, const farm_pf_stat *s, int csv,
                       int with_se, int by);

/* put_stat_by with the distance rule (Tables 5.1 and 5.2). */
static int put_stat(report_text *x, int32_t r, int32_t c0, const farm_pf_stat *s, int csv,
                    int with_se) {
  return put_stat_by(x, r, c0, s, csv, with_se, FARM_PF_BY_DISTANCE);
}

/* The metric columns of one row from column c0: "mean ± se" cells, or for CSV a mean column
 * and an SE column each (with_se), or means only (!with_se). */
static int put_stat_by(report_text *x, int32_t r, int32_t c0, const farm_pf_stat *s, int csv,
                       int with_se, int by) {
  int bad = 0;
  for (int k = 0; k < PF_COLS; k++) {
    const pf_col *col = &pf_cols[k];
    /* Suboptimality (in the distance column) is a ratio near 1: three decimals. */
    int dec = k == FARM_PF_DISTANCE && by == FARM_PF_BY_SUBOPTIMALITY ? 3 : col->decimals;
    double raw = farm_pf_stat_mean(s, col->metric), raw_se = farm_pf_stat_se(s, col->metric);
    if (!with_se)
      bad |= put_scaled(x, r, c0 + k, raw, col->scale, dec);
    else if (csv) {
      bad |= put_scaled(x, r, c0 + 2 * k, raw, col->scale, dec);
      bad |= put_scaled(x, r, c0 + 2 * k + 1, raw_se, col->scale, dec);
    } else {
      bad |= put_mean_se(x, r, c0 + k, col->scale * raw, col->scale * raw_se, dec);
    }
  }
  return bad ? -1 : 0;
}

/* The headers of those columns. */
static int put_stat_headers(report_text *x, int32_t c0, int csv, int with_se, int by) {
  int bad = 0;
  for (int k = 0; k < PF_COLS; k++) {
    /* By suboptimality, the distance column holds it (portfolio.h). */
    const char *h = k == FARM_PF_DISTANCE && by == FARM_PF_BY_SUBOPTIMALITY ? "Suboptimality"
                                                                            : pf_cols[k].header;
    if (csv && with_se) {
      bad |= text_printf(x, 0, c0 + 2 * k, "%s", h);
      bad |= text_printf(x, 0, c0 + 2 * k + 1, "%s SE", h);
    } else {
      x->cell[c0 + k] = h;
    }
  }
  return bad ? -1 : 0;
}

/* "count (percent%)", or for CSV the two in columns c and c + 1. */
static int put_count(report_text *x, int32_t r, int32_t c, int64_t count, int64_t of, int csv) {
  double share = of > 0 ? (double)count / (double)of : NAN;
  if (csv) {
    if (text_printf(x, r, c, "%lld", (long long)count) < 0) return -1;
    return put_scaled(x, r, c + 1, share, 100.0, 1);
  }
  double pct = rounded(100.0 * share, 1);
  if (isnan(pct)) return text_printf(x, r, c, "%lld", (long long)count);
  return text_printf(x, r, c, "%lld (%.1f%%)", (long long)count, pct);
}

/* What the title says after the instance count: the filters, the instances left out because
 * not every label ran there, and the error jobs. */
static void pf_title_tail(const farm_report_opts *o, const farm_pf_matrix *m, char *buf,
                          size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  if (o->max_agents > 0)
    len += (size_t)snprintf(buf + len, n - len, " with at most %d agents", (int)o->max_agents);
  if (len < n && o->where && *o->where)
    len += (size_t)snprintf(buf + len, n - len, " where %.1000s", o->where);
  if (len < n && m->partial > 0)
    len += (size_t)snprintf(buf + len, n - len, "; %lld instance%s not run by every label left out",
                            (long long)m->partial, m->partial == 1 ? "" : "s");
  if (len < n && m->errors > 0)
    snprintf(buf + len, n - len, "; %lld error job%s left out", (long long)m->errors,
             m->errors == 1 ? "" : "s");
}

/* Loads the matrix of a portfolio table, with the reports' messages for the ways it can be
 * empty. Returns 0, or -1 with err. */
static int pf_load(sqlite3 *db, const farm_report_opts *o, int by, farm_pf_matrix **m,
                   mapf_diag *err) {
  int r = farm_pf_load_by(db, o->where, o->max_agents, by, m, err);
  if (r < 0) return -1;
  if (r == 1) {
    if (o->where && *o->where)
      farm_err(err, "no job that ran in DB matches --where \"%s\"%s", o->where,
               o->max_agents > 0 ? " with at most that many agents" : "");
    else if (o->max_agents > 0)
      farm_err(err, "no job that ran in DB has at most %d agents", (int)o->max_agents);
    else
      farm_err(err, "no job in DB ran: every job ended in error");
    return -1;
  }
  if ((*m)->ninstances == 0) {
    farm_err(err,
             "no instance in DB has a job that ran for each of its %d labels (%lld instances "
             "have some); pick labels that ran on the same instances with --where, e.g. "
             "--where \"label IN ('A', 'B')\"",
             (int)(*m)->nlabels, (long long)(*m)->partial);
    farm_pf_matrix_free(*m);
    *m = NULL;
    return -1;
  }
  return 0;
}

static void write_table(const report_text *x, farm_format format, const char *title,
                        const char *footer, FILE *out) {
  switch (format) {
  case FARM_FORMAT_TEXT:
    write_text(x, title, out);
    if (footer && *footer) fprintf(out, "%s\n", footer);
    break;
  case FARM_FORMAT_MD:
    write_md(x, out);
    break;
  case FARM_FORMAT_CSV:
    write_csv(x, out);
    break;
  case FARM_FORMAT_HTML: /* refused before (pf_no_dims) */
    break;
  }
}

/* Thesis Table 5.1 ("Algorithm performance on all problems", Sigurdson 2018): rows
 * pi*, every label, the worst selector; columns completion rate (%), distance and completion
 * time, each "mean ± standard error". The thesis's errors are over ten training/test splits;
 * here there is no split, and the error is that of the mean over the instances. "Best on":
 * the instances on which a label is pi*'s choice (the thesis counts them, seed line 583:
 * "BMAA*, FAR, and WHCA* was the best choice for an average of 283.5 (33.8%), ..."). */
static int pf_table51(const farm_pf_matrix *m, const farm_report_opts *o, FILE *out,
                      mapf_diag *err) {
  int csv = o->format == FARM_FORMAT_CSV;
  int32_t L = m->nlabels;
  int32_t cols = 1 + (csv ? 2 * PF_COLS + 2 : PF_COLS + 1), rows = L + 3;
  int32_t *choice = malloc((size_t)m->ninstances * sizeof *choice);
  int64_t *best_on = calloc((size_t)L, sizeof *best_on);
  farm_pf_stat pi, worst;
  memset(&pi, 0, sizeof pi);
  memset(&worst, 0, sizeof worst);
  report_text x;
  memset(&x, 0, sizeof x);
  int bad = !choice || !best_on || report_text_alloc(&x, rows, cols) < 0;
  x.full = csv;
  if (!bad) {
    farm_pf_select(m, NULL, choice, &pi, NULL);
    for (int64_t r = 0; r < m->ninstances; r++) {
      best_on[choice[r]]++;
      farm_pf_stat_add(&worst, &m->worst[r]);
    }
    x.rule[1] = x.rule[2] = x.rule[rows - 1] = 1;
    x.cell[0] = "Selector";
    bad |= put_stat_headers(&x, 1, csv, 1, FARM_PF_BY_DISTANCE);
    x.cell[cols - (csv ? 2 : 1)] = "Best on";
    if (csv) x.cell[cols - 1] = "Best on (%)";
    x.cell[cols] = "pi*";
    bad |= put_stat(&x, 1, 1, &pi, csv, 1);
    for (int32_t l = 0; l < L; l++) {
      x.cell[(size_t)(l + 2) * (size_t)cols] = m->labels[l];
      bad |= put_stat(&x, l + 2, 1, &m->label_stat[l], csv, 1);
      bad |= put_count(&x, l + 2, cols - (csv ? 2 : 1), best_on[l], m->ninstances, csv);
    }
    x.cell[(size_t)(rows - 1) * (size_t)cols] = "Worst";
    bad |= put_stat(&x, rows - 1, 1, &worst, csv, 1);
  }
  if (!bad) {
    report_text_widths(&x);
    char title[1600], tail[1300], footer[600];
    pf_title_tail(o, m, tail, sizeof tail);
    snprintf(title, sizeof title,
             "Algorithm performance on all problems (thesis Table 5.1): mean \u00b1 standard "
             "error over %lld instance%s that every label ran on%s",
             (long long)m->ninstances, m->ninstances == 1 ? "" : "s", tail);
    int32_t single = farm_pf_best_single(m);
    snprintf(footer, sizeof footer,
             "Best single algorithm: %.500s. Best on: the instances on which a label is pi*'s "
             "choice.",
             single >= 0 ? m->labels[single] : "-");
    write_table(&x, o->format, title, footer, out);
  } else {
    farm_err(err, "out of memory");
  }
  report_text_free(&x);
  free(choice);
  free(best_on);
  return bad ? -1 : 0;
}

/* Thesis Table 5.2 ("Completion rate(%) by problem type", Sigurdson 2018): a row per
 * problem type (generator) and Overall, a column per label, beside them pi*, the worst
 * selector and the instances, then per label the percentage of the type's instances on which
 * it is pi*'s choice (the thesis discusses which algorithm is chosen where, seed lines 583
 * and 598). */
static int pf_table52(const farm_pf_matrix *m, const farm_report_opts *o, FILE *out,
                      mapf_diag *err) {
  int32_t L = m->nlabels, G = m->ngenerators;
  int32_t *choice = malloc((size_t)m->ninstances * sizeof *choice);
  farm_pf_stat *pi = calloc((size_t)G + 1, sizeof *pi);
  farm_pf_stat *worst = calloc((size_t)G + 1, sizeof *worst);
  int64_t *count = calloc((size_t)G + 1, sizeof *count);
  int64_t *best = calloc(((size_t)G + 1) * (size_t)L, sizeof *best);
  int32_t *type_row = calloc((size_t)G + 1, sizeof *type_row);
  report_text x;
  memset(&x, 0, sizeof x);
  int bad = !choice || !pi || !worst || !count || !best || !type_row;
  int32_t rows = 2, cols = 1 + L + 3 + L;
  if (!bad) {
    farm_pf_select(m, NULL, choice, &pi[G], pi);
    for (int64_t r = 0; r < m->ninstances; r++) {
      int32_t g = m->generator[r];
      count[g]++;
      count[G]++;
      best[(size_t)g * (size_t)L + (size_t)choice[r]]++;
      best[(size_t)G * (size_t)L + (size_t)choice[r]]++;
      farm_pf_stat_add(&worst[g], &m->worst[r]);
      farm_pf_stat_add(&worst[G], &m->worst[r]);
    }
    /* Problem types whose every instance was left out get no row. */
    for (int32_t g = 0; g < G; g++) type_row[g] = count[g] > 0 ? rows++ - 1 : -1;
    type_row[G] = rows - 1;
    bad = report_text_alloc(&x, rows, cols) < 0;
    x.full = o->format == FARM_FORMAT_CSV;
  }
  if (!bad) {
    x.rule[1] = x.rule[rows - 1] = 1;
    x.cell[0] = "Problem type";
    for (int32_t l = 0; l < L; l++) {
      x.cell[1 + l] = m->labels[l];
      bad |= text_printf(&x, 0, L + 4 + l, "best: %s", m->labels[l]);
    }
    x.cell[L + 1] = "pi*";
    x.cell[L + 2] = "Worst";
    x.cell[L + 3] = "Instances";
    for (int32_t g = 0; g <= G; g++) {
      int32_t r = type_row[g];
      if (r < 0) continue;
      x.cell[(size_t)r * (size_t)cols] = g < G ? m->generators[g] : "Overall";
      for (int32_t l = 0; l < L; l++) {
        const farm_pf_stat *s = g < G ? &m->type_stat[(size_t)g * (size_t)L + (size_t)l]
                                      : &m->label_stat[l];
        bad |= put_scaled(&x, r, 1 + l, farm_pf_stat_mean(s, FARM_PF_RATE), 100.0, 1);
        bad |= put_scaled(&x, r, L + 4 + l,
                          (double)best[(size_t)g * (size_t)L + (size_t)l] / (double)count[g],
                          100.0, 1);
      }
      bad |= put_scaled(&x, r, L + 1, farm_pf_stat_mean(&pi[g], FARM_PF_RATE), 100.0, 1);
      bad |= put_scaled(&x, r, L + 2, farm_pf_stat_mean(&worst[g], FARM_PF_RATE), 100.0, 1);
      bad |= text_printf(&x, r, L + 3, "%lld", (long long)count[g]);
    }
  }
  if (!bad) {
    report_text_widths(&x);
    char title[1600], tail[1300];
    pf_title_tail(o, m, tail, sizeof tail);
    snprintf(title, sizeof title,
             "Completion rate (%%) by problem type (thesis Table 5.2) over %lld instance%s that "
             "every label ran on%s; best: the percentage of a type's instances on which a label "
             "is pi*'s choice",
             (long long)m->ninstances, m->ninstances == 1 ? "" : "s", tail);
    write_table(&x, o->format, title, NULL, out);
  } else {
    farm_err(err, "out of memory");
  }
  report_text_free(&x);
  free(choice);
  free(pi);
  free(worst);
  free(count);
  free(best);
  free(type_row);
  return bad ? -1 : 0;
}

/* Checks what every report checks: a known format and a database with rows. Sets *min_agents
 * to the smallest agent count. Returns 0, or -1 with err. */
static int check_report(farm_store *st, const farm_report_opts *o, int64_t *min_agents,
                        mapf_diag *err) {
  if (o->format != FARM_FORMAT_TEXT && o->format != FARM_FORMAT_MD &&
      o->format != FARM_FORMAT_CSV && o->format != FARM_FORMAT_HTML) {
    farm_err(err, "unknown report format %d", (int)o->format);
    return -1;
  }
  sqlite3 *db = farm_store_db(st);
  if (!db) {
    farm_err(err, "no database");
    return -1;
  }
  /* Tell an empty database from a filter that leaves nothing. */
  int64_t rows = 0;
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v2(db, "SELECT count(*), min(agents) FROM results", -1, &s, NULL);
  if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    rows = sqlite3_column_int64(s, 0);
    *min_agents = sqlite3_column_int64(s, 1);
    rc = SQLITE_OK;
  }
  if (rc != SQLITE_OK) {
    farm_err(err, "cannot read results: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return -1;
  }
  sqlite3_finalize(s);
  if (rows == 0) {
    farm_err(err, "no results in DB");
    return -1;
  }
  return 0;
}

/* The portfolio tables have fixed rows and columns. */
static int pf_no_dims(const farm_report_opts *o, const char *what, mapf_diag *err) {
  if (o->format == FARM_FORMAT_HTML) {
    farm_err(err, "%s has no HTML form; --format html is for the metric reports (mapfarm "
                  "reports lists them)", what);
    return -1;
  }
  if (!o->rows && !o->cols) return 0;
  farm_err(err, "%s has fixed rows and columns; --%s does not apply", what,
           o->rows ? "rows" : "cols");
  return -1;
}

static int pf_report(farm_store *st, int table, const farm_report_opts *o, FILE *out,
                     mapf_diag *err) {
  int64_t min_agents = 0;
  if (pf_no_dims(o, table == 51 ? "the portfolio report" : "the problem-types report", err) < 0 ||
      check_report(st, o, &min_agents, err) < 0)
    return -1;
  farm_pf_matrix *m = NULL;
  if (pf_load(farm_store_db(st), o, FARM_PF_BY_DISTANCE, &m, err) < 0) return -1;
  int r = table == 51 ? pf_table51(m, o, out, err) : pf_table52(m, o, out, err);
  farm_pf_matrix_free(m);
  if (r == 0 && (fflush(out) != 0 || ferror(out))) {
    farm_err(err, "cannot write the report");
    r = -1;
  }
  return r;
}

int farm_report_greedy(farm_store *st, int32_t size, const farm_report_opts *opts, FILE *out,
                       mapf_diag *err) {
  return farm_report_greedy_by(st, size, opts, FARM_PF_BY_DISTANCE, out, err);
}

int farm_report_greedy_by(farm_store *st, int32_t size, const farm_report_opts *opts, int by,
                          FILE *out, mapf_diag *err) {
  mapf_diag scratch; /* the message is read back below: never NULL */
  if (!err) err = &scratch;
  farm_report_opts o = {.format = FARM_FORMAT_TEXT};
  if (opts) o = *opts;
  if (size < 1) {
    farm_err(err, "--size: expected an integer >= 1, found %d", (int)size);
    return -1;
  }
  int64_t min_agents = 0;
  if (pf_no_dims(&o, "mapfarm portfolio", err) < 0 ||
      check_report(st, &o, &min_agents, err) < 0)
    return -1;
  farm_pf_matrix *m = NULL;
  if (pf_load(farm_store_db(st), &o, by, &m, err) < 0) return -1;
  int csv = o.format == FARM_FORMAT_CSV;
  /* More steps than labels cannot be taken; the size the user asked for stays in the title. */
  int32_t most = size < m->nlabels ? size : m->nlabels;
  farm_pf_step *steps = calloc((size_t)most, sizeof *steps);
  int32_t n = steps ? farm_pf_greedy(m, most, steps) : -1;
  report_text x;
  memset(&x, 0, sizeof x);
  int32_t cols = 2 + PF_COLS + (csv ? 2 : 1);
  int bad = n < 0 || report_text_alloc(&x, n + 1, cols) < 0;
  x.full = csv;
  if (!bad) {
    x.rule[1] = 1;
    x.left[1] = 1;
    x.cell[0] = "Step";
    x.cell[1] = "Added";
    bad |= put_stat_headers(&x, 2, csv, 0, by);
    x.cell[2 + PF_COLS] = "Chosen on";
    if (csv) x.cell[3 + PF_COLS] = "Chosen on (%)";
    for (int32_t i = 0; i < n; i++) {
      bad |= text_printf(&x, i + 1, 0, "%d", (int)(i + 1));
      x.cell[(size_t)(i + 1) * (size_t)cols + 1] = m->labels[steps[i].label];
      bad |= put_stat_by(&x, i + 1, 2, &steps[i].score, csv, 0, by);
      bad |= put_count(&x, i + 1, 2 + PF_COLS, steps[i].chosen, m->ninstances, csv);
    }
  }
  if (!bad) {
    report_text_widths(&x);
    char title[1600], tail[1300], footer[200] = "";
    pf_title_tail(&o, m, tail, sizeof tail);
    snprintf(title, sizeof title,
             "Greedy portfolio formation (thesis Algorithm 2), at most %d label%s: the perfect "
             "selector pi* over the portfolio after each step, means over %lld instance%s that "
             "every label ran on%s; chosen on: the instances on which pi* picks the label added",
             (int)size, size == 1 ? "" : "s", (long long)m->ninstances,
             m->ninstances == 1 ? "" : "s", tail);
    if (n < size && n == m->nlabels)
      snprintf(footer, sizeof footer, "Stopped after %d step%s: every label is in the portfolio.",
               (int)n, n == 1 ? "" : "s");
    else if (n < size)
      snprintf(footer, sizeof footer,
               "Stopped after %d step%s: no other label improves the portfolio.", (int)n,
               n == 1 ? "" : "s");
    write_table(&x, o.format, title, footer, out);
    if (fflush(out) != 0 || ferror(out)) {
      farm_err(err, "cannot write the report");
      bad = 1;
    }
  } else {
    farm_err(err, "out of memory");
  }
  report_text_free(&x);
  free(steps);
  farm_pf_matrix_free(m);
  return bad ? -1 : 0;
}

/* ---- HTML: the table with 95% intervals, SVG plots, provenance ---------------------------- */

double farm_report_t975(int64_t df) {
  /* Exact to 3 decimals up to 30 degrees of freedom; beyond, the Cornish-Fisher expansion
   * about the normal quantile (error under 1e-4 there). */
  static const double table[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                    2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                    2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                    2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return NAN;
  if (df <= 30) return table[df - 1];
  double z = 1.959963984540054, d = (double)df, z3 = z * z * z, z5 = z3 * z * z;
  return z + (z3 + z) / (4 * d) + (5 * z5 + 16 * z3 + 3 * z) / (96 * d * d) +
         (3 * z5 * z * z + 19 * z5 + 17 * z3 - 15 * z) / (384 * d * d * d);
}

int farm_report_ci95(int64_t n, double sum, double sumsq, int64_t binary, double *lo,
                     double *hi) {
  if (n < 1) return -1;
  double nn = (double)n, mean = sum / nn;
  if (binary == n) {
    /* Wilson: stays inside [0, 1] and keeps a width at 0 and 1 (Wald's collapses there). */
    double z = 1.959963984540054, z2 = z * z, p = mean;
    double centre = (p + z2 / (2 * nn)) / (1 + z2 / nn);
    double half = z / (1 + z2 / nn) * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
    *lo = centre - half;
    *hi = centre + half;
    return 0;
  }
  if (n < 2) return -1;
  double var = (sumsq - nn * mean * mean) / (nn - 1);
  double half = farm_report_t975(n - 1) * sqrt(var > 0 ? var : 0) / sqrt(nn);
  *lo = mean - half;
  *hi = mean + half;
  return 0;
}

static void html_esc(const char *s, FILE *out) {
  for (; *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", out); break;
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '"': fputs("&quot;", out); break;
    default: fputc(*s, out);
    }
  }
}

/* Whether every name of a dimension is a number ("-": a job without it, left out). */
static int dim_numeric(const report_name *l, int32_t n) {
  int32_t numbers = 0;
  for (int32_t i = 0; i < n; i++) {
    if (strcmp(l[i].name, "-") == 0) continue;
    if (!l[i].numeric) return 0;
    numbers++;
  }
  return numbers >= 2;
}

static const char *const plot_colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/* A cell's mean and interval in the printed unit; 0 when the cell has no value. */
static int cell_stats(const report_acc *a, double scale, double *mean, double *lo, double *hi,
                      int *has_ci) {
  if (a->jobs == 0 || a->n == 0) return 0;
  *mean = scale * a->sum / (double)a->n;
  *has_ci = farm_report_ci95(a->n, a->sum, a->sumsq, a->binary, lo, hi) == 0;
  if (*has_ci) {
    *lo *= scale;
    *hi *= scale;
    /* A percentage of a share: a t interval is cut at the bounds the share cannot pass. */
    if (scale == 100.0 && *lo < 0) *lo = 0;
    if (scale == 100.0 && *hi > 100) *hi = 100;
  }
  return 1;
}

/* A line chart: x the numeric names of one dimension (rows when x_rows), a line per name of
 * the other with its 95% band, as Figure 2 of the BMAA* paper. Percentages get an axis from
 * 0 to 100 with room above, so that lines at 100% are seen. */
static void svg_lines(const report_table *t, const report_def *def, int x_rows, const char *title,
                      const char *xlabel, FILE *out) {
  const report_name *xs = x_rows ? t->maps : t->labels, *ss = x_rows ? t->labels : t->maps;
  int32_t nx = x_rows ? t->nmaps : t->nlabels, ns = x_rows ? t->nlabels : t->nmaps;
  int w = t->nlabels + 1;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (int32_t i = 0; i < nx; i++) {
    if (!xs[i].numeric) continue;
    if (xs[i].value < xmin) xmin = xs[i].value;
    if (xs[i].value > xmax) xmax = xs[i].value;
    for (int32_t k = 0; k < ns; k++) {
      const report_acc *a = x_rows ? &t->acc[i * w + k] : &t->acc[k * w + i];
      double m, lo, hi;
      int ci;
      if (!cell_stats(a, def->scale, &m, &lo, &hi, &ci)) continue;
      if (!ci) lo = hi = m;
      if (lo < ymin) ymin = lo;
      if (hi > ymax) ymax = hi;
    }
  }
  if (!(xmin < xmax) || !(ymin <= ymax)) return;
  int pct = def->scale == 100.0;
  if (pct) {
    ymin = ymin < 0 ? ymin : 0;
    ymax = ymax > 100 ? ymax : 100;
  } else if (ymin == ymax) {
    ymin -= 1;
    ymax += 1;
  }
  double pad = 0.05 * (ymax - ymin);
  ymax += pad; /* the 100% line clear of the frame */
  if (!pct) ymin -= pad;
  const double W = 820, H = 380, L = 60, R = 170, T = 36, B = 48;
  double pw = W - L - R, ph = H - T - B;
#define PX(v) (L + ((v) - xmin) / (xmax - xmin) * pw)
#define PY(v) (T + (ymax - (v)) / (ymax - ymin) * ph)
  fprintf(out, "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot lines\" "
               "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n", W, H, W, H);
  fputs("<title>", out);
  html_esc(title, out);
  fputs("</title>\n", out);
  fputs("<text x=\"8\" y=\"20\" class=\"ptitle\">", out);
  html_esc(title, out);
  fputs("</text>\n", out);
  /* Axes and grid: five y ticks, the x values themselves as x ticks. */
  for (int k = 0; k <= 4; k++) {
    double v = ymin + (ymax - ymin) * k / 4;
    if (pct) v = 25.0 * k;
    if (v > ymax) break;
    fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
                 "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">%g</text>\n",
            L, L + pw, PY(v), PY(v), L - 6, PY(v) + 4, pct ? v : rounded(v, 3));
  }
  for (int32_t i = 0; i < nx; i++) {
    if (!xs[i].numeric) continue;
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\">",
            PX(xs[i].value), T + ph + 16);
    html_esc(xs[i].name, out);
    fputs("</text>\n", out);
  }
  fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>\n",
          L, T, pw, ph);
  fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\">", L + pw / 2,
          H - 8);
  html_esc(xlabel, out);
  fprintf(out, "</text><text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\" "
               "class=\"axis\">", T + ph / 2);
  /* A long title does not fit along the axis: the report's name then. */
  html_esc(strlen(def->title) > 40 ? def->name : def->title, out);
  fputs("</text>\n", out);
  for (int32_t k = 0; k < ns; k++) {
    const char *color = plot_colors[k % 10];
    /* The band: the upper bounds left to right, the lower ones back. */
    char *band = NULL, *line = NULL;
    size_t bl = 0, ll = 0;
    FILE *fb = open_memstream(&band, &bl), *fl = open_memstream(&line, &ll);
    if (!fb || !fl) {
      if (fb) fclose(fb);
      if (fl) fclose(fl);
      free(band);
      free(line);
      continue;
    }
    double *lows = calloc((size_t)nx, sizeof *lows), *lx = calloc((size_t)nx, sizeof *lx);
    int32_t nb = 0, nl = 0;
    for (int32_t i = 0; lows && lx && i < nx; i++) {
      if (!xs[i].numeric) continue;
      const report_acc *a = x_rows ? &t->acc[i * w + k] : &t->acc[k * w + i];
      double m, lo, hi;
      int ci;
      if (!cell_stats(a, def->scale, &m, &lo, &hi, &ci)) continue;
      fprintf(fl, "%s%.1f,%.1f", nl++ ? " " : "", PX(xs[i].value), PY(m));
      fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" data-series=\"",
              PX(xs[i].value), PY(m), color);
      html_esc(ss[k].name, out);
      fprintf(out, "\" data-x=\"");
      html_esc(xs[i].name, out);
      fprintf(out, "\" data-mean=\"%.17g\"/>\n", m);
      if (ci) {
        fprintf(fb, "%s%.1f,%.1f", nb ? " " : "", PX(xs[i].value), PY(hi));
        lows[nb] = lo;
        lx[nb++] = xs[i].value;
      }
    }
    for (int32_t j = nb - 1; j >= 0; j--) fprintf(fb, " %.1f,%.1f", PX(lx[j]), PY(lows[j]));
    fclose(fb);
    fclose(fl);
    if (nb >= 2)
      fprintf(out, "<polygon points=\"%s\" fill=\"%s\" fill-opacity=\"0.18\" stroke=\"none\" "
                   "class=\"band\"/>\n", band, color);
    fprintf(out, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                 "class=\"series\"/>\n", line, color);
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"4\" fill=\"%s\"/>"
                 "<text x=\"%.1f\" y=\"%.1f\" class=\"legend\">", L + pw + 12, T + 8 + 18 * k,
            color, L + pw + 32, T + 12 + 18 * k);
    html_esc(ss[k].name, out);
    fputs("</text>\n", out);
    free(lows);
    free(lx);
    free(band);
    free(line);
  }
#undef PX
#undef PY
  fputs("</svg><figcaption>Lines: means; bands: 95% confidence intervals.</figcaption>"
        "</figure>\n", out);
}

/* A heat map of the body cells (a sweep over two parameters, like docs/img/sweep-*.png):
 * white to dark blue over the cells' range, the value written in each. */
static void svg_heat(const report_table *t, const report_def *def, const char *title,
                     const char *rh, const char *ch, FILE *out) {
  int w = t->nlabels + 1;
  double lo = INFINITY, hi = -INFINITY;
  for (int32_t r = 0; r < t->nmaps; r++)
    for (int32_t c = 0; c < t->nlabels; c++) {
      const report_acc *a = &t->acc[r * w + c];
      if (a->n == 0) continue;
      double v = def->scale * a->sum / (double)a->n;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  if (!(lo <= hi)) return;
  const double cw = 64, chh = 32, L = 90, T = 56;
  double W = L + cw * t->nlabels + 20, H = T + chh * t->nmaps + 40;
  if (W < 640) W = 640; /* room for the title */
  fprintf(out, "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot heat\" "
               "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n<title>", W, H, W, H);
  html_esc(title, out);
  fputs("</title><text x=\"8\" y=\"20\" class=\"ptitle\">", out);
  html_esc(title, out);
  fprintf(out, "</text><text x=\"%.1f\" y=\"44\" text-anchor=\"middle\" class=\"axis\">",
          L + cw * t->nlabels / 2);
  html_esc(ch, out);
  fprintf(out, "</text><text x=\"8\" y=\"%.1f\" class=\"axis\">", T - 6);
  html_esc(rh, out);
  fputs("</text>\n", out);
  for (int32_t c = 0; c < t->nlabels; c++) {
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\">",
            L + cw * (c + 0.5), T + chh * t->nmaps + 16);
    html_esc(t->labels[c].name, out);
    fputs("</text>\n", out);
  }
  for (int32_t r = 0; r < t->nmaps; r++) {
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">", L - 6,
            T + chh * (r + 0.5) + 4);
    html_esc(t->maps[r].name, out);
    fputs("</text>\n", out);
    for (int32_t c = 0; c < t->nlabels; c++) {
      const report_acc *a = &t->acc[r * w + c];
      if (a->n == 0) continue;
      double v = def->scale * a->sum / (double)a->n;
      double f = hi > lo ? (v - lo) / (hi - lo) : 1.0;
      int R = (int)(247 - f * (247 - 8)), G = (int)(251 - f * (251 - 48)),
          Bc = (int)(255 - f * (255 - 107));
      fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                   "fill=\"rgb(%d,%d,%d)\" data-mean=\"%.17g\"/><text x=\"%.1f\" y=\"%.1f\" "
                   "text-anchor=\"middle\" class=\"cell\" fill=\"%s\">%.*f</text>\n",
              L + cw * c, T + chh * r, cw, chh, R, G, Bc, v, L + cw * (c + 0.5),
              T + chh * (r + 0.5) + 4, f > 0.55 ? "#fff" : "#000", def->decimals,
              rounded(v, def->decimals));
    }
  }
  fputs("</svg></figure>\n", out);
}

/* The runs behind the jobs that pass the filter: plan, its hash, code version, host, dates. */
static void html_provenance(sqlite3 *db, const farm_report_opts *o, FILE *out) {
  const char *where = o->where && *o->where ? o->where : "1";
  size_t len = strlen(where) + 1024;
  char *sql = malloc(len);
  if (!sql) return;
  snprintf(sql, len,
           "SELECT u.run_id, u.plan_name, u.plan_hash, u.version, u.host, u.started_at, "
           "u.ended_at, u.status, count(r.id) FROM runs AS u JOIN results AS r ON r.run_id = "
           "u.run_id WHERE (?1 <= 0 OR r.agents <= ?1) AND (%s\n) GROUP BY u.run_id ORDER BY "
           "u.run_id",
           where);
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
  free(sql);
  fputs("<h2>Runs behind this report</h2>\n<table class=\"runs\"><thead><tr><th>Run</th>"
        "<th>Plan</th><th>Plan hash</th><th>Code version</th><th>Host</th><th>Started</th>"
        "<th>Ended</th><th>Status</th><th>Jobs here</th></tr></thead><tbody>\n", out);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int(s, 1, o->max_agents);
    while (sqlite3_step(s) == SQLITE_ROW) {
      fputs("<tr>", out);
      for (int k = 0; k < 9; k++) {
        const char *v = (const char *)sqlite3_column_text(s, k);
        fputs(k == 0 || k == 8 ? "<td class=\"num\">" : "<td>", out);
        html_esc(v ? v : "-", out);
        fputs("</td>", out);
      }
      fputs("</tr>\n", out);
    }
  }
  sqlite3_finalize(s);
  fputs("</tbody></table>\n", out);
}

/* Figure 2 of the BMAA* paper for each map: the metric against the agent count, a line per
 * label; for a table of maps and labels whose jobs have several agent counts. */
static int html_agent_plots(sqlite3 *db, const report_def *def, const farm_report_opts *o,
                            const farm_labels *lb, const report_table *t, FILE *out,
                            mapf_diag *err) {
  for (int32_t m = 0; m < t->nmaps; m++) {
    const char *map = t->maps[m].name;
    const char *where = o->where && *o->where ? o->where : "1";
    size_t len = strlen(where) + 2 * strlen(map) + 64;
    char *w = malloc(len), *p;
    if (!w) {
      farm_err(err, "out of memory");
      return -1;
    }
    p = w + snprintf(w, len, "(%s\n) AND map = '", where);
    for (const char *q = map; *q; q++) {
      if (*q == '\'') *p++ = '\'';
      *p++ = *q;
    }
    strcpy(p, "'");
    farm_report_opts po = *o;
    po.rows = "agents";
    po.cols = "label";
    po.where = w;
    report_table pt;
    memset(&pt, 0, sizeof pt);
    int r = report_load(db, def, &po, lb, &pt, err);
    free(w);
    if (r < 0) {
      report_table_free(&pt);
      return -1;
    }
    if (r == 0 && dim_numeric(pt.maps, pt.nmaps)) {
      char title[600];
      snprintf(title, sizeof title, "%s: %s against agents (%s to %s agents)", map, def->title,
               pt.maps[0].name, pt.maps[pt.nmaps - 1].name);
      svg_lines(&pt, def, 1, title, "Agents", out);
    }
    report_table_free(&pt);
  }
  return 0;
}

/* The page: title and what it averages, the table (each cell: mean, 95% interval, jobs),
 * the plots, the runs. */
static int write_html(sqlite3 *db, const report_table *t, const report_def *def,
                      const farm_report_opts *o, const farm_labels *lb, const char *rh,
                      const char *subtitle, const char *notes, FILE *out, mapf_diag *err) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", out);
  html_esc(def->title, out);
  fputs("</title>\n<style>\n"
        "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}\n"
        "table{border-collapse:collapse;margin:8px 0 16px}\n"
        "th,td{border:1px solid #ccc;padding:3px 8px}th{background:#f3f3f3}\n"
        "td.num,td.v{text-align:right;white-space:nowrap}\n"
        "tr.overall td,tr.overall th,td.overall{background:#fafafa;font-weight:600}\n"
        ".ci{color:#666;font-size:12px}.n{color:#888;font-size:12px}\n"
        "svg .grid{stroke:#e4e4e4}svg .frame{fill:none;stroke:#888}\n"
        "svg .tick,svg .legend{font-size:11px}svg .axis{font-size:12px}\n"
        "svg .ptitle{font-size:12px;font-weight:600}svg .cell{font-size:11px}\n"
        "figure{margin:8px 0 20px}figcaption{color:#666;font-size:12px}\n"
        "</style></head><body>\n<h1>", out);
  html_esc(def->title, out);
  fputs("</h1>\n<p class=\"subtitle\">", out);
  html_esc(subtitle, out);
  fputs("</p>\n<p class=\"method\">Each cell: the mean, its 95% confidence interval in "
        "brackets and n, the jobs it averages. A mean of values that are all 0 or 1 (a share "
        "of instances) has Wilson's score interval; any other mean, Student's t interval over "
        "its jobs (none for n = 1).</p>\n",
        out);
  fputs("<table class=\"report\"><thead><tr><th>", out);
  html_esc(rh, out);
  fputs("</th>", out);
  for (int32_t c = 0; c <= t->nlabels; c++) {
    fputs("<th>", out);
    html_esc(c < t->nlabels ? t->labels[c].name : "Overall", out);
    fputs("</th>", out);
  }
  fputs("</tr></thead><tbody>\n", out);
  for (int32_t r = 0; r <= t->nmaps; r++) {
    fputs(r < t->nmaps ? "<tr><th>" : "<tr class=\"overall\"><th>", out);
    html_esc(r < t->nmaps ? t->maps[r].name : "Overall", out);
    fputs("</th>", out);
    for (int32_t c = 0; c <= t->nlabels; c++) {
      const report_acc *a = &t->acc[r * (t->nlabels + 1) + c];
      double m, lo, hi;
      int ci;
      const char *cls = c < t->nlabels ? "v" : "v overall";
      if (!cell_stats(a, def->scale, &m, &lo, &hi, &ci)) {
        fprintf(out, "<td class=\"%s\">-</td>", cls);
        continue;
      }
      fprintf(out, "<td class=\"%s\" data-mean=\"%.17g\" data-n=\"%lld\"", cls, m,
              (long long)a->n);
      if (ci) fprintf(out, " data-lo=\"%.17g\" data-hi=\"%.17g\"", lo, hi);
      fprintf(out, ">%.*f", def->decimals, rounded(m, def->decimals));
      if (ci)
        fprintf(out, " <span class=\"ci\">[%.*f, %.*f]</span>", def->decimals,
                rounded(lo, def->decimals), def->decimals, rounded(hi, def->decimals));
      fprintf(out, " <span class=\"n\">n=%lld</span></td>", (long long)a->n);
    }
    fputs("</tr>\n", out);
  }
  fputs("</tbody></table>\n", out);
  if (*notes) {
    fputs("<pre class=\"notes\">", out);
    html_esc(notes, out);
    fputs("</pre>\n", out);
  }
  /* Plots: a numeric dimension gives lines over it, two give a heat map (a sweep); maps by
   * labels give each map's metric against agents. */
  const char *dims[2] = {o->rows ? o->rows : "map", o->cols ? o->cols : "label"};
  int rnum = dim_numeric(t->maps, t->nmaps), cnum = dim_numeric(t->labels, t->nlabels);
  char title[2400];
  fputs("<h2>Plots</h2>\n", out);
  if (rnum && cnum && strncmp(dims[0], "param:", 6) == 0 && strncmp(dims[1], "param:", 6) == 0) {
    snprintf(title, sizeof title, "%s: %s by %s and %s", subtitle, def->title, dims[0] + 6,
             dims[1] + 6);
    svg_heat(t, def, title, dims[0] + 6, dims[1] + 6, out);
  } else if (rnum || cnum) {
    const char *xd = rnum ? dims[0] : dims[1];
    const char *xname = strncmp(xd, "param:", 6) == 0 ? xd + 6 : xd;
    snprintf(title, sizeof title, "%s against %s (%s)", def->title, xname, subtitle);
    svg_lines(t, def, rnum, title, xname, out);
  } else if (strcmp(dims[0], "map") == 0 && strcmp(dims[1], "label") == 0) {
    if (html_agent_plots(db, def, o, lb, t, out, err) < 0) return -1;
  }
  html_provenance(db, o, out);
  fputs("<p class=\"made\">Made by <code>mapfarm report --format html</code>; the page needs "
        "no network.</p>\n</body></html>\n", out);
  return 0;
}

/* Whether results lacks the column (a file of an older schema, read as it is). */
static int missing_column(sqlite3 *db, const char *column) {
  sqlite3_stmt *s = NULL;
  int missing = 0;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM pragma_table_info('results') WHERE name = ?1",
                         -1, &s, NULL) == SQLITE_OK) {
    sqlite3_bind_text(s, 1, column, -1, SQLITE_STATIC);
    missing = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) == 0;
  }
  sqlite3_finalize(s);
  return missing;
}

static int64_t user_version(sqlite3 *db) {
  sqlite3_stmt *s = NULL;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW)
    v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return v;
}

/* Formats the unknown-name message: the valid names, and the nearest one if it is close. */
static void unknown_report(const char *name, mapf_diag *err) {
  char list[512] = "";
  for (int32_t i = 0; farm_report_names[i]; i++) {
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", farm_report_names[i]);
  }
  if (!name) {
    farm_err(err, "no report name given; reports: %s", list);
    return;
  }
  const char *near = farm_suggest(name, farm_report_names, -1);
  if (near)
    farm_err(err, "unknown report \"%s\"; did you mean \"%s\"? Reports: %s", name, near,
             list);
  else
    farm_err(err, "unknown report \"%s\"; reports: %s", name, list);
}

int farm_report(farm_store *st, const char *name, const farm_report_opts *opts, FILE *out,
                mapf_diag *err) {
  mapf_diag scratch; /* the message is read back below: never NULL */
  if (!err) err = &scratch;
  farm_report_opts o = {.format = FARM_FORMAT_TEXT};
  if (opts) o = *opts;
  /* Thesis Tables 5.1 and 5.2: their own machinery above. */
  if (name && strcmp(name, "portfolio") == 0) return pf_report(st, 51, &o, out, err);
  if (name && strcmp(name, "problem-types") == 0) return pf_report(st, 52, &o, out, err);
  const farm_column *col = name ? farm_column_report(name) : NULL;
  report_def d = {0}, *def = NULL;
  if (col) {
    d = (report_def){col->report, col->title, col->expr ? col->expr : col->name, col->scale,
                     col->decimals};
    def = &d;
  }
  if (!def) {
    unknown_report(name, err);
    return -1;
  }
  if ((o.rows && farm_report_check_dim(o.rows, err) < 0) ||
      (o.cols && farm_report_check_dim(o.cols, err) < 0))
    return -1;
  int64_t min_agents = 0;
  if (check_report(st, &o, &min_agents, err) < 0) return -1;
  sqlite3 *db = farm_store_db(st);
  if (missing_column(db, col->name)) {
    farm_err(err,
             "report %s needs results.%s, which this file lacks (schema version %d, written "
             "by an older mapfarm): a `mapfarm run` into it adds the column, NULL in the rows "
             "already there",
             name, col->name, (int)user_version(db));
    return -1;
  }

  /* The labels' configurations and the table in one read transaction: a run writing the file
   * meanwhile cannot add a configuration between the two. */
  int own_txn =
      sqlite3_get_autocommit(db) && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
  const char *ignore[3] = {NULL, NULL, NULL};
  int nign = 0, label_dim = 0;
  const char *dimv[2] = {o.rows ? o.rows : "map", o.cols ? o.cols : "label"};
  for (int k = 0; k < 2; k++) {
    if (strncmp(dimv[k], "param:", 6) == 0) ignore[nign++] = dimv[k] + 6;
    label_dim |= strcmp(dimv[k], "label") == 0;
  }
  farm_labels *lb = NULL;
  report_table t;
  memset(&t, 0, sizeof t);
  int r = farm_labels_load(db, o.where, o.max_agents, ignore, &lb, err);
  if (r == 0 && !label_dim) r = farm_labels_refuse_mixed(lb, err);
  if (r == 0) r = report_load(db, def, &o, lb, &t, err);
  if (own_txn) sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  if (r == 1 && o.where && *o.where) {
    farm_err(err, "no results in DB%s match --where \"%s\"",
             o.max_agents > 0 ? " with at most that many agents" : "", o.where);
    r = -1;
  } else if (r == 1) {
    farm_err(err,
             "no results in DB with at most %d agents (the smallest instance has %lld)",
             (int)o.max_agents, (long long)min_agents);
    r = -1;
  }
  if (r < 0) {
    report_table_free(&t);
    farm_labels_free(lb);
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
      farm_err(err, "no job in DB has the parameter \"%s\" (--%s %s)", dims[k] + 6,
               k ? "cols" : "rows", dims[k]);
      r = -1;
    }
  }
  if (r < 0) {
    report_table_free(&t);
    farm_labels_free(lb);
    return -1;
  }
  char rexpr[256];
  const char *header;
  dim_sql(o.rows ? o.rows : "map", rexpr, sizeof rexpr, &header);
  /* Text and Markdown show each cell's count where cells average unequal numbers of jobs
   * (a mean of 2 beside a mean of 200 reads alike otherwise); CSV gives them as columns on
   * request, as programs expect a fixed shape. */
  int64_t lo, hi;
  count_range(&t, &lo, &hi);
  int unequal = lo < hi;
  int counts = o.format == FARM_FORMAT_CSV ? (o.counts ? COUNTS_COLUMNS : COUNTS_NONE)
               : o.counts || unequal       ? COUNTS_INLINE
                                           : COUNTS_NONE;
  if (report_text_build(&t, def, header, counts, o.format == FARM_FORMAT_CSV, &x) < 0) {
    farm_err(err, "out of memory");
    report_text_free(&x);
    report_table_free(&t);
    farm_labels_free(lb);
    return -1;
  }

  /* Notes under a text or Markdown table (CSV is for programs: the names say it all): labels
   * shown apart by configuration, and cells that average unequal numbers of jobs. */
  char notes[2048] = "";
  size_t nl = 0;
  if (label_dim && farm_labels_mixed(lb)) {
    nl += (size_t)snprintf(notes, sizeof notes, "Labels with several configurations (shown "
                                                "apart, named by what differs):\n");
    int w = farm_labels_describe(lb, 10, notes + nl, sizeof notes - nl);
    nl += w > 0 ? (size_t)w : 0;
    if (nl < sizeof notes) nl += (size_t)snprintf(notes + nl, sizeof notes - nl, "\n");
  }
  if (label_dim && nl < sizeof notes) {
    int w = farm_labels_describe_limits(lb, 10, notes + nl, sizeof notes - nl);
    nl += w > 0 ? (size_t)w : 0;
    if (w > 0 && nl < sizeof notes) nl += (size_t)snprintf(notes + nl, sizeof notes - nl, "\n");
  }
  if (unequal && nl < sizeof notes)
    snprintf(notes + nl, sizeof notes - nl,
             "Cells average unequal numbers of jobs (%lld to %lld): each cell's count is in "
             "parentheses\n",
             (long long)lo, (long long)hi);

  char what[1300], agents[64] = "", errors[64] = "", where[1100] = "";
  if (o.max_agents > 0)
    snprintf(agents, sizeof agents, " with at most %d agents", (int)o.max_agents);
  if (o.where && *o.where) snprintf(where, sizeof where, " where %.1000s", o.where);
  if (t.errors > 0)
    snprintf(errors, sizeof errors, "; %lld error job%s left out", (long long)t.errors,
             t.errors == 1 ? "" : "s");
  snprintf(what, sizeof what, "mean over %lld job%s%s%s%s", (long long)t.jobs,
           t.jobs == 1 ? "" : "s", agents, where, errors);
  switch (o.format) {
  case FARM_FORMAT_TEXT: {
    char title[1500];
    snprintf(title, sizeof title, "%s: %s", def->title, what);
    write_text(&x, title, out);
    fputs(notes, out);
    break;
  }
  case FARM_FORMAT_HTML:
    r = write_html(db, &t, def, &o, lb, header, what, notes, out, err);
    break;
  case FARM_FORMAT_MD:
    write_md(&x, out);
    if (*notes) {
      fputc('\n', out);
      write_md_text(notes, out);
    }
    break;
  case FARM_FORMAT_CSV:
    write_csv(&x, out);
    break;
  }
  farm_labels_free(lb);
  report_text_free(&x);
  report_table_free(&t);
  if (r < 0) return -1;
  if (fflush(out) != 0 || ferror(out)) {
    farm_err(err, "cannot write the report");
    return -1;
  }
  return 0;
}
