/* test_scengen.c: the registry of scenario generators and the problem types of thesis 5.4.1,
 * Fig. 5.4 (scengen.c), on hand-written maps, generated maps (mapgen.h) and a MovingAI map
 * (bg512/AR0504SR under $MAPFARM_MAPS). Geometry is checked against regions the tests compute
 * on their own from the definitions in scengen.h. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "grid.h"
#include "mapgen.h"
#include "scen.h"
#include "scengen.h"
#include "testutil.h"

static const char *const names[] = {"random",     "cross-sides",    "swap-sides",
                                    "inside-out", "outside-in",     "tight-to-tight",
                                    "tight-to-wide", "patrol"};
#define NGEN 8

/* bg512/AR0504SR.map: a failure under CI=true when the data is missing, a skip elsewhere. */
static mapf_grid *load_real(void) {
  REQUIRE_MAPS(dir);
  return test_load_movingai(dir, "bg512/AR0504SR.map");
}

static const mapf_scengen_def *gen_def(const char *name) {
  const mapf_scengen_def *def = mapf_scengen_find(name);
  cr_assert_not_null(def, "no generator %s", name);
  return def;
}

/* Parameters of generator `name`: the defaults, then up to two "key=value" overrides. */
static mapf_params params_of(const char *name, const char *set1, const char *set2) {
  const mapf_scengen_def *def = gen_def(name);
  mapf_params p;
  mapf_scengen_params_default(def, &p);
  const char *sets[2] = {set1, set2};
  for (int k = 0; k < 2; k++) {
    if (!sets[k]) continue;
    char key[64];
    const char *eq = strchr(sets[k], '=');
    cr_assert_not_null(eq);
    snprintf(key, sizeof key, "%.*s", (int)(eq - sets[k]), sets[k]);
    int32_t i = mapf_param_index(def->view, key);
    cr_assert_geq(i, 0, "%s has no parameter %s", name, key);
    mapf_diag d;
    cr_assert_eq(mapf_param_parse(def->view, i, eq + 1, &p.v[i], &d), MAPF_OK, "%s", d.msg);
  }
  return p;
}

/* Checks every rule of an instance, plus start != goal. */
static void check_valid(const mapf_instance *inst, const mapf_grid *g, int32_t n,
                        const char *gen) {
  mapf_diag d;
  cr_assert_eq(inst->n, n);
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_OK, "%s on %s: %s", gen, g->name, d.msg);
  for (int32_t i = 0; i < n; i++)
    cr_assert_neq(inst->start[i], inst->goal[i], "%s on %s: agent %d starts on its goal", gen,
                  g->name, i);
}

/* Generates and checks validity; fails the test unless MAPF_OK. */
static mapf_instance *generate(const char *name, const mapf_grid *g, int32_t n,
                               const mapf_params *p, uint64_t seed) {
  const mapf_scengen_def *def = gen_def(name);
  mapf_instance *inst = NULL;
  mapf_diag d;
  int rc = def->generate(g, n, p, seed, &inst, &d);
  cr_assert_eq(rc, MAPF_OK, "%s on %s, %d agents, seed %llu: %s", name, g->name, n,
               (unsigned long long)seed, d.msg);
  check_valid(inst, g, n, name);
  return inst;
}

static int same_instance(const mapf_instance *a, const mapf_instance *b) {
  return a->n == b->n && memcmp(a->start, b->start, (size_t)a->n * sizeof *a->start) == 0 &&
         memcmp(a->goal, b->goal, (size_t)a->n * sizeof *a->goal) == 0;
}

/* ---- independent geometry -------------------------------------------------------------- */

static int usable_cell(const mapf_grid *g, int32_t id) {
  return g->passable[id] && g->component_size[g->component[id]] >= 2;
}

static int32_t count_usable(const mapf_grid *g) {
  int32_t u = 0;
  for (int32_t id = 0; id < g->ncells; id++) u += usable_cell(g, id);
  return u;
}

static int32_t fraction_of(double f, int32_t u) {
  int32_t k = (int32_t)floor(f * u + 1e-9);
  return k < 1 ? 1 : k;
}

static int cmp_int(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Band limits on one axis (0: x, 1: y): the largest coordinate in the low band (left or top)
 * and the smallest in the high band (right or bottom), for a band of fraction f. */
static void band_limits(const mapf_grid *g, int axis, double f, int32_t *low_max,
                        int32_t *high_min) {
  int32_t u = count_usable(g), k = fraction_of(f, u), m = 0;
  int32_t *v = malloc((size_t)u * sizeof *v);
  for (int32_t id = 0; id < g->ncells; id++)
    if (usable_cell(g, id)) v[m++] = axis == 0 ? mapf_grid_x(g, id) : mapf_grid_y(g, id);
  qsort(v, (size_t)u, sizeof *v, cmp_int);
  *low_max = v[k - 1];
  *high_min = v[u - k];
  free(v);
}

static int32_t coord(const mapf_grid *g, int axis, int32_t id) {
  return axis == 0 ? mapf_grid_x(g, id) : mapf_grid_y(g, id);
}

/* The centre of the bounding box of the usable cells. */
static void usable_centre(const mapf_grid *g, double *cx, double *cy) {
  int32_t x0 = g->width, x1 = -1, y0 = g->height, y1 = -1;
  for (int32_t id = 0; id < g->ncells; id++) {
    if (!usable_cell(g, id)) continue;
    int32_t x = mapf_grid_x(g, id), y = mapf_grid_y(g, id);
    x0 = x < x0 ? x : x0;
    x1 = x > x1 ? x : x1;
    y0 = y < y0 ? y : y0;
    y1 = y > y1 ? y : y1;
  }
  *cx = (x0 + x1) / 2.0;
  *cy = (y0 + y1) / 2.0;
}

static double dist_to(const mapf_grid *g, int32_t id, double cx, double cy) {
  double dx = mapf_grid_x(g, id) - cx, dy = mapf_grid_y(g, id) - cy;
  return sqrt(dx * dx + dy * dy);
}

/* The distance to the centre of the k-th nearest usable cell (k 1-based), and of the k-th
 * farthest. */
static void centre_limits(const mapf_grid *g, double fi, double fo, double *inner_max,
                          double *outer_min) {
  double cx, cy;
  usable_centre(g, &cx, &cy);
  int32_t u = count_usable(g), m = 0;
  double *v = malloc((size_t)u * sizeof *v);
  for (int32_t id = 0; id < g->ncells; id++)
    if (usable_cell(g, id)) v[m++] = dist_to(g, id, cx, cy);
  qsort(v, (size_t)u, sizeof *v, cmp_double);
  *inner_max = v[fraction_of(fi, u) - 1];
  *outer_min = v[u - fraction_of(fo, u)];
  free(v);
}

/* The largest Euclidean distance between two of cells[0..n-1]. */
static double diameter(const mapf_grid *g, const int32_t *cells, int32_t n) {
  double best = 0;
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = i + 1; j < n; j++) {
      double e = mapf_euclid(g, cells[i], cells[j]);
      best = e > best ? e : best;
    }
  return best;
}

/* The mean Euclidean distance of cells[0..n-1] to their centroid, written to *cx, *cy. */
static double spread(const mapf_grid *g, const int32_t *cells, int32_t n, double *cx,
                     double *cy) {
  double sx = 0, sy = 0, s = 0;
  for (int32_t i = 0; i < n; i++) {
    sx += mapf_grid_x(g, cells[i]);
    sy += mapf_grid_y(g, cells[i]);
  }
  *cx = sx / n;
  *cy = sy / n;
  for (int32_t i = 0; i < n; i++) s += dist_to(g, cells[i], *cx, *cy);
  return s / n;
}

/* ---- the registry ----------------------------------------------------------------------- */

Test(scengen, lists_the_thesis_problem_types_in_order) {
  cr_assert_eq(mapf_scengen_count(), NGEN);
  for (int32_t i = 0; i < NGEN; i++) {
    const mapf_scengen_def *def = mapf_scengen_at(i);
    cr_assert_not_null(def);
    cr_assert_str_eq(def->name, names[i]);
    cr_assert_eq(mapf_scengen_find(names[i]), def);
    cr_assert_not_null(def->generate);
    cr_assert_not_null(def->doc);
    /* The algo.h view holds the same name and the same parameter table. */
    cr_assert_not_null(def->view);
    cr_assert_str_eq(def->view->name, def->name);
    cr_assert_eq(def->view->params, def->params);
    cr_assert_eq(def->view->nparams, def->nparams);
    cr_assert_null(mapf_algo_find(def->name), "%s must not be an algorithm", def->name);
  }
  cr_assert_null(mapf_scengen_at(NGEN));
  cr_assert_null(mapf_scengen_at(-1));
  cr_assert_eq(mapf_scengen_at(0)->nparams, 0);
}

Test(scengen, find_returns_null_for_an_unknown_name) {
  cr_assert_null(mapf_scengen_find("cross_sides"));
  cr_assert_null(mapf_scengen_find("Random"));
  cr_assert_null(mapf_scengen_find(""));
  cr_assert_null(mapf_scengen_find("switch-sides"));
}

Test(scengen, declares_the_documented_parameters_and_defaults) {
  static const struct {
    const char *gen, *json;
  } want[] = {
      {"random", "{}"},
      {"cross-sides", "{\"band\":0.25,\"side\":-1}"},
      {"swap-sides", "{\"axis\":-1,\"band\":0.25}"},
      {"inside-out", "{\"inner\":0.25,\"outer\":0.25}"},
      {"outside-in", "{\"inner\":0.25,\"outer\":0.25}"},
      {"tight-to-tight", "{\"density\":0.5}"},
      {"tight-to-wide", "{\"density\":0.5,\"wide\":0.05}"},
      {"patrol", "{\"axis\":0,\"band\":0.25,\"loops\":10}"},
  };
  for (int i = 0; i < NGEN; i++) {
    const mapf_scengen_def *def = gen_def(want[i].gen);
    mapf_params p;
    mapf_scengen_params_default(def, &p);
    char buf[256];
    mapf_params_json(def->view, &p, buf, sizeof buf);
    cr_assert_str_eq(buf, want[i].json, "%s", want[i].gen);
    mapf_diag d;
    cr_assert_eq(mapf_params_check(def->view, &p, &d), MAPF_OK);
  }
}

/* Each generator's table describes a typed struct (scengen.c) by the rules an algorithm's table
 * keeps: aligned, non-overlapping fields inside the struct, defaults in range. */
Test(scengen, every_parameter_table_describes_its_struct) {
  for (int32_t i = 0; i < mapf_scengen_count(); i++) {
    const mapf_scengen_def *def = mapf_scengen_at(i);
    mapf_diag d = {0};
    cr_assert_eq(mapf_params_validate(def->view, &d), MAPF_OK, "%s: %s", def->name, d.msg);
    cr_assert(def->nparams == 0 || def->view->size > 0, "%s has no typed struct", def->name);
  }
}

Test(scengen, rejects_out_of_range_parameters_through_the_algo_view) {
  const mapf_scengen_def *def = gen_def("cross-sides");
  mapf_diag d;
  int32_t band = mapf_param_index(def->view, "band"), side = mapf_param_index(def->view, "side");
  cr_assert_eq(band, 1);
  cr_assert_eq(side, 0);
  cr_assert_eq(mapf_param_check(def->view, band, 0.7, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "band: expected a number in [0.001, 0.5], found 0.7");
  cr_assert_eq(mapf_param_check(def->view, band, 0, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_check(def->view, band, 0.5, &d), MAPF_OK);
  cr_assert_eq(mapf_param_check(def->view, side, 4, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "side: expected an integer in [-1, 3], found 4");
  cr_assert_eq(mapf_param_check(def->view, side, 1.5, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_check(def->view, side, -1, &d), MAPF_OK);
  double v;
  def = gen_def("tight-to-wide");
  cr_assert_eq(mapf_param_parse(def->view, 1, "1.5", &v, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "wide: expected a number in [0.001, 1], found 1.5");
  cr_assert_eq(mapf_param_parse(def->view, 0, "dense", &v, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_check(gen_def("swap-sides")->view, 0, 2, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_check(gen_def("inside-out")->view, 1, 0.51, &d), MAPF_EINVAL);
}

Test(scengen, generators_reject_out_of_range_parameters_they_are_given) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_ROOMS, 32, 32, 0.2, 1, 1);
  static const struct {
    const char *gen;
    int32_t i;
    double v;
    const char *msg;
  } bad[] = {
      {"cross-sides", 0, 7, "cross-sides: side: expected an integer in [-1, 3], found 7"},
      {"cross-sides", 1, 0.75, "cross-sides: band: expected a number in [0.001, 0.5], found 0.75"},
      {"swap-sides", 0, -2, "swap-sides: axis: expected an integer in [-1, 1], found -2"},
      {"inside-out", 0, 0, "inside-out: inner: expected a number in [0.001, 0.5], found 0"},
      {"outside-in", 1, NAN, "outside-in: outer: expected a number in [0.001, 0.5], found nan"},
      {"tight-to-tight", 0, 2, "tight-to-tight: density: expected a number in [0.001, 1], found 2"},
      {"tight-to-wide", 1, -1, "tight-to-wide: wide: expected a number in [0.001, 1], found -1"},
      {"patrol", 0, 0, "patrol: loops: expected an integer in [1, 1000000], found 0"},
      {"patrol", 1, 2, "patrol: axis: expected an integer in [-1, 1], found 2"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    const mapf_scengen_def *def = gen_def(bad[k].gen);
    mapf_params p;
    mapf_scengen_params_default(def, &p);
    p.v[bad[k].i] = bad[k].v;
    mapf_instance *inst = NULL;
    mapf_diag d;
    cr_assert_eq(def->generate(g, 4, &p, 0, &inst, &d), MAPF_EINVAL, "%s", bad[k].gen);
    cr_assert_null(inst);
    cr_assert_str_eq(d.msg, bad[k].msg);
  }
  mapf_grid_free(g);
}

Test(scengen, every_generator_rejects_fewer_than_one_agent) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_ROOMS, 32, 32, 0.2, 1, 1);
  for (int i = 0; i < NGEN; i++) {
    mapf_instance *inst = NULL;
    mapf_diag d;
    cr_assert_eq(mapf_scengen_at(i)->generate(g, 0, NULL, 0, &inst, &d), MAPF_EINVAL, "%s",
                 names[i]);
    cr_assert_str_eq(d.msg, "agents: expected an integer >= 1, found 0");
    cr_assert_null(inst);
  }
  mapf_grid_free(g);
}

Test(scengen, random_wraps_mapf_scengen_random_unchanged) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 40, 30, 0.3, 1, 5);
  for (uint64_t seed = 0; seed < 20; seed++) {
    mapf_instance *a = generate("random", g, 50, NULL, seed), *b = NULL;
    mapf_diag d;
    cr_assert_eq(mapf_scengen_random(g, 50, seed, &b, &d), MAPF_OK);
    cr_assert(same_instance(a, b), "seed %llu", (unsigned long long)seed);
    mapf_instance_free(a);
    mapf_instance_free(b);
  }
  mapf_grid_free(g);
}

/* ---- every generator: rules and determinism ------------------------------------------------ */

Test(scengen, keeps_every_rule_on_generated_maps, .timeout = 120) {
  mapf_mapgen_kind kinds[] = {MAPF_MAPGEN_RANDOM, MAPF_MAPGEN_ROOMS, MAPF_MAPGEN_MAZE};
  int32_t counts[] = {1, 2, 7, 40};
  for (int k = 0; k < 3; k++) {
    for (uint64_t mseed = 0; mseed < 3; mseed++) {
      mapf_grid *g = test_mapgen(kinds[k], 40 + 9 * (int32_t)mseed, 33 + 5 * (int32_t)mseed, 0.2,
                                 1, mseed);
      for (int i = 0; i < NGEN; i++) {
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
          for (uint64_t seed = 0; seed < 8; seed++) {
            mapf_instance *a = generate(names[i], g, counts[c], NULL, seed);
            if (seed < 2) {
              mapf_instance *b = generate(names[i], g, counts[c], NULL, seed);
              cr_assert(same_instance(a, b), "%s: seed %llu twice", names[i],
                        (unsigned long long)seed);
              mapf_instance_free(b);
            }
            mapf_instance_free(a);
          }
        }
      }
      mapf_grid_free(g);
    }
  }
}

Test(scengen, same_seed_same_instance_different_seed_different) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 64, 64, 0.2, 1, 3);
  for (int i = 0; i < NGEN; i++) {
    mapf_instance *a = generate(names[i], g, 30, NULL, 11);
    mapf_instance *b = generate(names[i], g, 30, NULL, 11);
    mapf_instance *c = generate(names[i], g, 30, NULL, 12);
    cr_assert(same_instance(a, b), "%s", names[i]);
    cr_assert(!same_instance(a, c), "%s: seeds 11 and 12 gave the same instance", names[i]);
    mapf_instance_free(a);
    mapf_instance_free(b);
    mapf_instance_free(c);
  }
  mapf_grid_free(g);
}

/* ---- impossible requests --------------------------------------------------------------------- */

Test(scengen, fails_with_enospace_on_a_tiny_map_instead_of_hanging, .timeout = 10) {
  mapf_grid *g = test_parse_grid("type octile\nheight 3\nwidth 3\nmap\n...\n...\n...\n", "t.map");
  for (int i = 0; i < NGEN; i++) {
    for (int32_t n = 10; n <= 100000; n *= 10) {
      mapf_instance *inst = NULL;
      mapf_diag d;
      cr_assert_eq(mapf_scengen_at(i)->generate(g, n, NULL, 0, &inst, &d), MAPF_ENOSPACE,
                   "%s, %d agents", names[i], n);
      cr_assert_null(inst);
      cr_assert(strstr(d.msg, "t.map"), "%s: %s", names[i], d.msg);
    }
  }
  mapf_grid_free(g);
}

Test(scengen, fails_with_enospace_on_a_map_without_usable_cells) {
  mapf_grid *g =
      test_parse_grid("type octile\nheight 3\nwidth 3\nmap\n.@.\n@@@\n.@.\n", "dots.map");
  for (int i = 0; i < NGEN; i++) {
    mapf_instance *inst = NULL;
    mapf_diag d;
    cr_assert_eq(mapf_scengen_at(i)->generate(g, 1, NULL, 0, &inst, &d), MAPF_ENOSPACE, "%s",
                 names[i]);
    cr_assert(strstr(d.msg, "dots.map"), "%s", d.msg);
  }
  mapf_grid_free(g);
}

Test(scengen, pairs_starts_and_goals_within_components) {
  /* Two rooms, one above the other: every side band cuts both. Left->right pairs stay in their
   * room; left and right rooms side by side cannot pair at all. */
  mapf_grid *g = test_parse_grid("type octile\nheight 5\nwidth 8\nmap\n"
                           "........\n"
                           "........\n"
                           "@@@@@@@@\n"
                           "........\n"
                           "........\n",
                           "stack.map");
  /* 32 usable cells, bands of 8: the left band is columns 0 and 1 of both rooms, 4 cells per
   * room; the right band columns 6 and 7. */
  mapf_params p = params_of("cross-sides", "side=0", NULL);
  for (uint64_t seed = 0; seed < 200; seed++) {
    mapf_instance *inst = generate("cross-sides", g, 8, &p, seed);
    for (int32_t i = 0; i < 8; i++) {
      cr_assert_leq(mapf_grid_x(g, inst->start[i]), 1);
      cr_assert_geq(mapf_grid_x(g, inst->goal[i]), 6);
    }
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);

  g = test_parse_grid("type octile\nheight 2\nwidth 9\nmap\n....@....\n....@....\n", "pair.map");
  p = params_of("cross-sides", "side=1", "band=0.5");
  mapf_instance *inst = NULL;
  mapf_diag d;
  cr_assert_eq(gen_def("cross-sides")->generate(g, 1, &p, 0, &inst, &d), MAPF_ENOSPACE);
  cr_assert_str_eq(d.msg, "map pair.map: cross-sides: starts in the right band (8 cells) and "
                          "goals in the left band (8 cells) pair up at most 0 agents within "
                          "connected components; cannot place 1");
  /* Top <-> bottom bands (id order) are rows 0 and 1 of both rooms: 8 pairs. */
  p = params_of("swap-sides", "axis=1", "band=0.5");
  for (uint64_t seed = 0; seed < 100; seed++) {
    inst = generate("swap-sides", g, 16, &p, seed);
    mapf_instance_free(inst);
  }
  cr_assert_eq(gen_def("swap-sides")->generate(g, 17, &p, 0, &inst, &d), MAPF_ENOSPACE);
  mapf_grid_free(g);
}

Test(scengen, regions_are_never_empty_on_maps_of_one_row_or_column) {
  const char *maps[] = {
      "type octile\nheight 1\nwidth 12\nmap\n............\n",
      "type octile\nheight 12\nwidth 1\nmap\n.\n.\n.\n.\n.\n.\n.\n.\n.\n.\n.\n.\n"};
  for (int m = 0; m < 2; m++) {
    mapf_grid *g = test_parse_grid(maps[m], m ? "column.map" : "row.map");
    for (int i = 1; i < NGEN; i++)
      for (uint64_t seed = 0; seed < 50; seed++)
        mapf_instance_free(generate(names[i], g, 1, NULL, seed));
    /* Half-map bands and regions hold 6 agents each way, never overlapping. */
    for (int side = 0; side < 4; side++) {
      char s[16];
      snprintf(s, sizeof s, "side=%d", side);
      mapf_params p = params_of("cross-sides", s, "band=0.5");
      mapf_instance_free(generate("cross-sides", g, 6, &p, 1));
    }
    mapf_params p = params_of("inside-out", "inner=0.5", "outer=0.5");
    mapf_instance_free(generate("inside-out", g, 6, &p, 1));
    p = params_of("tight-to-tight", "density=1", NULL);
    mapf_instance_free(generate("tight-to-tight", g, 6, &p, 1));
    mapf_grid_free(g);
  }
}

Test(scengen, clusters_fit_a_component_of_exactly_2n_cells) {
  /* A component of 10 cells and a larger one of 12 that alone can hold 6 agents. */
  mapf_grid *g = test_parse_grid("type octile\nheight 2\nwidth 12\nmap\n"
                           ".....@......\n"
                           ".....@......\n",
                           "two.map");
  for (uint64_t seed = 0; seed < 200; seed++) {
    mapf_instance *inst = generate("tight-to-wide", g, 5, NULL, seed);
    mapf_instance_free(inst);
    inst = generate("tight-to-tight", g, 6, NULL, seed);
    for (int32_t i = 0; i < 6; i++) cr_assert_gt(mapf_grid_x(g, inst->start[i]), 5);
    mapf_instance_free(inst);
  }
  /* 7 to 12 agents: no component holds two disjoint clusters, so both clusters lie in one
   * component that holds n cells (either for up to 10 agents, the larger above), overlapping. */
  for (int32_t n = 7; n <= 12; n++)
    for (uint64_t seed = 0; seed < 50; seed++) {
      mapf_instance *inst = generate("tight-to-tight", g, n, NULL, seed);
      int right = mapf_grid_x(g, inst->start[0]) > 5;
      if (n > 10) cr_assert(right, "%d agents fit the component of 12 only", n);
      for (int32_t i = 0; i < n; i++) {
        cr_assert_eq(mapf_grid_x(g, inst->start[i]) > 5, right);
        cr_assert_eq(mapf_grid_x(g, inst->goal[i]) > 5, right);
      }
      mapf_instance_free(inst);
    }
  mapf_instance *inst = NULL;
  mapf_diag d;
  cr_assert_eq(gen_def("tight-to-tight")->generate(g, 13, NULL, 0, &inst, &d), MAPF_ENOSPACE);
  cr_assert_str_eq(d.msg, "map two.map: tight-to-tight: the largest connected component has 12 "
                          "usable cells; cannot place 13 agents");
  mapf_grid_free(g);
}

/* A crowded map (the thesis put 300 agents on maps from 564 passable cells): regions grow to
 * hold the agents and may overlap; every rule still holds (generate() checks the instance). */
Test(scengen, regions_grow_and_overlap_on_a_crowded_map) {
  mapf_grid *g = test_parse_grid("type octile\nheight 3\nwidth 3\nmap\n...\n...\n...\n", "t.map");
  for (int i = 0; i < NGEN; i++)
    for (int32_t n = 1; n <= 9; n++)
      for (uint64_t seed = 0; seed < 20; seed++) {
        /* swap-sides keeps its two bands apart: at most 4 agents each way on 9 cells; patrol
         * too: at most 4 agents. */
        if (strcmp(names[i], "swap-sides") == 0 && n - n / 2 > 4) continue;
        if (strcmp(names[i], "patrol") == 0 && n > 4) continue;
        mapf_instance_free(generate(names[i], g, n, NULL, seed));
      }
  /* Three agents on 9 cells: the left band grows from 2 cells to the 3 of column 0. */
  mapf_params p = params_of("cross-sides", "side=0", NULL);
  mapf_instance *inst = generate("cross-sides", g, 3, &p, 0);
  for (int32_t i = 0; i < 3; i++) {
    cr_assert_eq(mapf_grid_x(g, inst->start[i]), 0);
    cr_assert_eq(mapf_grid_x(g, inst->goal[i]), 2);
  }
  mapf_instance_free(inst);
  mapf_diag d;
  p = params_of("swap-sides", "axis=1", NULL);
  cr_assert_eq(gen_def("swap-sides")->generate(g, 9, &p, 0, &inst, &d), MAPF_ENOSPACE);
  cr_assert_str_eq(d.msg, "map t.map: swap-sides: starts in the top band (4 cells) and goals "
                          "in the bottom band (4 cells) pair up at most 4 agents within "
                          "connected components; cannot place 5");
  mapf_grid_free(g);
}

/* ---- geometry on a MovingAI map ------------------------------------------------------------ */

Test(scengen, cross_sides_starts_in_the_side_band_and_goals_in_the_opposite_one) {
  mapf_grid *g = load_real();
  const int32_t n = 200;
  for (int side = 0; side < 4; side++) {
    int axis = side / 2;
    int32_t low_max, high_min;
    band_limits(g, axis, 0.25, &low_max, &high_min);
    cr_assert_lt(low_max, high_min);
    char s[16];
    snprintf(s, sizeof s, "side=%d", side);
    mapf_params p = params_of("cross-sides", s, NULL);
    for (uint64_t seed = 0; seed < 3; seed++) {
      mapf_instance *inst = generate("cross-sides", g, n, &p, seed);
      for (int32_t i = 0; i < n; i++) {
        int32_t a = coord(g, axis, inst->start[i]), b = coord(g, axis, inst->goal[i]);
        if (side % 2 == 0) {
          cr_assert_leq(a, low_max, "side %d agent %d: start %d beyond %d", side, i, a, low_max);
          cr_assert_geq(b, high_min, "side %d agent %d: goal %d before %d", side, i, b, high_min);
        } else {
          cr_assert_geq(a, high_min, "side %d agent %d", side, i);
          cr_assert_leq(b, low_max, "side %d agent %d", side, i);
        }
      }
      mapf_instance_free(inst);
    }
  }
  mapf_grid_free(g);
}

Test(scengen, cross_sides_draws_the_side_from_the_seed) {
  mapf_grid *g = load_real();
  int32_t lx, hx, ly, hy;
  band_limits(g, 0, 0.25, &lx, &hx);
  band_limits(g, 1, 0.25, &ly, &hy);
  int seen[4] = {0};
  for (uint64_t seed = 0; seed < 40; seed++) {
    mapf_instance *inst = generate("cross-sides", g, 20, NULL, seed);
    /* Which side: every agent agrees on one. */
    int side = -1;
    for (int s = 0; s < 4; s++) {
      int ok = 1;
      for (int32_t i = 0; i < 20 && ok; i++) {
        int32_t a = coord(g, s / 2, inst->start[i]), b = coord(g, s / 2, inst->goal[i]);
        int32_t lo = s / 2 ? ly : lx, hi = s / 2 ? hy : hx;
        ok = s % 2 == 0 ? a <= lo && b >= hi : a >= hi && b <= lo;
      }
      if (ok) side = s;
    }
    cr_assert_geq(side, 0, "seed %llu: no side fits", (unsigned long long)seed);
    seen[side]++;
    mapf_instance_free(inst);
  }
  for (int s = 0; s < 4; s++) cr_assert_gt(seen[s], 0, "side %d never drawn in 40 seeds", s);
  mapf_grid_free(g);
}

Test(scengen, swap_sides_sends_the_first_half_across_and_the_rest_back) {
  mapf_grid *g = load_real();
  const int32_t n = 301, half = 151;
  for (int axis = 0; axis < 2; axis++) {
    int32_t low_max, high_min;
    band_limits(g, axis, 0.2, &low_max, &high_min);
    char a[16];
    snprintf(a, sizeof a, "axis=%d", axis);
    mapf_params p = params_of("swap-sides", a, "band=0.2");
    mapf_instance *inst = generate("swap-sides", g, n, &p, 7);
    int32_t forward = 0, back = 0;
    for (int32_t i = 0; i < n; i++) {
      int32_t s = coord(g, axis, inst->start[i]), t = coord(g, axis, inst->goal[i]);
      if (s <= low_max && t >= high_min) forward++;
      if (s >= high_min && t <= low_max) back++;
      if (i < half)
        cr_assert(s <= low_max && t >= high_min, "axis %d agent %d: %d -> %d", axis, i, s, t);
      else
        cr_assert(s >= high_min && t <= low_max, "axis %d agent %d: %d -> %d", axis, i, s, t);
    }
    cr_assert_eq(forward, half);
    cr_assert_eq(back, n - half);
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);
}

/* Distances of starts and goals to the centre: max/min and means. */
static void centre_stats(const mapf_grid *g, const mapf_instance *inst, double *smax,
                         double *smin, double *smean, double *gmax, double *gmin,
                         double *gmean) {
  double cx, cy;
  usable_centre(g, &cx, &cy);
  *smax = *gmax = 0;
  *smin = *gmin = INFINITY;
  *smean = *gmean = 0;
  for (int32_t i = 0; i < inst->n; i++) {
    double s = dist_to(g, inst->start[i], cx, cy), t = dist_to(g, inst->goal[i], cx, cy);
    *smax = fmax(*smax, s);
    *smin = fmin(*smin, s);
    *gmax = fmax(*gmax, t);
    *gmin = fmin(*gmin, t);
    *smean += s / inst->n;
    *gmean += t / inst->n;
  }
}

Test(scengen, inside_out_starts_nearer_the_centre_than_every_goal) {
  mapf_grid *g = load_real();
  double inner_max, outer_min;
  centre_limits(g, 0.25, 0.25, &inner_max, &outer_min);
  cr_assert_lt(inner_max, outer_min);
  for (uint64_t seed = 0; seed < 5; seed++) {
    mapf_instance *inst = generate("inside-out", g, 300, NULL, seed);
    double smax, smin, smean, gmax, gmin, gmean;
    centre_stats(g, inst, &smax, &smin, &smean, &gmax, &gmin, &gmean);
    cr_assert_lt(smax, gmin, "a start (%.1f) is not nearer the centre than a goal (%.1f)", smax,
                 gmin);
    cr_assert_leq(smax, inner_max + 1e-9);
    cr_assert_geq(gmin, outer_min - 1e-9);
    cr_assert_lt(2 * smean, gmean, "mean start distance %.1f, goal %.1f", smean, gmean);
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);
}

Test(scengen, outside_in_starts_farther_from_the_centre_than_every_goal) {
  mapf_grid *g = load_real();
  double inner_max, outer_min;
  centre_limits(g, 0.1, 0.3, &inner_max, &outer_min);
  mapf_params p = params_of("outside-in", "inner=0.1", "outer=0.3");
  for (uint64_t seed = 0; seed < 5; seed++) {
    mapf_instance *inst = generate("outside-in", g, 300, &p, seed);
    double smax, smin, smean, gmax, gmin, gmean;
    centre_stats(g, inst, &smax, &smin, &smean, &gmax, &gmin, &gmean);
    cr_assert_gt(smin, gmax, "a start (%.1f) is nearer the centre than a goal (%.1f)", smin,
                 gmax);
    cr_assert_geq(smin, outer_min - 1e-9);
    cr_assert_leq(gmax, inner_max + 1e-9);
    cr_assert_gt(smean, 2 * gmean, "mean start distance %.1f, goal %.1f", smean, gmean);
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);
}

Test(scengen, tight_to_tight_clusters_are_small_and_apart) {
  mapf_grid *g = load_real();
  const int32_t n = 100;
  double side = g->width > g->height ? g->width : g->height;
  for (uint64_t seed = 0; seed < 10; seed++) {
    mapf_instance *inst = generate("tight-to-tight", g, n, NULL, seed);
    double ds = diameter(g, inst->start, n), dg = diameter(g, inst->goal, n);
    double sx, sy, gx, gy;
    spread(g, inst->start, n, &sx, &sy);
    spread(g, inst->goal, n, &gx, &gy);
    double apart = hypot(sx - gx, sy - gy);
    cr_assert_lt(ds, side / 16, "seed %llu: start cluster diameter %.1f", (unsigned long long)seed,
                 ds);
    cr_assert_lt(dg, side / 16, "seed %llu: goal cluster diameter %.1f", (unsigned long long)seed,
                 dg);
    cr_assert_gt(apart, ds + dg, "seed %llu: clusters %.1f apart, diameters %.1f and %.1f",
                 (unsigned long long)seed, apart, ds, dg);
    /* The clusters are disjoint: no goal on any start. */
    for (int32_t i = 0; i < n; i++)
      for (int32_t j = 0; j < n; j++) cr_assert_neq(inst->start[i], inst->goal[j]);
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);
}

Test(scengen, tight_to_wide_goals_spread_wider_than_starts) {
  mapf_grid *g = load_real();
  const int32_t n = 100;
  double side = g->width > g->height ? g->width : g->height;
  for (uint64_t seed = 0; seed < 10; seed++) {
    mapf_instance *inst = generate("tight-to-wide", g, n, NULL, seed);
    double cx, cy;
    double ss = spread(g, inst->start, n, &cx, &cy), gs = spread(g, inst->goal, n, &cx, &cy);
    cr_assert_gt(gs, 1.5 * ss, "seed %llu: goal spread %.1f, start spread %.1f",
                 (unsigned long long)seed, gs, ss);
    cr_assert_lt(diameter(g, inst->start, n), side / 8);
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);
}

Test(scengen, places_thousands_of_agents_quickly_on_a_real_map, .timeout = 60) {
  mapf_grid *g = load_real();
  int32_t u = count_usable(g);
  /* Half-map regions: every usable cell is a start or a goal. */
  mapf_params p = params_of("cross-sides", "side=0", "band=0.5");
  mapf_instance_free(generate("cross-sides", g, u / 2, &p, 1));
  p = params_of("inside-out", "inner=0.5", "outer=0.5");
  mapf_instance_free(generate("inside-out", g, u / 2, &p, 1));
  p = params_of("tight-to-wide", "density=1", "wide=0.001");
  mapf_instance_free(generate("tight-to-wide", g, 5000, &p, 1));
  mapf_grid_free(g);
}

/* ---- patrol (Jansen & Sturtevant 2008 Sec. 4)
 * --------------------------------------------------------------- */

Test(scengen, patrol_defaults_are_the_papers) {
  const mapf_scengen_def *def = gen_def("patrol");
  mapf_params p;
  mapf_scengen_params_default(def, &p);
  cr_assert_eq(p.v[mapf_param_index(def->view, "loops")], 10,
               "Jansen & Sturtevant 2008: 10 patrol loops");
  cr_assert_eq(p.v[mapf_param_index(def->view, "axis")], 0, "left <-> right");
  cr_assert_float_eq(p.v[mapf_param_index(def->view, "band")], 0.25, 1e-15);
}

/* Starts in the left band, goals in the right band (independent geometry), loops set, and no
 * goal on any agent's start; the other generators leave loops 0. */
Test(scengen, patrol_starts_left_goals_right_and_sets_loops) {
  mapf_grid *g = load_real();
  int32_t low_max, high_min;
  band_limits(g, 0, 0.25, &low_max, &high_min);
  mapf_params p = params_of("patrol", "loops=3", NULL);
  for (uint64_t seed = 0; seed < 4; seed++) {
    mapf_instance *inst = generate("patrol", g, 100, &p, seed);
    cr_assert_eq(inst->loops, 3);
    for (int32_t i = 0; i < 100; i++) {
      cr_assert_leq(mapf_grid_x(g, inst->start[i]), low_max, "agent %d", i);
      cr_assert_geq(mapf_grid_x(g, inst->goal[i]), high_min, "agent %d", i);
    }
    mapf_instance_free(inst);
  }
  p = params_of("patrol", "axis=1", NULL);
  band_limits(g, 1, 0.25, &low_max, &high_min);
  mapf_instance *inst = generate("patrol", g, 50, &p, 9);
  cr_assert_eq(inst->loops, 10);
  for (int32_t i = 0; i < 50; i++) {
    cr_assert_leq(mapf_grid_y(g, inst->start[i]), low_max);
    cr_assert_geq(mapf_grid_y(g, inst->goal[i]), high_min);
  }
  mapf_instance_free(inst);
  for (int i = 0; i < NGEN - 1; i++) {
    inst = generate(names[i], g, 20, NULL, 1);
    cr_assert_eq(inst->loops, 0, "%s", names[i]);
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);
}

/* The bands never grow past half the usable cells, so no goal is another agent's start (an
 * agent that has done its loops stays on its start); a request beyond that is ENOSPACE. */
Test(scengen, patrol_bands_never_overlap_on_a_crowded_map) {
  mapf_grid *g = test_parse_grid("type octile\nheight 2\nwidth 5\nmap\n.....\n.....\n", "p.map");
  for (int32_t n = 1; n <= 5; n++)
    for (uint64_t seed = 0; seed < 30; seed++) {
      mapf_instance *inst = generate("patrol", g, n, NULL, seed);
      for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < n; j++)
          cr_assert_neq(inst->goal[i], inst->start[j], "n %d seed %llu", n,
                        (unsigned long long)seed);
      mapf_instance_free(inst);
    }
  mapf_instance *inst = NULL;
  mapf_diag d;
  cr_assert_eq(gen_def("patrol")->generate(g, 6, NULL, 0, &inst, &d), MAPF_ENOSPACE);
  cr_assert_str_eq(d.msg, "map p.map: patrol: starts in the left band (5 cells) and goals in "
                          "the right band (5 cells) pair up at most 5 agents within connected "
                          "components; cannot place 6");
  cr_assert_null(inst);
  mapf_grid_free(g);
}
