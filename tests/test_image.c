/* test_image.c: instance images (image.c): native rendering, the agent-preserving resize, the
 * per-problem marks and line, and PNG output read back with libpng. */
#include <criterion/criterion.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grid.h"
#include "image.h"
#include "mapgen.h"
#include "scen.h"
#include "testutil.h"

/* ---- helpers ----------------------------------------------------------------------------- */

static mapf_grid *parse_map(const char *text) { return test_parse_grid(text, "hand.map"); }

/* A square generated map (test_mapgen; the maze corridors one cell wide). */
static mapf_grid *gen_map(mapf_mapgen_kind kind, int32_t side, double density, uint64_t seed) {
  return test_mapgen(kind, side, side, density, 1, seed);
}

static farm_image *render(const mapf_grid *g, const mapf_instance *inst) {
  farm_image *im = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  cr_assert_eq(farm_image_render(g, inst, &im, &d), MAPF_OK, "%s", d.msg);
  cr_assert_not_null(im);
  return im;
}

static farm_image *resize(const farm_image *src, int32_t w, int32_t h) {
  farm_image *im = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  cr_assert_eq(farm_image_resize(src, w, h, &im, &d), MAPF_OK, "%s", d.msg);
  cr_assert_not_null(im);
  return im;
}

static void expect_px(const farm_image *im, int32_t x, int32_t y, int r, int g, int b) {
  const uint8_t *p = farm_image_px(im, x, y);
  cr_assert(p[0] == r && p[1] == g && p[2] == b,
            "pixel (%d,%d) is (%d,%d,%d), expected (%d,%d,%d)", (int)x, (int)y, p[0], p[1], p[2],
            r, g, b);
}

static int px_is(const farm_image *im, int32_t x, int32_t y, int r, int g, int b) {
  const uint8_t *p = farm_image_px(im, x, y);
  return p[0] == r && p[1] == g && p[2] == b;
}

static void make_tmpdir(char *dir, size_t n) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, n, "%s/mapfarm-image-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  cr_assert_not_null(mkdtemp(dir), "mkdtemp failed");
}

static int exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* ---- native rendering -------------------------------------------------------------------- */

/* 5 x 4, blocked cells at (2,0) (1,1) (2,1) (0,3) (4,3). */
static const char *const hand_map = "type octile\nheight 4\nwidth 5\nmap\n"
                                    "..@..\n"
                                    ".@@..\n"
                                    ".....\n"
                                    "@...@\n";

Test(image, renders_cells_one_pixel_each_in_the_thesis_colours) {
  mapf_grid *g = parse_map(hand_map);
  mapf_instance *inst = mapf_instance_new(3);
  /* Agent 0 starts at (0,0) and goes to (4,2); agent 1 from (3,0) to (1,3); agent 2 from (1,2)
   * to (0,0), agent 0's start: that cell is a start and a goal and must come out red. */
  inst->start[0] = mapf_grid_id(g, 0, 0), inst->goal[0] = mapf_grid_id(g, 4, 2);
  inst->start[1] = mapf_grid_id(g, 3, 0), inst->goal[1] = mapf_grid_id(g, 1, 3);
  inst->start[2] = mapf_grid_id(g, 1, 2), inst->goal[2] = mapf_grid_id(g, 0, 0);
  farm_image *im = render(g, inst);
  cr_assert_eq(im->width, 5);
  cr_assert_eq(im->height, 4);
  static const char expect[4][6] = {"R.#S.", ".##..", ".S..R", "#R..#"};
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 5; x++) switch (expect[y][x]) {
      case '#': expect_px(im, x, y, 255, 255, 255); break;
      case '.': expect_px(im, x, y, 0, 0, 0); break;
      case 'S': expect_px(im, x, y, 0, 255, 0); break;
      case 'R': expect_px(im, x, y, 255, 0, 0); break;
      }
  farm_image_free(im);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(image, renders_the_map_alone_without_an_instance) {
  mapf_grid *g = parse_map(hand_map);
  farm_image *im = render(g, NULL);
  for (int32_t id = 0; id < g->ncells; id++) {
    int v = g->passable[id] ? 0 : 255;
    expect_px(im, mapf_grid_x(g, id), mapf_grid_y(g, id), v, v, v);
  }
  farm_image_free(im);
  mapf_grid_free(g);
}

Test(image, rejects_an_agent_outside_the_map_naming_it) {
  mapf_grid *g = parse_map(hand_map);
  mapf_instance *inst = mapf_instance_new(2);
  inst->start[0] = 0, inst->goal[0] = 1;
  inst->start[1] = 3, inst->goal[1] = 20; /* 5 x 4 = 20 cells: 0 .. 19 */
  farm_image *im = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  cr_assert_eq(farm_image_render(g, inst, &im, &d), MAPF_EINVAL);
  cr_assert_null(im);
  cr_assert_str_eq(d.msg, "agent 1: goal 20 is not a cell of the 5x4 map");
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(image, free_null_is_a_no_op) { farm_image_free(NULL); }

Test(image, new_rejects_sides_out_of_range) {
  cr_assert_null(farm_image_new(0, 5));
  cr_assert_null(farm_image_new(5, -1));
  cr_assert_null(farm_image_new(FARM_IMAGE_MAX_SIDE + 1, 1));
  farm_image *im = farm_image_new(3, 2);
  cr_assert_not_null(im);
  for (int i = 0; i < 3 * 2 * 3; i++) cr_assert_eq(im->rgb[i], 0, "a new image is black");
  farm_image_free(im);
}

/* ---- resizing ---------------------------------------------------------------------------- */

Test(image, scale_maps_pixel_centres) {
  cr_assert_eq(farm_image_scale(0, 512, 227), 0);
  cr_assert_eq(farm_image_scale(511, 512, 227), 226);
  cr_assert_eq(farm_image_scale(256, 512, 227), 113); /* 256.5 * 227 / 512 = 113.7 */
  cr_assert_eq(farm_image_scale(7, 10, 10), 7);
  cr_assert_eq(farm_image_scale(0, 2, 4), 1);       /* the centre 0.5 of 2 -> 1.0 of 4 */
  for (int32_t s = 0; s < 1000; s++) cr_assert_lt(farm_image_scale(s, 1000, 227), 227);
}

Test(image, resize_to_the_same_size_changes_nothing) {
  mapf_grid *g = gen_map(MAPF_MAPGEN_RANDOM, 40, 0.3, 5);
  mapf_instance *inst = test_random_instance(g, 30, 9);
  farm_image *im = render(g, inst);
  farm_image *same = resize(im, 40, 40);
  cr_assert_eq(memcmp(im->rgb, same->rgb, 40 * 40 * 3), 0);
  farm_image_free(same);
  farm_image_free(im);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(image, resize_defaults_to_227_and_rejects_bad_sides) {
  farm_image *src = farm_image_new(10, 10);
  farm_image *im = resize(src, 0, 0);
  cr_assert_eq(im->width, FARM_IMAGE_SIDE);
  cr_assert_eq(im->height, FARM_IMAGE_SIDE);
  farm_image_free(im);
  mapf_diag d;
  memset(&d, 0, sizeof d);
  im = NULL;
  cr_assert_eq(farm_image_resize(src, -1, 5, &im, &d), MAPF_EINVAL);
  cr_assert_null(im);
  cr_assert_not_null(strstr(d.msg, "-1x5"), "%s", d.msg);
  cr_assert_eq(farm_image_resize(src, 5, FARM_IMAGE_MAX_SIDE + 1, &im, &d), MAPF_EINVAL);
  farm_image_free(src);
}

/* The thesis's BGII maps resized to 512 x 512 (Sigurdson 2018), a few agents, the network's
 * 227 x 227: every start and goal is still there, at its scaled place, in its colour, unless
 * an agent of the other kind shares the output pixel and outnumbers it (the documented rule,
 * recomputed here from the instance); and no other pixel is green or red. */
Test(image, resize_keeps_every_agent_at_its_scaled_position) {
  mapf_grid *g = gen_map(MAPF_MAPGEN_RANDOM, 512, 0.25, 11);
  for (uint64_t seed = 1; seed <= 4; seed++) {
    mapf_instance *inst = test_random_instance(g, 40, seed);
    farm_image *native = render(g, inst);
    farm_image *im = resize(native, 0, 0);
    cr_assert_eq(im->width, 227);
    cr_assert_eq(im->height, 227);
    int32_t *starts = calloc(227 * 227, sizeof *starts);
    int32_t *goals = calloc(227 * 227, sizeof *goals);
    for (int32_t i = 0; i < inst->n; i++) {
      int32_t s = inst->start[i], t = inst->goal[i];
      starts[farm_image_scale(mapf_grid_y(g, s), 512, 227) * 227 +
             farm_image_scale(mapf_grid_x(g, s), 512, 227)]++;
      goals[farm_image_scale(mapf_grid_y(g, t), 512, 227) * 227 +
            farm_image_scale(mapf_grid_x(g, t), 512, 227)]++;
    }
    int32_t shown_starts = 0, shown_goals = 0;
    for (int32_t y = 0; y < 227; y++)
      for (int32_t x = 0; x < 227; x++) {
        int32_t ns = starts[y * 227 + x], ng = goals[y * 227 + x];
        if (ng > 0 && ng >= ns) {
          expect_px(im, x, y, 255, 0, 0);
          shown_goals++;
        } else if (ns > 0) {
          expect_px(im, x, y, 0, 255, 0);
          shown_starts++;
        } else {
          const uint8_t *p = farm_image_px(im, x, y);
          cr_assert(p[0] == p[1] && p[1] == p[2], "terrain pixel (%d,%d) is not grey", x, y);
        }
      }
    /* 40 starts and 40 goals among 51,529 pixels: nearly all have a pixel of their own. */
    cr_assert_geq(shown_starts, 36, "seed %d: %d starts shown", (int)seed, shown_starts);
    cr_assert_geq(shown_goals, 36, "seed %d: %d goals shown", (int)seed, shown_goals);
    free(starts);
    free(goals);
    farm_image_free(im);
    farm_image_free(native);
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);
}

/* Nearest neighbour would keep about (227/512)^2, a fifth, of single-pixel agents; the resize
 * keeps each one: with agents far apart (one every 16 cells on a grid, none sharing an output
 * pixel), every one of them shows. */
Test(image, resize_loses_no_isolated_agent) {
  mapf_grid *g = gen_map(MAPF_MAPGEN_RANDOM, 512, 0.0, 1);
  int32_t n = 0;
  mapf_instance *inst = mapf_instance_new(32 * 32);
  for (int32_t y = 3; y < 512; y += 16)
    for (int32_t x = 5; x < 512; x += 16) {
      inst->start[n] = mapf_grid_id(g, x, y);
      inst->goal[n] = mapf_grid_id(g, x + 8, y + 8);
      n++;
    }
  inst->n = n;
  farm_image *native = render(g, inst);
  farm_image *im = resize(native, 227, 227);
  int32_t green = 0, red = 0;
  for (int32_t y = 0; y < 227; y++)
    for (int32_t x = 0; x < 227; x++) {
      green += px_is(im, x, y, 0, 255, 0);
      red += px_is(im, x, y, 255, 0, 0);
    }
  cr_assert_eq(green, n);
  cr_assert_eq(red, n);
  farm_image_free(im);
  farm_image_free(native);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Area averaging keeps the terrain's proportions: the mean brightness of the resized image is
 * the blocked fraction of the map (agents stand on open cells and count as black). */
static void expect_terrain_kept(mapf_grid *g, int32_t agents) {
  mapf_instance *inst = agents ? test_random_instance(g, agents, 3) : NULL;
  farm_image *native = render(g, inst);
  farm_image *im = resize(native, 227, 227);
  double blocked = 1.0 - (double)g->npassable / g->ncells, sum = 0;
  int64_t terrain = 0;
  for (int32_t y = 0; y < 227; y++)
    for (int32_t x = 0; x < 227; x++) {
      if (px_is(im, x, y, 0, 255, 0) || px_is(im, x, y, 255, 0, 0)) continue;
      sum += farm_image_px(im, x, y)[0] / 255.0;
      terrain++;
    }
  cr_assert_geq(terrain, 227 * 227 - 2 * agents);
  double mean = sum / terrain;
  cr_assert(mean > blocked - 0.01 && mean < blocked + 0.01,
            "%s: mean brightness %.4f, blocked fraction %.4f", g->name, mean, blocked);
  farm_image_free(im);
  farm_image_free(native);
  mapf_instance_free(inst);
}

Test(image, resize_keeps_the_blocked_fraction) {
  mapf_grid *g = gen_map(MAPF_MAPGEN_RANDOM, 512, 0.3, 21);
  expect_terrain_kept(g, 25);
  mapf_grid_free(g);
  g = gen_map(MAPF_MAPGEN_ROOMS, 500, 0.2, 22);
  expect_terrain_kept(g, 25);
  mapf_grid_free(g);
  g = gen_map(MAPF_MAPGEN_MAZE, 480, 0.2, 23);
  expect_terrain_kept(g, 0);
  mapf_grid_free(g);
}

/* A wholly blocked block is white and a wholly open one black; a block of a 2:1 reduction with
 * one blocked cell in four is a quarter grey, rounded to nearest (63.75 -> 64). */
Test(image, resize_averages_blocks_exactly) {
  mapf_grid *g = parse_map("type octile\nheight 4\nwidth 6\nmap\n"
                           "@@..@.\n"
                           "@@....\n"
                           "..@@..\n"
                           "..@@..\n");
  farm_image *native = render(g, NULL);
  farm_image *im = resize(native, 3, 2);
  expect_px(im, 0, 0, 255, 255, 255);
  expect_px(im, 1, 0, 0, 0, 0);
  expect_px(im, 2, 0, 64, 64, 64);
  expect_px(im, 0, 1, 0, 0, 0);
  expect_px(im, 1, 1, 255, 255, 255);
  expect_px(im, 2, 1, 0, 0, 0);
  farm_image_free(im);
  farm_image_free(native);
  mapf_grid_free(g);
}

/* Enlarging: a cell becomes a block of pixels, an agent cell a block of agent pixels. */
Test(image, resize_enlarges_cells_into_blocks) {
  mapf_grid *g = parse_map("type octile\nheight 2\nwidth 2\nmap\n@.\n..\n");
  mapf_instance *inst = mapf_instance_new(1);
  inst->start[0] = mapf_grid_id(g, 1, 0), inst->goal[0] = mapf_grid_id(g, 1, 1);
  farm_image *native = render(g, inst);
  farm_image *im = resize(native, 6, 6);
  for (int32_t y = 0; y < 6; y++)
    for (int32_t x = 0; x < 6; x++) {
      if (x < 3 && y < 3)
        expect_px(im, x, y, 255, 255, 255);
      else if (x < 3)
        expect_px(im, x, y, 0, 0, 0);
      else if (y < 3)
        expect_px(im, x, y, 0, 255, 0);
      else
        expect_px(im, x, y, 255, 0, 0);
    }
  farm_image_free(im);
  farm_image_free(native);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Two starts and one goal in one output pixel: green; one and one: red (goal over start). */
Test(image, resize_resolves_shared_pixels_by_majority_then_goal) {
  mapf_grid *g = parse_map("type octile\nheight 2\nwidth 4\nmap\n....\n....\n");
  mapf_instance *inst = mapf_instance_new(3);
  inst->start[0] = mapf_grid_id(g, 0, 0), inst->goal[0] = mapf_grid_id(g, 2, 0);
  inst->start[1] = mapf_grid_id(g, 1, 1), inst->goal[1] = mapf_grid_id(g, 3, 1);
  inst->start[2] = mapf_grid_id(g, 0, 1), inst->goal[2] = mapf_grid_id(g, 1, 0);
  farm_image *native = render(g, inst);
  farm_image *im = resize(native, 2, 1);
  expect_px(im, 0, 0, 0, 255, 0); /* starts (0,0) (1,1) (0,1), goal (1,0) */
  expect_px(im, 1, 0, 255, 0, 0); /* goals (2,0) (3,1), no start */
  farm_image_free(im);
  inst->goal[2] = mapf_grid_id(g, 2, 1); /* now one start and one goal in the right block */
  inst->start[1] = mapf_grid_id(g, 3, 0);
  farm_image_free(native);
  native = render(g, inst);
  im = resize(native, 2, 1);
  expect_px(im, 0, 0, 0, 255, 0); /* starts (0,0) (0,1) */
  expect_px(im, 1, 0, 255, 0, 0); /* start (3,0), goals (2,0) (3,1) (2,1) */
  farm_image_free(im);
  farm_image_free(native);
  /* One start, one goal. */
  inst->n = 1;
  inst->start[0] = mapf_grid_id(g, 0, 0), inst->goal[0] = mapf_grid_id(g, 1, 1);
  native = render(g, inst);
  im = resize(native, 1, 1);
  expect_px(im, 0, 0, 255, 0, 0);
  farm_image_free(im);
  farm_image_free(native);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- per-problem images ------------------------------------------------------------------ */

static farm_image *problem(const mapf_grid *g, int32_t sx, int32_t sy, int32_t gx, int32_t gy,
                           int32_t w, int32_t h) {
  farm_image *im = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  cr_assert_eq(farm_image_render_problem(g, mapf_grid_id(g, sx, sy), mapf_grid_id(g, gx, gy), w,
                                         h, &im, &d),
               MAPF_OK, "%s", d.msg);
  return im;
}

static int is_drawn(const farm_image *im, int32_t x, int32_t y) {
  return px_is(im, x, y, 0, 0, 255) || px_is(im, x, y, 0, 255, 0) || px_is(im, x, y, 255, 0, 0);
}

/* The marks are 3x3 (clipped at the border), the goal's over the start's; the line is blue,
 * 8-connected from the start's pixel to the goal's, one pixel per step of the longer axis, and
 * never further than half a pixel (across the shorter axis) from the true segment. */
static void expect_problem(const farm_image *im, int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
  for (int32_t dy = -1; dy <= 1; dy++)
    for (int32_t dx = -1; dx <= 1; dx++) {
      int32_t x = x1 + dx, y = y1 + dy;
      if (x >= 0 && y >= 0 && x < im->width && y < im->height) expect_px(im, x, y, 255, 0, 0);
      x = x0 + dx, y = y0 + dy;
      int by_goal = abs(x - x1) <= 1 && abs(y - y1) <= 1;
      if (x >= 0 && y >= 0 && x < im->width && y < im->height && !by_goal)
        expect_px(im, x, y, 0, 255, 0);
    }
  int32_t adx = abs(x1 - x0), ady = abs(y1 - y0), major = adx > ady ? adx : ady;
  int32_t blue = 0;
  for (int32_t y = 0; y < im->height; y++)
    for (int32_t x = 0; x < im->width; x++) {
      if (!px_is(im, x, y, 0, 0, 255)) continue;
      blue++;
      /* Distance across the minor axis from the segment, in pixels. */
      double dist;
      if (adx >= ady)
        dist = (y - y0) - (double)(y1 - y0) * (x - x0) / (x1 - x0);
      else
        dist = (x - x0) - (double)(x1 - x0) * (y - y0) / (y1 - y0);
      cr_assert(dist >= -0.5 && dist <= 0.5, "line pixel (%d,%d) is %.2f off the segment", x, y,
                dist);
      cr_assert(adx >= ady ? (x >= (x0 < x1 ? x0 : x1) && x <= (x0 < x1 ? x1 : x0))
                           : (y >= (y0 < y1 ? y0 : y1) && y <= (y0 < y1 ? y1 : y0)),
                "line pixel (%d,%d) beyond an end", x, y);
    }
  /* One pixel per column (or row) of the major axis; the marks hide at most 2 at each end. */
  cr_assert(blue <= major + 1 && blue >= major + 1 - 4, "%d line pixels for a major axis of %d",
            blue, major);
  /* Connected: a walk over drawn pixels (line and marks), 8-connected, from start to goal. */
  int32_t n = im->width * im->height;
  int32_t *queue = malloc((size_t)n * sizeof *queue);
  uint8_t *seen = calloc((size_t)n, 1);
  int32_t head = 0, tail = 0;
  queue[tail++] = y0 * im->width + x0;
  seen[y0 * im->width + x0] = 1;
  while (head < tail) {
    int32_t c = queue[head++], cx = c % im->width, cy = c / im->width;
    for (int32_t dy = -1; dy <= 1; dy++)
      for (int32_t dx = -1; dx <= 1; dx++) {
        int32_t x = cx + dx, y = cy + dy;
        if (x < 0 || y < 0 || x >= im->width || y >= im->height) continue;
        if (seen[y * im->width + x] || !is_drawn(im, x, y)) continue;
        seen[y * im->width + x] = 1;
        queue[tail++] = y * im->width + x;
      }
  }
  cr_assert(seen[y1 * im->width + x1], "no line from (%d,%d) to (%d,%d)", x0, y0, x1, y1);
  free(queue);
  free(seen);
}

Test(image, problem_line_connects_start_to_goal_in_every_direction) {
  mapf_grid *g = gen_map(MAPF_MAPGEN_RANDOM, 100, 0.0, 1);
  /* Native size: the marks and the line at the cells themselves. Every octant, steep and
   * shallow, the axes, and the borders (clipped marks). */
  static const int32_t ends[][4] = {{10, 10, 90, 30}, {90, 30, 10, 10}, {10, 10, 30, 90},
                                    {30, 90, 10, 10}, {10, 90, 90, 70}, {90, 70, 10, 90},
                                    {70, 10, 50, 95}, {50, 95, 70, 10}, {5, 50, 95, 50},
                                    {50, 5, 50, 95},  {0, 0, 99, 99},   {99, 0, 0, 99},
                                    {20, 20, 21, 22}, {40, 40, 40, 40}, {0, 99, 3, 97}};
  for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
    const int32_t *e = ends[i];
    farm_image *im = problem(g, e[0], e[1], e[2], e[3], 100, 100);
    expect_problem(im, e[0], e[1], e[2], e[3]);
    farm_image_free(im);
  }
  mapf_grid_free(g);
}

/* On a 512 x 512 map at the network's size the marks go to the scaled cells and are still 3x3:
 * they are drawn after resizing. */
Test(image, problem_marks_are_drawn_after_resizing) {
  mapf_grid *g = gen_map(MAPF_MAPGEN_RANDOM, 512, 0.2, 4);
  mapf_instance *inst = test_random_instance(g, 1, 8);
  int32_t s = inst->start[0], t = inst->goal[0];
  farm_image *im = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  cr_assert_eq(farm_image_render_problem(g, s, t, 0, 0, &im, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(im->width, 227);
  cr_assert_eq(im->height, 227);
  int32_t x0 = farm_image_scale(mapf_grid_x(g, s), 512, 227);
  int32_t y0 = farm_image_scale(mapf_grid_y(g, s), 512, 227);
  int32_t x1 = farm_image_scale(mapf_grid_x(g, t), 512, 227);
  int32_t y1 = farm_image_scale(mapf_grid_y(g, t), 512, 227);
  expect_problem(im, x0, y0, x1, y1);
  /* Away from the line and marks, the terrain is the resized map alone. */
  farm_image *native = render(g, NULL);
  farm_image *map = resize(native, 0, 0);
  int32_t differ = 0;
  for (int32_t y = 0; y < 227; y++)
    for (int32_t x = 0; x < 227; x++)
      if (!is_drawn(im, x, y))
        cr_assert_eq(memcmp(farm_image_px(im, x, y), farm_image_px(map, x, y), 3), 0);
      else
        differ++;
  cr_assert_leq(differ, 227 + 18);
  cr_assert_eq(farm_image_render_problem(g, -1, t, 0, 0, &im, &d), MAPF_EINVAL);
  farm_image_free(map);
  farm_image_free(native);
  farm_image_free(im);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- PNG output -------------------------------------------------------------------------- */

Test(image, writes_a_png_that_reads_back_identical) {
  char dir[512], path[600], tmp[700];
  make_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/instance.png", dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  mapf_grid *g = gen_map(MAPF_MAPGEN_ROOMS, 300, 0.2, 2);
  mapf_instance *inst = test_random_instance(g, 50, 6);
  farm_image *native = render(g, inst);
  farm_image *im = resize(native, 0, 0);
  mapf_diag d;
  memset(&d, 0, sizeof d);
  cr_assert_eq(farm_image_write_png(im, path, &d), MAPF_OK, "%s", d.msg);
  cr_assert(!exists(tmp), "the temporary file is gone");

  /* The header: 8-bit RGB (colour type 2), not interlaced (IHDR bytes 24, 25, 28). */
  size_t len;
  char *bytes = test_slurp_file(path, &len);
  cr_assert_gt(len, 33);
  cr_assert_eq(memcmp(bytes, "\x89PNG\r\n\x1a\n", 8), 0);
  cr_assert_eq(memcmp(bytes + 12, "IHDR", 4), 0);
  cr_assert_eq((uint8_t)bytes[24], 8, "bit depth");
  cr_assert_eq((uint8_t)bytes[25], 2, "colour type RGB");
  cr_assert_eq((uint8_t)bytes[28], 0, "no interlace");
  free(bytes);

  png_image png;
  memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  cr_assert(png_image_begin_read_from_file(&png, path), "%s", png.message);
  cr_assert_eq(png.width, 227);
  cr_assert_eq(png.height, 227);
  png.format = PNG_FORMAT_RGB;
  uint8_t *pixels = malloc(PNG_IMAGE_SIZE(png));
  cr_assert(png_image_finish_read(&png, NULL, pixels, 0, NULL), "%s", png.message);
  cr_assert_eq(memcmp(pixels, im->rgb, 227 * 227 * 3), 0, "pixels differ after reading back");
  free(pixels);

  /* Writing again replaces the file whole. */
  farm_image *small = farm_image_new(2, 1);
  cr_assert_eq(farm_image_write_png(small, path, &d), MAPF_OK, "%s", d.msg);
  memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  cr_assert(png_image_begin_read_from_file(&png, path), "%s", png.message);
  cr_assert_eq(png.width, 2);
  cr_assert_eq(png.height, 1);
  png_image_free(&png);

  farm_image_free(small);
  farm_image_free(im);
  farm_image_free(native);
  mapf_instance_free(inst);
  mapf_grid_free(g);
  remove(path);
  rmdir(dir);
}

Test(image, unwritable_path_gives_an_error_naming_it) {
  farm_image *im = farm_image_new(4, 4);
  const char *path = "/nonexistent-mapfarm-dir/sub/instance.png";
  mapf_diag d;
  memset(&d, 0, sizeof d);
  cr_assert_eq(farm_image_write_png(im, path, &d), MAPF_EIO);
  cr_assert_str_eq(d.file, path);
  char msg[1200];
  mapf_diag_format(&d, msg, sizeof msg);
  char prefix[200];
  snprintf(prefix, sizeof prefix, "%s: error: ", path);
  cr_assert(strncmp(msg, prefix, strlen(prefix)) == 0, "%s", msg);
  cr_assert_not_null(strstr(msg, "No such file or directory"), "%s", msg);
  cr_assert(!exists(path));
  farm_image_free(im);
}

/* The data is written, but the rename fails (path is a directory): an error naming path and no
 * temporary file left behind. */
Test(image, failed_write_leaves_no_partial_file) {
  char dir[512], path[600], tmp[700];
  make_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/taken.png", dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  cr_assert_eq(mkdir(path, 0700), 0);
  farm_image *im = farm_image_new(4, 4);
  mapf_diag d;
  memset(&d, 0, sizeof d);
  cr_assert_eq(farm_image_write_png(im, path, &d), MAPF_EIO);
  cr_assert_str_eq(d.file, path);
  cr_assert(!exists(tmp), "%s left behind", tmp);
  cr_assert_eq(farm_image_write_png(NULL, path, &d), MAPF_EINVAL);
  cr_assert_eq(farm_image_write_png(im, "", &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "no file name given");
  farm_image_free(im);
  rmdir(path);
  rmdir(dir);
}
