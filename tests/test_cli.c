/* test_cli.c: the mapfarm command end to end, as a user runs it: solve with a trace checked
 * move by move, run and resume, SIGKILL and rerun, bad input leaving a database untouched,
 * reports and expansion. */
#include <criterion/criterion.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "algo.h"
#include "grid.h"
#include "store.h"
#include "testutil.h"

#ifndef MAPFARM_BINARY
#error "MAPFARM_BINARY must name the mapfarm executable"
#endif

TEST_TMPDIR("cli");
TestSuite(cli, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 300);

/* `mapfarm ARGS`, run where the test runs, its output captured in tmpdir (testutil.h). */
#define mapfarm(out, err, ...) test_mapfarm(tmpdir, NULL, out, err, __VA_ARGS__)

/* How many positions mapf-visualizer reads from a line: its parser takes every match of
 * \((\d+),(\d+),?(...)?\), so a position without its trailing comma is dropped. */
static int visualizer_positions(const regex_t *re, const char *line) {
  int n = 0;
  regmatch_t m;
  while (regexec(re, line, 1, &m, 0) == 0) {
    n++;
    line += m.rm_eo;
  }
  return n;
}

/* A trace of every algorithm reads in full with mapf-visualizer's pattern: every agent on every
 * step line, on starts= and goals=; and the header has what its ecosystem writes. A patrol
 * trace records each turn as goal_change=STEP:AGENT:(x,y). */
Test(cli, every_algorithms_trace_reads_in_full_with_the_visualizers_pattern) {
  regex_t re;
  cr_assert_eq(regcomp(&re, "\\(([0-9]+),([0-9]+),?(...)?\\),", REG_EXTENDED), 0);
  char map[600], trace[600];
  /* 12 x 12 with a wall of four cells: room for patrol bands and for agents to meet. */
  snprintf(map, sizeof map, "%s/room.map", tmpdir);
  FILE *mf = fopen(map, "w");
  cr_assert_not_null(mf);
  fputs("type octile\nheight 12\nwidth 12\nmap\n", mf);
  for (int y = 0; y < 12; y++) fputs(y >= 3 && y < 7 ? ".....@......\n" : "............\n", mf);
  cr_assert_eq(fclose(mf), 0);
  snprintf(trace, sizeof trace, "%s/v.trace", tmpdir);
  for (int32_t k = 0; k < mapf_algo_count(); k++) {
    const char *algo = mapf_algo_at(k)->name;
    /* A program's command has no default: external runs mapfarm's PIBT. */
    char extra[1200] = "";
    if (mapf_algo_at(k)->program)
      snprintf(extra, sizeof extra,
               "--seconds 30 --param 'command=[\"%s\",\"solve\",\"--map\",\"{map}\","
               "\"--scen\",\"{scen}\",\"--algo\",\"pibt\",\"--steps\",\"{steps}\","
               "\"--trace\",\"{out}\"]'",
               MAPFARM_BINARY);
    for (int one = 0; one <= 1; one++) {
      int agents = one ? 1 : 6;
      char *out, *err;
      int rc = mapfarm(&out, &err,
                       "solve --map '%s' --generator random --agents %d --seed 2 --algo %s "
                       "--steps 40 --trace '%s' %s",
                       map, agents, algo, trace, extra);
      cr_assert_eq(rc, 0, "%s: %s", algo, err);
      char *text = test_slurp_text(trace);
      int steps = 0;
      char *save = NULL;
      int in_solution = 0, header = 0;
      for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strcmp(line, "solution=") == 0) {
          in_solution = 1;
          continue;
        }
        if (!in_solution) {
          header += strncmp(line, "agents=", 7) == 0 || strncmp(line, "map_file=", 9) == 0 ||
                    strncmp(line, "solver=", 7) == 0 || strncmp(line, "solved=", 7) == 0 ||
                    strncmp(line, "comp_time=", 10) == 0;
          if (strncmp(line, "starts=", 7) == 0 || strncmp(line, "goals=", 6) == 0)
            cr_expect_eq(visualizer_positions(&re, line), agents, "%s: %s", algo, line);
          continue;
        }
        steps++;
        cr_expect_eq(visualizer_positions(&re, line), agents, "%s, %d agents: %.60s", algo,
                     agents, line);
      }
      cr_expect_eq(header, 5, "%s: agents, map_file, solver, solved, comp_time", algo);
      cr_expect_gt(steps, 1, "%s", algo);
      free(text);
      free(out);
      free(err);
    }
  }
  /* Patrol: every turn is in the header; soc and makespan are there when solved. */
  char *out, *err;
  cr_assert_eq(mapfarm(&out, &err,
                       "solve --map '%s' --generator patrol --generator-param loops=2 --agents 2 "
                       "--seed 2 --algo bmaa --steps 400 --trace '%s'",
                       map, trace),
               0, "%s", err);
  char *text = test_slurp_text(trace);
  int turns = 0;
  for (const char *p = text; (p = strstr(p, "\ngoal_change=")); p++) {
    long long t;
    int a, x, y;
    cr_expect_eq(sscanf(p, "\ngoal_change=%lld:%d:(%d,%d)", &t, &a, &x, &y), 4);
    turns++;
  }
  /* Two agents, two loops: goal -> start -> goal -> start is three turns each. */
  cr_expect_eq(turns, 6, "%s", text);
  cr_expect(strstr(text, "\nsolved=1\nsoc=") != NULL, "%.300s", text);
  cr_expect(strstr(text, "goal_change=") < strstr(text, "solution="));
  free(text);
  free(out);
  free(err);
  /* --html: the viewer page with the map and this run's trace in it, with or without --trace;
   * a page that cannot be written is an error naming it. */
  char page[600];
  snprintf(page, sizeof page, "%s/run.html", tmpdir);
  cr_assert_eq(mapfarm(&out, &err,
                       "solve --map '%s' --generator random --agents 3 --seed 2 --algo far "
                       "--steps 40 --html '%s'",
                       map, page),
               0, "%s", err);
  free(out);
  free(err);
  char *html = test_slurp_text(page);
  cr_expect(strstr(html, "<title>room.map: far, 3 agents</title>") != NULL, "%.200s", html);
  cr_expect(strstr(html, "data-name=\"room.map\">type octile\nheight 12\n") != NULL);
  const char *tr = strstr(html, "id=\"trace\">agents=3\nmap_file=room.map\nsolver=far\n");
  cr_expect(tr != NULL && strstr(tr, "\nsolution=\n0:(") != NULL);
  free(html);
  cr_assert_eq(mapfarm(&out, &err,
                       "solve --map '%s' --generator random --agents 3 --seed 2 --algo far "
                       "--steps 40 --html '%s/no/such/dir/x.html'",
                       map, tmpdir),
               2);
  cr_expect(strstr(err, "no/such/dir/x.html") != NULL, "%s", err);
  free(out);
  free(err);
  regfree(&re);
}

/* The acceptance check: a BMAA* trace on lak307d in which every move is legal and whose
 * final positions give the printed completion rate. */
Test(cli, solve_writes_a_legal_trace_that_matches_the_metrics) {
  REQUIRE_MAPS(maps);
  const char *variants[] = {"", "--param push=true", "--execution single-pass",
                            "--param vision=3 --param expansions=8 --param moves=4"};
  for (int v = 0; v < 4; v++) {
    char *out, *err, trace[512], map[4200];
    snprintf(trace, sizeof trace, "%s/t%d.txt", tmpdir, v);
    snprintf(map, sizeof map, "%s/dao/lak307d.map", maps);
    int rc = mapfarm(&out, &err,
                     "solve --map '%s' --generator random --agents 100 --seed 1 --algo bmaa "
                     "--trace '%s' %s",
                     map, trace, variants[v]);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    mapf_grid *g = test_load_grid(map);
    double rate = test_check_solve_trace(trace, out, g, 100, "variant %d", v);
    cr_assert_gt(rate, 0.5, "variant %d: completion %.2f", v, rate);
    mapf_grid_free(g);
    free(out);
    free(err);
  }
}

/* --connectivity 4: every algorithm of the registry moves along cardinal moves only (each
 * trace checked move by move against the 4-connected grid), and the same runs under the
 * default 8 do take diagonal moves, so the check has something to catch. */
Test(cli, every_algorithm_moves_on_cardinal_moves_only_under_connectivity_4) {
  REQUIRE_MAPS(maps);
  char map[4200], scen[4200];
  snprintf(map, sizeof map, "%s/mapf/random-32-32-20.map", maps);
  snprintf(scen, sizeof scen, "%s/mapf-scen/scen-random/random-32-32-20-random-1.scen", maps);
  mapf_grid *g4 = test_load_grid(map), *g8 = test_load_grid(map);
  cr_assert_eq(mapf_grid_set_connectivity(g4, 4), MAPF_OK);
  int diagonal_runs = 0;
  for (int32_t i = 0; i < mapf_algo_count(); i++) {
    const char *name = mapf_algo_at(i)->name;
    /* A program's command has no default: external runs mapfarm's PIBT, told the grid's moves
     * by {connectivity}. */
    char extra[1200] = "";
    if (mapf_algo_at(i)->program)
      snprintf(extra, sizeof extra,
               "--seconds 60 --param 'command=[\"%s\",\"solve\",\"--map\",\"{map}\","
               "\"--scen\",\"{scen}\",\"--algo\",\"pibt\",\"--connectivity\","
               "\"{connectivity}\",\"--steps\",\"{steps}\",\"--trace\",\"{out}\"]'",
               MAPFARM_BINARY);
    for (int four = 1; four >= 0; four--) {
      char *out, *err, trace[512];
      snprintf(trace, sizeof trace, "%s/c%d-%s.txt", tmpdir, four ? 4 : 8, name);
      int rc = mapfarm(&out, &err,
                       "solve --map '%s' --scen '%s' --agents 40 --steps 300 --algo %s "
                       "--connectivity %d --trace '%s' %s",
                       map, scen, name, four ? 4 : 8, trace, extra);
      cr_assert_eq(rc, 0, "%s, connectivity %d: exit %d: %s", name, four ? 4 : 8, rc, err);
      double rate = test_check_solve_trace(trace, out, four ? g4 : g8, 40, "%s, %d", name,
                                           four ? 4 : 8);
      cr_assert_gt(rate, 0.0, "%s, connectivity %d: no agent reached its goal", name,
                   four ? 4 : 8);
      if (!four) {
        /* Did any move of this run change both coordinates? The 8-connected grid allows it. */
        char *text = test_slurp_text(trace);
        mapf_grid *g = g8;
        int32_t *prev = calloc(40, sizeof *prev), *cur = calloc(40, sizeof *cur);
        const char *p = strstr(text, "\nsolution=\n");
        cr_assert_not_null(p);
        int diag = 0, first = 1;
        for (p += 11; *p; first = 0) {
          int used;
          long long t;
          cr_assert_eq(sscanf(p, "%lld:%n", &t, &used), 1);
          test_parse_cells(g, p + used, cur, 40);
          for (int a = 0; !first && a < 40; a++)
            diag += mapf_grid_x(g, cur[a]) != mapf_grid_x(g, prev[a]) &&
                    mapf_grid_y(g, cur[a]) != mapf_grid_y(g, prev[a]);
          memcpy(prev, cur, 40 * sizeof *cur);
          if (!(p = strchr(p, '\n'))) break;
          p++;
        }
        diagonal_runs += diag > 0;
        free(prev);
        free(cur);
        free(text);
      }
      free(out);
      free(err);
    }
  }
  cr_assert_gt(diagonal_runs, 0, "no algorithm moved diagonally under connectivity 8");
  mapf_grid_free(g4);
  mapf_grid_free(g8);
}

/* rths from the command line: an enumeration parameter by name, one agent of a MovingAI
 * scenario (the thesis's single-agent setting) and 50 agents at once, each trace checked move
 * by move; a choice that is not one is refused with the choices listed. */
Test(cli, solve_runs_rths_with_an_enumeration_parameter) {
  REQUIRE_MAPS(maps);
  char *out, *err, trace[512], map[4200], scen[4200];
  snprintf(trace, sizeof trace, "%s/rths.txt", tmpdir);
  snprintf(map, sizeof map, "%s/dao/lak307d.map", maps);
  snprintf(scen, sizeof scen, "%s/scen/dao/lak307d.map.scen", maps);
  mapf_grid *g = test_load_grid(map);
  const char *sources[] = {"--scen '%s' --agents 1", "--generator random --agents 50 --seed 2"};
  int agents[] = {1, 50};
  for (int v = 0; v < 2; v++) {
    char src[4400];
    snprintf(src, sizeof src, sources[v], scen);
    int rc = mapfarm(&out, &err,
                     "solve --map '%s' %s --algo rths --param lop=median --param b=1 "
                     "--param da=true --steps 2000 --trace '%s'",
                     map, src, trace);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    double rate = test_check_solve_trace(trace, out, g, agents[v], "%d agents", agents[v]);
    cr_assert_gt(rate, 0.3, "%d agents: completion %.2f", agents[v], rate);
    free(out);
    free(err);
  }
  mapf_grid_free(g);
  cr_assert_eq(mapfarm(NULL, &err, "solve --map '%s' --scen '%s' --agents 1 --algo rths --param "
                       "lop=avg", map, scen), 2);
  cr_assert(strstr(err, "--param: lop: expected one of min, mean, median, max, found \"avg\""),
            "%s", err);
  free(err);
}

Test(cli, exported_scenario_reproduces_the_instance) {
  char *out1, *out2, *err, scen[512], map[512];
  snprintf(scen, sizeof scen, "%s/inst.scen", tmpdir);
  snprintf(map, sizeof map, "%s/tests/data/maps/two_rooms.map", MAPFARM_SOURCE_DIR);
  cr_assert_eq(mapfarm(&out1, &err,
                       "solve --map '%s' --generator random --agents 6 --seed 9 --algo bmaa "
                       "--export-scen '%s'", map, scen), 0, "%s", err);
  free(err);
  cr_assert_eq(mapfarm(&out2, &err, "solve --map '%s' --scen '%s' --algo bmaa", map, scen), 0,
               "%s", err);
  char *scen_text = test_slurp_text(scen);
  cr_assert(strncmp(scen_text, "version 1\n", 10) == 0);
  /* Same instance, same algorithm: the same non-timing metrics. */
  const char *names[] = {"completion_rate", "mean_travel_distance", "steps", "expansions"};
  for (int i = 0; i < 4; i++)
    cr_assert_float_eq(test_metric(out1, names[i]), test_metric(out2, names[i]), 1e-12, "%s", names[i]);
  free(scen_text);
  free(out1);
  free(out2);
  free(err);
}

/* Writes tmpdir/REL, a w x h map with every cell open. */
static void write_open_map(const char *rel, int w, int h) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "cannot write %s", path);
  fprintf(f, "type octile\nheight %d\nwidth %d\nmap\n", h, w);
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) fputc('.', f);
    fputc('\n', f);
  }
  fclose(f);
}

/* The case: 11 agents of a 32 x 32 map's scenario file given with a 64 x 64 map (of the
 * same file name) ran with exit 0. solve and render now refuse a scenario file for another map,
 * by its map name or size, as plans match scenario files to maps, and say which map it is for. */
Test(cli, solve_refuses_a_scenario_file_for_another_map) {
  char *err, scen[512];
  for (int i = 0; i < 2; i++) {
    snprintf(scen, sizeof scen, "%s/%c", tmpdir, "ab"[i]);
    cr_assert_eq(mkdir(scen, 0700), 0, "%s", scen);
  }
  write_open_map("a/open.map", 32, 32);
  write_open_map("b/open.map", 64, 64);
  write_open_map("other.map", 32, 32);
  snprintf(scen, sizeof scen, "%s/open.scen", tmpdir);
  cr_assert_eq(mapfarm(NULL, &err, "solve --map '%s/a/open.map' --generator random --agents 11 "
                                   "--steps 0 --export-scen '%s'", tmpdir, scen),
               0, "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "solve --map '%s/a/open.map' --scen '%s' --algo bmaa", tmpdir,
                       scen),
               0, "%s", err);
  free(err);
  const char *maps[] = {"b/open.map", "other.map"}, *want[] = {"open.map (64 x 64)",
                                                               "other.map (32 x 32)"};
  for (int i = 0; i < 2; i++) {
    char msg[1400];
    snprintf(msg, sizeof msg, "%s:2: error: the scenario is for map open.map (32 x 32), not %s\n",
             scen, want[i]);
    int rc = mapfarm(NULL, &err, "solve --map '%s/%s' --scen '%s' --algo bmaa", tmpdir, maps[i],
                     scen);
    cr_assert_eq(rc, 2, "%s: exit %d: %s", maps[i], rc, err);
    cr_assert_str_eq(err, msg);
    free(err);
    rc = mapfarm(NULL, &err, "render --map '%s/%s' --scen '%s' --out '%s/x.png'", tmpdir,
                 maps[i], scen, tmpdir);
    cr_assert_eq(rc, 2, "%s: exit %d: %s", maps[i], rc, err);
    cr_assert_str_eq(err, msg);
    free(err);
  }
}

/* `mapfarm ARGS` killed after 20 s, so that a command that blocks fails the test (exit 137)
 * instead of hanging it; stderr in *err. */
static int mapfarm_timed(char **err, const char *fmt, const char *a, const char *b) {
  char args[2048], cmd[4096], e[512];
  snprintf(args, sizeof args, fmt, a, b);
  snprintf(e, sizeof e, "%s/stderr", tmpdir);
  snprintf(cmd, sizeof cmd, "timeout -s KILL 20 '%s' %s >/dev/null 2>'%s'", MAPFARM_BINARY,
           args, e);
  int st = system(cmd);
  *err = test_slurp_text(e);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Only regular files are read, whatever the input: a FIFO is refused at once (opening it used to
 * wait forever for a writer), a directory or a device says what it is. */
Test(cli, file_inputs_that_are_not_regular_files_are_refused_at_once) {
  char fifo[512], dir[512], map[512], want[1400], *err;
  snprintf(fifo, sizeof fifo, "%s/fifo", tmpdir);
  snprintf(dir, sizeof dir, "%s/dir", tmpdir);
  snprintf(map, sizeof map, "%s/tests/data/maps/tiny.map", MAPFARM_SOURCE_DIR);
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  cr_assert_eq(mkdir(dir, 0700), 0);
  struct {
    const char *fmt, *a, *b, *path, *what;
  } cases[] = {
      {"solve --map '%s' --generator random --agents 2 --steps 0%s", fifo, "", fifo,
       "is not a regular file (a FIFO)"},
      {"solve --map '%s' --scen '%s' --steps 0", map, fifo, fifo,
       "is not a regular file (a FIFO)"},
      {"solve --map '%s' --generator random --agents 2 --steps 0%s", dir, "", dir,
       "is a directory"},
      {"solve --map '%s' --scen '%s' --steps 0", map, "/dev/zero", "/dev/zero",
       "is not a regular file (a character device)"},
      {"expand '%s'%s", fifo, "", fifo, "is not a regular file (a FIFO)"},
      {"expand '%s'%s", dir, "", dir, "is a directory"},
  };
  for (int i = 0; i < 6; i++) {
    int rc = mapfarm_timed(&err, cases[i].fmt, cases[i].a, cases[i].b);
    cr_assert_eq(rc, 2, "case %d: exit %d: %s", i, rc, err);
    snprintf(want, sizeof want, "%s: error: %s\n", cases[i].path, cases[i].what);
    cr_assert_str_eq(err, want, "case %d", i);
    free(err);
  }
}

/* In a plan, a map or scenario file that is a directory, a device or a FIFO was "not found";
 * now the error says what it is, at the plan entry that names it. */
Test(cli, a_plan_says_what_a_map_or_scenario_path_is) {
  char plan[512], *err;
  snprintf(plan, sizeof plan, "%s/plan.yaml", tmpdir);
  char fifo[512], dir[512];
  snprintf(fifo, sizeof fifo, "%s/fifo.map", tmpdir);
  snprintf(dir, sizeof dir, "%s/dir.map", tmpdir);
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  cr_assert_eq(mkdir(dir, 0700), 0);
  FILE *f = fopen(plan, "w");
  fputs("name: files\n"
        "maps:\n"
        "  - dir.map\n"
        "  - /dev/zero\n"
        "  - fifo.map\n"
        "scenarios: [{agents: 2}]\n"
        "algorithms: [{name: bmaa}]\n",
        f);
  fclose(f);
  int rc = mapfarm_timed(&err, "expand '%s'%s", plan, "");
  cr_assert_eq(rc, 2, "exit %d: %s", rc, err);
  char want[1400];
  snprintf(want, sizeof want, "%s:3:5: error: cannot load map: %s: is a directory\n", plan, dir);
  cr_assert(strstr(err, want) != NULL, "no \"%s\" in:\n%s", want, err);
  snprintf(want, sizeof want,
           "%s:4:5: error: cannot load map: /dev/zero: is not a regular file (a character "
           "device)\n",
           plan);
  cr_assert(strstr(err, want) != NULL, "no \"%s\" in:\n%s", want, err);
  snprintf(want, sizeof want,
           "%s:5:5: error: cannot load map: %s: is not a regular file (a FIFO)\n", plan, fifo);
  cr_assert(strstr(err, want) != NULL, "no \"%s\" in:\n%s", want, err);
  free(err);
  f = fopen(plan, "w");
  fputs("name: files\n"
        "maps: [dir.map]\n"
        "scenarios:\n"
        "  - {generator: scen, file: dir.map}\n"
        "  - {generator: scen, file: /dev/zero}\n"
        "algorithms: [{name: bmaa}]\n",
        f);
  fclose(f);
  rc = mapfarm_timed(&err, "expand '%s'%s", plan, "");
  cr_assert_eq(rc, 2, "exit %d: %s", rc, err);
  snprintf(want, sizeof want, "%s:4:29: error: cannot load scenario: %s: is a directory\n", plan,
           dir);
  cr_assert(strstr(err, want) != NULL, "no \"%s\" in:\n%s", want, err);
  snprintf(want, sizeof want,
           "%s:5:29: error: cannot load scenario: /dev/zero: is not a regular file (a character "
           "device)\n",
           plan);
  cr_assert(strstr(err, want) != NULL, "no \"%s\" in:\n%s", want, err);
  free(err);
}

/* A patrol instance: the trace's header says how many loops the agents go (so a reader does not
 * expect them on their goals at the end), and exporting it says on stderr that the .scen file
 * cannot hold the loops, instead of dropping them silently; a one-way instance gets neither. */
Test(cli, patrol_trace_names_its_loops_and_export_says_what_scen_drops) {
  char *out, *err, scen[512], trace[512], map[512];
  snprintf(scen, sizeof scen, "%s/patrol.scen", tmpdir);
  snprintf(trace, sizeof trace, "%s/patrol.txt", tmpdir);
  snprintf(map, sizeof map, "%s/tests/data/maps/tiny.map", MAPFARM_SOURCE_DIR);
  cr_assert_eq(mapfarm(&out, &err,
                       "solve --map '%s' --generator patrol --generator-param loops=3 --agents 4 "
                       "--seed 5 --algo bmaa --steps 40 --trace '%s' --export-scen '%s'",
                       map, trace, scen), 0, "%s", err);
  char *tr = test_slurp_text(trace);
  cr_assert(strstr(tr, "\ngoals=") && strstr(tr, "\nloops=3\n") && strstr(tr, "\nsolution=\n"),
            "%.300s", tr);
  cr_assert(strstr(err, "patrol.scen: a .scen file holds start and goal only; this patrol "
                        "instance's loops=3 is not in it"), "%s", err);
  free(tr);
  free(out);
  free(err);
  cr_assert_eq(mapfarm(&out, &err,
                       "solve --map '%s' --generator random --agents 4 --seed 5 --algo bmaa "
                       "--steps 40 --trace '%s' --export-scen '%s'", map, trace, scen), 0, "%s",
               err);
  tr = test_slurp_text(trace);
  cr_assert_null(strstr(tr, "loops="), "%.300s", tr);
  cr_assert_eq(strlen(err), 0, "%s", err);
  free(tr);
  free(out);
  free(err);
}

/* `solve --generator G --generator-param ... --steps 0 --export-scen` writes the instance only:
 * swap-sides on the horizontal axis sends the first half of the agents left to right and the
 * rest back, and the same seed gives the same file. */
Test(cli, solve_exports_a_generated_problem_type_without_simulating) {
  char *out, *err, scen[512], scen2[512], map[512];
  snprintf(scen, sizeof scen, "%s/swap.scen", tmpdir);
  snprintf(scen2, sizeof scen2, "%s/swap2.scen", tmpdir);
  snprintf(map, sizeof map, "%s/tests/data/maps/tiny.map", MAPFARM_SOURCE_DIR);
  const char *args = "--generator swap-sides --generator-param axis=0 --generator-param band=0.3 "
                     "--agents 7 --seed 4 --steps 0";
  cr_assert_eq(mapfarm(&out, &err, "solve --map '%s' %s --export-scen '%s'", map, args, scen), 0,
               "%s", err);
  cr_assert_eq(strlen(out), 0, "no simulation, no metrics: %s", out);
  free(out);
  free(err);
  cr_assert_eq(mapfarm(NULL, NULL, "solve --map '%s' %s --export-scen '%s'", map, args, scen2), 0);
  char *a = test_slurp_text(scen), *b = test_slurp_text(scen2);
  cr_assert_str_eq(a, b);
  int n = 0;
  char *line = strchr(a, '\n');
  while (line && line[1]) {
    int bucket, w, h, sx, sy, gx, gy;
    char name[256];
    double opt;
    cr_assert_eq(sscanf(line + 1, "%d %255s %d %d %d %d %d %d %lf", &bucket, name, &w, &h, &sx,
                        &sy, &gx, &gy, &opt),
                 9, "%s", line + 1);
    if (n < 4) cr_assert_lt(sx, gx, "agent %d goes left to right", n);
    else cr_assert_gt(sx, gx, "agent %d goes right to left", n);
    n++;
    line = strchr(line + 1, '\n');
  }
  cr_assert_eq(n, 7);
  free(a);
  free(b);
  cr_assert_eq(mapfarm(NULL, &err, "solve --map '%s' --generator swap-side --agents 3 --steps 0",
                       map), 2);
  cr_assert(strstr(err, "unknown generator \"swap-side\"; did you mean \"swap-sides\"?"), "%s",
            err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "solve --map '%s' --generator swap-sides --generator-param "
                       "band=2 --agents 3 --steps 0", map), 2);
  cr_assert(strstr(err, "--generator-param: band: expected a number in [0.001, 0.5], found 2"),
            "%s", err);
  free(err);
}

/* Width and height from a PNG's IHDR chunk (bytes 16..23, big-endian), or 0 when the file is
 * not a PNG. */
static void png_size(const char *path, uint32_t *w, uint32_t *h) {
  unsigned char b[24] = {0};
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s", path);
  size_t n = fread(b, 1, sizeof b, f);
  fclose(f);
  *w = *h = 0;
  if (n < 24 || memcmp(b, "\x89PNG\r\n\x1a\n", 8) != 0 || memcmp(b + 12, "IHDR", 4) != 0) return;
  *w = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 | b[19];
  *h = (uint32_t)b[20] << 24 | (uint32_t)b[21] << 16 | (uint32_t)b[22] << 8 | b[23];
}

/* `render`: an instance at the selector's input size, at native size, and a single-agent
 * problem from a scenario line; bad options leave no file. */
Test(cli, render_writes_instance_images) {
  char *err, map[512], scen[512], png[512];
  snprintf(map, sizeof map, "%s/tests/data/maps/tiny.map", MAPFARM_SOURCE_DIR);
  snprintf(scen, sizeof scen, "%s/p.scen", tmpdir);
  snprintf(png, sizeof png, "%s/i.png", tmpdir);
  uint32_t w, h;
  cr_assert_eq(mapfarm(NULL, &err, "render --map '%s' --generator inside-out --agents 3 --out '%s'",
                       map, png), 0, "%s", err);
  free(err);
  png_size(png, &w, &h);
  cr_assert(w == 227 && h == 227, "%ux%u", w, h);
  cr_assert_eq(mapfarm(NULL, &err, "render --map '%s' --generator random --agents 3 --size native "
                       "--out '%s'", map, png), 0, "%s", err);
  free(err);
  png_size(png, &w, &h);
  cr_assert(w == 8 && h == 4, "%ux%u", w, h);
  cr_assert_eq(mapfarm(NULL, NULL, "solve --map '%s' --generator random --agents 5 --steps 0 "
                       "--export-scen '%s'", map, scen), 0);
  cr_assert_eq(mapfarm(NULL, &err, "render --map '%s' --scen '%s' --problem 4 --size 64 --out '%s'",
                       map, scen, png), 0, "%s", err);
  free(err);
  png_size(png, &w, &h);
  cr_assert(w == 64 && h == 64, "%ux%u", w, h);
  cr_assert_eq(mapfarm(NULL, &err, "render --map '%s' --scen '%s' --problem 5 --out '%s'", map,
                       scen, png), 2);
  cr_assert(strstr(err, "--problem 5: the scenario has only 5 lines"), "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "render --map '%s' --generator random --agents 3", map), 2);
  cr_assert(strstr(err, "mapfarm render: error: --out FILE.png is required"), "%s", err);
  free(err);
  char bad[600];
  snprintf(bad, sizeof bad, "%s/no/such/dir/x.png", tmpdir);
  cr_assert_eq(mapfarm(NULL, &err, "render --map '%s' --generator random --agents 3 --out '%s'",
                       map, bad), 2);
  cr_assert(strstr(err, bad), "the message names the file: %s", err);
  free(err);
}

/* `dataset`: one image per instance under split/label/, labels.csv with a row per instance,
 * an exact seeded 70/30 split that does not change between runs; a map that moved away is an
 * error that says to give --maps, and --maps finds it. */
Test(cli, dataset_writes_labelled_images_and_a_seeded_split) {
  char plan[600], db[512], dir[512], *out, *err;
  snprintf(db, sizeof db, "%s/pf.db", tmpdir);
  snprintf(dir, sizeof dir, "%s/ds", tmpdir);
  char cmd[2048];
  /* The plan and its map file in tmpdir, so the map can be moved away later. */
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/plans' '%s/maps' && cp '%s/tests/data/cli/portfolio.yaml' '%s/plans/' && "
           "cp '%s/tests/data/maps/tiny.map' '%s/maps/'",
           tmpdir, tmpdir, MAPFARM_SOURCE_DIR, tmpdir, MAPFARM_SOURCE_DIR, tmpdir);
  cr_assert_eq(system(cmd), 0);
  snprintf(plan, sizeof plan, "%s/plans/portfolio.yaml", tmpdir);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s' --threads 2", plan, db), 0, "%s", err);
  free(err);
  cr_assert_eq(mapfarm(&out, &err, "dataset --db '%s' --out '%s'", db, dir), 0, "%s", err);
  cr_assert(strstr(out, "16 instances (11 train, 5 test), 3 labels"), "%s", out);
  free(out);
  free(err);
  char csv[600];
  snprintf(csv, sizeof csv, "%s/labels.csv", dir);
  char *text = test_slurp_text(csv);
  cr_assert(strncmp(text, "key,map,generator,agents,instance,label,split,BMAA* completion_rate,",
                    68) == 0, "%.120s", text);
  int rows = 0, train = 0;
  for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
    char key[64], map[256], gen[256], label[64], split[16];
    int agents, instance;
    cr_assert_eq(sscanf(line + 1, "%63[^,],%255[^,],%255[^,],%d,%d,%63[^,],%15[^,\n]", key, map,
                        gen, &agents, &instance, label, split),
                 7, "%.200s", line + 1);
    cr_assert(strcmp(gen, "cross-sides") == 0 || strcmp(gen, "tight-to-wide") == 0, "%s", gen);
    const char *ldir = strcmp(label, "BMAA*") == 0 ? "BMAAstar"
                       : strcmp(label, "WHCA*") == 0 ? "WHCAstar"
                                                     : label;
    char png[1200];
    snprintf(png, sizeof png, "%s/%s/%s/%s.png", dir, split, ldir, key);
    uint32_t w, h;
    png_size(png, &w, &h);
    cr_assert(w == 227 && h == 227, "%s: %ux%u", png, w, h);
    train += strcmp(split, "train") == 0;
    rows++;
  }
  cr_assert_eq(rows, 16);
  cr_assert_eq(train, 11);
  /* The same command again: the same file. Another seed: another split. */
  cr_assert_eq(mapfarm(NULL, NULL, "dataset --db '%s' --out '%s'", db, dir), 0);
  char *again = test_slurp_text(csv);
  cr_assert_str_eq(text, again);
  free(again);
  cr_assert_eq(mapfarm(NULL, NULL, "dataset --db '%s' --out '%s/ds2' --seed 2", db, tmpdir), 0);
  snprintf(csv, sizeof csv, "%s/ds2/labels.csv", tmpdir);
  again = test_slurp_text(csv);
  cr_assert_str_neq(text, again);
  free(again);
  free(text);
  /* The map file moves away: an error naming it; --maps finds it in its new place. */
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/new/plans' && mv '%s/maps' '%s/new/'", tmpdir, tmpdir,
           tmpdir);
  cr_assert_eq(system(cmd), 0);
  cr_assert_eq(mapfarm(NULL, &err, "dataset --db '%s' --out '%s/ds3'", db, tmpdir), 1);
  cr_assert(strstr(err, "../maps/tiny.map") && strstr(err, "--maps DIR"), "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "dataset --db '%s' --out '%s/ds3' --maps '%s/new/plans'", db,
                       tmpdir, tmpdir), 0, "%s", err);
  free(err);
}

/* Schema version 3's metrics as `run` stores them: patrol loops and failed moves per loop,
 * dm's coherence and its series every coherence_every steps, single agents' suboptimality
 * from their A* distance. */
Test(cli, run_stores_patrol_coherence_and_suboptimality) {
  char plan[600], db[512], *err;
  snprintf(plan, sizeof plan, "%s/tests/data/cli/dm.yaml", MAPFARM_SOURCE_DIR);
  snprintf(db, sizeof db, "%s/dm.db", tmpdir);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE generator LIKE 'patrol%' AND "
                             "loops = 2 AND failed_moves_per_loop IS NOT NULL AND "
                             "loops_done = 20"),
               3);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE loops = 0 AND "
                             "failed_moves_per_loop IS NULL"),
               9);
  /* dm jobs have a coherence and a series; others have neither. */
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE algorithm = 'dm' AND "
                             "coherence BETWEEN -1 AND 1"),
               8);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE algorithm <> 'dm' AND "
                             "coherence IS NOT NULL"),
               0);
  /* Patrol runs of up to 2,000 steps sampled every 50 steps from step 0. */
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM coherence_series AS c JOIN results AS r ON "
                             "r.id = c.result_id WHERE r.algorithm <> 'dm' OR c.step % 50 <> 0"),
               0);
  cr_assert_eq(test_db_int(db, "SELECT min(n) FROM (SELECT count(*) AS n FROM results AS r JOIN "
                             "coherence_series AS c ON c.result_id = r.id WHERE r.algorithm = "
                             "'dm' AND r.loops = 2 GROUP BY r.id)"),
               test_db_int(db, "SELECT min(steps / 50 + 1) FROM results WHERE algorithm = 'dm' "
                             "AND loops = 2"));
  /* Single agents: an A* distance, and travel / optimal >= 1 for those that arrived. */
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM agent_results AS a JOIN results AS r ON "
                             "r.id = a.result_id WHERE r.agents = 1 AND a.optimal_distance > 0"),
               9);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE agents = 1 AND status = 'ok' "
                             "AND suboptimality >= 1 - 1e-9"),
               test_db_int(db, "SELECT count(*) FROM results WHERE agents = 1 AND status = 'ok'"));
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE agents > 1 AND suboptimality "
                             "IS NOT NULL"),
               0);
  /* The reports of these metrics: DM's failed moves per loop are below BMAA*'s here. */
  char *out;
  cr_assert_eq(mapfarm(&out, &err, "report --db '%s' failed-moves --format csv", db), 0, "%s",
               err);
  double dm = -1, bmaa = -1;
  cr_assert(sscanf(strstr(out, "\nOverall,"), "\nOverall,%lf,%lf", &dm, &bmaa) == 2, "%s", out);
  cr_assert(dm >= 0 && dm < bmaa, "%s", out);
  free(out);
  free(err);
  cr_assert_eq(mapfarm(&out, &err, "report --db '%s' suboptimality --format csv", db), 0, "%s",
               err);
  cr_assert(strstr(out, "Overall,"), "%s", out);
  free(out);
  free(err);
  /* The best single configuration by suboptimality (greedy's first step, --by suboptimality)
   * is the label of the smallest mean suboptimality over the single-agent problems. */
  char *best = test_db_rows(db, "SELECT label FROM results WHERE agents = 1 GROUP BY label ORDER "
                              "BY avg(suboptimality), label LIMIT 1");
  cr_assert_eq(mapfarm(&out, &err, "portfolio --db '%s' --size 1 --by suboptimality --where "
                       "'agents = 1' --format csv", db), 0, "%s", err);
  char want[300];
  snprintf(want, sizeof want, "\n1,%.*s,100,", (int)strcspn(best, "\n"), best);
  cr_assert(strstr(out, "Step,Added,Completion rate (%),Suboptimality,") && strstr(out, want),
            "want %s in:\n%s", want, out);
  free(out);
  free(err);
  free(best);
}

/* A mapfarm file of schema version v (7 or later; tests/data/schema-vV.sql) holding one solved
 * BMAA* row of id 1, as an older mapfarm left it. */
static void file_with_one_row(const char *db, int v) {
  char fixture[64], sql[1200];
  snprintf(fixture, sizeof fixture, "schema-v%d.sql", v);
  sqlite3 *h = test_open_with_schema(db, fixture);
  snprintf(sql, sizeof sql,
           "PRAGMA application_id = 0x6d617066; PRAGMA user_version = %d;"
           "INSERT INTO results (id, job_key, map, map_hash, generator, agents, instance, "
           "algorithm, label, params, seed, status, limit_hit, completed, finished_at, "
           "limit_steps, limit_work, work_seconds, wall_seconds, solved, soc, makespan, "
           "setup_seconds) VALUES (1, '0123456789abcdef0123456789abcde1', 'm', "
           "'0000000000000001', 'random', 2, 0, 'bmaa', 'B', '{}', '0000000000000002', 'ok', '', "
           "2, 't', 50, 0, 0.01, 0.02, 1, 9, 5, 0);",
           v);
  char *msg = NULL;
  int rc = sqlite3_exec(h, sql, NULL, NULL, &msg);
  cr_assert_eq(rc, SQLITE_OK, "%s", msg ? msg : "");
  sqlite3_close(h);
}

/* A file of schema version 2 (without version 3's columns and table) is read as it is, and
 * upgraded in place, its rows kept, when a run opens it for writing. */
Test(cli, a_schema_2_file_is_read_and_upgraded_in_place) {
  char plan[600], db[512], *out, *err;
  snprintf(plan, sizeof plan, "%s/tests/data/cli/small.yaml", MAPFARM_SOURCE_DIR);
  snprintf(db, sizeof db, "%s/v2.db", tmpdir);
  sqlite3 *h = test_open_with_schema(db, "schema-v2.sql");
  char *msg = NULL;
  int rc;
  /* One job of version 2 with one agent row, as an older mapfarm wrote them. */
  rc = sqlite3_exec(
      h,
      "PRAGMA application_id = 0x6d617066; PRAGMA user_version = 2;"
      "INSERT INTO results (job_key, map, map_hash, generator, agents, instance, algorithm, "
      "label, params, seed, status, completion_rate, mean_travel_distance, finished_at) VALUES "
      "('0123456789abcdef0123456789abcdef', 'm', '0000000000000001', 'random', 1, 0, 'bmaa', "
      "'BMAA*', '{}', '0000000000000002', 'ok', 1.0, 7.5, '2026-01-01T00:00:00Z');"
      "INSERT INTO agent_results (result_id, agent, start_x, start_y, goal_x, goal_y, reached, "
      "travel_distance) VALUES (1, 0, 0, 0, 1, 1, 1, 7.5);",
      NULL, NULL, &msg);
  cr_assert_eq(rc, SQLITE_OK, "%s", msg ? msg : "");
  sqlite3_close(h);
  cr_assert_eq(mapfarm(&out, &err, "report --db '%s' completion-rate", db), 0, "%s", err);
  cr_assert(strstr(out, "BMAA*"), "%s", out);
  free(out);
  free(err);
  cr_assert_eq(test_db_int(db, "PRAGMA user_version"), 2, "a read leaves it as it is");
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_int(db, "PRAGMA user_version"), FARM_SCHEMA_VERSION);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results"), 41);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE job_key = "
                             "'0123456789abcdef0123456789abcdef' AND loops = 0 AND coherence IS "
                             "NULL AND mean_travel_distance = 7.5"),
               1);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM agent_results WHERE result_id = 1 AND "
                             "optimal_distance IS NULL"),
               1);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM coherence_series"), 0);
}

/* A file of schema version 3 is upgraded to version 4 when a run opens it for writing: each
 * row gets the limits and execution of the plan of the run that wrote it, read from that run's
 * stored text; rows of a run without a readable plan stay NULL. */
Test(cli, a_schema_3_file_gets_the_limits_of_its_runs_plans) {
  char db[512], *out, *err;
  snprintf(db, sizeof db, "%s/v3.db", tmpdir);
  sqlite3 *h = test_open_with_schema(db, "schema-v3.sql");
  char *msg = NULL;
  int rc;
  /* Three runs: limits given, limits by default with single-pass, and a text that is no plan. */
  rc = sqlite3_exec(
      h,
      "PRAGMA application_id = 0x6d617066; PRAGMA user_version = 3;"
      "INSERT INTO runs (run_id, plan_text, version, compiler, cflags, host, started_at) VALUES "
      "(1, 'name: a\nlimits: {steps: 50, seconds: 2.5, expansions: 900}\n', 'v', 'c', 'f', "
      "'h', 't'), (2, 'name: b\nexecution: single-pass\n', 'v', 'c', 'f', 'h', 't'), "
      "(3, '[not, a, plan', 'v', 'c', 'f', 'h', 't');"
      "INSERT INTO results (job_key, run_id, map, map_hash, generator, agents, instance, "
      "algorithm, label, params, seed, status, finished_at) VALUES "
      "('0123456789abcdef0123456789abcde1', 1, 'm', '0000000000000001', 'random', 1, 0, 'bmaa', "
      "'B', '{}', '0000000000000002', 'ok', 't'),"
      "('0123456789abcdef0123456789abcde2', 2, 'm', '0000000000000001', 'random', 1, 0, 'bmaa', "
      "'B', '{}', '0000000000000002', 'ok', 't'),"
      "('0123456789abcdef0123456789abcde3', 3, 'm', '0000000000000001', 'random', 1, 0, 'bmaa', "
      "'B', '{}', '0000000000000002', 'ok', 't');",
      NULL, NULL, &msg);
  cr_assert_eq(rc, SQLITE_OK, "%s", msg ? msg : "");
  sqlite3_close(h);
  /* Merged into a new file, its rows get their limits there too; the input stays as it is. */
  char merged[600];
  snprintf(merged, sizeof merged, "%s/v3-merged.db", tmpdir);
  cr_assert_eq(mapfarm(&out, &err, "merge '%s' '%s'", merged, db), 0, "%s", err);
  free(out);
  free(err);
  cr_assert_eq(test_db_int(db, "PRAGMA user_version"), 3);
  cr_assert_eq(test_db_int(merged, "SELECT count(*) FROM results WHERE (limit_steps = 50 AND "
                                   "limit_seconds = 2.5 AND limit_expansions = 900) OR "
                                   "execution = 'single-pass' OR limit_steps IS NULL"),
               3);
  cr_assert_eq(test_db_int(merged, "SELECT count(*) FROM results WHERE limit_steps IS NULL"), 1);
  char plan[600];
  snprintf(plan, sizeof plan, "%s/tests/data/cli/small.yaml", MAPFARM_SOURCE_DIR);
  cr_assert_eq(mapfarm(&out, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  free(out);
  free(err);
  cr_assert_eq(test_db_int(db, "PRAGMA user_version"), FARM_SCHEMA_VERSION);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE run_id = 1 AND limit_steps = "
                             "50 AND limit_seconds = 2.5 AND limit_expansions = 900 AND "
                             "execution = 'chains'"),
               1);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE run_id = 2 AND limit_steps = "
                             "10000 AND limit_seconds = 0 AND limit_expansions = 0 AND "
                             "execution = 'single-pass'"),
               1);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE run_id = 3 AND limit_steps IS "
                             "NULL AND execution IS NULL"),
               1);
  /* The new run's rows carry its plan's limits. */
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE run_id = 4 AND limit_steps = "
                             "1000 AND limit_seconds = 0 AND execution = 'chains'"),
               40);
}

/* A file of schema version 4 is upgraded to version 5 when a run opens it for writing: solved,
 * soc and makespan come from its agent rows (a solved job only gets soc and makespan), and an
 * error row keeps them NULL. */
Test(cli, a_schema_4_file_gets_solved_soc_and_makespan_from_its_agent_rows) {
  char db[512], plan[600], *err;
  snprintf(db, sizeof db, "%s/v4.db", tmpdir);
  sqlite3 *h = test_open_with_schema(db, "schema-v4.sql");
  char *msg = NULL;
  int rc = sqlite3_exec(
      h,
      "PRAGMA application_id = 0x6d617066; PRAGMA user_version = 4;"
      "INSERT INTO results (id, job_key, map, map_hash, generator, agents, instance, algorithm, "
      "label, params, seed, status, completed, finished_at, limit_steps) VALUES "
      "(1, '0123456789abcdef0123456789abcde1', 'm', '0000000000000001', 'random', 2, 0, 'bmaa', "
      "'B', '{}', '0000000000000002', 'ok', 2, 't', 50),"
      "(2, '0123456789abcdef0123456789abcde2', 'm', '0000000000000001', 'random', 2, 1, 'bmaa', "
      "'B', '{}', '0000000000000002', 'limit', 1, 't', 50),"
      "(3, '0123456789abcdef0123456789abcde3', 'm', '0000000000000001', 'random', 2, 2, 'bmaa', "
      "'B', '{}', '0000000000000002', 'error', NULL, 't', 50);"
      "INSERT INTO agent_results (result_id, agent, start_x, start_y, goal_x, goal_y, reached, "
      "completion_step) VALUES (1, 0, 0, 0, 1, 1, 1, 7), (1, 1, 0, 1, 1, 2, 1, 12), "
      "(2, 0, 0, 0, 1, 1, 1, 5), (2, 1, 0, 1, 1, 2, 0, NULL);",
      NULL, NULL, &msg);
  cr_assert_eq(rc, SQLITE_OK, "%s", msg ? msg : "");
  sqlite3_close(h);
  snprintf(plan, sizeof plan, "%s/tests/data/cli/small.yaml", MAPFARM_SOURCE_DIR);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_int(db, "PRAGMA user_version"), FARM_SCHEMA_VERSION);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id = 1 AND solved = 1 AND "
                             "soc = 19 AND makespan = 12"),
               1);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id = 2 AND solved = 0 AND "
                             "soc IS NULL AND makespan IS NULL"),
               1);
  /* Table II's rule from the agent rows: job 1's agents all arrived, (7 + 12) / 2; job 2's
   * second agent counts as the step limit, (5 + 50) / 2; the error row has none. */
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE (id = 1 AND "
                             "mean_completion_steps_at_limit = 9.5) OR (id = 2 AND "
                             "mean_completion_steps_at_limit = 27.5) OR (id = 3 AND "
                             "mean_completion_steps_at_limit IS NULL)"),
               3);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id = 3 AND solved IS NULL AND "
                             "soc IS NULL"),
               1);
  /* The new run's rows: solved exactly when every agent completed, soc the sum of the agents'
   * completion steps. */
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id > 3 AND solved IS NOT NULL "
                             "AND solved = (completed = agents)"),
               40);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results r WHERE id > 3 AND solved = 1 AND soc "
                             "= (SELECT sum(completion_step) FROM agent_results WHERE result_id = "
                             "r.id) AND makespan = (SELECT max(completion_step) FROM "
                             "agent_results WHERE result_id = r.id)"),
               test_db_int(db, "SELECT count(*) FROM results WHERE id > 3 AND solved = 1"));
  cr_assert_gt(test_db_int(db, "SELECT count(*) FROM results WHERE id > 3 AND solved = 1"), 0);
  /* Version 5 lets a job end on its work budget: the upgraded table takes limit_hit 'work' (its
   * CHECK constraint was rewritten), and the rows of the older file had no budget (0). */
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id <= 3 AND limit_work = 0 "
                               "AND work_seconds IS NULL"),
               3);
  snprintf(plan, sizeof plan, "%s/tests/data/cli/budget.yaml", MAPFARM_SOURCE_DIR);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  free(err);
  cr_assert_gt(test_db_int(db, "SELECT count(*) FROM results WHERE limit_hit = 'work'"), 0);
  char *check = test_db_rows(db, "PRAGMA integrity_check");
  cr_assert_str_eq(check, "ok\n");
  free(check);
}

/* A file of schema version 5 is upgraded to version 6 when a run opens it for writing: the new
 * column is NULL in its rows (the work at each agent's arrival was not kept), and a new run
 * with a work budget fills it in. */
Test(cli, a_schema_5_file_gets_the_column_of_version_6) {
  char db[512], plan[600], *err;
  snprintf(db, sizeof db, "%s/v5.db", tmpdir);
  sqlite3 *h = test_open_with_schema(db, "schema-v5.sql");
  char *msg = NULL;
  int rc = sqlite3_exec(
      h,
      "PRAGMA application_id = 0x6d617066; PRAGMA user_version = 5;"
      "INSERT INTO results (id, job_key, map, map_hash, generator, agents, instance, algorithm, "
      "label, params, seed, status, limit_hit, completed, finished_at, limit_steps, limit_work, "
      "work_seconds) VALUES (1, '0123456789abcdef0123456789abcde1', 'm', '0000000000000001', "
      "'random', 2, 0, 'bmaa', 'B', '{}', '0000000000000002', 'limit', 'work', 1, 't', 50, 0.5, "
      "0.51);",
      NULL, NULL, &msg);
  cr_assert_eq(rc, SQLITE_OK, "%s", msg ? msg : "");
  sqlite3_close(h);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM pragma_table_info('results') WHERE name = "
                               "'mean_completion_work_at_limit'"),
               0);
  snprintf(plan, sizeof plan, "%s/tests/data/cli/budget.yaml", MAPFARM_SOURCE_DIR);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_int(db, "PRAGMA user_version"), FARM_SCHEMA_VERSION);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id = 1 AND limit_hit = 'work' "
                               "AND mean_completion_work_at_limit IS NULL"),
               1);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id > 1 AND limit_work > 0 AND "
                               "mean_completion_work_at_limit > 0"),
               42);
  char *check = test_db_rows(db, "PRAGMA integrity_check");
  cr_assert_str_eq(check, "ok\n");
  free(check);
}

/* A file of schema version 6 is upgraded to version 7 when a run opens it for writing: the new
 * column is NULL in its rows (the set-up was not timed apart), and the new run's rows have it:
 * PIBT's, whose set-up builds its distance tables, and the others'. */
Test(cli, a_schema_6_file_gets_the_column_of_version_7) {
  char db[512], plan[600], *err;
  snprintf(db, sizeof db, "%s/v6.db", tmpdir);
  sqlite3 *h = test_open_with_schema(db, "schema-v6.sql");
  char *msg = NULL;
  int rc = sqlite3_exec(
      h,
      "PRAGMA application_id = 0x6d617066; PRAGMA user_version = 6;"
      "INSERT INTO results (id, job_key, map, map_hash, generator, agents, instance, algorithm, "
      "label, params, seed, status, limit_hit, completed, finished_at, limit_steps, limit_work, "
      "work_seconds, wall_seconds) VALUES (1, '0123456789abcdef0123456789abcde1', 'm', "
      "'0000000000000001', 'random', 2, 0, 'bmaa', 'B', '{}', '0000000000000002', 'ok', '', "
      "2, 't', 50, 0, 0.01, 0.02);",
      NULL, NULL, &msg);
  cr_assert_eq(rc, SQLITE_OK, "%s", msg ? msg : "");
  sqlite3_close(h);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM pragma_table_info('results') WHERE name = "
                               "'setup_seconds'"),
               0);
  snprintf(plan, sizeof plan, "%s/tests/data/cli/pibt.yaml", MAPFARM_SOURCE_DIR);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_int(db, "PRAGMA user_version"), FARM_SCHEMA_VERSION);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id = 1 AND setup_seconds IS "
                               "NULL"),
               1);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id > 1 AND setup_seconds >= 0 "
                               "AND setup_seconds <= wall_seconds"),
               30);
  char *check = test_db_rows(db, "PRAGMA integrity_check");
  cr_assert_str_eq(check, "ok\n");
  free(check);
}

/* Schema version 9 adds results.connectivity: an older file's rows get 8, the move set every
 * job before it ran on, and a 4-connected plan's rows say 4. */
Test(cli, a_schema_8_file_gets_the_connectivity_of_version_9) {
  char db[512], plan[600], *err;
  snprintf(db, sizeof db, "%s/v8.db", tmpdir);
  file_with_one_row(db, 8);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM pragma_table_info('results') WHERE name = "
                               "'connectivity'"),
               0);
  snprintf(plan, sizeof plan, "%s/tests/data/cli/four.yaml", MAPFARM_SOURCE_DIR);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_int(db, "PRAGMA user_version"), FARM_SCHEMA_VERSION);
  cr_assert_eq(test_db_int(db, "SELECT connectivity FROM results WHERE id = 1"), 8);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id > 1 AND connectivity = 4"),
               test_db_int(db, "SELECT count(*) FROM results WHERE id > 1"));
  cr_assert_gt(test_db_int(db, "SELECT count(*) FROM results WHERE id > 1"), 20);
  char *check = test_db_rows(db, "PRAGMA integrity_check");
  cr_assert_str_eq(check, "ok\n");
  free(check);
}

/* A file of schema version 7 is upgraded to version 8 when a run opens it for writing: the new
 * columns are NULL in its rows (the map is not in the file), and the new run's rows have the
 * bounds, for the unsolved jobs too, below the measured sum of costs and makespan, and no
 * solver time (built-in planners). `replay` of a row without them computes them and agrees. */
Test(cli, a_schema_7_file_gets_the_columns_of_version_8) {
  char db[512], plan[600], *out, *err;
  snprintf(db, sizeof db, "%s/v7.db", tmpdir);
  file_with_one_row(db, 7);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM pragma_table_info('results') WHERE name IN "
                               "('soc_lb', 'makespan_lb', 'solver_seconds')"),
               0);
  /* Read as it is, the file has no bounds to report: said so, and the file is left alone. */
  cr_assert_eq(mapfarm(&out, &err, "report soc-ratio --db '%s'", db), 2);
  cr_expect(strstr(err, "report soc-ratio needs results.soc_lb, which this file lacks (schema "
                        "version 7") != NULL,
            "%s", err);
  free(out);
  free(err);
  cr_assert_eq(test_db_int(db, "PRAGMA user_version"), 7);
  snprintf(plan, sizeof plan, "%s/tests/data/cli/pibt.yaml", MAPFARM_SOURCE_DIR);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_int(db, "PRAGMA user_version"), FARM_SCHEMA_VERSION);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id = 1 AND soc_lb IS NULL AND "
                               "makespan_lb IS NULL AND solver_seconds IS NULL AND soc = 9"),
               1);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id > 1 AND soc_lb > 0 AND "
                               "makespan_lb > 0 AND makespan_lb <= soc_lb AND solver_seconds IS "
                               "NULL"),
               30);
  /* Solved jobs: the bounds hold; and some jobs are unsolved, with their bounds. */
  cr_assert_gt(test_db_int(db, "SELECT count(*) FROM results WHERE id > 1 AND solved = 1"), 0);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE solved = 1 AND (soc < soc_lb "
                               "OR makespan < makespan_lb)"),
               0);
  cr_assert_gt(test_db_int(db, "SELECT count(*) FROM results WHERE solved = 0 AND soc_lb > 0"), 0);
  /* The ratio reports: the mean over solved jobs, 1 or more. */
  cr_assert_eq(mapfarm(&out, &err, "report soc-ratio --db '%s' --format csv", db), 0, "%s", err);
  cr_expect(strstr(out, "PIBT") != NULL, "%s", out);
  free(out);
  free(err);
  char *check = test_db_rows(db, "PRAGMA integrity_check");
  cr_assert_str_eq(check, "ok\n");
  free(check);
  /* A row as an upgrade leaves it: replay prints the bounds and finds the row identical. */
  char *key = test_db_rows(db, "SELECT job_key FROM results WHERE id > 1 AND algorithm = 'bmaa' "
                               "AND solved = 1 ORDER BY plan_index LIMIT 1");
  cr_assert_eq(strlen(key), 33, "%s", key);
  key[32] = '\0';
  int64_t lb = test_db_int(db, "SELECT soc_lb FROM results WHERE id > 1 AND algorithm = 'bmaa' "
                               "AND solved = 1 ORDER BY plan_index LIMIT 1");
  test_db_exec(db, "UPDATE results SET soc_lb = NULL, makespan_lb = NULL");
  cr_assert_eq(mapfarm(&out, &err, "replay %s --db '%s'", key, db), 0, "%s%s", out, err);
  char want[64];
  snprintf(want, sizeof want, "\nsoc_lb: %lld\n", (long long)lb);
  cr_expect(strstr(out, want) != NULL, "%s", out);
  cr_expect(strstr(out, "identical to the stored result") != NULL, "%s", out);
  free(key);
  free(out);
  free(err);
}

static void plan_path(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/tests/data/cli/%s", MAPFARM_SOURCE_DIR, name);
}

Test(cli, expand_prints_the_job_count_first) {
  char plan[512], *out, *err;
  plan_path(plan, sizeof plan, "small.yaml");
  cr_assert_eq(mapfarm(&out, &err, "expand '%s' --list", plan), 0, "%s", err);
  cr_assert(strncmp(out, "40 jobs\n", 8) == 0, "%.40s", out);
  cr_assert(strstr(out, "\nalgorithm bmaa (BMAA*-f): 20\n") != NULL, "%s", out);
  /* --list: a header and one TSV row per job. */
  int lines = 0;
  for (const char *p = strstr(out, "key\tmap"); p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
    lines++;
  cr_assert_eq(lines, 41);
  free(out);
  free(err);
}

Test(cli, run_stores_every_job_and_a_rerun_runs_nothing) {
  char plan[512], db[512], *out, *err;
  plan_path(plan, sizeof plan, "small.yaml");
  snprintf(db, sizeof db, "%s/r.db", tmpdir);
  cr_assert_eq(mapfarm(&out, &err, "run '%s' --db '%s' --threads 2", plan, db), 0, "%s", err);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results"), 40);
  cr_assert_eq(test_db_int(db, "SELECT count(DISTINCT job_key) FROM results"), 40);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM agent_results"), 4 * 5 * (5 + 20));
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM runs WHERE status = 'done'"), 1);
  free(out);
  free(err);
  cr_assert_eq(mapfarm(&out, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  cr_assert(strstr(err, "nothing to run") != NULL, "%s", err);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results"), 40);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM runs"), 1);
  free(out);
  free(err);

  /* The report: maps as rows, labels as columns, an Overall row and column. */
  cr_assert_eq(mapfarm(&out, &err, "report --db '%s' completion-rate --format csv", db), 0, "%s",
               err);
  cr_assert(strncmp(out, "Map,BMAA*,BMAA*-f,Overall\n", 26) == 0, "%s", out);
  cr_assert(strstr(out, "\nOverall,") != NULL, "%s", out);
  free(out);
  free(err);
}

Test(cli, results_do_not_depend_on_the_thread_count) {
  char plan[512], db1[512], db2[512];
  plan_path(plan, sizeof plan, "small.yaml");
  snprintf(db1, sizeof db1, "%s/one.db", tmpdir);
  snprintf(db2, sizeof db2, "%s/two.db", tmpdir);
  cr_assert_eq(mapfarm(NULL, NULL, "run '%s' --db '%s' --threads 1", plan, db1), 0);
  cr_assert_eq(mapfarm(NULL, NULL, "run '%s' --db '%s' --threads 2", plan, db2), 0);
  const char *sql =
      "SELECT job_key, status, completion_rate, mean_completion_steps, mean_travel_distance, "
      "steps, expansions, failed_moves, pushes, searches FROM results ORDER BY job_key";
  char *a = test_db_rows(db1, sql), *b = test_db_rows(db2, sql);
  cr_assert_str_eq(a, b);
  free(a);
  free(b);
}

/* A plan on 4-connected grids (tests/data/cli/four.yaml, every algorithm) gives the same
 * results with 1 thread, with 2 and as 3 shards merged; every agent row's travel distance is a
 * whole number of unit moves, and the instances are those of the same plan under 8 moves. */
Test(cli, a_four_connected_plan_does_not_depend_on_threads_or_shards) {
  char plan[512], db[3][512], *err;
  plan_path(plan, sizeof plan, "four.yaml");
  const char *sql[] = {
      "SELECT job_key, label, execution, status, limit_hit, completion_rate, steps, expansions, "
      "soc, makespan, solved, mean_travel_distance FROM results ORDER BY job_key",
      "SELECT r.job_key, a.agent, a.start_x, a.start_y, a.goal_x, a.goal_y, a.final_x, "
      "a.final_y, a.completion_step, a.travel_distance FROM agent_results a "
      "JOIN results r ON r.id = a.result_id ORDER BY r.job_key, a.agent"};
  test_same_on_threads_and_shards(tmpdir, "four", plan, 3, sql, 2, db);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results"), 32);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results WHERE status = 'error'"), 0);
  /* Every planner of the registry; external runs a program, 4-connected in
   * every_algorithm_moves_on_cardinal_moves_only_under_connectivity_4 and test_external.c. */
  int32_t planners = 0;
  for (int32_t i = 0; i < mapf_algo_count(); i++) planners += !mapf_algo_at(i)->program;
  cr_assert_eq(test_db_int(db[0], "SELECT count(DISTINCT algorithm) FROM results"), planners);
  cr_assert_gt(test_db_int(db[0], "SELECT count(*) FROM results WHERE completion_rate > 0"), 20);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM agent_results "
                                  "WHERE travel_distance <> CAST(travel_distance AS INTEGER)"),
               0, "a diagonal move (length sqrt(2)) under connectivity 4");
  /* The same plan under 8 moves: other keys, the same starts and goals. */
  char *text = test_slurp_text(plan), eight_plan[600], eight_db[600];
  char *c = strstr(text, "\nconnectivity: 4\n");
  cr_assert_not_null(c);
  c[15] = '8';
  snprintf(eight_plan, sizeof eight_plan, "%s/eight.yaml", tmpdir);
  snprintf(eight_db, sizeof eight_db, "%s/eight.db", tmpdir);
  FILE *f = fopen(eight_plan, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  free(text);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", eight_plan, eight_db), 0, "%s", err);
  free(err);
  const char *starts = "SELECT r.map, r.generator, r.agents, r.instance, r.label, a.agent, "
                       "a.start_x, a.start_y, a.goal_x, a.goal_y FROM agent_results a JOIN "
                       "results r ON r.id = a.result_id ORDER BY 1, 2, 3, 4, 5, 6";
  char *s4 = test_db_rows(db[0], starts), *s8 = test_db_rows(eight_db, starts);
  cr_assert_str_eq(s4, s8);
  free(s4);
  free(s8);
  cr_assert_eq(test_db_int(eight_db, "SELECT count(*) FROM agent_results "
                                     "WHERE travel_distance <> CAST(travel_distance AS INTEGER)") >
                   0,
               1, "under 8 moves some agent moves diagonally");
  char *k4 = test_db_rows(db[0], "SELECT job_key FROM results ORDER BY job_key LIMIT 1");
  char *k8 = test_db_rows(eight_db, "SELECT group_concat(job_key) FROM results");
  cr_assert_null(strstr(k8, strtok(k4, "\n")), "a key of the plan under 4 under 8 too");
  free(k4);
  free(k8);
}

/* A plan with per-algorithm limits and a work budget (tests/data/cli/budget.yaml) gives the same
 * results, bit for bit, with 1 thread, with 2, and as 3 shards merged: the work charged never
 * depends on the clock. Some jobs end on the work budget, an entry's own steps apply to its
 * jobs only, and an entry's `work: 0` lifts the plan's budget for it. */
Test(cli, a_work_budget_and_per_algorithm_limits_do_not_depend_on_threads_or_shards) {
  char plan[512], db[3][512], *out, *err;
  plan_path(plan, sizeof plan, "budget.yaml");
  const char *sql =
      "SELECT job_key, label, status, limit_hit, limit_steps, limit_work, work_seconds, "
      "completion_rate, steps, expansions, soc, makespan, solved, mean_completion_work_at_limit "
      "FROM results ORDER BY job_key";
  test_same_on_threads_and_shards(tmpdir, "budget", plan, 3, &sql, 1, db);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results"), 48);
  cr_assert_gt(test_db_int(db[0], "SELECT count(*) FROM results WHERE limit_hit = 'work'"), 0);
  /* A job ends on its budget once the charge reaches it, never before. */
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results WHERE limit_hit = 'work' AND "
                                  "work_seconds < limit_work"),
               0);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results WHERE label = 'BMAA* 40 steps' "
                                  "AND limit_steps = 40 AND steps <= 40 AND limit_work = 0.004"),
               6);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results WHERE label <> 'BMAA* 40 steps' "
                                  "AND limit_steps = 500"),
               42);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results WHERE label = 'FAR no budget' "
                                  "AND limit_work = 0 AND limit_hit <> 'work'"),
               6);
  /* Table II's rule under the budget: present exactly where a job has one, between 0 and the
   * budget (or the charge, which may pass it by one step), and the budget itself where no
   * agent arrived. */
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results WHERE (limit_work > 0) = "
                                  "(mean_completion_work_at_limit IS NOT NULL)"),
               48);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results WHERE limit_work > 0 AND "
                                  "mean_completion_work_at_limit BETWEEN 0 AND max(limit_work, "
                                  "work_seconds) AND (completed > 0 OR "
                                  "mean_completion_work_at_limit = limit_work)"),
               42);
  /* Table 5.1's seconds under the budget are that work (deterministic), not the wall clock:
   * BMAA*'s row holds the mean of its jobs' completion work. */
  cr_assert_eq(mapfarm(&out, &err, "report --db '%s' portfolio --format csv", db[0]), 0, "%s",
               err);
  free(err);
  const char *row = strstr(out, "\nBMAA*,");
  cr_assert_not_null(row, "%s", out);
  const char *p = row + 1;
  for (int comma = 0; comma < 7; p++)
    if (*p == ',') comma++;
  double shown = strtod(p, NULL);
  int64_t want = test_db_int(db[0], "SELECT round(avg(mean_completion_work_at_limit) * 1e12) "
                                    "FROM results WHERE label = 'BMAA*'");
  cr_assert_gt(want, 0);
  cr_assert_eq((int64_t)llround(shown * 1e12), want, "%s", out);
  free(out);
  /* A report names the limits that differ between its labels, per label. */
  cr_assert_eq(mapfarm(&out, &err, "report --db '%s' completion-rate", db[0]), 0, "%s", err);
  free(err);
  cr_assert_not_null(strstr(out, "\nLimits that differ between labels:\n  BMAA*: steps=500 "
                                 "work=0.004\n"),
                     "%s", out);
  cr_assert_not_null(strstr(out, "\n  BMAA* 40 steps: steps=40 work=0.004\n"), "%s", out);
  cr_assert_not_null(strstr(out, "\n  FAR no budget: steps=500 work=none\n"), "%s", out);
  free(out);
  /* and says nothing where every label has the same. */
  cr_assert_eq(mapfarm(&out, &err, "report --db '%s' completion-rate --where \"label IN "
                                   "('BMAA*', 'FAR')\"",
                       db[0]),
               0, "%s", err);
  free(err);
  cr_assert_null(strstr(out, "Limits that differ"), "%s", out);
  free(out);
}

/* `replay` rebuilds a stored job from its run's plan text and reproduces every deterministic
 * column exactly, for a job of every algorithm (budget.yaml, work-limited jobs included); a
 * changed row is named column by column with exit 1; an unknown key is exit 2. */
Test(cli, replay_reproduces_a_stored_job_of_every_algorithm_exactly) {
  char plan[512], db[512], *out, *err;
  snprintf(db, sizeof db, "%s/replay.db", tmpdir);
  /* budget.yaml has the sequential planners, pibt.yaml and lacam.yaml the joint ones, four.yaml
   * 4-connected jobs, external.yaml a program's plan: every algorithm of the registry, checked
   * below. */
  static const char *const plans[] = {"budget.yaml", "pibt.yaml", "four.yaml", "lacam.yaml",
                                      "external.yaml"};
  for (int i = 0; i < 5; i++) {
    plan_path(plan, sizeof plan, plans[i]);
    cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
    free(err);
  }
  cr_assert_eq(test_db_int(db, "SELECT count(DISTINCT algorithm) FROM results"), mapf_algo_count(),
               "a plan here should run every algorithm of the registry");
  char *keys = test_db_rows(db, "SELECT min(job_key) FROM results GROUP BY label, limit_hit, "
                                "execution");
  int n = 0;
  for (char *k = strtok(keys, "\n"); k; k = strtok(NULL, "\n"), n++) {
    int rc = mapfarm(&out, &err, "replay %s --db '%s'", k, db);
    cr_expect_eq(rc, 0, "%s: %s%s", k, out, err);
    cr_expect(strstr(out, "\nidentical to the stored result") != NULL, "%s: %s", k, out);
    free(out);
    free(err);
  }
  free(keys);
  cr_assert_geq(n, 9, "a job of every algorithm and limit kind");
  char *key = test_db_rows(db, "SELECT job_key FROM results WHERE algorithm = 'whca' LIMIT 1");
  key[32] = '\0';
  char sql[300];
  snprintf(sql, sizeof sql, "UPDATE results SET steps = steps + 1 WHERE job_key = '%s'", key);
  test_db_exec(db, sql);
  char page[600];
  snprintf(page, sizeof page, "%s/replay.html", tmpdir);
  cr_assert_eq(mapfarm(&out, &err, "replay %s --db '%s' --html '%s'", key, db, page), 1, "%s",
               err);
  cr_expect(strstr(out, "1 column differs from the stored result:\n  steps: stored ") != NULL,
            "%s", out);
  free(out);
  free(err);
  /* The plan's map is generated: the page carries its text. */
  char *html = test_slurp_text(page);
  cr_expect(strstr(html, "type octile\nheight 48\nwidth 48\nmap\n") != NULL);
  cr_expect(strstr(html, "solver=whca") != NULL);
  free(html);
  free(key);
  cr_assert_eq(mapfarm(&out, &err, "replay 0123456789abcdef0123456789abcdef --db '%s'", db), 2);
  cr_expect(strstr(err, "no job with key 0123456789abcdef0123456789abcdef") != NULL, "%s", err);
  free(out);
  free(err);
}

/* `run --traces DIR --trace-where SQL` keeps a gzip trace of each chosen job, named by its key,
 * identical to the trace `replay` makes of that job; running again adds only missing traces;
 * a bad condition is refused before any job runs. */
Test(cli, run_keeps_traces_of_the_chosen_jobs_by_key) {
  char plan[512], db[512], dir[512], *out, *err;
  plan_path(plan, sizeof plan, "budget.yaml");
  snprintf(db, sizeof db, "%s/traces.db", tmpdir);
  snprintf(dir, sizeof dir, "%s/traces", tmpdir);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s' --traces '%s' --trace-where "
                                   "\"status <> 'ok'\"",
                       plan, db, dir),
               0, "%s", err);
  free(err);
  char *keys = test_db_rows(db, "SELECT job_key, agents FROM results WHERE status <> 'ok'");
  int n = 0;
  for (char *line = strtok(keys, "\n"); line; line = strtok(NULL, "\n"), n++) {
    char key[33], path[700];
    int agents = 0;
    cr_assert_eq(sscanf(line, "%32[0-9a-f]|%d", key, &agents), 2, "%s", line);
    snprintf(path, sizeof path, "%s/%s.trace.gz", dir, key);
    gzFile gz = gzopen(path, "rb");
    cr_assert_not_null(gz, "no trace %s", path);
    char buf[65536];
    int len = gzread(gz, buf, sizeof buf - 1);
    gzclose(gz);
    cr_assert_gt(len, 0);
    buf[len] = '\0';
    char head[32];
    snprintf(head, sizeof head, "agents=%d\n", agents);
    cr_expect(strncmp(buf, head, strlen(head)) == 0, "%.80s", buf);
    cr_expect(strstr(buf, "\nsolution=\n0:(") != NULL);
  }
  free(keys);
  cr_assert_gt(n, 0);
  /* Only the chosen jobs: one file each. */
  char cmd[800];
  snprintf(cmd, sizeof cmd, "test $(ls '%s' | wc -l) -eq %d", dir, n);
  cr_expect_eq(system(cmd), 0, "DIR holds other files than the %d chosen traces", n);
  cr_assert_eq(mapfarm(&out, &err, "run '%s' --db '%s' --traces '%s'", plan, db, dir), 0, "%s",
               err);
  cr_expect(strstr(err, "already there") != NULL, "%s", err);
  free(out);
  free(err);
  snprintf(db, sizeof db, "%s/traces2.db", tmpdir);
  cr_assert_eq(mapfarm(&out, &err, "run '%s' --db '%s' --traces '%s' --trace-where 'nonsense ='",
                       plan, db, dir),
               2);
  cr_expect(strstr(err, "--trace-where \"nonsense =\"") != NULL, "%s", err);
  cr_expect_eq(test_db_int(db, "SELECT count(*) FROM results"), 0, "jobs ran before the refusal");
  free(out);
  free(err);
}

/* The seed round-trips: solve prints the algorithm's seed as results.seed stores it (16 hex
 * digits), and --algo-seed takes that text back, giving the same run; a bad one is exit 2. */
Test(cli, solve_prints_the_algorithm_seed_and_takes_it_back) {
  char map[600], *out, *err, *again;
  snprintf(map, sizeof map, "%s/tests/data/maps/tiny.map", MAPFARM_SOURCE_DIR);
  cr_assert_eq(mapfarm(&out, &err, "solve --map '%s' --generator random --agents 3 --seed 9 "
                                   "--algo rths --steps 30",
                       map),
               0, "%s", err);
  free(err);
  const char *p = strstr(out, "\nseed: ");
  cr_assert_not_null(p, "%s", out);
  char hex[17];
  cr_assert_eq(sscanf(p, "\nseed: %16[0-9a-f]", hex), 1);
  cr_assert_eq(strlen(hex), 16);
  cr_assert_eq(mapfarm(&again, &err, "solve --map '%s' --generator random --agents 3 --seed 9 "
                                     "--algo rths --steps 30 --algo-seed %s",
                       map, hex),
               0, "%s", err);
  free(err);
  /* Every line but the clock's. */
  const char *clock[] = {"wall_seconds", "planning_seconds", "max_step_planning_seconds",
                         "mean_completion_seconds", "setup_seconds"};
  for (char *a = out, *b = again; *a && *b;) {
    char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
    cr_assert(ea && eb);
    int timing = 0;
    for (int k = 0; k < 5; k++) timing |= strncmp(a, clock[k], strlen(clock[k])) == 0;
    if (!timing) cr_expect(ea - a == eb - b && strncmp(a, b, (size_t)(ea - a)) == 0, "%.*s vs %.*s",
                           (int)(ea - a), a, (int)(eb - b), b);
    a = ea + 1;
    b = eb + 1;
  }
  free(out);
  free(again);
  cr_assert_eq(mapfarm(&out, &err, "solve --map '%s' --generator random --agents 3 --algo rths "
                                   "--algo-seed xyz",
                       map),
               2);
  cr_expect(strstr(err, "--algo-seed: expected up to 16 hex digits") != NULL, "%s", err);
  free(out);
  free(err);
}

/* SIGKILL at several moments, then the same command again: every job present exactly once,
 * with the same non-timing values as an uninterrupted run. */
Test(cli, a_killed_run_finishes_on_rerun_with_no_job_lost_or_doubled, .timeout = 600) {
  char plan[512], db[512], ref[512];
  plan_path(plan, sizeof plan, "slow.yaml");
  snprintf(db, sizeof db, "%s/k.db", tmpdir);
  snprintf(ref, sizeof ref, "%s/ref.db", tmpdir);
  int64_t total = 300;
  for (int round = 0; round < 3; round++) {
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
      int fd = open("/dev/null", O_WRONLY);
      dup2(fd, 2);
      execl(MAPFARM_BINARY, "mapfarm", "run", plan, "--db", db, "--threads", "2", (char *)NULL);
      _exit(127);
    }
    /* Wait until this round has stored some jobs, then kill without warning. */
    int64_t before = round == 0 ? 0 : test_db_int(db, "SELECT count(*) FROM results");
    for (int i = 0; i < 600; i++) {
      nanosleep(&(struct timespec){0, 20000000}, NULL);
      if (access(db, 0) == 0 &&
          test_db_try_int(db, "SELECT count(*) FROM results") >= before + 10 * (round + 1))
        break;
    }
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFSIGNALED(st), "the run ended before it could be killed; make slow.yaml slower");
    int64_t n = test_db_int(db, "SELECT count(*) FROM results");
    cr_assert_lt(n, total, "round %d: nothing left to resume", round);
  }
  char *err;
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s' --threads 2", plan, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results"), total);
  cr_assert_eq(test_db_int(db, "SELECT count(DISTINCT job_key) FROM results"), total);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM (SELECT result_id FROM agent_results "
                             "GROUP BY result_id)"), total);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results r WHERE agents <> (SELECT count(*) "
                             "FROM agent_results a WHERE a.result_id = r.id)"), 0);

  cr_assert_eq(mapfarm(NULL, NULL, "run '%s' --db '%s' --threads 2", plan, ref), 0);
  const char *sql = "SELECT job_key, status, completion_rate, mean_travel_distance, steps, "
                    "expansions FROM results ORDER BY job_key";
  char *a = test_db_rows(db, sql), *b = test_db_rows(ref, sql);
  cr_assert_str_eq(a, b);
  free(a);
  free(b);
}

Test(cli, a_bad_plan_reports_every_error_and_leaves_the_database_alone) {
  char plan[512], bad[512], db[512], *err;
  plan_path(plan, sizeof plan, "small.yaml");
  plan_path(bad, sizeof bad, "bad.yaml");
  snprintf(db, sizeof db, "%s/keep.db", tmpdir);
  cr_assert_eq(mapfarm(NULL, NULL, "run '%s' --db '%s'", plan, db), 0);
  char *before = test_slurp_text(db);
  int rc = mapfarm(NULL, &err, "run '%s' --db '%s'", bad, db);
  cr_assert_eq(rc, 2, "exit %d", rc);
  char where[600];
  snprintf(where, sizeof where, "%s:6:13: error: ", bad);
  cr_assert(strstr(err, where) != NULL, "no %s in:\n%s", where, err);
  cr_assert(strstr(err, "did you mean \"vision\"") != NULL, "%s", err);
  char *after = test_slurp_text(db);
  cr_assert(memcmp(before, after, 4096) == 0, "the database changed");
  free(before);
  free(after);
  free(err);
}

Test(cli, bad_arguments_exit_2_with_a_message) {
  char *err;
  cr_assert_eq(mapfarm(NULL, &err, "rnu"), 2);
  cr_assert(strstr(err, "did you mean \"run\"") != NULL, "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "solve --map /nonexistent.map --generator random "
                                   "--agents 3 --algo bmaa"), 2);
  cr_assert(strstr(err, "/nonexistent.map") != NULL, "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "report --db '%s/none.db' completion-rate", tmpdir), 2);
  free(err);
  cr_assert_eq(access("none.db", 0), -1, "report must not create a database");
}

/* A failing job is recorded with status error and its message, the others go on, the exit
 * status is 1; --retry-failed runs the failed jobs again and replaces their rows. */
Test(cli, failed_jobs_are_recorded_and_retry_failed_runs_them_again) {
  char plan[512], db[512], *err;
  plan_path(plan, sizeof plan, "failing.yaml");
  snprintf(db, sizeof db, "%s/f.db", tmpdir);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 1, "%s", err);
  cr_assert(strstr(err, "5 error") != NULL, "%s", err);
  free(err);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE status = 'error' AND "
                             "message LIKE '%cannot place 60 agents%'"), 5);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE status <> 'error'"), 5);
  /* A plain rerun leaves failed jobs alone. */
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  cr_assert(strstr(err, "nothing to run") != NULL, "%s", err);
  free(err);

  /* Make one good job look failed, as if it had crashed on a bad day: the retry must run it
   * again and store a complete row with its agents; the real failures fail again. */
  test_db_exec(db, "UPDATE results SET status = 'error', message = 'simulated', "
               "completion_rate = NULL WHERE job_key = (SELECT min(job_key) FROM results "
               "WHERE agents = 5); DELETE FROM agent_results WHERE result_id = (SELECT id "
               "FROM results WHERE message = 'simulated')");
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s' --retry-failed", plan, db), 1, "%s", err);
  cr_assert(strstr(err, "6 jobs run") != NULL, "%s", err);
  free(err);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results"), 10);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE status = 'error'"), 5);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE message = 'simulated'"), 0);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM agent_results"), 5 * 5);
}

/* Every plan shipped in configs/ is valid and expands (those on MovingAI maps find them through
 * MAPFARM_MAPS). */
Test(cli, every_shipped_plan_expands) {
  REQUIRE_MAPS(maps);
  const char *plans[] = {"quick.yaml",           "bench-tiny.yaml",      "bmaa-paper.yaml",
                         "bmaa-paper-small.yaml", "bmaa-paper-whca.yaml", "bmaa-sweep.yaml",
                         "thesis-portfolio.yaml", "thesis-portfolio-small.yaml",
                         "direction-maps.yaml",   "rths-sweep.yaml",      "bmaa-paper-work.yaml",
                         "thesis-portfolio-work.yaml", "scale-128.yaml"};
  const long long jobs[] = {240,  100000, 14400,   1200,  2400, 7200,
                            8400, 252,    1600,    1000000, 14400, 8400, 512};
  for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
    char *out, *err;
    int rc = mapfarm(&out, &err, "expand '%s/configs/%s' --maps '%s'", MAPFARM_SOURCE_DIR,
                     plans[i], maps);
    cr_assert_eq(rc, 0, "%s: %s", plans[i], err);
    cr_assert_eq(strtoll(out, NULL, 10), jobs[i], "%s: %.40s", plans[i], out);
    free(out);
    free(err);
  }
}

/* Every job of the small plan is a job of the full one: each row of `expand --list` of small
 * (after the header "key\t...") appears in that of full. Returns the number of rows. */
static int subset_rows(const char *maps, const char *small_plan, const char *full_plan) {
  char *full, *small, *err;
  cr_assert_eq(mapfarm(&full, &err, "expand '%s/configs/%s' --list --maps '%s'",
                       MAPFARM_SOURCE_DIR, full_plan, maps),
               0, "%s", err);
  free(err);
  cr_assert_eq(mapfarm(&small, &err, "expand '%s/configs/%s' --list --maps '%s'",
                       MAPFARM_SOURCE_DIR, small_plan, maps),
               0, "%s", err);
  free(err);
  const char *p = strstr(small, "\nkey\t");
  cr_assert_not_null(p);
  p = strchr(p + 1, '\n');
  int rows = 0;
  while (p && p[1]) {
    p++;
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char row[2048];
    cr_assert_lt(len + 2, sizeof row);
    row[0] = '\n';
    memcpy(row + 1, p, len);
    row[len + 1] = '\0';
    cr_assert_not_null(strstr(full, row), "%s: not in %s: %s", small_plan, full_plan, row + 1);
    rows++;
    p = end;
  }
  free(full);
  free(small);
  return rows;
}

/* The small plans promise that their jobs are jobs of the full ones (same seed, maps,
 * parameters and limits), so a later full run into the same database skips them. */
Test(cli, the_small_plans_are_subsets_of_the_full_ones) {
  REQUIRE_MAPS(maps);
  cr_assert_eq(subset_rows(maps, "bmaa-paper-small.yaml", "bmaa-paper.yaml"), 1200);
  cr_assert_eq(subset_rows(maps, "thesis-portfolio-small.yaml", "thesis-portfolio.yaml"), 252);
}

/* Checks that path holds a PNG image (its 8-byte signature) of some size. */
static void expect_png(const char *path) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s was not written", path);
  unsigned char sig[8] = {0};
  size_t got = fread(sig, 1, sizeof sig, f);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fclose(f);
  static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  cr_assert(got == 8 && memcmp(sig, png, 8) == 0, "%s is not a PNG", path);
  cr_assert_gt(size, 2000, "%s: %ld bytes", path, size);
}

/* The plot tools: each writes the CSV of the report it plots (identical to `mapfarm report
 * --format csv` with its dimensions) and a PNG made by gnuplot. gnuplot is a package of
 * `make test` (Makefile); without it the test says so and, under CI=true, fails. */
Test(cli, plot_tools_write_the_report_csv_and_a_png) {
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
    if (test_in_ci()) cr_assert_fail("gnuplot is not installed; CI=true requires it");
    cr_skip_test("gnuplot is not installed (apt-get install gnuplot-nox)");
  }
  char plan[512], db[512], base[512], cmd[4096], *out, *err;
  plan_path(plan, sizeof plan, "small.yaml");
  snprintf(db, sizeof db, "%s/p.db", tmpdir);
  cr_assert_eq(mapfarm(&out, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  free(out);
  free(err);

  snprintf(base, sizeof base, "%s/fig", tmpdir);
  snprintf(cmd, sizeof cmd, "MAPFARM='%s' '%s/tools/plot-agents.sh' '%s' '%s' >/dev/null",
           MAPFARM_BINARY, MAPFARM_SOURCE_DIR, db, base);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  cr_assert_eq(mapfarm(&out, &err, "report --db '%s' completion-rate --rows agents --format csv",
                       db),
               0, "%s", err);
  char path[600];
  snprintf(path, sizeof path, "%s.csv", base);
  char *csv = test_slurp_text(path);
  cr_expect_str_eq(csv, out);
  cr_expect(strncmp(csv, "Agents,BMAA*,BMAA*-f,Overall\n5,", 31) == 0, "%s", csv);
  free(csv);
  free(out);
  free(err);
  snprintf(path, sizeof path, "%s.png", base);
  expect_png(path);

  snprintf(base, sizeof base, "%s/heat", tmpdir);
  snprintf(cmd, sizeof cmd,
           "MAPFARM='%s' '%s/tools/plot-heatmap.sh' '%s' '%s' travel-distance agents "
           "param:push --mark true,20 >/dev/null",
           MAPFARM_BINARY, MAPFARM_SOURCE_DIR, db, base);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  snprintf(path, sizeof path, "%s.csv", base);
  csv = test_slurp_text(path);
  cr_expect(strncmp(csv, "Agents,false,true,Overall\n5,", 28) == 0, "%s", csv);
  free(csv);
  snprintf(path, sizeof path, "%s.png", base);
  expect_png(path);

  /* A cell that is not in the table is an error, not a picture without its frame. */
  snprintf(cmd, sizeof cmd,
           "MAPFARM='%s' '%s/tools/plot-heatmap.sh' '%s' '%s/bad' completion-rate agents "
           "param:push --mark maybe,20 >/dev/null 2>&1",
           MAPFARM_BINARY, MAPFARM_SOURCE_DIR, db, tmpdir);
  cr_expect_neq(system(cmd), 0);
}

/* ---- the command line: usage, help and options (farm/cli.h) --------------------------- */

/* The "--name" words of text[0..len) (a usage or the options of a help), sorted, one per
 * line. */
static void option_words(const char *text, size_t len, char *buf, size_t n) {
  char words[64][40];
  int nw = 0;
  for (size_t i = 0; i + 2 < len && nw < 64; i++) {
    if (strncmp(text + i, "--", 2) != 0 || (i > 0 && text[i - 1] != ' ' && text[i - 1] != '[' &&
                                            text[i - 1] != '(' && text[i - 1] != '\n'))
      continue;
    size_t k = strspn(text + i + 2, "abcdefghijklmnopqrstuvwxyz-");
    if (k == 0 || i + 2 + k > len) continue;
    char w[40];
    snprintf(w, sizeof w, "%.*s", (int)k, text + i + 2);
    int seen = 0;
    for (int j = 0; j < nw; j++) seen |= strcmp(words[j], w) == 0;
    if (!seen) snprintf(words[nw++], sizeof words[0], "%s", w);
  }
  qsort(words, (size_t)nw, sizeof words[0], (int (*)(const void *, const void *))strcmp);
  buf[0] = '\0';
  for (int j = 0; j < nw; j++)
    snprintf(buf + strlen(buf), n - strlen(buf), "%s\n", words[j]);
}

/* Every command of the overview has a help of its own, exit 0, whose synopsis names exactly
 * the options it describes (the table's synopsis and option rows agree). */
Test(cli, every_command_has_a_help_whose_synopsis_names_its_options) {
  char *over, *err;
  cr_assert_eq(mapfarm(&over, &err, "--help"), 0, "%s", err);
  free(err);
  char *again;
  cr_assert_eq(mapfarm(&again, NULL, "help"), 0);
  cr_assert_str_eq(over, again);
  free(again);
  const char *p = strstr(over, "commands:\n");
  cr_assert(p, "%s", over);
  int ncmds = 0;
  for (p = strchr(p, '\n') + 1; strncmp(p, "  ", 2) == 0; p = strchr(p, '\n') + 1) {
    /* "  bench sim    agent-steps ...": the name ends at two spaces. */
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(strstr(p + 2, "  ") - p - 2), p + 2);
    for (int h = 0; h < 2; h++) {
      char *out;
      int rc = mapfarm(&out, &err, "%s %s", name, h ? "-h" : "--help");
      cr_assert_eq(rc, 0, "%s --help: exit %d: %s", name, rc, err);
      char head[96];
      snprintf(head, sizeof head, "usage: mapfarm %s", name);
      cr_assert(strncmp(out, head, strlen(head)) == 0, "%s", out);
      /* This command's usage only. */
      cr_assert_null(strstr(out + 1, "usage:"), "%s", out);
      const char *opts = strstr(out, "\noptions:\n");
      cr_assert(opts, "%s", out);
      char in_usage[2048], in_options[2048];
      option_words(out, (size_t)(strstr(out, "\n\n") - out), in_usage, sizeof in_usage);
      option_words(opts, strlen(opts), in_options, sizeof in_options);
      /* The options list adds --help, which no synopsis repeats. */
      char with_help[2100];
      snprintf(with_help, sizeof with_help, "%s", in_usage);
      char *at = with_help;
      while (*at && strncmp(at, "help\n", 5) < 0 && strchr(at, '\n')) at = strchr(at, '\n') + 1;
      memmove(at + 5, at, strlen(at) + 1);
      memcpy(at, "help\n", 5);
      cr_assert_str_eq(with_help, in_options, "%s: the synopsis names\n%sthe options are\n%s",
                       name, in_usage, in_options);
      free(out);
      free(err);
    }
    ncmds++;
  }
  cr_assert_geq(ncmds, 17, "%s", over);
  free(over);
}

/* A mistyped option: its suggestion, that command's usage alone, exit 2; getopt_long's
 * prefix matching would have taken --thread as --threads. */
Test(cli, an_unknown_option_gets_a_suggestion_and_the_command_usage_only) {
  char *out, *err;
  cr_assert_eq(mapfarm(&out, &err, "run --thread 2 plan.yaml --db x.db"), 2);
  cr_assert_str_eq(out, "");
  const char *want =
      "mapfarm run: error: unknown option \"--thread\" (did you mean \"--threads\"?)\n"
      "usage: mapfarm run PLAN.yaml --db FILE [--threads N] [--shard I/N] [--maps DIR] "
      "[--retry-failed]\n"
      "                   [--traces DIR [--trace-where SQL]]\n"
      "`mapfarm run --help` describes every option.\n";
  cr_assert_str_eq(err, want);
  free(out);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "report --db x.db --format=md --col map completion-rate"), 2);
  cr_assert(strstr(err, "mapfarm report: error: unknown option \"--col\" (did you mean "
                        "\"--cols\"?)\nusage: mapfarm report NAME"), "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "solve --agnets=3"), 2);
  cr_assert(strstr(err, "unknown option \"--agnets\" (did you mean \"--agents\"?)"), "%s", err);
  cr_assert_null(strstr(err, "mapfarm run"), "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "expand x.yaml --list=yes"), 2);
  cr_assert(strncmp(err, "mapfarm expand: error: --list takes no value\n", 45) == 0, "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "status --db"), 2);
  cr_assert(strncmp(err, "mapfarm status: error: --db needs a value (FILE)\n", 49) == 0, "%s",
            err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "bench sim --map x.map --scen y.scen"), 2);
  cr_assert(strstr(err, "mapfarm bench sim: error: unknown option \"--scen\""), "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "bench"), 2);
  cr_assert(strstr(err, "usage: mapfarm bench astar") && strstr(err, "usage: mapfarm bench sim"),
            "%s", err);
  free(err);
}

/* `--opt=value` and `--opt value` mean the same, for every kind of command. */
Test(cli, option_values_after_an_equals_sign) {
  char plan[512], db1[600], db2[600], *out1, *out2, *err;
  plan_path(plan, sizeof plan, "small.yaml");
  snprintf(db1, sizeof db1, "%s/eq1.db", tmpdir);
  snprintf(db2, sizeof db2, "%s/eq2.db", tmpdir);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db='%s' --threads=2 --shard=1/2", plan, db1), 0,
               "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s' --threads 2 --shard 1/2", plan, db2), 0,
               "%s", err);
  free(err);
  cr_assert_eq(mapfarm(&out1, NULL, "report --db='%s' --format=csv --rows=agents completion-rate",
                       db1), 0);
  cr_assert_eq(mapfarm(&out2, NULL, "report --db '%s' --format csv --rows agents completion-rate",
                       db2), 0);
  cr_assert(strlen(out1) > 20, "%s", out1);
  cr_assert_str_eq(out1, out2);
  free(out1);
  free(out2);
  cr_assert_eq(mapfarm(&out1, &err, "status --db='%s'", db1), 0, "%s", err);
  cr_assert(strstr(out1, "only 1 of 2 shards"), "%s", out1);
  free(out1);
  free(err);
}
