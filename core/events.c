/* events.c: the re-tasking generator and lifelong task sequences (events.h). */
#include "events.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "rng.h"

int mapf_retask_generate(const mapf_grid *g, mapf_instance *inst, int64_t every,
                         double fraction, int32_t rounds, uint64_t seed, mapf_diag *d) {
  if (every < 1 || !(fraction > 0 && fraction <= 1) || rounds < 1)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "retask: expected every >= 1, 0 < fraction <= 1 and rounds >= 1");
  int32_t n = inst->n;
  free(inst->retask);
  inst->retask = NULL;
  inst->nretask = 0;
  if (n == 0) return MAPF_OK;
  int32_t per = (int32_t)lround(fraction * n);
  if (per < 1) per = 1;
  if ((int64_t)per * rounds > INT32_MAX / 2)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "retask: too many events");
  mapf_retask *ev = malloc((size_t)per * (size_t)rounds * sizeof *ev);
  int32_t *goal = malloc((size_t)n * sizeof *goal), *order = malloc((size_t)n * sizeof *order);
  uint8_t *taken = calloc((size_t)g->ncells, 1); /* cells that are some agent's goal now */
  if (!ev || !goal || !order || !taken) {
    free(ev);
    free(goal);
    free(order);
    free(taken);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  memcpy(goal, inst->goal, (size_t)n * sizeof *goal);
  for (int32_t a = 0; a < n; a++) taken[goal[a]] = 1;
  mapf_rng rng;
  mapf_rng_seed(&rng, mapf_mix64(seed ^ UINT64_C(0x72657461736b))); /* "retask" */
  int rc = MAPF_OK;
  int32_t k = 0;
  for (int32_t r = 1; r <= rounds && rc == MAPF_OK; r++) {
    /* The first `per` agents of a partial Fisher-Yates shuffle, in agent order within the
     * round so the list is sorted by (step, agent). */
    for (int32_t a = 0; a < n; a++) order[a] = a;
    for (int32_t i = 0; i < per; i++) {
      int32_t j = i + (int32_t)mapf_rng_below(&rng, (uint64_t)(n - i));
      int32_t t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (int32_t i = 1; i < per; i++) /* insertion sort: per is small beside n */
      for (int32_t j = i; j > 0 && order[j - 1] > order[j]; j--) {
        int32_t t = order[j];
        order[j] = order[j - 1];
        order[j - 1] = t;
      }
    for (int32_t i = 0; i < per && rc == MAPF_OK; i++) {
      int32_t a = order[i], comp = g->component[inst->start[a]];
      const int32_t *cells = g->usable_by_comp + g->usable_off[comp];
      int32_t size = g->usable_off[comp + 1] - g->usable_off[comp];
      /* Rejection first (the usual case: most cells are free), then a scan of the free ones;
       * the first drawn free cell either way, so the result is a uniform free cell. */
      int32_t cell = -1;
      for (int tries = 0; tries < 64 && cell < 0; tries++) {
        int32_t c = cells[mapf_rng_below(&rng, (uint64_t)size)];
        if (!taken[c]) cell = c;
      }
      if (cell < 0) {
        int32_t nfree = 0;
        for (int32_t j = 0; j < size; j++) nfree += !taken[cells[j]];
        if (nfree == 0) {
          rc = mapf_diag_set(d, MAPF_ENOSPACE, NULL, 0, 0,
                             "retask: agent %d's component has no cell that is not another "
                             "agent's goal",
                             (int)a);
          break;
        }
        int32_t pick = (int32_t)mapf_rng_below(&rng, (uint64_t)nfree);
        for (int32_t j = 0; j < size; j++)
          if (!taken[cells[j]] && pick-- == 0) {
            cell = cells[j];
            break;
          }
      }
      taken[goal[a]] = 0;
      taken[cell] = 1;
      goal[a] = cell;
      ev[k++] = (mapf_retask){(int64_t)r * every, a, cell};
    }
  }
  free(goal);
  free(order);
  free(taken);
  if (rc != MAPF_OK) {
    free(ev);
    return rc;
  }
  inst->retask = ev;
  inst->nretask = k;
  return MAPF_OK;
}

int32_t mapf_lifelong_task(const mapf_grid *g, uint64_t seed, int32_t a, int64_t k,
                           int32_t current) {
  int32_t comp = g->component[current];
  const int32_t *cells = g->usable_by_comp + g->usable_off[comp];
  int32_t size = g->usable_off[comp + 1] - g->usable_off[comp];
  if (size < 2) return current;
  mapf_rng rng;
  mapf_rng_seed(&rng, mapf_mix64(seed ^ mapf_mix64((uint64_t)(uint32_t)a << 32 ^ (uint64_t)k)));
  /* Uniform over the other size - 1 cells: draw among them and step over current. */
  int32_t i = (int32_t)mapf_rng_below(&rng, (uint64_t)(size - 1));
  int32_t c = cells[i];
  return c == current ? cells[size - 1] : c;
}
