/* robotrunners.h: League of Robot Runners 2023 problem files (docs/robot-runners.md).
 *
 * A problem is a JSON object naming a map, an agent file and a task file (paths relative to
 * the JSON file), the team size and the task assignment strategy. It becomes a 4-connected
 * mapf_grid and a lifelong mapf_instance with the task list. Every error names the file, line
 * and column at fault. Reentrant: nothing kept between calls. */
#ifndef MAPF_ROBOTRUNNERS_H
#define MAPF_ROBOTRUNNERS_H

#include <stdint.h>

#include "error.h"
#include "grid.h"
#include "scen.h"

typedef struct mapf_rr_problem {
  mapf_grid *grid;      /* 4-connected; `E` (emitter) cells are free, as `.` and `S` are */
  mapf_instance *inst;  /* teamSize agents, lifelong, the task list and its rule */
  char *map_path;       /* the map file as opened (the JSON file's directory before mapFile) */
} mapf_rr_problem;

/* Reads the problem at path into *out (all of it, or nothing). MAPF_EIO when the JSON file
 * cannot be read (a file it names that cannot be read is MAPF_EINVAL at its name in the JSON);
 * MAPF_EPARSE or MAPF_EINVAL with FILE:LINE:COL in d for malformed JSON, a missing or unknown
 * key, a value out of range, a malformed map, agent or task file, a location outside the map
 * or on an obstacle, two agents on one start, fewer agents than teamSize, no task, or a task
 * some agent it may be dealt to cannot reach; MAPF_ENOMEM. */
int mapf_rr_load(const char *path, mapf_rr_problem *out, mapf_diag *d);

/* Frees what mapf_rr_load made; p's fields become NULL. */
void mapf_rr_free(mapf_rr_problem *p);

/* The taskAssignmentStrategy name of a mapf_task_rule ("greedy", "roundrobin",
 * "roundrobin_fixed"), or "?". */
const char *mapf_task_rule_name(int rule);

#endif
