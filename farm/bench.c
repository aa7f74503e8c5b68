/* bench.c: benchmark measurements for `mapfarm bench` (bench.h). Nothing here prints. */
#include "bench.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "astar.h"
#include "hash.h"
#include "sim.h"

/* CPU time of the calling thread: on a shared machine, time spent descheduled is not the
 * search's (wall-clock figures on a busy 2-core machine varied by 2x between runs). */
static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 1 when v, printed with `decimals` digits after the point, is a + b sqrt(2) for integers
 * a, b >= 0 to within half a unit of its last digit; 0 when it is not; -1 when the digits
 * cannot tell: each candidate b = 0, 1, ... (b sqrt(2) <= v + 1/2) comes that close by chance
 * with probability `unit`, so more than 1e-3 in all could be luck. O(v / sqrt(2)). */
static int octile_exact(double v, int32_t decimals) {
  const double r2 = sqrt(2.0);
  if (!(v >= 0) || decimals < 0 || decimals > 17) return -1;
  double unit = pow(10, -decimals), nb = floor((v + 0.5) / r2) + 1;
  if (nb * unit > 1e-3) return -1;
  double tol = 0.5 * unit + 4 * DBL_EPSILON * v; /* the printed digits, and v's own rounding */
  for (double b = 0; b < nb; b++) {
    double x = v - b * r2;
    if (fabs(x - floor(x + 0.5)) <= tol) return 1; /* a = floor(x + 0.5) >= 0 as x >= -0.5 */
  }
  return 0;
}

int farm_bench_lengths_exact(const mapf_scen *s) {
  for (int32_t i = 0; i < s->n; i++)
    if (octile_exact(s->entries[i].optimal, s->entries[i].decimals) == 0) return 0;
  return 1;
}

/* Times each query on its own, so reading the scenario and checking costs stay outside the
 * figure; two clock reads per query (well under a microsecond) against searches of thousands
 * of expansions. A cost matches when it is within one unit of the last printed digit of
 * optimal_length (tests/test_astar.c's rule) or, in a file whose lengths are not exact, within
 * FARM_BENCH_RELATIVE of it: the MAPF benchmark's scen-random files print 8 decimals
 * of lengths computed with sqrt(2) = 1.414213562, 3.7e-10 short per diagonal move (613 of the
 * 1,000 lines of den520d-random-1 are off by more than 1e-8), and a length rounded to single
 * precision is off by up to 6e-8 of itself. */
int farm_bench_astar_run(const mapf_grid *g, const mapf_scen *s, farm_bench_astar *out) {
  memset(out, 0, sizeof *out);
  out->relative = farm_bench_lengths_exact(s) ? 0 : FARM_BENCH_RELATIVE;
  mapf_astar *a = mapf_astar_new();
  if (!a) return MAPF_ENOMEM;
  int rc = MAPF_OK;
  for (int32_t i = 0; i < s->n; i++) {
    const mapf_scen_entry *e = &s->entries[i];
    if (!mapf_grid_in(g, e->sx, e->sy) || !mapf_grid_in(g, e->gx, e->gy)) {
      rc = MAPF_EINVAL;
      break;
    }
    int32_t st = mapf_grid_id(g, e->sx, e->sy), go = mapf_grid_id(g, e->gx, e->gy);
    mapf_astar_result r;
    double t0 = cpu_seconds();
    rc = mapf_astar_run(a, g, st, go, &r, NULL, NULL);
    out->seconds += cpu_seconds() - t0;
    if (rc != MAPF_OK) break;
    out->queries++;
    out->expansions += r.expansions;
    double tol = fmax(pow(10, -e->decimals), out->relative * e->optimal) + 1e-9;
    if (!r.found || fabs(r.cost - e->optimal) > tol) out->mismatches++;
  }
  mapf_astar_free(a);
  return rc;
}

/* Notes the CPU time at step 0, which mapf_run reports once the planner is set up. */
static void note_setup(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  (void)pos;
  (void)n;
  if (t == 0) *(double *)ud = cpu_seconds();
}

int farm_bench_sim_run(const mapf_grid *g, const farm_bench_sim_opts *o, farm_bench_sim *out,
                       mapf_diag *d) {
  memset(out, 0, sizeof *out);
  mapf_instance *inst = NULL;
  int rc = mapf_scengen_random(g, o->agents, o->seed, &inst, d);
  if (rc != MAPF_OK) return rc;
  mapf_run_config cfg = {0};
  cfg.grid = g;
  cfg.inst = inst;
  cfg.algo = o->algo;
  mapf_params_default(o->algo, &cfg.params);
  cfg.limits.steps = o->steps;
  cfg.execution = MAPF_EXEC_CHAINS;
  cfg.seed = mapf_mix64(o->seed); /* as `mapfarm solve --seed` */
  cfg.no_bounds = o->no_bounds;
  double at_step0 = 0;
  cfg.on_step = note_setup;
  cfg.ud = &at_step0;
  mapf_workspace *ws = mapf_workspace_new();
  mapf_result res;
  memset(&res, 0, sizeof res);
  if (!ws) {
    rc = mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  } else {
    struct rusage ru0, ru1;
    int have_ru = getrusage(RUSAGE_SELF, &ru0) == 0;
    double t0 = cpu_seconds();
    rc = mapf_run(ws, &cfg, &res, d);
    out->seconds = cpu_seconds() - t0;
    if (have_ru && getrusage(RUSAGE_SELF, &ru1) == 0)
      out->kernel_seconds = (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                            1e-6 * (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec);
    out->setup_seconds = at_step0 > 0 ? at_step0 - t0 : 0;
  }
  if (rc == MAPF_OK) {
    out->steps = res.steps;
    out->agent_steps = res.steps * (int64_t)inst->n;
    out->expansions = res.expansions;
    out->completed = res.completed;
    out->planning_seconds = res.planning_seconds;
  }
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0) out->peak_rss_kib = ru.ru_maxrss;
  mapf_result_clear(&res);
  mapf_workspace_free(ws);
  mapf_instance_free(inst);
  return rc;
}

/* ---- calibrate ------------------------------------------------------------------------ */

/* What the model is fitted to: a run's CPU seconds after its set-up, which the model does not
 * charge (docs/choices.md, "The work budget"): PIBT's distance tables are built once per
 * thread and goal and then found in the cache. calibrate's runs compute no lower bounds
 * (farm_bench_sim_opts.no_bounds), which the model does not charge either. */
static double measured(const farm_bench_sim *r) { return r->seconds - r->setup_seconds; }

static double charged_seconds(const mapf_work_model *m, const farm_bench_sim *r) {
  return (m->expansion_ns * (double)r->expansions + m->agent_step_ns * (double)r->agent_steps) *
         1e-9;
}

static double correlation(const mapf_work_model *m, const farm_bench_sim *runs, int32_t n) {
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (int32_t i = 0; i < n; i++) {
    double x = charged_seconds(m, &runs[i]), y = measured(&runs[i]);
    sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
  }
  double vx = sxx - sx * sx / n, vy = syy - sy * sy / n;
  return vx > 0 && vy > 0 ? (sxy - sx * sy / n) / sqrt(vx * vy) : NAN;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_ratio(const mapf_work_model *m, const farm_bench_sim *runs, int32_t n) {
  double *r = malloc((size_t)n * sizeof *r);
  if (!r) return NAN;
  int32_t k = 0;
  for (int32_t i = 0; i < n; i++)
    if (measured(&runs[i]) > 0) r[k++] = charged_seconds(m, &runs[i]) / measured(&runs[i]);
  qsort(r, (size_t)k, sizeof *r, cmp_double);
  double med = k == 0 ? NAN : k % 2 ? r[k / 2] : (r[k / 2 - 1] + r[k / 2]) / 2;
  free(r);
  return med;
}

void farm_calibrate_fit(const farm_bench_sim *runs, int32_t n, const mapf_work_model *builtin,
                        farm_calibration *out) {
  memset(out, 0, sizeof *out);
  out->runs = n;
  /* Relative least squares: each run's row divided by its seconds, so a short run weighs as
   * much as a long one; two unknowns, so the normal equations are 2 x 2. */
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  for (int32_t i = 0; i < n; i++) {
    if (measured(&runs[i]) <= 0) continue;
    double x1 = (double)runs[i].expansions * 1e-9 / measured(&runs[i]);
    double x2 = (double)runs[i].agent_steps * 1e-9 / measured(&runs[i]);
    a11 += x1 * x1, a12 += x1 * x2, a22 += x2 * x2, b1 += x1, b2 += x2;
  }
  double det = a11 * a22 - a12 * a12, e = 0, s = 0;
  if (det > 0) {
    e = (b1 * a22 - b2 * a12) / det;
    s = (a11 * b2 - a12 * b1) / det;
  }
  /* A negative weight means nothing: fit the other alone. */
  if (!(det > 0) || e < 0 || s < 0) {
    double fe = a11 > 0 ? b1 / a11 : 0, fs = a22 > 0 ? b2 / a22 : 0;
    /* Of the two one-weight fits, the one with the smaller residual. */
    double re = 0, rs = 0;
    for (int32_t i = 0; i < n; i++) {
      if (measured(&runs[i]) <= 0) continue;
      double x1 = (double)runs[i].expansions * 1e-9 / measured(&runs[i]);
      double x2 = (double)runs[i].agent_steps * 1e-9 / measured(&runs[i]);
      re += (fe * x1 - 1) * (fe * x1 - 1);
      rs += (fs * x2 - 1) * (fs * x2 - 1);
    }
    e = re <= rs ? fe : 0;
    s = re <= rs ? 0 : fs;
  }
  out->fitted.expansion_ns = e;
  out->fitted.agent_step_ns = s;
  out->r_builtin = correlation(builtin, runs, n);
  out->r_fitted = correlation(&out->fitted, runs, n);
  out->ratio_builtin = median_ratio(builtin, runs, n);
  out->ratio_fitted = median_ratio(&out->fitted, runs, n);
}
