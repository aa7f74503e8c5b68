/* testutil.h: helpers shared by the test files. */
#ifndef MAPFARM_TESTUTIL_H
#define MAPFARM_TESTUTIL_H

#include <criterion/criterion.h>
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

/* ---- files ------------------------------------------------------------------------------ */

/* The whole file at path, NUL-terminated (malloc'd; the caller frees), its length in *len when
 * len is not NULL; NULL (and *len = 0) when it cannot be opened. */
static inline char *test_slurp(const char *path, size_t *len) {
  if (len) *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t cap = 0, n = 0, got;
  do {
    if (n == cap) {
      cap = cap ? 2 * cap : 65536;
      buf = realloc(buf, cap + 1);
      if (!buf) abort();
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  fclose(f);
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}

/* The same, "" for a file that is not there (a command's empty output). */
static inline char *test_slurp_text(const char *path) {
  char *t = test_slurp(path, NULL);
  return t ? t : strdup("");
}

/* The same, failing the test when the file is not there. */
static inline char *test_slurp_file(const char *path, size_t *len) {
  char *t = test_slurp(path, len);
  cr_assert_not_null(t, "cannot open %s", path);
  return t;
}

/* ---- `mapfarm solve` output and traces -------------------------------------------------- */

/* The value of a "name: value" line of `mapfarm solve` output. */
static inline double test_metric(const char *out, const char *name) {
  char key[128];
  snprintf(key, sizeof key, "\n%s: ", name);
  const char *p = strstr(out, key);
  cr_assert_not_null(p, "no %s in output:\n%s", name, out);
  return strtod(p + strlen(key), NULL);
}

/* Parses "(x,y),(x,y),..." into at most max cells; returns the count. */
static inline int test_parse_cells(const mapf_grid *g, const char *s, int32_t *cells, int max) {
  int n = 0;
  while (*s == '(' && n < max) {
    int x, y, used;
    cr_assert_eq(sscanf(s, "(%d,%d)%n", &x, &y, &used), 2, "bad cell list at %.20s", s);
    cr_assert(mapf_grid_in(g, x, y), "cell (%d,%d) outside the map", x, y);
    cells[n++] = mapf_grid_id(g, x, y);
    s += used;
    if (*s == ',') s++;
  }
  return n;
}

/* Checks a `solve --trace` file on its own terms: header (agents=, solver=), positions at
 * t = 0 equal the starts, every step a wait or a legal move, no two agents on one cell, no
 * swaps. Returns the fraction of agents whose last position is their goal, and sets *steps to
 * the last time step. */
static inline double test_check_trace(const char *path, const mapf_grid *g, int agents,
                                      int64_t *steps) {
  char *text = test_slurp_text(path);
  int32_t *starts = calloc((size_t)agents, sizeof *starts);
  int32_t *goals = calloc((size_t)agents, sizeof *goals);
  int32_t *prev = calloc((size_t)agents, sizeof *prev);
  int32_t *cur = calloc((size_t)agents, sizeof *cur);
  int32_t *mark = calloc((size_t)g->ncells, sizeof *mark);
  char want[64];
  snprintf(want, sizeof want, "agents=%d\n", agents);
  cr_assert(strncmp(text, want, strlen(want)) == 0, "trace header: %.40s", text);
  cr_assert_not_null(strstr(text, "\nsolver="));
  const char *p = strstr(text, "\nstarts=");
  cr_assert_not_null(p);
  cr_assert_eq(test_parse_cells(g, p + 8, starts, agents), agents);
  p = strstr(text, "\ngoals=");
  cr_assert_not_null(p);
  cr_assert_eq(test_parse_cells(g, p + 7, goals, agents), agents);
  p = strstr(text, "\nsolution=\n");
  cr_assert_not_null(p);
  p += 11;
  int64_t t = -1;
  while (*p) {
    long long tt;
    int used;
    cr_assert_eq(sscanf(p, "%lld:%n", &tt, &used), 1);
    cr_assert_eq(tt, t + 1, "time steps must follow each other");
    t = tt;
    cr_assert_eq(test_parse_cells(g, p + used, cur, agents), agents, "step %lld", tt);
    for (int a = 0; a < agents; a++) {
      cr_assert(g->passable[cur[a]], "agent %d on a blocked cell at t=%lld", a, tt);
      cr_assert_eq(mark[cur[a]], 0, "two agents on one cell at t=%lld", tt);
      mark[cur[a]] = a + 1;
    }
    if (t == 0) {
      for (int a = 0; a < agents; a++) cr_assert_eq(cur[a], starts[a], "start of agent %d", a);
    } else {
      for (int a = 0; a < agents; a++) {
        if (cur[a] == prev[a]) continue;
        int d = mapf_grid_dir(g, prev[a], cur[a]);
        cr_assert(d >= 0 && (g->moves[prev[a]] >> d & 1), "illegal move of agent %d at t=%lld",
                  a, tt);
        int b = mark[prev[a]] - 1; /* who stands now where a stood */
        cr_assert(!(b >= 0 && b != a && prev[b] == cur[a]), "agents %d and %d swapped", a, b);
      }
    }
    for (int a = 0; a < agents; a++) mark[cur[a]] = 0;
    memcpy(prev, cur, (size_t)agents * sizeof *cur);
    p = strchr(p, '\n');
    if (!p) break;
    p++;
  }
  cr_assert_geq(t, 0, "no time steps in the trace");
  int reached = 0;
  for (int a = 0; a < agents; a++) reached += prev[a] == goals[a];
  *steps = t;
  free(text);
  free(starts);
  free(goals);
  free(prev);
  free(cur);
  free(mark);
  return (double)reached / agents;
}

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
