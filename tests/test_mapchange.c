/* test_mapchange.c: map changes in the core (docs/events.md): doors and their generator
 * (core/events.c), a grid changed in place (mapf_grid_set_cells), the simulator's rule for a
 * cell that closes under an agent, every planner's reaction (map_changed) watched step by step
 * against a model of the rule written here, and events files with close and open lines. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "algo.h"
#include "events.h"
#include "hash.h"
#include "mapgen.h"
#include "scen.h"
#include "sim.h"
#include "testutil.h"

TestSuite(mapchange, .timeout = 300);

/* ---- doors and the grid ------------------------------------------------------------------ */

/* A door of width 1 is a passable cell with two passable cardinal neighbours facing each
 * other and the other two blocked (or outside); a wider one is a run of such cells across a
 * corridor, blocked at both ends, with the corridor open on both sides of every cell. */
Test(mapchange, doors_are_the_narrow_cross_sections_of_passages) {
  static const char *const rows[] = {
      "...@.....",
      "...@.....",
      ".........",
      "...@@@.@@",
      "...@...@.",
  };
  mapf_grid *g = test_grid_from_rows(rows, 5);
  mapf_door *door = NULL;
  int32_t n = mapf_doors_find(g, 1, &door);
  /* (6,3): N (6,2) and S (6,4) open, W (5,3) and E (7,3) blocked. (3,2): W and E open, N and S
   * blocked. (5,4): W and E open, N blocked, S outside the map. Nothing else: (8,4) is a dead
   * end, (4,4) has one neighbour, room cells have three or four. Rows first. */
  cr_assert_eq(n, 3, "found %d doors", (int)n);
  cr_assert_eq(door[0].cell, mapf_grid_id(g, 6, 3));
  cr_assert_eq(door[1].cell, mapf_grid_id(g, 3, 2));
  cr_assert_eq(door[1].step, g->width, "a column's run: across a corridor going east-west");
  cr_assert_eq(door[2].cell, mapf_grid_id(g, 5, 4));
  for (int i = 0; i < 3; i++) cr_assert_eq(door[i].len, 1);
  free(door);
  /* Width 3: every door found is a run of at most 3 open cells, blocked or the edge at both
   * ends, open on both sides across it; among them rows 1 and 3 of the corridor of columns 0-2
   * (row 2 is open to the east: no end there) and rows 0-2 of column 5 (the room of columns
   * 4-8 is three rows high there). */
  n = mapf_doors_find(g, 3, &door);
  int wide = 0, col5 = 0;
  for (int32_t i = 0; i < n; i++) {
    const mapf_door *dr = &door[i];
    int32_t across = dr->step == 1 ? g->width : 1;
    cr_assert(dr->len >= 1 && dr->len <= 3);
    for (int32_t k = 0; k < dr->len; k++) {
      int32_t c = dr->cell + k * dr->step, x = mapf_grid_x(g, c), y = mapf_grid_y(g, c);
      cr_assert(g->passable[c]);
      if (dr->step == 1)
        cr_assert(y > 0 && y + 1 < g->height && g->passable[c - across] &&
                  g->passable[c + across], "door %d: open on both sides", (int)i);
      else
        cr_assert(x > 0 && x + 1 < g->width && g->passable[c - across] &&
                  g->passable[c + across], "door %d: open on both sides", (int)i);
    }
    int32_t last = dr->cell + (dr->len - 1) * dr->step;
    int32_t bx = mapf_grid_x(g, dr->cell), by = mapf_grid_y(g, dr->cell);
    int32_t ex = mapf_grid_x(g, last), ey = mapf_grid_y(g, last);
    if (dr->step == 1) {
      cr_assert(bx == 0 || !g->passable[dr->cell - 1], "door %d: blocked before", (int)i);
      cr_assert(ex + 1 == g->width || !g->passable[last + 1], "door %d: blocked after", (int)i);
    } else {
      cr_assert(by == 0 || !g->passable[dr->cell - g->width], "door %d", (int)i);
      cr_assert(ey + 1 == g->height || !g->passable[last + g->width], "door %d", (int)i);
    }
    if (dr->len == 3 && dr->step == 1 && bx == 0) wide++;
    col5 |= dr->len == 3 && dr->step == g->width && dr->cell == mapf_grid_id(g, 5, 0);
  }
  cr_assert(col5, "rows 0-2 of column 5, across the room of columns 4-8");
  cr_assert_eq(wide, 2, "rows 1 and 3 of the west corridor (row 2 is open to the east)");
  free(door);
  mapf_grid_free(g);
}

/* Cells changed in place give the moves and hash of the same map built from scratch, whichever
 * way they changed, under both move sets. */
Test(mapchange, a_grid_changed_in_place_matches_one_built_from_scratch) {
  for (int conn = 4; conn <= 8; conn += 4) {
    mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 30, 20, 0.25, 1, 5);
    cr_assert_eq(mapf_grid_set_connectivity(g, conn), MAPF_OK);
    mapf_rng rng;
    mapf_rng_seed(&rng, 17);
    for (int round = 0; round < 50; round++) {
      int32_t cells[6];
      uint8_t open[6];
      for (int i = 0; i < 6; i++) {
        cells[i] = (int32_t)mapf_rng_below(&rng, (uint64_t)g->ncells);
        open[i] = (uint8_t)mapf_rng_below(&rng, 2);
      }
      /* Repeated cells: the last value holds, as when applied one by one. */
      mapf_grid_set_cells(g, cells, open, 6);
      mapf_grid *fresh = mapf_grid_new(g->width, g->height, "fresh");
      memcpy(fresh->passable, g->passable, (size_t)g->ncells);
      cr_assert_eq(mapf_grid_set_connectivity(fresh, conn), MAPF_OK);
      cr_assert_eq(mapf_grid_finish(fresh), MAPF_OK);
      cr_assert_eq(memcmp(fresh->moves, g->moves, (size_t)g->ncells), 0, "round %d", round);
      cr_assert_eq(fresh->npassable, g->npassable, "round %d", round);
      cr_assert_eq(fresh->hash, g->hash, "round %d", round);
      mapf_grid_free(fresh);
    }
    mapf_grid_free(g);
  }
}

/* The generator closes `count` doors a round at every, 2 every, ..., each opening duration
 * steps later, never one that is closed already; openings come first at a step; the same seed
 * gives the same changes, another seed others; a map with too few doors is refused. */
Test(mapchange, the_doors_generator_closes_and_opens_doors_in_rounds) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_ROOMS, 60, 60, 0, 1, 3);
  mapf_door *door = NULL;
  int32_t nd = mapf_doors_find(g, 1, &door);
  cr_assert_geq(nd, 8, "a rooms map has doors between its rooms (%d)", (int)nd);
  mapf_instance *inst = test_random_instance(g, 20, 1), *again = test_random_instance(g, 20, 1);
  mapf_diag d = {0};
  cr_assert_eq(mapf_doors_generate(g, inst, 10, 3, 1, 25, 6, 42, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(mapf_doors_generate(g, again, 10, 3, 1, 25, 6, 42, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(inst->nchange, 2 * 3 * 6);
  cr_assert_eq(memcmp(inst->change, again->change, (size_t)inst->nchange * sizeof *inst->change),
               0);
  uint8_t *closed = calloc((size_t)g->ncells, 1);
  int32_t closes = 0;
  for (int32_t k = 0; k < inst->nchange; k++) {
    const mapf_mapchange *e = &inst->change[k];
    int is_door = 0;
    for (int32_t i = 0; i < nd; i++) is_door |= door[i].cell == e->cell;
    cr_assert(is_door, "change %d is at a door", (int)k);
    if (k > 0) {
      const mapf_mapchange *p = &inst->change[k - 1];
      cr_assert(p->step < e->step || (p->step == e->step && p->open >= e->open),
                "change %d: by step, openings first", (int)k);
    }
    if (e->open) {
      cr_assert(closed[e->cell], "change %d opens a closed door", (int)k);
      closed[e->cell] = 0;
      /* Its closing was duration steps before. */
      int found = 0;
      for (int32_t j = 0; j < k; j++)
        found |= !inst->change[j].open && inst->change[j].cell == e->cell &&
                 inst->change[j].step == e->step - 25;
      cr_assert(found, "change %d opens 25 steps after the door closed", (int)k);
    } else {
      cr_assert_eq(e->step % 10, 0, "closings at multiples of every");
      cr_assert_not(closed[e->cell], "change %d closes a door that is closed", (int)k);
      closed[e->cell] = 1;
      closes++;
    }
  }
  cr_assert_eq(closes, 18);
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(mapf_doors_generate(g, again, 10, 3, 1, 25, 6, 43, &d), MAPF_OK, "%s", d.msg);
  cr_assert_neq(memcmp(inst->change, again->change, (size_t)inst->nchange * sizeof *inst->change),
                0, "another seed, other doors");
  /* Wider doors close all their cells together. */
  cr_assert_eq(mapf_doors_generate(g, again, 10, 3, 4, 25, 6, 42, &d), MAPF_OK, "%s", d.msg);
  cr_assert_geq(again->nchange, 2 * 3 * 6);
  /* More doors at once than the map has. */
  cr_assert_eq(mapf_doors_generate(g, again, 10, nd + 1, 1, 5, 1, 1, &d), MAPF_ENOSPACE);
  cr_assert(strstr(d.msg, "doors") && strstr(d.msg, "cannot close"), "%s", d.msg);
  cr_assert_eq(mapf_doors_generate(g, again, 0, 1, 1, 5, 1, 1, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_doors_generate(g, again, 1, 1, 0, 5, 1, 1, &d), MAPF_EINVAL);
  free(closed);
  free(door);
  mapf_instance_free(inst);
  mapf_instance_free(again);
  mapf_grid_free(g);
}

/* ---- runs ---------------------------------------------------------------------------------- */

/* A model of the simulator's rule, fed by the trace: after step t, the changes of step t apply
 * (the last change of a cell at a step holds; an opening cancels a closing that waits); a cell
 * with an agent on it closes at the first step end that finds it empty. Every move is checked
 * against the model's map: into an open cell, a diagonal only between open cells. */
typedef struct model {
  const mapf_grid *g;
  const mapf_instance *inst;
  uint8_t *open, *pending;
  int32_t *want; /* per cell this step: -1 none, else 0 or 1 */
  int32_t *prev, *occ;
  int32_t next;
  int64_t applied, bad_moves, into_closed;
  int64_t told, told_t;         /* on_cell calls, and the step of the last */
  int32_t told_cell, told_open; /* its cell and way */
} model;

static void model_cell(void *ud, int64_t t, int32_t cell, int open) {
  model *m = ud;
  m->told++;
  m->told_t = t;
  m->told_cell = cell;
  m->told_open = open;
}

static void model_init(model *m, const mapf_grid *g, const mapf_instance *inst) {
  memset(m, 0, sizeof *m);
  m->g = g;
  m->inst = inst;
  m->open = malloc((size_t)g->ncells);
  memcpy(m->open, g->passable, (size_t)g->ncells);
  m->pending = calloc((size_t)g->ncells, 1);
  m->want = malloc((size_t)g->ncells * sizeof *m->want);
  m->occ = malloc((size_t)g->ncells * sizeof *m->occ);
  for (int32_t c = 0; c < g->ncells; c++) m->want[c] = m->occ[c] = -1;
  m->prev = malloc((size_t)inst->n * sizeof *m->prev);
}

static void model_free(model *m) {
  free(m->open);
  free(m->pending);
  free(m->want);
  free(m->occ);
  free(m->prev);
}

static int model_open_xy(const model *m, int32_t x, int32_t y) {
  return mapf_grid_in(m->g, x, y) && m->open[mapf_grid_id(m->g, x, y)];
}

static void model_step(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  model *m = ud;
  const mapf_grid *g = m->g;
  for (int32_t a = 0; t > 0 && a < n; a++) {
    int32_t from = m->prev[a], to = pos[a];
    if (from == to) continue;
    int32_t fx = mapf_grid_x(g, from), fy = mapf_grid_y(g, from);
    int32_t tx = mapf_grid_x(g, to), ty = mapf_grid_y(g, to);
    if (!m->open[to]) m->into_closed++;
    int dx = tx - fx, dy = ty - fy;
    if (dx < -1 || dx > 1 || dy < -1 || dy > 1 ||
        (dx && dy && (g->connectivity == 4 || !model_open_xy(m, tx, fy) ||
                      !model_open_xy(m, fx, ty))))
      m->bad_moves++;
  }
  memcpy(m->prev, pos, (size_t)n * sizeof *pos);
  for (int32_t a = 0; a < n; a++) m->occ[pos[a]] = a;
  const mapf_instance *inst = m->inst;
  int32_t first = m->next;
  for (; m->next < inst->nchange && inst->change[m->next].step == t; m->next++) {
    int32_t c = inst->change[m->next].cell;
    m->pending[c] = 0;
    m->want[c] = inst->change[m->next].open;
  }
  for (int32_t k = first; k < m->next; k++) {
    int32_t c = inst->change[k].cell;
    if (m->want[c] < 0) continue;
    if (m->want[c] != m->open[c]) {
      if (m->want[c] == 0 && m->occ[c] >= 0) {
        m->pending[c] = 1;
      } else {
        m->open[c] = (uint8_t)m->want[c];
        m->applied++;
      }
    }
    m->want[c] = -1;
  }
  for (int32_t c = 0; c < g->ncells; c++)
    if (m->pending[c] && m->occ[c] < 0) {
      m->pending[c] = 0;
      m->open[c] = 0;
      m->applied++;
    }
  for (int32_t a = 0; a < n; a++) m->occ[pos[a]] = -1;
}

/* Every planner but the external one (whose plan is made before the run: it refuses map
 * changes) on a rooms map whose doors close and open: no move into a closed cell or across a
 * closed corner, the changes counted as the model applies them, the search right after a
 * change measured, and every agent on its goal in the end where the planner finishes the same
 * problem on the fixed map (the doors open again). */
Test(mapchange, every_planner_keeps_out_of_closed_cells) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_ROOMS, 48, 48, 0, 1, 2);
  mapf_instance *inst = test_random_instance(g, 40, 3);
  mapf_diag d = {0};
  cr_assert_eq(mapf_doors_generate(g, inst, 6, 4, 2, 15, 8, 11, &d), MAPF_OK, "%s", d.msg);
  for (int32_t i = 0; i < mapf_algo_count(); i++) {
    const mapf_algo_def *def = mapf_algo_at(i);
    mapf_run_config cfg = test_run_config(g, inst, def->name);
    cfg.limits.steps = 3000;
    cfg.seed = 5;
    mapf_result res;
    /* The same problem on the fixed map: does this planner finish it? */
    int finishes = 0;
    if (!def->program) {
      mapf_instance fixed = *inst;
      fixed.change = NULL;
      fixed.nchange = 0;
      mapf_run_config plain = cfg;
      plain.inst = &fixed;
      test_run(&plain, &res);
      finishes = res.status == MAPF_STATUS_OK;
      mapf_result_clear(&res);
    }
    if (def->program) {
      mapf_workspace *ws = mapf_workspace_new();
      cr_assert_neq(mapf_run(ws, &cfg, &res, &d), MAPF_OK);
      cr_assert(strstr(d.msg, "map changes"), "%s", d.msg);
      mapf_result_clear(&res);
      mapf_workspace_free(ws);
      continue;
    }
    model m;
    model_init(&m, g, inst);
    cfg.on_step = model_step;
    cfg.ud = &m;
    test_run(&cfg, &res);
    cr_assert_eq(m.into_closed, 0, "%s: %lld moves into closed cells", def->name,
                 (long long)m.into_closed);
    cr_assert_eq(m.bad_moves, 0, "%s: %lld illegal moves", def->name, (long long)m.bad_moves);
    /* The run may end before the last changes (every agent home): those the model saw. */
    cr_assert_eq(res.map_changes, m.applied, "%s", def->name);
    cr_assert_gt(res.map_changes, 0, "%s", def->name);
    cr_assert(isfinite(res.mean_change_expansions), "%s", def->name);
    cr_assert_eq(res.soc_lb, -1, "%s: no bound on a changing map", def->name);
    /* DM may follow an agent round a room for ever when another stands on its goal in a
     * doorway (here after the doors sent it another way): no rule of the paper breaks that. */
    if (finishes && strcmp(def->name, "dm") != 0)
      cr_assert_eq(res.status, MAPF_STATUS_OK, "%s: %d of 40 on their goals", def->name,
                   (int)res.completed);
    mapf_result_clear(&res);
    model_free(&m);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Two rooms joined by one door; every agent's goal is across it. The door closes at step 1
 * and opens at step 60: nobody crosses while it is closed, everyone arrives after, and a
 * planner that searches for complete paths does not search the whole room again at every step
 * while cut off (FAR and A*-Replan wait for the map to change; WHCA*'s RRA* ends its search
 * once). */
Test(mapchange, a_closed_door_cuts_agents_off_until_it_opens) {
  static const char *const rows[] = {
      "........@........",
      "........@........",
      ".................",
      "........@........",
      "........@........",
  };
  mapf_grid *g = test_grid_from_rows(rows, 5);
  mapf_instance *inst = mapf_instance_new(4);
  int32_t s[4][2] = {{0, 0}, {1, 4}, {16, 0}, {15, 4}};
  int32_t e[4][2] = {{15, 1}, {16, 3}, {1, 1}, {0, 3}};
  for (int a = 0; a < 4; a++) {
    inst->start[a] = mapf_grid_id(g, s[a][0], s[a][1]);
    inst->goal[a] = mapf_grid_id(g, e[a][0], e[a][1]);
  }
  inst->change = malloc(2 * sizeof *inst->change);
  inst->change[0] = (mapf_mapchange){1, mapf_grid_id(g, 8, 2), 0};
  inst->change[1] = (mapf_mapchange){60, mapf_grid_id(g, 8, 2), 1};
  inst->nchange = 2;
  const char *algos[] = {"bmaa", "whca", "far", "astar-replan", "dm", "pibt", "lacam"};
  for (size_t k = 0; k < sizeof algos / sizeof *algos; k++) {
    mapf_run_config cfg = test_run_config(g, inst, algos[k]);
    cfg.limits.steps = 400;
    model m;
    model_init(&m, g, inst);
    cfg.on_step = model_step;
    cfg.ud = &m;
    mapf_result res;
    test_run(&cfg, &res);
    cr_assert_eq(m.into_closed + m.bad_moves, 0, "%s", algos[k]);
    cr_assert_eq(res.map_changes, 2, "%s", algos[k]);
    /* DM has no rule for agents that meet head on in a doorway (docs/choices.md, dm). */
    if (strcmp(algos[k], "dm") != 0)
      cr_assert_eq(res.status, MAPF_STATUS_OK, "%s: %d of 4", algos[k], (int)res.completed);
    for (int a = 0; a < 4; a++)
      if (res.agent[a].reached)
        cr_assert_gt(res.agent[a].completion_step, 60,
                     "%s: agent %d crossed after the door opened", algos[k], a);
    if (k >= 1 && k <= 3)
      cr_assert_lt(res.expansions, 20000, "%s: %lld expansions", algos[k],
                   (long long)res.expansions);
    mapf_result_clear(&res);
    model_free(&m);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* A door does not close on an agent: one agent stands in the doorway when its closing comes
 * (step 2) and leaves it at step 5; the cell closes then, and nobody enters it after. */
Test(mapchange, a_door_closes_once_the_agent_in_it_has_left) {
  static const char *const rows[] = {
      "@@@@@@@@@",
      ".........",
      "@@@@.@@@@",
  };
  mapf_grid *g = test_grid_from_rows(rows, 3);
  mapf_instance *inst = mapf_instance_new(1);
  inst->start[0] = mapf_grid_id(g, 1, 1);
  inst->goal[0] = mapf_grid_id(g, 8, 1);
  int32_t door = mapf_grid_id(g, 3, 1);
  inst->change = malloc(sizeof *inst->change);
  inst->change[0] = (mapf_mapchange){2, door, 0};
  inst->nchange = 1;
  /* BMAA* walks east one cell a step: at (3,1) after step 2, on (4,1) after step 3, when the
   * door closes behind it (and a trace hears of it then). */
  mapf_run_config cfg = test_run_config(g, inst, "bmaa");
  cfg.limits.steps = 30;
  model m;
  model_init(&m, g, inst);
  cfg.on_step = model_step;
  cfg.on_cell = model_cell;
  cfg.ud = &m;
  mapf_result res;
  test_run(&cfg, &res);
  cr_assert_eq(m.into_closed + m.bad_moves, 0);
  cr_assert_eq(res.map_changes, 1, "the closing happened, once the doorway was empty");
  cr_assert_eq(m.open[door], 0);
  cr_assert_eq(m.told, 1);
  cr_assert_eq(m.told_t, 3, "it closed after step 3, not at step 2 when it was due");
  cr_assert_eq(m.told_cell, door);
  cr_assert_eq(m.told_open, 0);
  cr_assert_eq(res.agent[0].final, inst->goal[0], "it went on east through the door it stood in");
  mapf_result_clear(&res);
  model_free(&m);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- events files -------------------------------------------------------------------------- */

static char *write_tmp(const char *text) {
  char *path = strdup("/tmp/mapfarm-mapchange-XXXXXX");
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

/* close and open lines become the instance's map changes, re-tasking lines its events; a file
 * of re-tasking lines alone hashes as it did before map changes existed (the job keys of the
 * plans that use one stay); bad lines are named. */
Test(mapchange, events_files_hold_map_changes) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_ROOMS, 40, 40, 0, 1, 2);
  mapf_instance *inst = test_random_instance(g, 5, 3);
  char *path = write_tmp("# doors\n3 close 0 0\n4 retask 1 2 2\n9 open 0 0\n");
  mapf_events_file *f = NULL;
  mapf_diag d = {0};
  cr_assert_eq(mapf_events_load(path, &f, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(f->n, 3);
  cr_assert_eq(f->nchange, 2);
  cr_assert_eq(mapf_events_check(f, g, 5, 100, &d), MAPF_OK, "%s", d.msg);
  /* (2,2) may be blocked on this map; the retask check needs a passable cell. */
  if (g->passable[mapf_grid_id(g, 2, 2)]) {
    cr_assert_eq(mapf_events_apply(f, g, inst, &d), MAPF_OK, "%s", d.msg);
    cr_assert_eq(inst->nchange, 2);
    cr_assert_eq(inst->nretask, 1);
    cr_assert_eq(inst->change[0].step, 3);
    cr_assert_eq(inst->change[0].open, 0);
    cr_assert_eq(inst->change[1].open, 1);
    cr_assert_eq(inst->retask[0].agent, 1);
  }
  mapf_events_free(f);
  unlink(path);
  free(path);

  /* The hash of a re-tasking file: the same words as before, in the same order. */
  path = write_tmp("4 retask 1 2 2\n");
  cr_assert_eq(mapf_events_load(path, &f, &d), MAPF_OK, "%s", d.msg);
  int64_t w[4] = {4, 1, 2, 2};
  cr_assert_eq(f->hash, mapf_hash64(w, sizeof w, 0));
  mapf_events_free(f);
  unlink(path);
  free(path);

  struct {
    const char *text, *want;
  } bad[] = {
      {"3 shut 0 0\n", ":1:3: error: unknown event \"shut\"; expected retask, close or open"},
      {"3 close 0\n", ":1:10: error: expected the cell's y (a row, from 0)"},
      {"3 open 1 2 3\n", ":1:12: error: unexpected text after the event: `STEP open X Y`"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    path = write_tmp(bad[k].text);
    cr_assert_eq(mapf_events_load(path, &f, &d), MAPF_EPARSE, "%s", bad[k].text);
    char where[2048];
    snprintf(where, sizeof where, ":%d:%d: error: %s", d.line, d.col, d.msg);
    cr_assert(strstr(where, bad[k].want), "%s -> %s", bad[k].text, where);
    unlink(path);
    free(path);
  }
  path = write_tmp("3 close 40 0\n");
  cr_assert_eq(mapf_events_load(path, &f, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(mapf_events_check(f, g, 5, 100, &d), MAPF_EINVAL);
  cr_assert_eq(d.line, 1);
  cr_assert_eq(d.col, 9);
  cr_assert(strstr(d.msg, "cell (40,0) is outside the map (40 x 40)"), "%s", d.msg);
  mapf_events_free(f);
  unlink(path);
  free(path);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* WHCA*'s RRA* searches survive an opening that none of them came near (an opening adds moves
 * only around the opened cell): a wall cell that opens in a far corner costs no expansion, the
 * run is the same as without it; one that opens among the agents' searches is paid for. */
Test(mapchange, whca_keeps_the_rra_searches_an_opening_does_not_touch) {
  mapf_grid *g = mapf_grid_new(60, 20, "corner");
  for (int32_t y = 0; y < 20; y++)
    for (int32_t x = 0; x < 60; x++) g->passable[y * 60 + x] = !(x >= 50 && y >= 15) && x != 10;
  cr_assert_eq(mapf_grid_finish(g), MAPF_OK);
  mapf_instance *inst = mapf_instance_new(4);
  for (int a = 0; a < 4; a++) {
    inst->start[a] = mapf_grid_id(g, 0, 2 + 4 * a);
    inst->goal[a] = mapf_grid_id(g, 9, 17 - 4 * a);
  }
  mapf_result plain, far, near;
  mapf_run_config cfg = test_run_config(g, inst, "whca");
  cfg.limits.steps = 200;
  test_run(&cfg, &plain);
  inst->change = malloc(sizeof *inst->change);
  inst->change[0] = (mapf_mapchange){3, mapf_grid_id(g, 58, 18), 1};
  inst->nchange = 1;
  test_run(&cfg, &far);
  cr_assert_eq(far.map_changes, 1);
  cr_assert_eq(far.expansions, plain.expansions, "the far opening dropped searches");
  cr_assert_eq(far.steps, plain.steps);
  inst->change[0] = (mapf_mapchange){3, mapf_grid_id(g, 10, 9), 1};
  test_run(&cfg, &near);
  cr_assert_eq(near.map_changes, 1);
  cr_assert_gt(near.expansions, plain.expansions, "an opening in the wall beside the agents");
  mapf_result_clear(&plain);
  mapf_result_clear(&far);
  mapf_result_clear(&near);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}
