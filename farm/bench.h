/* bench.h: the figures of `mapfarm bench` (README, Performance). The library measures and
 * returns numbers in structs; farm/main.c prints them. Timings are the CPU time of the calling
 * thread (time spent descheduled on a busy machine is left out); they still depend on the
 * machine and on what else runs on it: compare figures of one invocation with each other. */
#ifndef FARM_BENCH_H
#define FARM_BENCH_H

#include <stdint.h>

#include "algo.h"
#include "grid.h"
#include "scen.h"

/* The relative tolerance for scenario files whose optimal lengths are not exact octile lengths
 * at their printed digits (farm_bench_lengths_exact): such lengths were computed in single
 * precision (a float carries 7 significant digits) or with a shortened sqrt(2). 1e-6 of a
 * length of 1,000 is 0.001, far below what a wrong path costs in practice: sqrt(2) - 1, or
 * 17 - 12 sqrt(2) = 0.03 for a path that trades 17 straight moves for 12 diagonal ones. */
#define FARM_BENCH_RELATIVE 1e-6

/* Every query of a MovingAI scenario file solved with A*. */
typedef struct farm_bench_astar {
  int64_t queries;    /* lines of the scenario run */
  int64_t expansions; /* summed over the queries */
  int64_t mismatches; /* costs that differ from optimal_length by more than the tolerance,
                         or not found */
  double relative;    /* the tolerance: 0 when it is one unit of the last printed digit of
                         optimal_length (the rule of tests/test_astar.c; the file's lengths are
                         exact), else FARM_BENCH_RELATIVE: the larger of that unit and this
                         fraction of the length */
  double seconds;     /* CPU time inside mapf_astar_run only, summed over the queries */
} farm_bench_astar;

/* 1 when every optimal_length of s that can tell is a + b sqrt(2) (integers a, b >= 0) to
 * within half a unit of its last printed digit, as an exactly computed length correctly
 * rounded is; 0 when one is not. A length tells when it has so many digits that a + b sqrt(2)
 * falls that close to it by chance less than once in 1,000: 8 decimals always, "3.82843"
 * yes, "102.284" no. Lengths that cannot tell (integers among them) count as exact. */
int farm_bench_lengths_exact(const mapf_scen *s);

/* Runs every entry of s on g with one reused A* scratch, with the tolerance that
 * farm_bench_lengths_exact(s) selects. Returns MAPF_OK, MAPF_ENOMEM, or MAPF_EINVAL when an
 * entry does not fit g (load s against g to rule that out). */
int farm_bench_astar_run(const mapf_grid *g, const mapf_scen *s, farm_bench_astar *out);

/* One simulation of a random instance (the scenario generator `random`). */
typedef struct farm_bench_sim_opts {
  const mapf_algo_def *algo; /* run with the registry's default parameters */
  int32_t agents;
  int64_t steps;             /* step limit (>= 1) */
  uint64_t seed;             /* the instance seed, as `mapfarm solve --seed` */
  int no_bounds;             /* 1: the run computes no lower bounds (mapf_run_config) */
} farm_bench_sim_opts;

typedef struct farm_bench_sim {
  int64_t steps;       /* steps simulated (fewer than the limit when every agent arrived) */
  int64_t agent_steps; /* agents x steps */
  int64_t expansions;
  int32_t completed;   /* agents on their goals at the end */
  double seconds;      /* CPU time of mapf_run: set-up, planning and execution */
  double setup_seconds; /* the part of seconds before the first step: the planner's set-up
                           (PIBT's distance tables, built in a fresh workspace) */
  double planning_seconds; /* wall time of the search phases (mapf_result) */
  double kernel_seconds; /* the system CPU time of the process during mapf_run (getrusage):
                            mostly page faults of new memory, whose cost depends on the machine
                            (a hypervisor backing fresh pages) more than on the code */
  long peak_rss_kib;   /* the process's peak resident set so far (getrusage ru_maxrss) */
} farm_bench_sim;

/* Generates the instance (outside the timing) and runs it once. Returns MAPF_OK or the error
 * of the generator or of mapf_run, with the reason in d. */
int farm_bench_sim_run(const mapf_grid *g, const farm_bench_sim_opts *o, farm_bench_sim *out,
                       mapf_diag *d);

/* The work model (core/algo.h) fitted to measured runs of one algorithm (`mapfarm
 * calibrate`): the weights that make expansion_ns x expansions + agent_step_ns x agent_steps
 * closest to each run's CPU seconds after its set-up (seconds - setup_seconds; the runs compute
 * no lower bounds, farm_bench_sim_opts.no_bounds) in relative terms (least squares on charged /
 * measured - 1, both weights >= 0), and how well the built-in and the fitted weights track the
 * runs. */
typedef struct farm_calibration {
  int32_t runs;
  mapf_work_model fitted;
  double r_builtin, r_fitted;     /* Pearson correlation of charged and measured seconds */
  double ratio_builtin;           /* median of charged / measured with the built-in weights */
  double ratio_fitted;            /* the same with the fitted ones */
} farm_calibration;

/* Fits runs[0..n) of one algorithm (their expansions, agent_steps and seconds) and compares
 * the built-in weights. n >= 1. */
void farm_calibrate_fit(const farm_bench_sim *runs, int32_t n, const mapf_work_model *builtin,
                        farm_calibration *out);

#endif
