/* testutil.h: helpers shared by the test files. */
#ifndef MAPFARM_TESTUTIL_H
#define MAPFARM_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grid.h"

#ifndef MAPFARM_SOURCE_DIR
#define MAPFARM_SOURCE_DIR "."
#endif

/* The MovingAI data of ../shared (MAPFARM_MAPS, else ../shared/movingai beside the source
 * tree), or NULL when it is not there. */
static inline const char *test_maps_dir(char *buf, size_t n) {
  const char *env = getenv("MAPFARM_MAPS");
  if (env && *env)
    snprintf(buf, n, "%s", env);
  else
    snprintf(buf, n, "%s/../shared/movingai", MAPFARM_SOURCE_DIR);
  char probe[4200];
  snprintf(probe, sizeof probe, "%s/MANIFEST.tsv", buf);
  struct stat sb;
  return stat(probe, &sb) == 0 ? buf : NULL;
}

static inline int test_in_ci(void) {
  const char *ci = getenv("CI");
  return ci && strcmp(ci, "true") == 0;
}

/* Finds the shared data or ends the test: a failure under CI=true (the data must be there),
 * a visible skip elsewhere. */
#define REQUIRE_MAPS(var)                                                              \
  char var##_buf[4096];                                                                \
  const char *var = test_maps_dir(var##_buf, sizeof var##_buf);                        \
  do {                                                                                 \
    if (!var) {                                                                        \
      if (test_in_ci())                                                                \
        cr_assert_fail("MovingAI data not found (set MAPFARM_MAPS or put ../shared beside "  \
                 "the repository); CI=true requires it");                              \
      cr_skip_test("MovingAI data not found; set MAPFARM_MAPS to run this test");      \
    }                                                                                  \
  } while (0)

/* An independent check of every step of a run (mapf_run_config.on_step): no two agents on
 * one cell, every move a legal move of the grid (a diagonal needs both cardinal cells beside
 * it), no two agents swapping cells. Counts violations instead of asserting, so a caller can
 * say which run broke a rule. */
typedef struct test_step_checker {
  const mapf_grid *g;
  int32_t *prev, *cell;
  int64_t steps;
  int64_t violations;
} test_step_checker;

static inline void test_step_check(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  test_step_checker *w = ud;
  if (!w->prev) {
    w->prev = calloc((size_t)n, sizeof *w->prev);
    w->cell = calloc((size_t)w->g->ncells, sizeof *w->cell);
    if (!w->prev || !w->cell) abort();
  }
  for (int32_t a = 0; a < n; a++) {
    if (w->cell[pos[a]]) w->violations++; /* two agents on one cell */
    w->cell[pos[a]] = a + 1;
  }
  for (int32_t a = 0; a < n; a++) w->cell[pos[a]] = 0;
  if (t > 0) {
    for (int32_t a = 0; a < n; a++) {
      int32_t from = w->prev[a], to = pos[a];
      if (from == to) continue;
      int d = mapf_grid_dir(w->g, from, to);
      if (d < 0 || !(w->g->moves[from] >> d & 1)) w->violations++;
    }
    /* A swap: agent b now stands where a was, and a where b was. */
    for (int32_t a = 0; a < n; a++) w->cell[w->prev[a]] = a + 1;
    for (int32_t a = 0; a < n; a++) {
      int32_t b = w->cell[pos[a]] - 1;
      if (b >= 0 && b != a && pos[b] == w->prev[a]) w->violations++;
    }
    for (int32_t a = 0; a < n; a++) w->cell[w->prev[a]] = 0;
  }
  memcpy(w->prev, pos, (size_t)n * sizeof *pos);
  w->steps = t;
}

static inline void test_step_checker_free(test_step_checker *w) {
  free(w->prev);
  free(w->cell);
  w->prev = w->cell = NULL;
}

#endif
