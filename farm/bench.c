/* bench.c: benchmark measurements for `mapfarm bench` (bench.h). Nothing here prints. */
#include "bench.h"

#include <math.h>
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

/* Times each query on its own, so reading the scenario and checking costs stay outside the
 * figure; two clock reads per query (well under a microsecond) against searches of thousands
 * of expansions. The cost check is tests/test_astar.c's: within one unit of the last printed
 * digit of optimal_length. */
int farm_bench_astar_run(const mapf_grid *g, const mapf_scen *s, farm_bench_astar *out) {
  memset(out, 0, sizeof *out);
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
    double scale = pow(10, e->decimals);
    if (!r.found || fabs(r.cost - e->optimal) > 1.0 / scale + 1e-9) out->mismatches++;
  }
  mapf_astar_free(a);
  return rc;
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
  mapf_workspace *ws = mapf_workspace_new();
  mapf_result res;
  memset(&res, 0, sizeof res);
  if (!ws) {
    rc = mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  } else {
    double t0 = cpu_seconds();
    rc = mapf_run(ws, &cfg, &res, d);
    out->seconds = cpu_seconds() - t0;
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
