/* testutil.h: helpers shared by the test files. */
#ifndef MAPFARM_TESTUTIL_H
#define MAPFARM_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

#endif
