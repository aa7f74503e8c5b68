/* test_report_html.c: `mapfarm report --format html` (farm/report.c): the intervals, the
 * page, and the page in headless Chromium (tools/viewer/report-test.js, run by node with
 * puppeteer-core from tools/viewer/node_modules, which `make test` installs with npm ci). */
#include <math.h>
#include <sys/stat.h>

#include "report.h"
#include "testutil.h"

TEST_TMPDIR("report-html");
TestSuite(report_html, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 180);

#define mapfarm(out, err, ...) test_mapfarm(tmpdir, NULL, out, err, __VA_ARGS__)

/* Student's t quantiles (tables to 3 decimals; the normal's 1.95996 in the limit) and the two
 * intervals on values worked out by hand: Wilson for 6 of 8 and 8 of 8 (Newcombe 1998's
 * table: 0.4093-0.9285, 0.6756-1), t for {1.0, 0.9} (0.95 +- 12.706 x 0.0707 / sqrt 2). */
Test(report_html, t_quantiles_and_intervals) {
  cr_expect_float_eq(farm_report_t975(1), 12.706, 1e-9);
  cr_expect_float_eq(farm_report_t975(30), 2.042, 1e-9);
  cr_expect_float_eq(farm_report_t975(60), 2.000, 1e-3);
  cr_expect_float_eq(farm_report_t975(120), 1.980, 1e-3);
  cr_expect_float_eq(farm_report_t975(1000000), 1.95996, 1e-4);
  double lo, hi;
  cr_assert_eq(farm_report_ci95(8, 6, 6, 8, &lo, &hi), 0);
  cr_expect_float_eq(lo, 0.4093, 1e-4);
  cr_expect_float_eq(hi, 0.9285, 1e-4);
  cr_assert_eq(farm_report_ci95(8, 8, 8, 8, &lo, &hi), 0);
  cr_expect_float_eq(lo, 0.6756, 1e-4);
  cr_expect_float_eq(hi, 1.0, 1e-12);
  cr_assert_eq(farm_report_ci95(2, 1.9, 1.81, 1, &lo, &hi), 0);
  cr_expect_float_eq(lo, 0.95 - 12.706 * sqrt(0.005) / sqrt(2.0), 1e-9);
  cr_expect_float_eq(hi, 0.95 + 12.706 * sqrt(0.005) / sqrt(2.0), 1e-9);
  /* One job that is not a 0/1 value: no interval. */
  cr_expect_eq(farm_report_ci95(1, 0.5, 0.25, 0, &lo, &hi), -1);
}

/* The portfolio plan's database (tests/data/cli/portfolio.yaml: two maps, three labels, agent
 * counts 4 and 6) in tmpdir/pf.db. */
static void portfolio_db(char *db, size_t n) {
  char cmd[2048], plan[600];
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/plans' '%s/maps' && cp '%s/tests/data/cli/portfolio.yaml' '%s/plans/' && "
           "cp '%s/tests/data/maps/tiny.map' '%s/maps/'",
           tmpdir, tmpdir, MAPFARM_SOURCE_DIR, tmpdir, MAPFARM_SOURCE_DIR, tmpdir);
  cr_assert_eq(system(cmd), 0);
  snprintf(plan, sizeof plan, "%s/plans/portfolio.yaml", tmpdir);
  snprintf(db, n, "%s/pf.db", tmpdir);
  char *err;
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s' --threads 2", plan, db), 0, "%s", err);
  free(err);
}

/* Wilson's interval computed here, apart from farm/report.c. */
static void wilson(double k, double n, double *lo, double *hi) {
  double z = 1.959963984540054, p = k / n, d = 1 + z * z / n;
  double c = (p + z * z / (2 * n)) / d, h = z / d * sqrt(p * (1 - p) / n + z * z / (4 * n * n));
  *lo = c - h;
  *hi = c + h;
}

/* The solved share of tiny.map / FAR as the page must show it: "M [LO, HI] n=N", in percent
 * rounded half away from zero, from the database by SQL. */
static void expected_cell(const char *db, char *text, size_t len, char *args, size_t alen) {
  int64_t k = test_db_int(db, "SELECT sum(solved) FROM results WHERE map = '../maps/tiny.map' "
                              "AND label = 'FAR'");
  int64_t n = test_db_int(db, "SELECT count(*) FROM results WHERE map = '../maps/tiny.map' AND "
                              "label = 'FAR'");
  cr_assert_eq(n, 8);
  double lo, hi;
  wilson((double)k, (double)n, &lo, &hi);
  snprintf(text, len, "%.0f [%.0f, %.0f] n=%lld", round(100.0 * (double)k / (double)n),
           round(100 * lo), round(100 * hi), (long long)n);
  snprintf(args, alen, "--cell ../maps/tiny.map FAR %.0f %.0f %.0f %lld",
           round(100.0 * (double)k / (double)n), round(100 * lo), round(100 * hi), (long long)n);
}

/* The page itself: the cell with its interval and count, a plot per map against agents with
 * the agent counts in its title, the run's plan hash and host, nothing from the network; the
 * portfolio tables have no HTML form (exit 2, a message). */
Test(report_html, page_has_intervals_plots_and_provenance) {
  char db[600];
  portfolio_db(db, sizeof db);
  char *out, *err;
  cr_assert_eq(mapfarm(&out, &err, "report --db '%s' solved --format html", db), 0, "%s", err);
  char text[200], args[300];
  expected_cell(db, text, sizeof text, args, sizeof args);
  char want[400];
  snprintf(want, sizeof want, "%.*s <span class=\"ci\">%.*s</span> <span class=\"n\">%s</span>",
           (int)(strchr(text, ' ') - text), text,
           (int)(strstr(text, " n=") - strchr(text, ' ') - 1), strchr(text, ' ') + 1,
           strstr(text, "n="));
  cr_expect(strstr(out, want), "no cell \"%s\" in the page", want);
  cr_expect(strstr(out, "<svg"), "no SVG");
  cr_expect(strstr(out, "<title>../maps/tiny.map: Solved (% of instances with every agent on its "
                        "goal) against agents (4 to 6 agents)</title>"),
            "no plot for tiny.map");
  cr_expect(strstr(out, "<title>rooms-32x32-r6-k2-s2: "), "no plot for the generated map");
  char *hash = test_db_rows(db, "SELECT plan_hash FROM runs");
  hash[strcspn(hash, "\n")] = '\0';
  cr_expect(strstr(out, hash), "the plan hash %s is not in the page", hash);
  cr_expect_null(strstr(out, "src="), "the page loads something");
  cr_expect_null(strstr(out, "href="), "the page links something");
  free(hash);
  free(out);
  free(err);
  cr_assert_eq(mapfarm(&out, &err, "report --db '%s' portfolio --format html", db), 2);
  cr_expect(strstr(err, "mapfarm: error: the portfolio report has no HTML form"), "%s", err);
  cr_expect_str_eq(out, "");
  free(out);
  free(err);
}

/* Writes `mapfarm report --db DB ARGS --format html` to path. */
static void write_report(const char *db, const char *args, const char *path) {
  char *out, *err;
  cr_assert_eq(mapfarm(&out, &err, "report --db '%s' %s --format html", db, args), 0, "%s", err);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(out, f);
  cr_assert_eq(fclose(f), 0);
  free(out);
  free(err);
}

/* The page in Chromium: it loads from disk with no script error and no request, has the table,
 * two drawn plots (one per map) and the runs, and shows the tiny.map / FAR cell as worked out
 * from the database; a sweep over agents and a parameter draws too. The screenshot goes to the
 * build directory (report.png; the README shows a copy, docs/img/report.png). */
Test(report_html, page_in_chromium) {
  test_require_browser("test_report_html");
  char db[600], page[600], page2[600], shot[1200];
  portfolio_db(db, sizeof db);
  snprintf(page, sizeof page, "%s/solved.html", tmpdir);
  snprintf(page2, sizeof page2, "%s/by-agents.html", tmpdir);
  snprintf(shot, sizeof shot, "%s/report.png", MAPFARM_BUILD_DIR);
  write_report(db, "solved", page);
  write_report(db, "completion-rate --rows agents --cols label", page2);
  char text[200], cell[300];
  expected_cell(db, text, sizeof text, cell, sizeof cell);
  char cmd[8192], log[700];
  snprintf(log, sizeof log, "%s/node.log", tmpdir);
  snprintf(cmd, sizeof cmd,
           "node '%s/tools/viewer/report-test.js' --page '%s' --svgs 2 %s --shot '%s' >'%s' 2>&1 "
           "&& node '%s/tools/viewer/report-test.js' --page '%s' --svgs 1 >>'%s' 2>&1",
           MAPFARM_SOURCE_DIR, page, cell, shot, log, MAPFARM_SOURCE_DIR, page2, log);
  int st = system(cmd);
  int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  char *out = test_slurp_text(log);
  if (rc == 77 && !test_in_ci()) {
    fprintf(stderr, "\n*** test_report_html: SKIPPED: %s ***\n\n", out);
    cr_skip_test("%s", out);
  }
  cr_assert_eq(rc, 0, "node report-test.js exited %d:\n%s", rc, out);
  cr_log_info("%s", out);
  free(out);
}
