/* testutil.h: helpers shared by the test files. */
#ifndef MAPFARM_TESTUTIL_H
#define MAPFARM_TESTUTIL_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "algo.h"
#include "diag.h"
#include "grid.h"
#include "mapgen.h"
#include "rng.h"
#include "scen.h"
#include "sim.h"

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

/* ---- maps and instances ----------------------------------------------------------------- */

/* A grid from rows of text, '.' passable and anything else blocked, named "test". */
static inline mapf_grid *test_grid_from_rows(const char *const *rows, int h) {
  int w = (int)strlen(rows[0]);
  mapf_grid *g = mapf_grid_new(w, h, "test");
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) g->passable[y * w + x] = rows[y][x] == '.';
  cr_assert_eq(mapf_grid_finish(g), MAPF_OK);
  return g;
}

/* A w x h grid without obstacles. */
static inline mapf_grid *test_open_grid(int w, int h, const char *name) {
  mapf_grid *g = mapf_grid_new(w, h, name);
  memset(g->passable, 1, (size_t)w * (size_t)h);
  cr_assert_eq(mapf_grid_finish(g), MAPF_OK);
  return g;
}

/* A generated map (mapgen.h); density counts for random maps only, corridor for mazes only. */
static inline mapf_grid *test_mapgen(mapf_mapgen_kind kind, int32_t w, int32_t h, double density,
                                     int32_t corridor, uint64_t seed) {
  mapf_mapgen_params p;
  mapf_mapgen_defaults(&p, kind);
  p.width = w;
  p.height = h;
  p.density = density;
  p.corridor = corridor;
  p.seed = seed;
  mapf_grid *g = NULL;
  mapf_diag d = {0};
  cr_assert_eq(mapf_mapgen(&p, &g, &d), MAPF_OK, "%s", d.msg);
  return g;
}

/* The .map file at path, failing the test with the located message when it does not load. */
static inline mapf_grid *test_load_grid(const char *path) {
  mapf_grid *g = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  int rc = mapf_grid_load(path, &g, &d);
  char msg[1200];
  mapf_diag_format(&d, msg, sizeof msg);
  cr_assert_eq(rc, MAPF_OK, "loading %s failed: %s", path, msg);
  cr_assert_not_null(g);
  return g;
}

/* The map rel ("dao/lak307d.map") of the MovingAI data in maps (REQUIRE_MAPS). */
static inline mapf_grid *test_load_movingai(const char *maps, const char *rel) {
  char path[4400];
  snprintf(path, sizeof path, "%s/%s", maps, rel);
  return test_load_grid(path);
}

/* A map from the text of a .map file, name giving its file name. */
static inline mapf_grid *test_parse_grid(const char *text, const char *name) {
  mapf_grid *g = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  cr_assert_eq(mapf_grid_parse(text, strlen(text), name, &g, &d), MAPF_OK, "%s", d.msg);
  return g;
}

/* The .scen file at path read against g (flags: MAPF_SCEN_SKIP_INVALID or 0). */
static inline mapf_scen *test_load_scen(const char *path, const mapf_grid *g, unsigned flags) {
  mapf_scen *s = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  int rc = mapf_scen_load(path, g, flags, &s, &d);
  char msg[1200];
  mapf_diag_format(&d, msg, sizeof msg);
  cr_assert_eq(rc, MAPF_OK, "%s", msg);
  return s;
}

/* Agents i = 0 .. n-1 from (xy[4i], xy[4i+1]) to (xy[4i+2], xy[4i+3]). */
static inline mapf_instance *test_instance_of(const mapf_grid *g, int n, const int *xy) {
  mapf_instance *inst = mapf_instance_new(n);
  for (int i = 0; i < n; i++) {
    inst->start[i] = mapf_grid_id(g, xy[4 * i], xy[4 * i + 1]);
    inst->goal[i] = mapf_grid_id(g, xy[4 * i + 2], xy[4 * i + 3]);
  }
  return inst;
}

/* A queue for a corridor of 2n cells (test_open_grid(2n, 1)): agent i from cell i to i + n. */
static inline mapf_instance *test_queue_instance(int n) {
  mapf_instance *inst = mapf_instance_new(n);
  for (int i = 0; i < n; i++) {
    inst->start[i] = i;
    inst->goal[i] = i + n;
  }
  return inst;
}

/* mapf_scengen_random's n agents on g for seed, failing the test when it cannot place them. */
static inline mapf_instance *test_random_instance(const mapf_grid *g, int32_t n, uint64_t seed) {
  mapf_instance *inst = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  cr_assert_eq(mapf_scengen_random(g, n, seed, &inst, &d), MAPF_OK, "%s", d.msg);
  return inst;
}

/* Calls fn(ud, path, rel) for every .map file below dir (rel: its path below root), in
 * readdir order. */
typedef void (*test_map_fn)(void *ud, const char *path, const char *rel);

static inline void test_walk_maps(const char *root, const char *dir, test_map_fn fn, void *ud) {
  DIR *dp = opendir(dir);
  cr_assert_not_null(dp, "cannot open %s", dir);
  struct dirent *e;
  while ((e = readdir(dp)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      test_walk_maps(root, path, fn, ud);
    } else {
      size_t n = strlen(e->d_name);
      if (n > 4 && strcmp(e->d_name + n - 4, ".map") == 0) fn(ud, path, path + strlen(root) + 1);
    }
  }
  closedir(dp);
}

/* A random mutation of base for the parsers' fuzz tests: 1 to max_edits edits, each replacing
 * a byte with one of the nalpha characters of alphabet, cutting the text short, or inserting
 * one of them (while it fits in cap). Returns the length written to buf. */
static inline size_t test_mutate(mapf_rng *r, const char *base, size_t blen, int max_edits,
                                 const char *alphabet, size_t nalpha, char *buf, size_t cap) {
  memcpy(buf, base, blen);
  size_t len = blen;
  int edits = 1 + (int)mapf_rng_below(r, (uint64_t)max_edits);
  for (int e = 0; e < edits; e++) {
    size_t pos = len ? (size_t)mapf_rng_below(r, len) : 0;
    char ch = alphabet[mapf_rng_below(r, nalpha)];
    switch (mapf_rng_below(r, 3)) {
    case 0:
      if (len) buf[pos] = ch;
      break;
    case 1:
      len = pos;
      break;
    default:
      if (len + 1 < cap) {
        memmove(buf + pos + 1, buf + pos, len - pos);
        buf[pos] = ch;
        len++;
      }
    }
  }
  return len;
}

/* Every diagnostic of errs, one per line, in a fresh string (the caller frees). */
static inline char *test_format_diags(const farm_diags *errs) {
  size_t cap = 1, len = 0;
  for (int32_t i = 0; i < errs->n; i++) cap += sizeof(errs->items[i].file) + 1100;
  char *out = malloc(cap);
  cr_assert_not_null(out);
  out[0] = '\0';
  for (int32_t i = 0; i < errs->n; i++) {
    len += (size_t)mapf_diag_format(&errs->items[i], out + len, cap - len);
    out[len++] = '\n';
    out[len] = '\0';
  }
  return out;
}

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

/* ---- scratch directories, the mapfarm command, databases -------------------------------- */

/* Makes dir (n bytes) a new directory mapfarm-NAME-XXXXXX under $TMPDIR, else /tmp. */
static inline void test_make_dir(char *dir, size_t n, const char *name) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, n, "%s/mapfarm-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
  cr_assert_not_null(mkdtemp(dir), "mkdtemp %s failed", dir);
}

/* Removes dir and everything in it, read-only parts included; warns when it cannot. */
static inline void test_remove_dir(const char *dir) {
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'; rm -rf '%s'", dir, dir);
  if (system(cmd) != 0) cr_log_warn("cannot remove %s", dir);
}

/* Defines tmpdir, a fresh directory mapfarm-NAME-XXXXXX for each test of a suite, with the
 * suite's .init = make_tmpdir and .fini = remove_tmpdir. */
#define TEST_TMPDIR(name)                                                                  \
  static char tmpdir[256];                                                                 \
  static void make_tmpdir(void) { test_make_dir(tmpdir, sizeof tmpdir, name); }            \
  static void remove_tmpdir(void) { test_remove_dir(tmpdir); }                             \
  typedef int test_tmpdir_defined_ /* takes the semicolon after the macro */

#ifdef MAPFARM_BINARY
/* Runs `mapfarm ARGS` (printf-style fmt; in directory cwd unless it is NULL) with stdout and
 * stderr captured in dir, and hands them over in *out and *err when those are not NULL (the
 * caller frees). Returns the exit status, or 128 + the signal that ended it. */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static inline int test_mapfarm(const char *dir, const char *cwd, char **out, char **err,
                               const char *fmt, ...) {
  char args[4096], cmd[8192], o[512], e[512], cd[600] = "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(o, sizeof o, "%s/stdout", dir);
  snprintf(e, sizeof e, "%s/stderr", dir);
  if (cwd) snprintf(cd, sizeof cd, "cd '%s' && ", cwd);
  snprintf(cmd, sizeof cmd, "%s'%s' %s >'%s' 2>'%s'", cd, MAPFARM_BINARY, args, o, e);
  int st = system(cmd);
  if (out) *out = test_slurp_text(o);
  if (err) *err = test_slurp_text(e);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
#endif

/* Runs sql (several statements allowed) on the database at path, creating it if need be. */
static inline void test_db_exec(const char *path, const char *sql) {
  sqlite3 *h;
  cr_assert_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
               SQLITE_OK, "cannot open %s", path);
  sqlite3_busy_timeout(h, 5000);
  char *msg = NULL;
  cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s", sql,
               msg ? msg : "");
  sqlite3_close(h);
}

/* A new SQLite file at db holding the tables of an older schema (tests/data/NAME, e.g.
 * "schema-v9.sql"), open: the start of every schema upgrade test. */
static inline sqlite3 *test_open_with_schema(const char *db, const char *name) {
  char path[600];
  snprintf(path, sizeof path, "%s/tests/data/%s", MAPFARM_SOURCE_DIR, name);
  char *schema = test_slurp_text(path);
  sqlite3 *h;
  cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
  char *msg = NULL;
  cr_assert_eq(sqlite3_exec(h, schema, NULL, NULL, &msg), SQLITE_OK, "%s", msg ? msg : "");
  free(schema);
  return h;
}

/* The rows of a query on an open database, one per line, columns joined by '|', NULL for a
 * NULL (malloc'd). */
static inline char *test_query_rows(sqlite3 *h, const char *sql) {
  sqlite3_stmt *s = NULL;
  cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
               sqlite3_errmsg(h));
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cr_assert_not_null(f);
  while (sqlite3_step(s) == SQLITE_ROW) {
    for (int c = 0; c < sqlite3_column_count(s); c++) {
      const unsigned char *v = sqlite3_column_text(s, c);
      fprintf(f, "%s%s", c ? "|" : "", v ? (const char *)v : "NULL");
    }
    fputc('\n', f);
  }
  sqlite3_finalize(s);
  fclose(f);
  return text;
}

/* The same on the database file at path, opened read-only. */
static inline char *test_db_rows(const char *path, const char *sql) {
  sqlite3 *h;
  cr_assert_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK,
               "cannot open %s", path);
  sqlite3_busy_timeout(h, 5000);
  char *rows = test_query_rows(h, sql);
  sqlite3_close(h);
  return rows;
}

/* The first column of the first row of sql on the database at path, -1 when there is no row;
 * fails the test when the file or the query cannot be read. */
static inline int64_t test_db_int(const char *path, const char *sql) {
  sqlite3 *h;
  cr_assert_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK,
               "cannot open %s", path);
  sqlite3_busy_timeout(h, 5000);
  sqlite3_stmt *s;
  cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
               sqlite3_errmsg(h));
  int64_t v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
  sqlite3_finalize(s);
  sqlite3_close(h);
  return v;
}

#ifdef MAPFARM_BINARY
/* Runs plan three ways, into dir/NAME-1.db with 1 thread, dir/NAME-2.db with 2, and as
 * `shards` shards merged into dir/NAME-m.db, and asserts that each query in sql (n of them)
 * reads the same rows from all three: results must not depend on threads or shard layout.
 * db receives the three paths. */
static inline void test_same_on_threads_and_shards(const char *dir, const char *name,
                                                   const char *plan, int shards,
                                                   const char *const *sql, int n,
                                                   char db[3][512]) {
  char *out, *err, merge[4096];
  snprintf(db[0], 512, "%s/%s-1.db", dir, name);
  snprintf(db[1], 512, "%s/%s-2.db", dir, name);
  snprintf(db[2], 512, "%s/%s-m.db", dir, name);
  for (int t = 1; t <= 2; t++) {
    cr_assert_eq(test_mapfarm(dir, NULL, NULL, &err, "run '%s' --db '%s' --threads %d", plan,
                              db[t - 1], t),
                 0, "%s", err);
    free(err);
  }
  int len = snprintf(merge, sizeof merge, "merge '%s'", db[2]);
  for (int k = 1; k <= shards; k++) {
    char shard[512];
    snprintf(shard, sizeof shard, "%s/%s-s%d.db", dir, name, k);
    cr_assert_eq(test_mapfarm(dir, NULL, NULL, &err, "run '%s' --db '%s' --shard %d/%d", plan,
                              shard, k, shards),
                 0, "%s", err);
    free(err);
    len += snprintf(merge + len, sizeof merge - (size_t)len, " '%s'", shard);
  }
  cr_assert_eq(test_mapfarm(dir, NULL, &out, &err, "%s", merge), 0, "%s", err);
  free(out);
  free(err);
  for (int q = 0; q < n; q++) {
    char *a = test_db_rows(db[0], sql[q]);
    for (int i = 1; i < 3; i++) {
      char *b = test_db_rows(db[i], sql[q]);
      cr_assert_str_eq(a, b, "%s differs from the 1-thread run", db[i]);
      free(b);
    }
    free(a);
  }
}
#endif


/* Like test_db_int, but -1 instead of a failed test when the database is not ready yet (a run
 * that was just started may not have created its tables). */
static inline int64_t test_db_try_int(const char *path, const char *sql) {
  sqlite3 *h;
  int64_t v = -1;
  if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 5000);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) == SQLITE_OK) {
      if (sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_int64(s, 0);
      sqlite3_finalize(s);
    }
  }
  sqlite3_close(h);
  return v;
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

/* Checks a `mapfarm solve --trace` file against the output printed with it: the trace is legal
 * (test_check_trace), and its final positions and last step give the printed completion rate
 * and step count. Returns the completion rate; the printf-style label names the run. */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static inline double test_check_solve_trace(const char *trace, const char *out,
                                            const mapf_grid *g, int agents, const char *fmt,
                                            ...) {
  char label[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(label, sizeof label, fmt, ap);
  va_end(ap);
  int64_t steps;
  double rate = test_check_trace(trace, g, agents, &steps);
  cr_assert_float_eq(rate, test_metric(out, "completion_rate"), 1e-9, "%s", label);
  cr_assert_eq(steps, (int64_t)test_metric(out, "steps"), "%s", label);
  return rate;
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

/* ---- simulator runs --------------------------------------------------------------------- */

/* The registered algorithm `name`, failing the test when there is none. */
static inline const mapf_algo_def *test_algo(const char *name) {
  const mapf_algo_def *def = mapf_algo_find(name);
  cr_assert_not_null(def, "no algorithm %s", name);
  return def;
}

/* Sets parameter `name` of def in p, failing the test when def has no such parameter. */
static inline void test_set_param(const mapf_algo_def *def, mapf_params *p, const char *name,
                                  double v) {
  int32_t i = mapf_param_index(def, name);
  cr_assert_geq(i, 0, "%s has no parameter %s", def->name, name);
  p->v[i] = v;
}

/* A run of algorithm `name` on inst with its default parameters; limits and the rest zero. */
static inline mapf_run_config test_run_config(const mapf_grid *g, const mapf_instance *inst,
                                              const char *name) {
  mapf_run_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.grid = g;
  cfg.inst = inst;
  cfg.algo = test_algo(name);
  mapf_params_default(cfg.algo, &cfg.params);
  return cfg;
}

/* mapf_run of cfg in a fresh workspace, failing the test when the run cannot be done. */
static inline void test_run(const mapf_run_config *cfg, mapf_result *res) {
  mapf_workspace *ws = mapf_workspace_new();
  mapf_diag d;
  memset(&d, 0, sizeof d);
  cr_assert_eq(mapf_run(ws, cfg, res, &d), MAPF_OK, "%s: %s", cfg->algo->name, d.msg);
  mapf_workspace_free(ws);
}

/* Checks a run against the step checker that watched it (label names the run): no illegal
 * step, the checker saw every step, and every agent's final cell is its last watched cell. */
static inline void test_check_steps(const test_step_checker *w, const mapf_result *res,
                                    const char *label) {
  cr_assert_eq(w->violations, 0, "%s: %lld illegal moves, shared cells or swaps", label,
               (long long)w->violations);
  cr_assert_eq(w->steps, res->steps, "%s", label);
  for (int32_t a = 0; a < res->agents; a++)
    cr_assert_eq(res->agent[a].final, w->prev[a], "%s: final position of agent %d", label, a);
}

/* test_run of cfg watched by a step checker of its own, checked with test_check_steps. */
static inline void test_run_checked(mapf_run_config *cfg, mapf_result *res, const char *label) {
  test_step_checker w = {cfg->grid, NULL, NULL, 0, 0};
  cfg->on_step = test_step_check;
  cfg->ud = &w;
  test_run(cfg, res);
  test_check_steps(&w, res, label);
  test_step_checker_free(&w);
  cfg->on_step = NULL;
  cfg->ud = NULL;
}

/* Sums over the agents of a result. */
typedef struct test_agent_sums {
  int32_t completed;
  double travel;
  int64_t searches, expansions;
} test_agent_sums;

/* Checks the identities of a one-way run (sim.h): an agent has reached its goal exactly when it
 * stands on it, then at a step in [0, steps] after travelling at least the octile distance, and
 * has completion step -1 otherwise; completed, completion rate, mean travel distance and status
 * agree with the agents. Returns the agents' sums. */
static inline test_agent_sums test_check_arrivals(const mapf_grid *g, const mapf_instance *inst,
                                                  const mapf_result *res) {
  test_agent_sums s = {0, 0, 0, 0};
  for (int32_t a = 0; a < res->agents; a++) {
    const mapf_agent_result *ar = &res->agent[a];
    cr_assert_eq(ar->reached, ar->final == inst->goal[a], "agent %d", a);
    s.completed += ar->reached;
    s.travel += ar->travel_distance;
    s.searches += ar->searches;
    s.expansions += ar->expansions;
    if (ar->reached) {
      cr_assert_geq(ar->completion_step, 0, "agent %d", a);
      cr_assert_leq(ar->completion_step, res->steps, "agent %d", a);
      cr_assert_geq(ar->travel_distance + 1e-9, mapf_octile(g, inst->start[a], inst->goal[a]),
                    "agent %d travelled less than the octile distance", a);
    } else {
      cr_assert_eq(ar->completion_step, -1, "agent %d", a);
    }
  }
  cr_assert_eq(res->completed, s.completed);
  cr_assert_float_eq(res->completion_rate, (double)s.completed / res->agents, 1e-12);
  cr_assert_float_eq(res->mean_travel_distance, s.travel / res->agents, 1e-9);
  cr_assert_eq(res->status == MAPF_STATUS_OK, s.completed == res->agents);
  return s;
}

/* Asserts that two runs of one configuration (label) agree on every value that does not depend
 * on the clock. */
static inline void test_assert_same_run(const mapf_result *a, const mapf_result *b,
                                        const char *label) {
  cr_assert_eq(a->steps, b->steps, "%s", label);
  cr_assert_eq(a->expansions, b->expansions, "%s", label);
  cr_assert_eq(a->searches, b->searches, "%s", label);
  cr_assert_eq(a->failed_moves, b->failed_moves, "%s", label);
  cr_assert_eq(a->pushes, b->pushes, "%s", label);
  cr_assert_eq(a->deadlocks_broken, b->deadlocks_broken, "%s", label);
  cr_assert_eq(a->completed, b->completed, "%s", label);
  cr_assert_eq(a->loops_done, b->loops_done, "%s", label);
  cr_assert_eq(memcmp(&a->mean_travel_distance, &b->mean_travel_distance, sizeof(double)), 0,
               "%s", label);
  cr_assert_eq(memcmp(&a->coherence, &b->coherence, sizeof(double)), 0, "%s", label);
  cr_assert_eq(a->coherence_samples, b->coherence_samples, "%s", label);
  if (a->coherence_samples > 0) /* the series is NULL when nothing was sampled */
    cr_assert_eq(memcmp(a->coherence_series, b->coherence_series,
                        (size_t)a->coherence_samples * sizeof *a->coherence_series),
                 0, "%s", label);
  for (int32_t i = 0; i < a->agents; i++) {
    cr_assert_eq(a->agent[i].final, b->agent[i].final, "%s agent %d", label, i);
    cr_assert_eq(a->agent[i].completion_step, b->agent[i].completion_step, "%s agent %d", label,
                 i);
    cr_assert_eq(a->agent[i].expansions, b->agent[i].expansions, "%s agent %d", label, i);
    cr_assert_eq(memcmp(&a->agent[i].travel_distance, &b->agent[i].travel_distance,
                        sizeof(double)),
                 0, "%s agent %d", label, i);
  }
}

/* Ends the test when node, chromium or tools/viewer/node_modules (the headless-browser tests'
 * puppeteer-core) is missing: a failure under CI=true, a loud skip naming `test` elsewhere. */
static inline void test_require_browser(const char *test) {
  const char *what = NULL;
  char probe[1200];
  const char *chromium = getenv("MAPFARM_CHROMIUM");
  snprintf(probe, sizeof probe, "%s/tools/viewer/node_modules/puppeteer-core/package.json",
           MAPFARM_SOURCE_DIR);
  struct stat sb;
  if (system("command -v node >/dev/null 2>&1") != 0)
    what = "node (apt-get install nodejs npm; make test does)";
  else if (chromium && *chromium ? stat(chromium, &sb) != 0
                                 : stat("/usr/bin/chromium", &sb) != 0 &&
                                       stat("/usr/bin/chromium-browser", &sb) != 0 &&
                                       stat("/usr/bin/google-chrome", &sb) != 0)
    what = "chromium (apt-get install chromium, or set MAPFARM_CHROMIUM; make test installs it)";
  else if (stat(probe, &sb) != 0)
    what = "tools/viewer/node_modules (cd tools/viewer && npm ci; make test does)";
  if (!what) return;
  if (test_in_ci()) cr_assert_fail("%s: %s is missing; CI=true requires it", test, what);
  fprintf(stderr, "\n*** %s: SKIPPED: %s is missing ***\n\n", test, what);
  cr_skip_test("%s is missing", what);
}

#endif
