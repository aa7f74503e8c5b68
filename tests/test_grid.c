/* test_grid.c: the MovingAI .map reader (movingai.c) and grid invariants on hand-made fixtures
 * (tests/data/maps) and on every map of the MovingAI sets (../shared/movingai). */
#ifndef MAPFARM_SOURCE_DIR /* before testutil.h, which has a fallback */
#error "MAPFARM_SOURCE_DIR must name the repository root"
#endif

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grid.h"
#include "rng.h"
#include "testutil.h"

#define MAPS MAPFARM_SOURCE_DIR "/tests/data/maps/"

TEST_TMPDIR("grid");

static mapf_grid *load_ok(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s%s", MAPS, name);
  return test_load_grid(path);
}

/* Loads tests/data/maps/NAME, which must fail with err and exactly "PATH:LINE:COL: error: MSG"
 * (or "PATH: error: MSG" when line is 0). */
static void expect_error(const char *name, int err, int line, int col, const char *msg) {
  char path[1024], want[2048], got[2048];
  snprintf(path, sizeof path, "%s%s", MAPS, name);
  mapf_grid *g = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  int rc = mapf_grid_load(path, &g, &d);
  mapf_diag_format(&d, got, sizeof got);
  cr_assert_eq(rc, err, "%s: expected error %d, got %d (%s)", name, err, rc, got);
  cr_assert_null(g, "%s: *out must stay untouched on failure", name);
  if (line > 0)
    snprintf(want, sizeof want, "%s:%d:%d: error: %s", path, line, col, msg);
  else
    snprintf(want, sizeof want, "%s: error: %s", path, msg);
  cr_assert_str_eq(got, want);
}

/* ---- fixtures that load --------------------------------------------------------------- */

Test(grid, loads_every_terrain_character) {
  mapf_grid *g = load_ok("tiny.map");
  cr_assert_eq(g->width, 8);
  cr_assert_eq(g->height, 4);
  cr_assert_eq(g->ncells, 32);
  cr_assert_eq(g->npassable, 27);
  cr_assert_str_eq(g->name, "tiny.map");
  cr_assert_not_null(g->terrain);
  cr_assert_eq(memcmp(g->terrain, "..@@.....G.T..S...O...W.........", 32), 0);
  /* G and S are passable, T, O, W and @ blocked. */
  cr_assert_eq(g->passable[mapf_grid_id(g, 1, 1)], 1);
  cr_assert_eq(g->passable[mapf_grid_id(g, 6, 1)], 1);
  cr_assert_eq(g->passable[mapf_grid_id(g, 3, 1)], 0);
  cr_assert_eq(g->passable[mapf_grid_id(g, 2, 2)], 0);
  cr_assert_eq(g->passable[mapf_grid_id(g, 6, 2)], 0);
  cr_assert_eq(g->passable[mapf_grid_id(g, 2, 0)], 0);
  cr_assert_eq(g->ncomponents, 1);
  cr_assert_eq(g->component[mapf_grid_id(g, 2, 0)], -1);
  mapf_grid_free(g);
}

Test(grid, accepts_crlf_and_no_final_newline) {
  mapf_grid *g = load_ok("crlf_no_newline.map");
  cr_assert_eq(g->width, 4);
  cr_assert_eq(g->height, 3);
  cr_assert_eq(g->npassable, 10);
  cr_assert_eq(memcmp(g->terrain, ".....@@.....", 12), 0);
  mapf_grid_free(g);
}

Test(grid, accepts_width_before_height_and_trailing_blank_lines) {
  mapf_grid *g = load_ok("width_first.map");
  cr_assert_eq(g->width, 5);
  cr_assert_eq(g->height, 2);
  cr_assert_eq(g->npassable, 6);
  mapf_grid_free(g);
}

Test(grid, loads_a_map_of_one_row) {
  mapf_grid *g = load_ok("one_row.map");
  cr_assert_eq(g->width, 12);
  cr_assert_eq(g->height, 1);
  cr_assert_eq(g->npassable, 11);
  cr_assert_eq(g->ncomponents, 2);
  cr_assert_eq(g->component_size[0], 5);
  cr_assert_eq(g->component_size[1], 6);
  /* Only east and west moves exist in one row. */
  cr_assert_eq(g->moves[mapf_grid_id(g, 1, 0)], (1u << MAPF_DIR_E) | (1u << MAPF_DIR_W));
  mapf_grid_free(g);
}

Test(grid, loads_a_map_of_one_cell) {
  mapf_grid *g = load_ok("one_cell.map");
  cr_assert_eq(g->ncells, 1);
  cr_assert_eq(g->npassable, 1);
  cr_assert_eq(g->ncomponents, 1);
  cr_assert_eq(g->moves[0], 0);
  mapf_grid_free(g);
}

Test(grid, names_the_grid_after_the_file_without_directories) {
  mapf_grid *g = NULL;
  const char *text = "type octile\nheight 1\nwidth 2\nmap\n..\n";
  cr_assert_eq(mapf_grid_parse(text, strlen(text), "some/dir/x.map", &g, NULL), MAPF_OK);
  cr_assert_str_eq(g->name, "x.map");
  mapf_grid_free(g);
}

Test(grid, hash_depends_on_content_not_name) {
  const char *a = "type octile\nheight 2\nwidth 3\nmap\n...\n.@.\n";
  const char *b = "type octile\r\nwidth 3\r\nheight 2\r\nmap\r\n.G.\r\nST.";
  const char *c = "type octile\nheight 2\nwidth 3\nmap\n...\n...\n";
  mapf_grid *ga = NULL, *gb = NULL, *gc = NULL;
  cr_assert_eq(mapf_grid_parse(a, strlen(a), "a.map", &ga, NULL), MAPF_OK);
  cr_assert_eq(mapf_grid_parse(b, strlen(b), "b.map", &gb, NULL), MAPF_OK);
  cr_assert_eq(mapf_grid_parse(c, strlen(c), "a.map", &gc, NULL), MAPF_OK);
  cr_assert_eq(ga->hash, gb->hash);
  cr_assert_neq(ga->hash, gc->hash);
  mapf_grid_free(ga);
  mapf_grid_free(gb);
  mapf_grid_free(gc);
}

/* ---- fixtures that fail: the exact message ----------------------------------------- */

Test(grid, rejects_misspelt_header_key) {
  expect_error("bad_header.map", MAPF_EPARSE, 2, 1,
               "expected \"height H\" or \"width W\", found \"heigth 4\"");
}

Test(grid, rejects_map_type_other_than_octile) {
  expect_error("bad_type.map", MAPF_EPARSE, 1, 6, "unsupported map type \"hex\", expected \"octile\"");
}

Test(grid, rejects_row_shorter_than_width) {
  expect_error("short_row.map", MAPF_EPARSE, 7, 6, "row y=2 has 5 characters, expected 8 (width 8)");
}

Test(grid, rejects_row_longer_than_width) {
  expect_error("long_row.map", MAPF_EPARSE, 6, 9, "row y=1 has 9 characters, expected 8 (width 8)");
}

Test(grid, rejects_unknown_terrain_character) {
  expect_error("bad_char.map", MAPF_EPARSE, 7, 4,
               "unknown terrain character 'x' (expected one of . G S @ O T W)");
}

Test(grid, rejects_fewer_rows_than_height) {
  expect_error("too_few_rows.map", MAPF_EPARSE, 8, 1, "map ends after 3 rows, expected 4 (height 4)");
}

Test(grid, rejects_more_rows_than_height) {
  expect_error("too_many_rows.map", MAPF_EPARSE, 7, 1, "found more than 2 rows (height 2)");
}

Test(grid, rejects_absurd_side_before_allocating) {
  expect_error("huge_size.map", MAPF_EPARSE, 2, 8,
               "height: expected an integer in 1..16384, found \"99999999999\"");
}

Test(grid, rejects_too_many_cells_before_allocating) {
  expect_error("too_many_cells.map", MAPF_EPARSE, 3, 1,
               "map of 16384 x 16384 = 268435456 cells exceeds the limit of 67108864 cells");
}

Test(grid, rejects_non_numeric_size) {
  expect_error("bad_number.map", MAPF_EPARSE, 3, 7,
               "width: expected an integer in 1..16384, found \"eight\"");
}

Test(grid, rejects_missing_map_line) {
  expect_error("bad_map_line.map", MAPF_EPARSE, 4, 1, "expected \"map\", found \"mapp\"");
}

Test(grid, rejects_truncated_header) {
  expect_error("truncated_header.map", MAPF_EPARSE, 3, 1,
               "unexpected end of file; expected \"width W\"");
}

Test(grid, rejects_empty_file) {
  expect_error("empty.map", MAPF_EPARSE, 1, 1,
               "empty file; expected a MovingAI map starting with \"type octile\"");
}

Test(grid, reports_missing_file_as_io_error) {
  expect_error("no_such_file.map", MAPF_EIO, 0, 0, "cannot open file: No such file or directory");
}

Test(grid, reports_a_directory_as_io_error) {
  expect_error("", MAPF_EIO, 0, 0, "is a directory");
}

/* Only regular files are read (mapf_read_file): a device is not read until the size limit, and a
 * FIFO is refused at once instead of waiting for a writer (the timeout fails a blocked open). */
Test(grid, refuses_a_device_or_a_fifo_without_reading_it, .init = make_tmpdir,
     .fini = remove_tmpdir, .timeout = 20) {
  mapf_grid *g = NULL;
  mapf_diag d;
  char got[2048], fifo[600];
  cr_assert_eq(mapf_grid_load("/dev/zero", &g, &d), MAPF_EIO);
  mapf_diag_format(&d, got, sizeof got);
  cr_assert_str_eq(got, "/dev/zero: error: is not a regular file (a character device)");
  snprintf(fifo, sizeof fifo, "%s/fifo.map", tmpdir);
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  cr_assert_eq(mapf_grid_load(fifo, &g, &d), MAPF_EIO);
  cr_assert_null(g);
  cr_assert_str_eq(d.msg, "is not a regular file (a FIFO)");
  cr_assert_str_eq(d.file, fifo);
}

/* The reader that every file input uses: the whole file and its length, a NUL after it; a file
 * longer than the limit is refused. */
Test(grid, read_file_reads_a_whole_regular_file_up_to_its_limit) {
  char *buf = NULL;
  size_t len = 0;
  mapf_diag d;
  cr_assert_eq(mapf_read_file(MAPS "tiny.map", 1 << 20, &buf, &len, &d), MAPF_OK, "%s", d.msg);
  size_t want_len;
  char *want = test_slurp(MAPS "tiny.map", &want_len);
  cr_assert_eq(len, want_len);
  cr_assert(memcmp(buf, want, len) == 0 && buf[len] == '\0');
  free(buf);
  buf = NULL;
  cr_assert_eq(mapf_read_file(MAPS "tiny.map", want_len - 1, &buf, &len, &d), MAPF_EPARSE);
  cr_assert_null(buf);
  cr_assert_eq(mapf_read_file(MAPS "tiny.map", want_len, &buf, &len, &d), MAPF_OK);
  cr_assert_eq(len, want_len);
  free(buf);
  free(want);
}

Test(grid, rejects_zero_size) {
  const char *text = "type octile\nheight 0\nwidth 3\nmap\n";
  mapf_grid *g = NULL;
  mapf_diag d;
  cr_assert_eq(mapf_grid_parse(text, strlen(text), "z.map", &g, &d), MAPF_EPARSE);
  char got[1024];
  mapf_diag_format(&d, got, sizeof got);
  cr_assert_str_eq(got, "z.map:2:8: error: height: expected an integer in 1..16384, found \"0\"");
}

Test(grid, shows_non_printable_characters_in_hex) {
  const char text[] = "type octile\nheight 1\nwidth 3\nmap\n.\0.\n";
  mapf_grid *g = NULL;
  mapf_diag d;
  cr_assert_eq(mapf_grid_parse(text, sizeof text - 1, "n.map", &g, &d), MAPF_EPARSE);
  char got[1024];
  mapf_diag_format(&d, got, sizeof got);
  cr_assert_str_eq(got,
                   "n.map:5:2: error: unknown terrain character '\\x00' (expected one of . G S "
                   "@ O T W)");
}

Test(grid, never_crashes_on_mutated_input) {
  /* Random byte edits, cuts and insertions of a valid map: every result is either a grid or
   * a parse error with a location (ASan/UBSan catch the rest). */
  const char *base = "type octile\nheight 4\nwidth 8\nmap\n..@@....\n.G.T..S.\n..O...W.\n........\n";
  size_t blen = strlen(base);
  static const char alphabet[] = ".@GSOTW\n\r \t0123456789-x\0";
  mapf_rng r;
  mapf_rng_seed(&r, 2024);
  char buf[256];
  for (int it = 0; it < 5000; it++) {
    size_t len = test_mutate(&r, base, blen, 4, alphabet, sizeof alphabet - 1, buf, sizeof buf);
    mapf_grid *g = NULL;
    mapf_diag d;
    memset(&d, 0, sizeof d);
    int rc = mapf_grid_parse(buf, len, "fuzz.map", &g, &d);
    if (rc == MAPF_OK) {
      cr_assert_not_null(g);
      cr_assert_eq((int64_t)g->width * g->height, g->ncells);
      mapf_grid_free(g);
    } else {
      cr_assert_eq(rc, MAPF_EPARSE);
      cr_assert_null(g);
      cr_assert_gt(d.line, 0);
      cr_assert_gt(d.col, 0);
      cr_assert_gt(strlen(d.msg), 0);
    }
  }
}

/* ---- every MovingAI map ---------------------------------------------------------------- */

typedef struct manifest_row {
  char key[256]; /* set/file */
  int width, height;
  long passable;
  int seen;
} manifest_row;

/* Reads the .map rows of MANIFEST.tsv: set, file, WxH, passable count. */
static int read_manifest(const char *dir, manifest_row *rows, int cap) {
  char path[4200], line[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int n = 0;
  while (fgets(line, sizeof line, f) && n < cap) {
    if (line[0] == '#') continue;
    char *fields[5] = {0};
    char *save = NULL, *p = line;
    int k = 0;
    for (char *tok = strtok_r(p, "\t\n", &save); tok && k < 5;
         tok = strtok_r(NULL, "\t\n", &save))
      fields[k++] = tok;
    if (k < 4) continue;
    size_t fl = strlen(fields[1]);
    if (fl < 4 || strcmp(fields[1] + fl - 4, ".map") != 0) continue;
    manifest_row *r = &rows[n];
    if (sscanf(fields[2], "%dx%d", &r->width, &r->height) != 2) continue;
    r->passable = strtol(fields[3], NULL, 10);
    snprintf(r->key, sizeof r->key, "%s/%s", fields[0], fields[1]);
    r->seen = 0;
    n++;
  }
  fclose(f);
  return n;
}

typedef struct walk_state {
  manifest_row *rows;
  int nrows;
  int nmaps, nchecked;
} walk_state;

/* Loads one real map and checks it against the manifest and the grid invariants. */
static void check_real_map(void *ud, const char *path, const char *rel) {
  walk_state *w = ud;
  mapf_grid *g = test_load_grid(path);
  w->nmaps++;
  /* Invariants: npassable counts passable, components partition them, no corner cutting. */
  int32_t np = 0;
  int64_t sizes = 0;
  for (int32_t i = 0; i < g->ncells; i++) np += g->passable[i];
  for (int32_t c = 0; c < g->ncomponents; c++) sizes += g->component_size[c];
  cr_assert_eq(np, g->npassable, "%s", rel);
  cr_assert_eq(sizes, g->npassable, "%s", rel);
  for (int r = 0; r < w->nrows; r++) {
    if (strcmp(w->rows[r].key, rel) != 0) continue;
    w->rows[r].seen = 1;
    w->nchecked++;
    cr_assert_eq(g->width, w->rows[r].width, "%s: width", rel);
    cr_assert_eq(g->height, w->rows[r].height, "%s: height", rel);
    cr_assert_eq(g->npassable, w->rows[r].passable, "%s: passable cells", rel);
  }
  mapf_grid_free(g);
}

Test(grid, loads_every_movingai_map_with_manifest_counts, .timeout = 600) {
  REQUIRE_MAPS(dir);
  static manifest_row rows[1024];
  int nrows = read_manifest(dir, rows, 1024);
  walk_state w = {rows, nrows < 0 ? 0 : nrows, 0, 0};
  test_walk_maps(dir, dir, check_real_map, &w);
  cr_assert_gt(w.nmaps, 0, "no .map files under %s", dir);
  for (int r = 0; r < w.nrows; r++)
    cr_assert(rows[r].seen, "MANIFEST.tsv lists %s but it was not found", rows[r].key);
  cr_log_info("loaded %d maps, %d checked against MANIFEST.tsv", w.nmaps, w.nchecked);
}

/* ---- derived tables ------------------------------------------------------------------- */

/* mapf_grid_dir inverts mapf_dir_dx/dy for every cell and direction, and is -1 otherwise. */
Test(grid, dir_of_two_cells_inverts_the_direction_tables) {
  mapf_grid *g = mapf_grid_new(5, 5, "five");
  cr_assert_not_null(g);
  memset(g->passable, 1, (size_t)g->ncells);
  cr_assert_eq(mapf_grid_finish(g), MAPF_OK);
  int32_t c = mapf_grid_id(g, 2, 2);
  for (int d = 0; d < 8; d++)
    cr_expect_eq(mapf_grid_dir(g, c, mapf_grid_id(g, 2 + mapf_dir_dx[d], 2 + mapf_dir_dy[d])), d);
  cr_expect_eq(mapf_grid_dir(g, c, c), -1);
  cr_expect_eq(mapf_grid_dir(g, c, mapf_grid_id(g, 4, 2)), -1);
  cr_expect_eq(mapf_grid_dir(g, c, mapf_grid_id(g, 0, 0)), -1);
  mapf_grid_free(g);
}

/* The usable cells: passable cells of components of two or more cells, in id order, and the
 * same cells grouped by component with offsets. A random map has many small components. */
Test(grid, usable_cells_are_the_components_of_two_or_more_grouped) {
  mapf_rng r;
  mapf_rng_seed(&r, 12);
  mapf_grid *g = mapf_grid_new(40, 30, "random");
  cr_assert_not_null(g);
  for (int32_t i = 0; i < g->ncells; i++) g->passable[i] = mapf_rng_below(&r, 100) < 55;
  cr_assert_eq(mapf_grid_finish(g), MAPF_OK);
  int32_t n = 0, singles = 0;
  for (int32_t id = 0; id < g->ncells; id++) {
    int32_t c = g->component[id];
    if (c < 0) continue;
    if (g->component_size[c] < 2) {
      singles++;
      continue;
    }
    cr_assert_lt(n, g->nusable);
    cr_expect_eq(g->usable[n++], id);
  }
  cr_expect_eq(n, g->nusable);
  cr_expect_gt(singles, 0, "the map should have one-cell components to leave out");
  cr_expect_eq(g->usable_off[0], 0);
  cr_expect_eq(g->usable_off[g->ncomponents], g->nusable);
  for (int32_t c = 0; c < g->ncomponents; c++) {
    int32_t lo = g->usable_off[c], hi = g->usable_off[c + 1];
    cr_expect_eq(hi - lo, g->component_size[c] >= 2 ? g->component_size[c] : 0, "component %d",
                 (int)c);
    for (int32_t i = lo; i < hi; i++) {
      cr_expect_eq(g->component[g->usable_by_comp[i]], c);
      if (i > lo) cr_expect_lt(g->usable_by_comp[i - 1], g->usable_by_comp[i]);
    }
  }
  mapf_grid_free(g);
}
