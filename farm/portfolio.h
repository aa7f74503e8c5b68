/* portfolio.h: algorithm portfolios over a results database (thesis 2.2, 4.4.2 and 5.4.2;
 * docs/choices.md, Portfolios): the instances x configurations matrix, the perfect selector pi*,
 * the worst selector, the best single algorithm, and greedy portfolio formation (thesis
 * Algorithm 2). The SQL twin of the rule is schema/views.sql ("Portfolios").
 *
 * A configuration is a label (one algorithm with its parameters); a problem instance is
 * (map_hash, generator, agents, instance), which every label of a plan runs alike. Jobs with
 * status 'error' are never candidates. Jobs rank by the thesis's rule (2.2; Sigurdson 2018 line
 * 198): higher completion rate, then shorter mean travel distance, then smaller completion
 * time, counted in steps (mean_completion_steps_capped: seconds vary from run to run, steps
 * do not); remaining ties go to the smaller label, then the smaller job key. NULL metrics
 * rank last.
 *
 * Nothing here prints; farm/report.c renders the tables. Not thread-safe: one matrix per
 * thread. */
#ifndef FARM_PORTFOLIO_H
#define FARM_PORTFOLIO_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "diag.h"

/* The metrics of a job, as stored; NaN where the database holds NULL. */
typedef struct farm_pf_metrics {
  double rate;     /* completion_rate, 0..1 */
  double distance; /* mean_travel_distance */
  double steps;    /* mean_completion_steps_capped */
  double seconds;  /* mean_completion_seconds_capped: shown, never ranks */
} farm_pf_metrics;

/* The metrics by index, in the order of farm_pf_metrics. */
enum { FARM_PF_RATE, FARM_PF_DISTANCE, FARM_PF_STEPS, FARM_PF_SECONDS, FARM_PF_NMETRICS };

/* Sums for the means and standard errors of the four metrics; NaN values are skipped, as
 * AVG() skips NULL. Zero-initialise. */
typedef struct farm_pf_stat {
  int64_t n[FARM_PF_NMETRICS];
  double sum[FARM_PF_NMETRICS], sumsq[FARM_PF_NMETRICS];
} farm_pf_stat;

/* Adds one job's (or one selection's) metrics to s. */
void farm_pf_stat_add(farm_pf_stat *s, const farm_pf_metrics *m);

/* The mean of metric k (FARM_PF_RATE...), NaN when no value was added. */
double farm_pf_stat_mean(const farm_pf_stat *s, int k);

/* The standard error of that mean: the sample standard deviation over sqrt(n); NaN for fewer
 * than two values. */
double farm_pf_stat_se(const farm_pf_stat *s, int k);

/* Compares two summaries by the rule on their means: <0 when a ranks first (higher mean
 * rate, then shorter mean distance, then fewer mean steps), >0 when b does, 0 on a tie.
 * Means are compared rounded, rates to 9 decimals and distances and steps to 6, as
 * schema/views.sql's portfolio_best_single does, so the order in which floating-point sums
 * were added never decides. A missing mean ranks last. */
int farm_pf_stat_cmp(const farm_pf_stat *a, const farm_pf_stat *b);

/* Compares two jobs by the rule's metrics (rate, distance, steps; NaN last): <0 when a ranks
 * first, 0 when the three are equal. Exact comparisons, as SQLite's ORDER BY makes them. */
int farm_pf_cmp(const farm_pf_metrics *a, const farm_pf_metrics *b);

/* The matrix of a database: its rows are the instances on which every label has a job that
 * ran (so selectors and single labels are compared on the same instances, as Table 5.1 is),
 * its columns the labels. All arrays are owned by the matrix. */
typedef struct farm_pf_matrix {
  int32_t nlabels;
  char **labels;         /* in plan order, as the reports' columns */
  int32_t *name_rank;    /* per label: its position in byte order (the rule's label ties) */
  int32_t ngenerators;
  char **generators;     /* the problem types of the rows, in plan order */
  int64_t ninstances;    /* rows */
  int32_t *generator;    /* per row: index into generators */
  farm_pf_metrics *cell; /* ninstances x nlabels, row-major: each label's best job there */
  farm_pf_metrics *worst;/* per row: the worst job, by the reverse of the whole rule */
  int32_t *worst_label;  /* per row: its label */
  farm_pf_stat *label_stat; /* per label: over its jobs on the rows */
  farm_pf_stat *type_stat;  /* ngenerators x nlabels: the same per problem type */
  int64_t jobs;          /* jobs that ran, on the rows */
  int64_t errors;        /* jobs with status 'error' that passed the filter */
  int64_t partial;       /* instances left out: some label has no job that ran there */
  int64_t partial_jobs;  /* jobs that ran on those */
  int by;                /* FARM_PF_BY_DISTANCE or FARM_PF_BY_SUBOPTIMALITY */
} farm_pf_matrix;

/* Loads the matrix of db's results that meet `where` (an SQL condition on results; NULL or
 * "" for all) and, when max_agents > 0, have at most that many agents. Reads in one read
 * transaction, so a database being written is seen as one snapshot. Memory: the cells
 * (32 bytes each) plus one instance's jobs at a time; 1,000 labels x 1,000 instances is
 * 32 MB. Time: one sorted pass over the jobs. Returns 0 and *out (free it with
 * farm_pf_matrix_free), 1 when no job that ran passes the filter (*out NULL), or -1 with
 * err (a --where that SQLite rejects is named in it; out of memory). A matrix with no rows
 * (no instance that every label ran on) is returned as such: check ninstances. */
int farm_pf_load(sqlite3 *db, const char *where, int32_t max_agents, farm_pf_matrix **out,
                 mapf_diag *err);

/* What the rule's second key is: the mean travel distance (the thesis's Ch. 5 rule), or
 * suboptimality, travel distance over the optimal one (Ch. 4, single-agent configurations:
 * a mean of ratios weighs every problem alike, where a mean of distances weighs the long
 * ones more). With suboptimality the matrix's `distance` metric holds it. */
enum { FARM_PF_BY_DISTANCE = 0, FARM_PF_BY_SUBOPTIMALITY = 1 };

/* farm_pf_load with the second key chosen by `by`. */
int farm_pf_load_by(sqlite3 *db, const char *where, int32_t max_agents, int by,
                    farm_pf_matrix **out, mapf_diag *err);

/* Frees m; NULL is a no-op. */
void farm_pf_matrix_free(farm_pf_matrix *m);

/* Sets err after a failed read of results filtered by `where` (NULL or "": none): SQLite's
 * message, after the --where text when there is one (most often the cause). Returns -1. */
int farm_pf_read_error(sqlite3 *db, const char *where, mapf_diag *err);

/* The perfect selector pi* (thesis Eq. 2.2) over the labels l with member[l] != 0 (member
 * NULL: every label): on each row the member whose cell ranks first (ties: the smaller
 * label). Writes the chosen label of each row to choice[row] when choice is not NULL, and
 * adds the chosen cells to *all (when not NULL) and to per_type[generator] (when not NULL,
 * ngenerators entries). O(rows x labels). */
void farm_pf_select(const farm_pf_matrix *m, const uint8_t *member, int32_t *choice,
                    farm_pf_stat *all, farm_pf_stat *per_type);

/* The best single algorithm: the label whose label_stat means rank first by
 * farm_pf_stat_cmp, ties to the smaller label; -1 when there is none. */
int32_t farm_pf_best_single(const farm_pf_matrix *m);

/* One step of greedy portfolio formation. */
typedef struct farm_pf_step {
  int32_t label;      /* the label added */
  farm_pf_stat score; /* pi* over the portfolio with it, over the rows */
  int64_t chosen;     /* rows on which pi* now picks the added label */
} farm_pf_step;

/* Greedy portfolio formation (thesis 4.4.2, Algorithm 2): from the empty portfolio, adds
 * up to `size` labels, each time the one whose addition gives the best pi* over the portfolio
 * (farm_pf_stat_cmp on the means over the rows; ties to the smaller label), and stops early
 * when no label left improves it. steps must hold `size` entries. Time O(size x rows x
 * labels), memory O(rows + labels). Returns the number of steps taken (0 for an empty
 * matrix or size < 1), or -1 when out of memory. */
int32_t farm_pf_greedy(const farm_pf_matrix *m, int32_t size, farm_pf_step *steps);

#endif
