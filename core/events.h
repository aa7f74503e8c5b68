/* events.h: scenario events and lifelong goals (docs/choices.md, Events): the re-tasking
 * generator and the task sequences of lifelong runs.
 *
 * Events are part of the problem, not of the algorithm: every draw comes from a seed derived
 * from the instance (never from the algorithm's seed), so every algorithm of a plan meets the
 * same events and the same tasks. Reentrant: no globals, every draw from a mapf_rng. */
#ifndef MAPF_EVENTS_H
#define MAPF_EVENTS_H

#include <stdint.h>

#include "error.h"
#include "grid.h"
#include "scen.h"

/* The `retask` generator: at steps every, 2 every, ..., rounds x every, max(1, round(fraction
 * x n)) agents drawn uniformly without replacement each get a new goal, drawn uniformly among
 * the usable cells of their start's component that are no agent's goal at that moment (so goals
 * stay distinct and every agent can still finish). A new goal may be the cell the agent stands
 * on when the event comes (it has then reached it). Replaces inst->retask. Returns MAPF_OK,
 * MAPF_EINVAL for values out of range (every >= 1, 0 < fraction <= 1, rounds >= 1),
 * MAPF_ENOSPACE when a component has no free cell for a new goal, or MAPF_ENOMEM; d says
 * why. */
int mapf_retask_generate(const mapf_grid *g, mapf_instance *inst, int64_t every,
                         double fraction, int32_t rounds, uint64_t seed, mapf_diag *d);

/* Task k (k >= 1: task 0 is the instance's goal) of agent a in a lifelong run seeded by seed:
 * a usable cell of the component of `current` (the agent's goal it has just reached) other
 * than current, drawn uniformly from a generator seeded by (seed, a, k) alone, so the sequence
 * does not depend on when the agent gets there. Tasks of different agents may coincide. */
int32_t mapf_lifelong_task(const mapf_grid *g, uint64_t seed, int32_t a, int64_t k,
                           int32_t current);

#endif
