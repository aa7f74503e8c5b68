/* test_docs.c: the documentation shows only what works. Every ```yaml block of README.md and
 * the pages of docs/ is a whole plan (it has a top-level `algorithms:` key), and `mapfarm expand`
 * accepts it as a reader would run it: written to a file of its own, with the MovingAI data
 * as --maps. A fragment of a plan belongs in another fence. The pages cite papers and the
 * repository's own files, never documents outside it. */
#include <dirent.h>

#include "testutil.h"

TEST_TMPDIR("docs");

#define MAX_DOCS 64

/* README.md, then docs/NAME.md in name order: paths relative to the source tree. */
static int doc_files(char names[][300], int max) {
  int n = 0;
  snprintf(names[n++], 300, "README.md");
  DIR *d = opendir(MAPFARM_SOURCE_DIR "/docs");
  cr_assert_not_null(d, "cannot open %s/docs", MAPFARM_SOURCE_DIR);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 3, ".md") != 0 || e->d_name[0] == '.') continue;
    cr_assert_lt(n, max, "more than %d pages under docs/", max - 1);
    snprintf(names[n++], 300, "docs/%s", e->d_name);
  }
  closedir(d);
  /* readdir's order is the file system's: sort docs/ for stable messages. */
  for (int i = 2; i < n; i++)
    for (int j = i; j > 1 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char t[300];
      memcpy(t, names[j], sizeof t);
      memcpy(names[j], names[j - 1], sizeof t);
      memcpy(names[j - 1], t, sizeof t);
    }
  return n;
}

/* One fenced block: its info string, the line of its opening fence, and its text with the
 * fence's own indentation removed from every line (a block inside a list item). */
typedef struct {
  char info[32];
  int line;
  char *text;
} doc_block;

/* The number of spaces that begin the line [p, end). */
static size_t indent_of(const char *p, const char *end) {
  size_t i = 0;
  while (p + i < end && p[i] == ' ') i++;
  return i;
}

/* The fenced blocks of the Markdown text md, in order; *n their number (the caller frees). */
static doc_block *fenced_blocks(const char *md, int *n) {
  doc_block *blocks = NULL;
  int count = 0, cap = 0, line = 0;
  const char *p = md;
  doc_block *open = NULL;
  size_t open_indent = 0, len = 0, tcap = 0;
  while (*p) {
    const char *eol = strchr(p, '\n');
    const char *end = eol ? eol : p + strlen(p);
    line++;
    size_t ind = indent_of(p, end);
    int fence = end - p >= (long)ind + 3 && strncmp(p + ind, "```", 3) == 0;
    if (!open && fence) {
      if (count == cap) {
        cap = cap ? 2 * cap : 16;
        blocks = realloc(blocks, (size_t)cap * sizeof *blocks);
        cr_assert_not_null(blocks);
      }
      open = &blocks[count++];
      memset(open, 0, sizeof *open);
      size_t il = (size_t)(end - (p + ind + 3));
      while (il > 0 && (p[ind + 3 + il - 1] == ' ' || p[ind + 3 + il - 1] == '\r')) il--;
      if (il >= sizeof open->info) il = sizeof open->info - 1;
      memcpy(open->info, p + ind + 3, il);
      open->line = line;
      open_indent = ind;
      len = 0;
      tcap = 256;
      open->text = malloc(tcap);
      cr_assert_not_null(open->text);
      open->text[0] = '\0';
    } else if (open && fence) {
      open = NULL;
    } else if (open) {
      const char *s = p + (ind < open_indent ? ind : open_indent);
      size_t sl = (size_t)(end - s);
      if (len + sl + 2 > tcap) {
        while (len + sl + 2 > tcap) tcap *= 2;
        open->text = realloc(open->text, tcap);
        cr_assert_not_null(open->text);
      }
      memcpy(open->text + len, s, sl);
      len += sl;
      open->text[len++] = '\n';
      open->text[len] = '\0';
    }
    p = eol ? eol + 1 : end;
  }
  cr_assert_null(open, "a fenced block opened at line %d is never closed",
                 open ? open->line : 0);
  *n = count;
  return blocks;
}

/* Whether text has a line that starts with key (at column 0). */
static int has_top_key(const char *text, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = text;;) {
    if (strncmp(p, key, kl) == 0) return 1;
    p = strchr(p, '\n');
    if (!p) return 0;
    p++;
  }
}

Test(docs, every_yaml_block_is_a_plan_that_expands, .init = make_tmpdir, .fini = remove_tmpdir) {
  char names[MAX_DOCS][300];
  int ndocs = doc_files(names, MAX_DOCS);
  char maps_buf[4096];
  const char *maps = test_maps_dir(maps_buf, sizeof maps_buf);
  int checked = 0, skipped = 0, failed = 0, readme_plans = 0, plans_page = 0;
  for (int f = 0; f < ndocs; f++) {
    char path[600];
    snprintf(path, sizeof path, "%s/%.299s", MAPFARM_SOURCE_DIR, names[f]);
    char *md = test_slurp_file(path, NULL);
    int nb = 0;
    doc_block *b = fenced_blocks(md, &nb);
    for (int i = 0; i < nb; i++) {
      if (strcmp(b[i].info, "yaml") != 0 && strcmp(b[i].info, "yml") != 0) {
        free(b[i].text);
        continue;
      }
      if (!has_top_key(b[i].text, "algorithms:")) {
        cr_expect_fail("%s:%d: a ```yaml block that is not a whole plan (no top-level "
                       "algorithms: key); show a fragment in a ```text block, or make it whole",
                       names[f], b[i].line);
        failed++;
        free(b[i].text);
        continue;
      }
      if (f == 0) readme_plans++;
      if (strcmp(names[f], "docs/plans.md") == 0) plans_page++;
      /* A plan that names a map or scenario file needs the MovingAI data. */
      int needs_data = strstr(b[i].text, ".map") || strstr(b[i].text, ".scen");
      if (needs_data && !maps) {
        if (test_in_ci())
          cr_expect_fail("%s:%d: the plan needs the MovingAI data, which was not found (set "
                         "MAPFARM_MAPS); CI=true requires it",
                         names[f], b[i].line);
        else
          skipped++;
        failed += test_in_ci();
        free(b[i].text);
        continue;
      }
      char plan[700];
      snprintf(plan, sizeof plan, "%s/plan-%d-%d.yaml", tmpdir, f, i);
      FILE *out = fopen(plan, "w");
      cr_assert_not_null(out);
      fputs(b[i].text, out);
      fclose(out);
      char *so = NULL, *se = NULL;
      int rc = maps ? test_mapfarm(tmpdir, tmpdir, &so, &se, "expand '%s' --maps '%s'", plan, maps)
                    : test_mapfarm(tmpdir, tmpdir, &so, &se, "expand '%s'", plan);
      /* expand's first line is "N jobs". */
      const char *sp = strchr(so, ' ');
      int ok = rc == 0 && sp && strncmp(sp, " jobs\n", 6) == 0;
      cr_expect(ok, "%s:%d: the plan does not expand (exit %d):\n%s%s", names[f], b[i].line, rc,
                se, so);
      failed += !ok;
      checked++;
      free(so);
      free(se);
      free(b[i].text);
    }
    free(b);
    free(md);
  }
  /* The scanner finds the plans it is meant to check. */
  cr_expect_geq(readme_plans, 1, "README.md shows no plan in a ```yaml block");
  cr_expect_geq(plans_page, 1, "docs/plans.md shows no plan in a ```yaml block");
  if (skipped > 0 && failed == 0 && readme_plans >= 1 && plans_page >= 1) {
    printf("test_docs: %d plans checked; %d that name MovingAI files skipped: the data was not "
           "found (set MAPFARM_MAPS to check them)\n",
           checked, skipped);
    cr_skip_test("MovingAI data not found: %d plans skipped; set MAPFARM_MAPS to check them",
                 skipped);
  }
}

/* Words that cite what is not in the repository: guidance documents kept beside it, and the
 * numbered source texts the papers were once filed under (papers are cited by author and
 * year; docs/references.md). */
Test(docs, pages_cite_nothing_outside_the_repository) {
  static const char *const banned[] = {"ALGORITHMS.md", "DESIGN.md", "STYLE.md", "seeds/",
                                       "seed 000",      "seed 001",  "seed 002", "seed 003",
                                       "seed 004"};
  char names[MAX_DOCS][300];
  int ndocs = doc_files(names, MAX_DOCS);
  for (int f = 0; f < ndocs; f++) {
    char path[600];
    snprintf(path, sizeof path, "%s/%.299s", MAPFARM_SOURCE_DIR, names[f]);
    char *md = test_slurp_file(path, NULL);
    for (size_t k = 0; k < sizeof banned / sizeof banned[0]; k++) {
      const char *hit = strstr(md, banned[k]);
      int line = 1;
      for (const char *q = md; hit && q < hit; q++) line += *q == '\n';
      cr_expect_null(hit, "%s:%d: cites \"%s\", which is not in the repository", names[f], line,
                     banned[k]);
    }
    free(md);
  }
}
