/* report.h: named result tables (Tables I-III of Sigurdson et al. 2018: maps as rows, labels as
 * columns, an Overall row and column; other rows and columns on request, e.g. agent counts for Fig.
 * 2). */
#ifndef FARM_REPORT_H
#define FARM_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "diag.h"
#include "store.h"

/* HTML: one self-contained page (no network) with the table and its 95% confidence
 * intervals, SVG plots and the runs behind it; the metric reports only. */
typedef enum { FARM_FORMAT_TEXT, FARM_FORMAT_MD, FARM_FORMAT_CSV, FARM_FORMAT_HTML } farm_format;

typedef struct farm_report_opts {
  farm_format format;
  int32_t max_agents; /* only instances with at most this many agents; 0 = all */
  /* What the rows and the columns are (NULL: "map" and "label", the paper's tables): one of
   * "map", "label", "algorithm", "generator", "agents", or "param:NAME" for the value of an
   * algorithm parameter (Sigurdson et al. 2018's parameter study: rows vision, columns expansions).
   * */
  const char *rows, *cols;
  const char *where;  /* an SQL condition on results that every job must meet; NULL = none */
  int counts;         /* show each cell's job count (--counts) */
} farm_report_opts;

/* Checks a --rows or --cols value; returns 0, or -1 with the reason in err. */
int farm_report_check_dim(const char *dim, mapf_diag *err);

/* Names of the reports, NULL-terminated: "completion-rate", "completion-time",
 * "travel-distance", "completion-seconds" (Sigurdson et al. 2018 Tables I-III), "portfolio" and
 * "problem-types" (thesis Tables 5.1 and 5.2: selectors and labels on the instances every
 * label ran on; rows and columns are fixed, so --rows and --cols are refused). */
extern const char *const farm_report_names[];

/* One line saying what report `name` shows (its title), or NULL for a name not in
 * farm_report_names. The string is static. */
const char *farm_report_doc(const char *name);

/* Writes report `name` to out. Returns 0, or -1 with err (unknown name: the message lists the
 * valid names and suggests the nearest). */
int farm_report(farm_store *st, const char *name, const farm_report_opts *opts, FILE *out,
                mapf_diag *err);

/* Greedy portfolio formation (thesis Algorithm 2; farm/portfolio.h) on the jobs that pass
 * opts (where, max_agents; rows and cols must be NULL): writes one row per step, the label
 * added and the perfect selector's means over the portfolio after adding it, in opts->format.
 * size >= 1 is the largest portfolio; fewer steps are taken when no label improves it.
 * Returns 0, or -1 with err. */
/* farm_report_greedy with the rule's second key chosen by `by` (FARM_PF_BY_DISTANCE or
 * FARM_PF_BY_SUBOPTIMALITY, farm/portfolio.h). */
int farm_report_greedy_by(farm_store *st, int32_t size, const farm_report_opts *opts, int by,
                          FILE *out, mapf_diag *err);
int farm_report_greedy(farm_store *st, int32_t size, const farm_report_opts *opts, FILE *out,
                       mapf_diag *err);

/* The two-sided 95% interval of a mean over n values with sum `sum` and sum of squares
 * `sumsq`: Wilson's score interval when every value is 0 or 1 (binary == n: a proportion of
 * instances, e.g. solved), else Student's t interval (n - 1 degrees of freedom). Returns 0,
 * or -1 when there is none (n < 2 for t; n < 1). */
int farm_report_ci95(int64_t n, double sum, double sumsq, int64_t binary, double *lo,
                     double *hi);

/* The 0.975 quantile of Student's t with df >= 1 degrees of freedom. */
double farm_report_t975(int64_t df);

#endif
