/* test_scen.c: the .scen reader (movingai.c), instances, the `random` scenario generator and the
 * .scen writer (scen.c), on fixtures (tests/data/scen, tests/data/maps), generated maps and the
 * MovingAI sets (../shared/movingai). */
#ifndef MAPFARM_SOURCE_DIR /* before testutil.h, which has a fallback */
#error "MAPFARM_SOURCE_DIR must name the repository root"
#endif

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grid.h"
#include "mapgen.h"
#include "rng.h"
#include "scen.h"
#include "testutil.h"

#define MAPS MAPFARM_SOURCE_DIR "/tests/data/maps/"
#define SCENS MAPFARM_SOURCE_DIR "/tests/data/scen/"

TEST_TMPDIR("scen");

/* Loads tests/data/scen/NAME against tests/data/maps/tiny.map; it must fail with MAPF_EPARSE
 * and exactly "PATH:LINE:COL: error: MSG". */
static void expect_scen_error(const char *name, unsigned flags, int line, int col,
                              const char *msg) {
  mapf_grid *g = test_load_grid(MAPS "tiny.map");
  char path[1024], want[2048], got[2048];
  snprintf(path, sizeof path, "%s%s", SCENS, name);
  mapf_scen *s = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  int rc = mapf_scen_load(path, g, flags, &s, &d);
  mapf_diag_format(&d, got, sizeof got);
  cr_assert_eq(rc, MAPF_EPARSE, "%s: got %d (%s)", name, rc, got);
  cr_assert_null(s);
  snprintf(want, sizeof want, "%s:%d:%d: error: %s", path, line, col, msg);
  cr_assert_str_eq(got, want);
  mapf_grid_free(g);
}

static void format_diag(const mapf_diag *d, char *buf, size_t n) { mapf_diag_format(d, buf, n); }

/* ---- reader ------------------------------------------------------------------------- */

Test(scen, reads_tab_separated_version_1) {
  mapf_grid *g = test_load_grid(MAPS "tiny.map");
  mapf_scen *s = test_load_scen(SCENS "tiny.map.scen", g, 0);
  cr_assert_eq(s->n, 5);
  cr_assert_str_eq(s->map, "tiny.map");
  cr_assert_eq(s->skipped, 0);
  const mapf_scen_entry *e = &s->entries[2];
  cr_assert_eq(e->bucket, 1);
  cr_assert_eq(e->width, 8);
  cr_assert_eq(e->height, 4);
  cr_assert_eq(e->sx, 7);
  cr_assert_eq(e->sy, 0);
  cr_assert_eq(e->gx, 0);
  cr_assert_eq(e->gy, 3);
  cr_assert_float_eq(e->optimal, 8.24264069, 1e-12);
  cr_assert_eq(e->decimals, 8);
  cr_assert_eq(e->line, 4);
  cr_assert_eq(s->entries[0].line, 2);
  cr_assert_eq(s->entries[4].line, 6);
  mapf_scen_free(s);
  mapf_grid_free(g);
}

Test(scen, reads_space_separated_version_1_0_with_crlf_and_blank_lines) {
  mapf_grid *g = test_load_grid(MAPS "tiny.map");
  mapf_scen *s = test_load_scen(SCENS "v10_spaces.scen", g, 0);
  cr_assert_eq(s->n, 3);
  cr_assert_str_eq(s->map, "maps/tiny.map");
  cr_assert_eq(s->entries[0].decimals, 2);
  cr_assert_float_eq(s->entries[0].optimal, 9.41, 1e-12);
  cr_assert_eq(s->entries[1].sx, 1);
  cr_assert_eq(s->entries[1].decimals, 2);
  cr_assert_eq(s->entries[2].decimals, 0);
  cr_assert_float_eq(s->entries[2].optimal, 8.0, 0);
  cr_assert_eq(s->entries[2].line, 5);
  mapf_scen_free(s);
  mapf_grid_free(g);
}

Test(scen, checks_no_cells_without_a_grid) {
  mapf_scen *s = test_load_scen(SCENS "blocked_start.scen", NULL, 0);
  cr_assert_eq(s->n, 2);
  mapf_scen_free(s);
}

Test(scen, parses_optimal_length_exactly) {
  mapf_grid *g = test_load_grid(MAPS "tiny.map");
  mapf_scen *s = test_load_scen(SCENS "tiny.map.scen", g, 0);
  /* Correctly rounded, as strtod would give. */
  cr_assert(s->entries[0].optimal == 9.41421356);
  cr_assert(s->entries[4].optimal == 2.41421356);
  mapf_scen_free(s);
  mapf_grid_free(g);
}

Test(scen, rejects_file_without_version_line) {
  expect_scen_error("no_version.scen", 0, 1, 1,
                    "expected \"version 1\" or \"version 1.0\", found "
                    "\"0\\x09tiny.map\\x098\\x094\\x090\\x090\\x097\\x093\\x099.41421356\"");
}

Test(scen, rejects_unknown_version) {
  expect_scen_error("bad_version.scen", 0, 1, 1,
                    "expected \"version 1\" or \"version 1.0\", found \"version 2\"");
}

Test(scen, rejects_empty_file) {
  expect_scen_error("empty.scen", 0, 1, 1, "empty file; expected \"version 1\" or \"version 1.0\"");
}

Test(scen, rejects_line_with_too_few_fields) {
  expect_scen_error("few_fields.scen", MAPF_SCEN_SKIP_INVALID, 3, 21,
                    "expected 9 fields (bucket map width height start_x start_y goal_x goal_y "
                    "optimal_length), found 7; missing goal_y");
}

Test(scen, rejects_line_with_too_many_fields) {
  expect_scen_error("many_fields.scen", 0, 2, 35,
                    "expected 9 fields (bucket map width height start_x start_y goal_x goal_y "
                    "optimal_length), found more: \"extra\"");
}

Test(scen, rejects_non_numeric_coordinate) {
  expect_scen_error("bad_number.scen", 0, 2, 16, "start_x: expected an integer, found \"3a\"");
}

Test(scen, rejects_negative_optimal_length) {
  expect_scen_error("bad_length.scen", 0, 2, 24,
                    "optimal_length: expected a number >= 0, found \"-9.4\"");
}

Test(scen, rejects_start_on_blocked_cell) {
  expect_scen_error("blocked_start.scen", 0, 3, 16,
                    "start (2,0) is on a blocked cell '@' of map tiny.map");
}

Test(scen, rejects_goal_outside_the_map) {
  expect_scen_error("outside_goal.scen", 0, 2, 20, "goal (8,1) is outside the map tiny.map (8 x 4)");
}

Test(scen, reports_missing_file_as_io_error) {
  mapf_scen *s = NULL;
  mapf_diag d;
  cr_assert_eq(mapf_scen_load(SCENS "no_such.scen", NULL, 0, &s, &d), MAPF_EIO);
  cr_assert_null(s);
  char got[2048];
  format_diag(&d, got, sizeof got);
  cr_assert_str_eq(got, SCENS "no_such.scen: error: cannot open file: No such file or directory");
}

/* The reader takes only regular files: a directory or a FIFO says what it is (the FIFO at once:
 * the timeout fails an open that waits for a writer). */
Test(scen, refuses_a_directory_or_a_fifo, .init = make_tmpdir, .fini = remove_tmpdir,
     .timeout = 20) {
  mapf_scen *s = NULL;
  mapf_diag d;
  char got[2048], want[600], fifo[600];
  cr_assert_eq(mapf_scen_load(tmpdir, NULL, 0, &s, &d), MAPF_EIO);
  format_diag(&d, got, sizeof got);
  snprintf(want, sizeof want, "%s: error: is a directory", tmpdir);
  cr_assert_str_eq(got, want);
  snprintf(fifo, sizeof fifo, "%s/fifo.scen", tmpdir);
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  cr_assert_eq(mapf_scen_load(fifo, NULL, 0, &s, &d), MAPF_EIO);
  cr_assert_null(s);
  cr_assert_str_eq(d.msg, "is not a regular file (a FIFO)");
}

/* The check solve and plans share: a scenario file is for the map its first line names, by file
 * name (directories aside) and size. */
Test(scen, check_map_compares_the_named_map_and_its_size, .init = make_tmpdir,
     .fini = remove_tmpdir) {
  mapf_scen *s = test_load_scen(SCENS "tiny.map.scen", NULL, 0);
  mapf_diag d;
  char got[2048];
  mapf_grid *tiny = test_load_grid(MAPS "tiny.map");
  cr_assert_eq(mapf_scen_check_map(s, "t.scen", tiny, &d), MAPF_OK);
  struct {
    int w, h;
    const char *name, *want;
  } bad[] = {
      {9, 4, "tiny.map", "t.scen:2: error: the scenario is for map tiny.map (8 x 4), not tiny.map "
                         "(9 x 4)"},
      {8, 5, "tiny.map", "t.scen:2: error: the scenario is for map tiny.map (8 x 4), not tiny.map "
                         "(8 x 5)"},
      {8, 4, "other.map", "t.scen:2: error: the scenario is for map tiny.map (8 x 4), not "
                          "other.map (8 x 4)"},
  };
  for (int i = 0; i < 3; i++) {
    mapf_grid *g = test_open_grid(bad[i].w, bad[i].h, bad[i].name);
    cr_assert_eq(mapf_scen_check_map(s, "t.scen", g, &d), MAPF_EINVAL);
    format_diag(&d, got, sizeof got);
    cr_assert_str_eq(got, bad[i].want);
    mapf_grid_free(g);
  }
  mapf_scen_free(s);
  /* A map named with directories: its file name counts. */
  char path[600];
  snprintf(path, sizeof path, "%s/dirs.scen", tmpdir);
  FILE *f = fopen(path, "w");
  fputs("version 1\n0\tmaps/dao/tiny.map\t8\t4\t0\t0\t7\t3\t9.41421356\n", f);
  fclose(f);
  s = test_load_scen(path, NULL, 0);
  cr_assert_eq(mapf_scen_check_map(s, path, tiny, &d), MAPF_OK);
  mapf_scen_free(s);
  mapf_grid_free(tiny);
}

Test(scen, skips_invalid_lines_when_asked_and_keeps_the_first_reason) {
  mapf_grid *g = test_load_grid(MAPS "tiny.map");
  mapf_scen *s = test_load_scen(SCENS "mixed_invalid.scen", g, MAPF_SCEN_SKIP_INVALID);
  cr_assert_eq(s->n, 3);
  cr_assert_eq(s->skipped, 2);
  cr_assert_eq(s->entries[0].line, 2);
  cr_assert_eq(s->entries[1].line, 4);
  cr_assert_eq(s->entries[2].line, 6);
  char got[2048];
  format_diag(&s->first_skip, got, sizeof got);
  cr_assert_str_eq(got, SCENS "mixed_invalid.scen:3:20: error: goal (3,1) is on a blocked cell 'T' "
                              "of map tiny.map");
  mapf_scen_free(s);
  mapf_grid_free(g);
}

Test(scen, fails_on_the_first_invalid_line_without_the_skip_flag) {
  expect_scen_error("mixed_invalid.scen", 0, 3, 20,
                    "goal (3,1) is on a blocked cell 'T' of map tiny.map");
}

Test(scen, never_crashes_on_mutated_input) {
  /* Random byte edits, cuts and insertions of a valid scenario, read against tiny.map: every
   * result is a scenario or a parse error with a location (ASan/UBSan catch the rest). */
  mapf_grid *g = test_load_grid(MAPS "tiny.map");
  const char *base = "version 1\n0\ttiny.map\t8\t4\t0\t0\t7\t3\t9.41421356\n"
                     "1 tiny.map 8 4 7 0 0 3 8.24264069\n";
  size_t blen = strlen(base);
  static const char alphabet[] = "0123456789.-+eE \t\n\rx";
  char path[] = "/tmp/mapfarm_fuzz_scen_XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  close(fd);
  mapf_rng r;
  mapf_rng_seed(&r, 99);
  char buf[256];
  for (int it = 0; it < 1500; it++) {
    size_t len = test_mutate(&r, base, blen, 3, alphabet, sizeof alphabet - 1, buf, sizeof buf);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fwrite(buf, 1, len, f);
    fclose(f);
    mapf_scen *s = NULL;
    mapf_diag d;
    memset(&d, 0, sizeof d);
    int rc = mapf_scen_load(path, g, it % 2 ? MAPF_SCEN_SKIP_INVALID : 0, &s, &d);
    if (rc == MAPF_OK) {
      for (int32_t i = 0; i < s->n; i++) {
        cr_assert(mapf_grid_in(g, s->entries[i].sx, s->entries[i].sy));
        cr_assert(mapf_grid_in(g, s->entries[i].gx, s->entries[i].gy));
        cr_assert(s->entries[i].optimal >= 0);
      }
      mapf_scen_free(s);
    } else {
      cr_assert_eq(rc, MAPF_EPARSE);
      cr_assert_null(s);
      cr_assert_gt(d.line, 0);
      cr_assert_gt(d.col, 0);
    }
  }
  unlink(path);
  mapf_grid_free(g);
}

/* ---- instances from scenarios --------------------------------------------------------- */

Test(scen, builds_instance_from_the_first_n_entries) {
  mapf_grid *g = test_load_grid(MAPS "tiny.map");
  mapf_scen *s = test_load_scen(SCENS "tiny.map.scen", g, 0);
  mapf_instance *inst = NULL;
  mapf_diag d;
  cr_assert_eq(mapf_instance_from_scen(s, g, 1, 3, &inst, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(inst->n, 3);
  cr_assert_eq(inst->start[0], mapf_grid_id(g, 1, 1));
  cr_assert_eq(inst->goal[0], mapf_grid_id(g, 6, 1));
  cr_assert_eq(inst->start[2], mapf_grid_id(g, 4, 0));
  cr_assert_eq(inst->goal[2], mapf_grid_id(g, 1, 2));
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_OK);
  mapf_instance_free(inst);
  mapf_scen_free(s);
  mapf_grid_free(g);
}

/* Builds an instance from every entry of tests/data/scen/NAME on tests/data/maps/MAP; expects
 * MAPF_EINVAL with msg and d.line == line. */
static void expect_instance_error(const char *map, const char *name, int32_t first, int32_t n,
                                  int line, const char *msg) {
  char path[1024];
  snprintf(path, sizeof path, "%s%s", MAPS, map);
  mapf_grid *g = test_load_grid(path);
  snprintf(path, sizeof path, "%s%s", SCENS, name);
  mapf_scen *s = test_load_scen(path, NULL, 0);
  mapf_instance *inst = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  if (n < 0) n = s->n;
  cr_assert_eq(mapf_instance_from_scen(s, g, first, n, &inst, &d), MAPF_EINVAL);
  cr_assert_null(inst);
  cr_assert_eq(d.line, line);
  cr_assert_str_eq(d.msg, msg);
  mapf_scen_free(s);
  mapf_grid_free(g);
}

Test(scen, instance_rejects_two_agents_with_one_start) {
  expect_instance_error("tiny.map", "same_start.scen", 0, -1, 3,
                        "agent 0 (scenario line 2) and agent 1 (scenario line 3) have the same "
                        "start (0,0)");
}

Test(scen, instance_rejects_two_agents_with_one_goal) {
  expect_instance_error("tiny.map", "same_goal.scen", 0, -1, 3,
                        "agent 0 (scenario line 2) and agent 1 (scenario line 3) have the same "
                        "goal (7,3)");
}

Test(scen, instance_rejects_unreachable_goal) {
  expect_instance_error("two_rooms.map", "unreachable.scen", 0, -1, 3,
                        "agent 1 (scenario line 3): goal (4,0) is not reachable from start (1,0) "
                        "on map two_rooms.map");
}

Test(scen, instance_rejects_cells_outside_the_map) {
  expect_instance_error("tiny.map", "outside_goal.scen", 0, -1, 2,
                        "agent 0 (scenario line 2): goal (8,1) is outside the map tiny.map (8 x 4)");
}

Test(scen, instance_rejects_blocked_cells) {
  expect_instance_error("tiny.map", "blocked_start.scen", 0, -1, 3,
                        "agent 1 (scenario line 3): start (2,0) is on a blocked cell of map "
                        "tiny.map");
}

Test(scen, instance_rejects_more_agents_than_entries) {
  expect_instance_error("tiny.map", "tiny.map.scen", 4, 2, 0,
                        "the scenario has 5 entries; cannot take 2 agents from entry 4");
}

Test(scen, check_names_the_first_bad_agent) {
  mapf_grid *g =
      test_parse_grid("type octile\nheight 3\nwidth 5\nmap\n..@..\n..@..\n..@..\n", "t.map");
  mapf_instance *inst = mapf_instance_new(3);
  mapf_diag d;
  inst->start[0] = 0, inst->goal[0] = 1;
  inst->start[1] = 5, inst->goal[1] = 6;
  inst->start[2] = 3, inst->goal[2] = 4;
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_OK);
  inst->goal[2] = 1;
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "agent 2: goal (1,0) is not reachable from start (3,0) on map t.map");
  inst->start[2] = 10;
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "agent 0 and agent 2 have the same goal (1,0)");
  inst->goal[2] = 11;
  inst->start[1] = 2;
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "agent 1: start (2,0) is on a blocked cell of map t.map");
  inst->start[1] = 15;
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "agent 1: start cell 15 is outside the map t.map (5 x 3, 15 cells)");
  inst->start[1] = 0;
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "agent 0 and agent 1 have the same start (0,0)");
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- the `random` generator ---------------------------------------------------------- */

/* Checks every rule of the generator's output, plus start != goal. */
static void check_generated(const mapf_instance *inst, const mapf_grid *g, int32_t n) {
  mapf_diag d;
  cr_assert_eq(inst->n, n);
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_OK, "%s: %s", g->name, d.msg);
  for (int32_t i = 0; i < n; i++) {
    cr_assert_neq(inst->start[i], inst->goal[i], "%s: agent %d starts on its goal", g->name, i);
    cr_assert_geq(g->component_size[g->component[inst->start[i]]], 2);
  }
}

/* The passable cells in components of two or more, counted here from the components. */
static int32_t usable_cells(const mapf_grid *g) {
  int32_t usable = 0;
  for (int32_t c = 0; c < g->ncomponents; c++)
    if (g->component_size[c] >= 2) usable += g->component_size[c];
  return usable;
}

/* For seeds 0 .. nseeds-1: n agents on g, checked by check_generated; no start may be on cell
 * `never` (-1: no such cell). */
static void check_seeds(const mapf_grid *g, int32_t n, uint64_t nseeds, int32_t never) {
  for (uint64_t seed = 0; seed < nseeds; seed++) {
    mapf_instance *inst = test_random_instance(g, n, seed);
    check_generated(inst, g, n);
    for (int32_t i = 0; i < n; i++)
      cr_assert_neq(inst->start[i], never, "seed %llu: a start on cell %d",
                    (unsigned long long)seed, (int)never);
    mapf_instance_free(inst);
  }
}

/* Generates for seeds 0..nseeds-1 and several agent counts up to the usable cells; checks the
 * rules and that a seed gives the same instance twice. */
static void check_many(const mapf_grid *g, int nseeds) {
  int64_t usable = usable_cells(g);
  int32_t counts[] = {1, 2, 10, 100, 1000, (int32_t)usable / 2, (int32_t)usable};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
    int32_t n = counts[k];
    if (n < 1 || n > usable) continue;
    for (int seed = 0; seed < nseeds; seed++) {
      mapf_instance *a = NULL, *b = NULL;
      mapf_diag d;
      cr_assert_eq(mapf_scengen_random(g, n, (uint64_t)seed, &a, &d), MAPF_OK, "%s", d.msg);
      check_generated(a, g, n);
      if (seed < 2) {
        cr_assert_eq(mapf_scengen_random(g, n, (uint64_t)seed, &b, &d), MAPF_OK);
        cr_assert_eq(memcmp(a->start, b->start, (size_t)n * sizeof *a->start), 0);
        cr_assert_eq(memcmp(a->goal, b->goal, (size_t)n * sizeof *a->goal), 0);
        mapf_instance_free(b);
      }
      mapf_instance_free(a);
    }
  }
}

Test(scengen, keeps_every_rule_on_generated_maps, .timeout = 300) {
  mapf_mapgen_kind kinds[] = {MAPF_MAPGEN_RANDOM, MAPF_MAPGEN_ROOMS, MAPF_MAPGEN_MAZE};
  for (int k = 0; k < 3; k++) {
    for (uint64_t mseed = 0; mseed < 4; mseed++) {
      mapf_grid *g = test_mapgen(kinds[k], 24 + (int32_t)mseed * 7, 17 + (int32_t)mseed * 5,
                                 0.35, 1, mseed);
      check_many(g, 40);
      mapf_grid_free(g);
    }
  }
}

Test(scengen, different_seeds_give_different_instances) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 32, 32, 0.2, 1, 0); /* mapgen's defaults */
  mapf_diag d;
  mapf_instance *a = NULL, *b = NULL;
  cr_assert_eq(mapf_scengen_random(g, 20, 1, &a, &d), MAPF_OK);
  cr_assert_eq(mapf_scengen_random(g, 20, 2, &b, &d), MAPF_OK);
  cr_assert_neq(memcmp(a->start, b->start, 20 * sizeof *a->start), 0);
  mapf_instance_free(a);
  mapf_instance_free(b);
  mapf_grid_free(g);
}

Test(scengen, fills_every_cell_of_an_open_map_with_a_derangement) {
  mapf_grid *g =
      test_parse_grid("type octile\nheight 4\nwidth 4\nmap\n....\n....\n....\n....\n", "o.map");
  check_seeds(g, 16, 2000, -1);
  mapf_grid_free(g);
}

Test(scengen, fills_every_usable_cell_of_several_components) {
  /* Components of sizes 2, 1 (unusable), 2 and 2 (a column): 6 usable cells. */
  mapf_grid *g =
      test_parse_grid("type octile\nheight 2\nwidth 9\nmap\n..@.@..@.\n@@@@@@@@.\n", "gaps.map");
  check_seeds(g, 6, 2000, 3); /* cell 3 is the one-cell component */
  mapf_instance *inst = NULL;
  mapf_diag d;
  cr_assert_eq(mapf_scengen_random(g, 7, 0, &inst, &d), MAPF_ENOSPACE);
  cr_assert_null(inst);
  cr_assert_str_eq(d.msg, "map gaps.map has 6 passable cells in components of 2 or more; cannot "
                          "place 7 agents");
  mapf_grid_free(g);
}

Test(scengen, rejects_more_agents_than_a_generated_map_holds) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 8, 8, 0.2, 1, 1);
  mapf_diag d;
  int usable = usable_cells(g);
  mapf_instance *inst = NULL;
  cr_assert_eq(mapf_scengen_random(g, usable + 1, 3, &inst, &d), MAPF_ENOSPACE);
  char want[256];
  snprintf(want, sizeof want,
           "map random-8x8-d0.2-s1 has %d passable cells in components of 2 or more; cannot "
           "place %d agents",
           usable, usable + 1);
  cr_assert_str_eq(d.msg, want);
  cr_assert_eq(mapf_scengen_random(g, usable, 3, &inst, &d), MAPF_OK);
  check_generated(inst, g, usable);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(scengen, rejects_fewer_than_one_agent) {
  mapf_grid *g = test_parse_grid("type octile\nheight 1\nwidth 3\nmap\n...\n", "r.map");
  mapf_instance *inst = NULL;
  mapf_diag d;
  cr_assert_eq(mapf_scengen_random(g, 0, 0, &inst, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "agents: expected an integer >= 1, found 0");
  cr_assert_eq(mapf_scengen_random(g, -5, 0, &inst, &d), MAPF_EINVAL);
  cr_assert_null(inst);
  mapf_grid_free(g);
}

Test(scengen, cannot_place_an_agent_on_a_one_cell_map) {
  mapf_grid *g = test_parse_grid("type octile\nheight 1\nwidth 1\nmap\n.\n", "one.map");
  mapf_instance *inst = NULL;
  mapf_diag d;
  cr_assert_eq(mapf_scengen_random(g, 1, 0, &inst, &d), MAPF_ENOSPACE);
  cr_assert_str_eq(d.msg, "map one.map has 0 passable cells in components of 2 or more; cannot "
                          "place 1 agents");
  mapf_grid_free(g);
}

Test(scengen, fills_a_map_of_one_row) {
  mapf_grid *g = test_parse_grid("type octile\nheight 1\nwidth 12\nmap\n.....@......\n", "row.map");
  check_seeds(g, 11, 500, -1);
  mapf_grid_free(g);
}

Test(scengen, draws_starts_and_goals_uniformly) {
  /* One agent on an open 3x3 map: start and goal each uniform over the 9 cells (goal uniform
   * over the other 8 given the start). 9000 draws: about 1000 per cell. */
  mapf_grid *g = test_parse_grid("type octile\nheight 3\nwidth 3\nmap\n...\n...\n...\n", "u.map");
  int starts[9] = {0}, goals[9] = {0}, pairs[81] = {0};
  for (uint64_t seed = 0; seed < 9000; seed++) {
    mapf_instance *inst = NULL;
    mapf_diag d;
    cr_assert_eq(mapf_scengen_random(g, 1, seed, &inst, &d), MAPF_OK);
    starts[inst->start[0]]++;
    goals[inst->goal[0]]++;
    pairs[inst->start[0] * 9 + inst->goal[0]]++;
    mapf_instance_free(inst);
  }
  for (int c = 0; c < 9; c++) {
    cr_assert(starts[c] > 850 && starts[c] < 1150, "cell %d drawn %d times as start", c,
              starts[c]);
    cr_assert(goals[c] > 850 && goals[c] < 1150, "cell %d drawn %d times as goal", c, goals[c]);
    cr_assert_eq(pairs[c * 9 + c], 0);
  }
  mapf_grid_free(g);
}

Test(scengen, places_tens_of_thousands_of_agents_quickly) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 256, 256, 0.3, 1, 0);
  int32_t usable = usable_cells(g);
  mapf_instance *inst = test_random_instance(g, usable, 9);
  check_generated(inst, g, usable);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- writer ----------------------------------------------------------------------------- */

Test(scen, writes_movingai_version_1_and_reads_it_back) {
  mapf_grid *g = test_load_grid(MAPS "tiny.map");
  mapf_instance *inst = mapf_instance_new(2);
  inst->start[0] = mapf_grid_id(g, 0, 0);
  inst->goal[0] = mapf_grid_id(g, 7, 3);
  inst->start[1] = mapf_grid_id(g, 5, 3);
  inst->goal[1] = mapf_grid_id(g, 4, 1);
  double opt[2] = {9.414213562373095, 2.414213562373095};
  char path[] = "/tmp/mapfarm_test_scen_XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  FILE *f = fdopen(fd, "w+");
  cr_assert_eq(mapf_instance_write_scen(inst, g, "tiny.map", opt, f), MAPF_OK);
  rewind(f);
  char text[512] = {0};
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = '\0';
  cr_assert_str_eq(text, "version 1\n"
                         "0\ttiny.map\t8\t4\t0\t0\t7\t3\t9.41421356\n"
                         "0\ttiny.map\t8\t4\t5\t3\t4\t1\t2.41421356\n");
  mapf_scen *s = test_load_scen(path, g, 0);
  unlink(path);
  cr_assert_eq(s->n, 2);
  cr_assert_eq(s->entries[1].decimals, 8);
  mapf_instance *back = NULL;
  mapf_diag d;
  cr_assert_eq(mapf_instance_from_scen(s, g, 0, 2, &back, &d), MAPF_OK);
  cr_assert_eq(memcmp(back->start, inst->start, 2 * sizeof *inst->start), 0);
  cr_assert_eq(memcmp(back->goal, inst->goal, 2 * sizeof *inst->goal), 0);
  mapf_instance_free(back);
  mapf_scen_free(s);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(scen, writes_zero_lengths_and_the_grid_name_by_default) {
  mapf_grid *g = test_parse_grid("type octile\nheight 1\nwidth 3\nmap\n...\n", "r.map");
  mapf_instance *inst = mapf_instance_new(1);
  inst->start[0] = 0;
  inst->goal[0] = 2;
  char buf[256] = {0};
  FILE *f = fmemopen(buf, sizeof buf - 1, "w");
  cr_assert_not_null(f);
  cr_assert_eq(mapf_instance_write_scen(inst, g, NULL, NULL, f), MAPF_OK);
  fclose(f);
  cr_assert_str_eq(buf, "version 1\n0\tr.map\t3\t1\t0\t0\t2\t0\t0.00000000\n");
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(scen, reports_a_failed_write_as_io_error) {
  FILE *f = fopen("/dev/full", "w");
  if (!f) cr_skip_test("/dev/full is not available");
  mapf_grid *g = test_parse_grid("type octile\nheight 1\nwidth 3\nmap\n...\n", "r.map");
  mapf_instance *inst = mapf_instance_new(1);
  inst->start[0] = 0;
  inst->goal[0] = 2;
  cr_assert_eq(mapf_instance_write_scen(inst, g, NULL, NULL, f), MAPF_EIO);
  fclose(f);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- the MovingAI scenario sets -------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

Test(scen, rejects_or_skips_the_invalid_lines_of_the_wc3_scenarios) {
  REQUIRE_MAPS(dir);
  const char *maps[] = {"blastedlands", "duskwood", "golemsinthemist"};
  for (int i = 0; i < 3; i++) {
    char mpath[4300], spath[4300];
    snprintf(mpath, sizeof mpath, "%s/wc3-512/%s.map", dir, maps[i]);
    snprintf(spath, sizeof spath, "%s/scen/wc3-512/%s.map.scen", dir, maps[i]);
    mapf_grid *g = test_load_grid(mpath);
    mapf_scen *s = NULL;
    mapf_diag d;
    cr_assert_eq(mapf_scen_load(spath, g, 0, &s, &d), MAPF_EPARSE);
    cr_assert_null(s);
    cr_assert_str_eq(d.file, spath);
    cr_assert(d.line > 1 && d.col > 1);
    cr_assert(strstr(d.msg, "is on a blocked cell") || strstr(d.msg, "is outside the map"), "%s",
              d.msg);
    s = test_load_scen(spath, g, MAPF_SCEN_SKIP_INVALID);
    cr_assert_gt(s->skipped, 0);
    cr_assert_eq(s->n + s->skipped, 1280);
    cr_assert_eq(s->first_skip.line, d.line);
    cr_assert_str_eq(s->first_skip.msg, d.msg);
    if (i == 0) {
      cr_assert_eq(s->skipped, 54); /* movingai/README.md: blastedlands 54 of 1,280 */
      cr_assert_str_eq(d.msg, "start (109,81) is on a blocked cell 'W' of map blastedlands.map");
    }
    mapf_scen_free(s);
    mapf_grid_free(g);
  }
}

/* Loads every scenario of DIR/SUB against the map that map_for() names, without skipping. */
typedef void (*map_for_fn)(const char *dir, const char *scen_name, char *out, size_t cap);

static void map_for_single(const char *dir, const char *scen_name, char *out, size_t cap) {
  /* scen/SET/X.map.scen -> SET/X.map, bench/X.map.scen -> bench/X.map */
  snprintf(out, cap, "%s/%.*s", dir, (int)(strlen(scen_name) - 5), scen_name);
}

static void map_for_mapf(const char *dir, const char *scen_name, char *out, size_t cap) {
  /* mapf-scen/scen-random/NAME-random-K.scen -> mapf/NAME.map */
  const char *cut = strstr(scen_name, "-random-");
  snprintf(out, cap, "%s/mapf/%.*s.map", dir, cut ? (int)(cut - scen_name) : 0, scen_name);
}

static int load_set(const char *dir, const char *sub, const char *mapsub, map_for_fn map_for,
                    int as_instance) {
  char sdir[4300];
  snprintf(sdir, sizeof sdir, "%s/%s", dir, sub);
  DIR *dp = opendir(sdir);
  cr_assert_not_null(dp, "cannot open %s", sdir);
  struct dirent *e;
  int count = 0;
  char last_map[4400] = "";
  mapf_grid *g = NULL;
  /* readdir order is arbitrary; maps are reloaded when the name changes. */
  while ((e = readdir(dp)) != NULL) {
    if (!ends_with(e->d_name, ".scen")) continue;
    char spath[4600], mpath[4400];
    snprintf(spath, sizeof spath, "%s/%s", sdir, e->d_name);
    map_for(mapsub ? mapsub : dir, e->d_name, mpath, sizeof mpath);
    if (strcmp(mpath, last_map) != 0) {
      mapf_grid_free(g);
      g = test_load_grid(mpath);
      snprintf(last_map, sizeof last_map, "%s", mpath);
    }
    mapf_scen *s = test_load_scen(spath, g, 0);
    cr_assert_gt(s->n, 0, "%s", spath);
    for (int32_t i = 0; i < s->n; i++) {
      cr_assert_eq(s->entries[i].width, g->width, "%s:%d", spath, s->entries[i].line);
      cr_assert_eq(s->entries[i].height, g->height, "%s:%d", spath, s->entries[i].line);
    }
    if (as_instance) {
      mapf_instance *inst = NULL;
      mapf_diag d;
      cr_assert_eq(mapf_instance_from_scen(s, g, 0, s->n, &inst, &d), MAPF_OK, "%s: %s", spath,
                   d.msg);
      mapf_instance_free(inst);
    }
    mapf_scen_free(s);
    count++;
  }
  closedir(dp);
  mapf_grid_free(g);
  return count;
}

Test(scen, loads_every_valid_movingai_scenario_with_its_map, .timeout = 600) {
  REQUIRE_MAPS(dir);
  char sub[4200];
  int n = 0;
  const char *sets[] = {"bg512", "dao"};
  for (int i = 0; i < 2; i++) {
    char sdir[64], mdir[4200];
    snprintf(sdir, sizeof sdir, "scen/%s", sets[i]);
    snprintf(mdir, sizeof mdir, "%s/%s", dir, sets[i]);
    n += load_set(dir, sdir, mdir, map_for_single, 0);
  }
  snprintf(sub, sizeof sub, "%s/bench", dir);
  n += load_set(dir, "bench", sub, map_for_single, 0);
  /* MAPF scenarios: the whole file is a valid instance (distinct starts and goals). */
  n += load_set(dir, "mapf-scen/scen-random", NULL, map_for_mapf, 1);
  cr_assert_geq(n, 170, "only %d scenario files found", n);
}

Test(scen, records_printed_decimals_of_real_files) {
  REQUIRE_MAPS(dir);
  char path[4300];
  snprintf(path, sizeof path, "%s/scen/dao/lak304d.map.scen", dir);
  mapf_scen *s = test_load_scen(path, NULL, 0);
  cr_assert_eq(s->entries[0].decimals, 5);
  cr_assert(s->entries[0].optimal == 3.41421);
  cr_assert_str_eq(s->map, "maps/dao/lak304d.map");
  mapf_scen_free(s);
  snprintf(path, sizeof path, "%s/mapf-scen/scen-random/empty-8-8-random-1.scen", dir);
  s = test_load_scen(path, NULL, 0);
  cr_assert_eq(s->entries[0].decimals, 8);
  cr_assert(s->entries[0].optimal == 4.24264069);
  mapf_scen_free(s);
}

Test(scengen, keeps_every_rule_on_movingai_maps, .timeout = 600) {
  REQUIRE_MAPS(dir);
  const char *maps[] = {"mapf/random-32-32-20.map", "mapf/maze-32-32-2.map",
                        "mapf/room-32-32-4.map",    "mapf/den312d.map",
                        "mapf/warehouse-10-20-10-2-1.map", "dao/lak307d.map",
                        "bg/AR0012SR.map"};
  for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, maps[i]);
    mapf_grid *g = test_load_grid(path);
    check_many(g, 10);
    mapf_grid_free(g);
  }
}
