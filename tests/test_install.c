/* test_install.c: `cmake --install` (what `make install` runs) gives a mapfarm that runs from
 * its prefix, with the tools and plans beside it, and the installed tools find it. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#if !defined(MAPFARM_CMAKE) || !defined(MAPFARM_BUILD_DIR)
#error "MAPFARM_CMAKE and MAPFARM_BUILD_DIR name cmake and the build directory"
#endif

TEST_TMPDIR("install");
TestSuite(install, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 120);

/* Runs the shell command cmd (printf-style) with its stdout and stderr in *out (malloc'd).
 * Returns the exit status. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int sh(char **out, const char *fmt, ...) {
  char cmd[8192], log[512], full[9000];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  snprintf(log, sizeof log, "%s/sh.log", tmpdir);
  snprintf(full, sizeof full, "( %s ) >'%s' 2>&1", cmd, log);
  int st = system(full);
  *out = test_slurp_text(log);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int is_executable(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

/* Installs the build into tmpdir/prefix; returns the prefix in buf. */
static const char *install(char *buf, size_t n) {
  snprintf(buf, n, "%s/prefix", tmpdir);
  char *log;
  int rc = sh(&log, "'%s' --install '%s' --prefix '%s'", MAPFARM_CMAKE, MAPFARM_BUILD_DIR, buf);
  cr_assert_eq(rc, 0, "cmake --install: exit %d:\n%s", rc, log);
  free(log);
  return buf;
}

Test(install, the_installed_binary_runs_from_its_prefix) {
  char prefix[400], path[600], *out, *want;
  install(prefix, sizeof prefix);
  snprintf(path, sizeof path, "%s/bin/mapfarm", prefix);
  cr_assert(is_executable(path), "no %s", path);
  cr_assert_eq(sh(&out, "'%s' --version", path), 0, "%s", out);
  cr_assert_eq(sh(&want, "'%s' --version", MAPFARM_BINARY), 0);
  cr_assert(strncmp(out, "mapfarm ", 8) == 0, "%s", out);
  cr_assert_str_eq(out, want);
  free(out);
  free(want);
  const char *tools[] = {"slurm-array.sh", "compare-results.sh", "paper-report.sh",
                         "plot-agents.sh", "plot-heatmap.sh", "plot-regret.sh",
                         "train-cnn.py"};
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
    snprintf(path, sizeof path, "%s/share/mapfarm/tools/%s", prefix, tools[i]);
    cr_assert(is_executable(path), "no %s", path);
  }
  struct stat sb;
  snprintf(path, sizeof path, "%s/share/mapfarm/tools/find-mapfarm.sh", prefix);
  cr_assert_eq(stat(path, &sb), 0, "no %s", path);
  snprintf(path, sizeof path, "%s/share/mapfarm/configs/quick.yaml", prefix);
  cr_assert_eq(stat(path, &sb), 0, "no %s", path);
  snprintf(path, sizeof path, "%s/share/doc/mapfarm/algorithms.md", prefix);
  cr_assert_eq(stat(path, &sb), 0, "no %s", path);
  /* The installed plan runs with the installed binary (expand checks it). */
  cr_assert_eq(sh(&out, "'%s/bin/mapfarm' expand '%s/share/mapfarm/configs/quick.yaml'", prefix,
                  prefix), 0, "%s", out);
  cr_assert(strncmp(out, "240 jobs\n", 9) == 0, "%s", out);
  free(out);
}

/* DESTDIR stages the tree under a directory, as packagers do. */
Test(install, destdir_stages_the_prefix) {
  char stage[400], path[700], *out;
  snprintf(stage, sizeof stage, "%s/stage", tmpdir);
  int rc = sh(&out, "DESTDIR='%s' '%s' --install '%s' --prefix /opt/mapfarm", stage,
              MAPFARM_CMAKE, MAPFARM_BUILD_DIR);
  cr_assert_eq(rc, 0, "%s", out);
  free(out);
  snprintf(path, sizeof path, "%s/opt/mapfarm/bin/mapfarm", stage);
  cr_assert(is_executable(path), "no %s", path);
  cr_assert_eq(sh(&out, "'%s' --version", path), 0, "%s", out);
  free(out);
}

/* slurm-array.sh (DRY_RUN: the sbatch commands only) finds the mapfarm installed beside it,
 * and, copied anywhere else, the one on PATH; it checks the plan with it first. */
Test(install, slurm_array_finds_an_installed_mapfarm) {
  char prefix[400], bin[600], *out;
  install(prefix, sizeof prefix);
  snprintf(bin, sizeof bin, "%s/bin/mapfarm", prefix);
  int rc = sh(&out,
              "cd '%s' && env -u MAPFARM PATH=/usr/bin:/bin DRY_RUN=1 N=4 "
              "PLAN='%s/share/mapfarm/configs/quick.yaml' RESULTS='%s/res' "
              "'%s/share/mapfarm/tools/slurm-array.sh'",
              tmpdir, prefix, tmpdir, prefix);
  cr_assert_eq(rc, 0, "%s", out);
  char want[700];
  snprintf(want, sizeof want, "mapfarm: %s\n", bin);
  cr_assert(strstr(out, want), "want %s in:\n%s", want, out);
  cr_assert(strstr(out, "240 jobs in 4 shards"), "%s", out);
  cr_assert(strstr(out, "sbatch --parsable --array=1-4"), "%s", out);
  free(out);

  /* A copy of the tools with no binary beside them: mapfarm from PATH. */
  rc = sh(&out,
          "mkdir -p '%s/elsewhere' && cp '%s/share/mapfarm/tools/slurm-array.sh' "
          "'%s/share/mapfarm/tools/find-mapfarm.sh' '%s/elsewhere/' && cd '%s' && "
          "env -u MAPFARM PATH='%s/bin':/usr/bin:/bin DRY_RUN=1 N=2 "
          "PLAN='%s/share/mapfarm/configs/quick.yaml' RESULTS='%s/res' "
          "'%s/elsewhere/slurm-array.sh'",
          tmpdir, prefix, prefix, tmpdir, tmpdir, prefix, prefix, tmpdir, tmpdir);
  cr_assert_eq(rc, 0, "%s", out);
  cr_assert(strstr(out, want), "want %s in:\n%s", want, out);
  free(out);

  /* Neither: a message that says where it looked, exit 2, nothing submitted. */
  rc = sh(&out,
          "cd '%s' && env -u MAPFARM PATH=/usr/bin:/bin DRY_RUN=1 "
          "PLAN='%s/share/mapfarm/configs/quick.yaml' '%s/elsewhere/slurm-array.sh'",
          tmpdir, prefix, tmpdir);
  cr_assert_eq(rc, 2, "%s", out);
  cr_assert(strstr(out, "mapfarm not found"), "%s", out);
  cr_assert_null(strstr(out, "sbatch"), "%s", out);
  free(out);
}

/* In a source tree, the tools use that tree's build (when the tests run from build/). */
Test(install, slurm_array_in_the_source_tree_uses_its_build) {
  char src_build[PATH_MAX], this_build[PATH_MAX], *out;
  if (!realpath(MAPFARM_SOURCE_DIR "/build/mapfarm", src_build) ||
      !realpath(MAPFARM_BINARY, this_build) || strcmp(src_build, this_build) != 0)
    cr_skip_test("this build is not the source tree's build/");
  int rc = sh(&out,
              "cd '%s' && env -u MAPFARM PATH=/usr/bin:/bin DRY_RUN=1 N=2 "
              "PLAN='%s/configs/quick.yaml' RESULTS='%s/res' '%s/tools/slurm-array.sh'",
              tmpdir, MAPFARM_SOURCE_DIR, tmpdir, MAPFARM_SOURCE_DIR);
  cr_assert_eq(rc, 0, "%s", out);
  char want[PATH_MAX + 16];
  snprintf(want, sizeof want, "mapfarm: %s\n", this_build);
  cr_assert(strstr(out, want), "want %s in:\n%s", want, out);
  free(out);
}
