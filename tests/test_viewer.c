/* The viewer: pages written by farm_html_write (farm/html.c) and the page itself in headless
 * Chromium (tools/viewer/test.js, run by node with puppeteer-core from tools/viewer/node_modules,
 * which `make test` installs with npm ci). */
#include <zlib.h>

#include "html.h"
#include "testutil.h"

TEST_TMPDIR("viewer");
TestSuite(viewer, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 180);

#define mapfarm(out, err, ...) test_mapfarm(tmpdir, NULL, out, err, __VA_ARGS__)

/* The template as a NUL-terminated string (malloc'd). */
static char *template_text(void) {
  char *t = malloc(farm_viewer_html_len + 1);
  cr_assert_not_null(t);
  memcpy(t, farm_viewer_html, farm_viewer_html_len);
  t[farm_viewer_html_len] = '\0';
  return t;
}

/* What farm_html_write writes into memory (malloc'd); its return value in *rc. */
static char *page_of(const char *title, const char *map, const char *trace, int *rc,
                     mapf_diag *err) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cr_assert_not_null(f);
  *rc = farm_html_write(f, title, map, trace, err);
  fclose(f);
  return text;
}

/* The text of the element that opens with `open` in page, up to the next "</script>"
 * (malloc'd). */
static char *element_text(const char *page, const char *open) {
  const char *p = strstr(page, open);
  cr_assert_not_null(p, "no %s in the page", open);
  p += strlen(open);
  const char *e = strstr(p, "</script>");
  cr_assert_not_null(e);
  return strndup(p, (size_t)(e - p));
}

/* The page's own decoding of an embedded text: "&lt;" and "&amp;" back to '<' and '&'. */
static char *unescape(const char *s) {
  char *out = malloc(strlen(s) + 1), *o = out;
  while (*s) {
    if (strncmp(s, "&lt;", 4) == 0) *o++ = '<', s += 4;
    else if (strncmp(s, "&amp;", 5) == 0) *o++ = '&', s += 5;
    else *o++ = *s++;
  }
  *o = '\0';
  return out;
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static const char MAP[] = "type octile\nheight 2\nwidth 3\nmap\n..@\n...\n";

/* Map and trace land in their elements and come back unchanged through the page's decoding,
 * even a trace holding "</script>", "&lt;" and "<!--" (a header key the page shows as it
 * is); the title is escaped; everything else is the template byte for byte. */
Test(viewer, page_embeds_map_and_trace_exactly) {
  const char *trace =
      "agents=1\nmap_file=a&b.map\nnote=</script><script>alert(1)</script> &lt; <!-- x\n"
      "solver=bmaa\nstarts=(0,0),\ngoals=(1,1),\nsolution=\n0:(0,0),\n1:(1,1),\n";
  mapf_diag err = {0};
  int rc;
  char *page = page_of("lak307d <bmaa> & \"100\"", MAP, trace, &rc, &err);
  cr_assert_eq(rc, 0, "%s", err.msg);
  cr_assert(strstr(page, "<title>lak307d &lt;bmaa&gt; &amp; &quot;100&quot;</title>"), "%.300s",
            page);
  char *m = element_text(page, "<script type=\"text/plain\" id=\"map\">");
  char *t = element_text(page, "<script type=\"text/plain\" id=\"trace\">");
  char *um = unescape(m), *ut = unescape(t);
  cr_assert_str_eq(um, MAP);
  cr_assert_str_eq(ut, trace);
  cr_assert_null(strchr(t, '<'), "a '<' left in the embedded trace: %s", t);
  /* The template's own elements, and no more. */
  char *tpl = template_text();
  cr_assert_eq(count(page, "</script>"), count(tpl, "</script>"));
  /* Around the insertions, the template unchanged. */
  const char *tail = strstr(tpl, "<script type=\"text/plain\" id=\"trace\">");
  cr_assert(strstr(page, tail + strlen("<script type=\"text/plain\" id=\"trace\">")));
  cr_assert_eq(strncmp(page, tpl, (size_t)(strstr(tpl, "<title>") - tpl)), 0);
  free(tpl);
  free(m);
  free(t);
  free(um);
  free(ut);
  free(page);
}

/* Without a title or a map: the template's title, an empty map element (the page then draws an
 * open grid). */
Test(viewer, page_without_title_or_map) {
  mapf_diag err = {0};
  int rc;
  char *page = page_of(NULL, NULL, "agents=1\nsolution=\n0:(0,0),\n", &rc, &err);
  cr_assert_eq(rc, 0, "%s", err.msg);
  cr_assert(strstr(page, "<title>mapfarm viewer</title>"));
  cr_assert(strstr(page, "<script type=\"text/plain\" id=\"map\"></script>"));
  free(page);
}

/* A trace without "solution=" or a map without its "map" line (arguments swapped, say) is
 * refused with the reason, and nothing is written. */
Test(viewer, page_refuses_what_is_not_a_trace_or_a_map) {
  mapf_diag err = {0};
  int rc;
  char *page = page_of(NULL, MAP, MAP, &rc, &err);
  cr_assert_eq(rc, -1);
  cr_assert_str_eq(err.msg, "the trace: no \"solution=\" line: not a trace (as `mapfarm solve "
                        "--trace FILE` writes)");
  cr_assert_str_eq(page, "");
  free(page);
  const char *trace = "agents=1\nsolution=\n0:(0,0),\n";
  page = page_of(NULL, trace, trace, &rc, &err);
  cr_assert_eq(rc, -1);
  cr_assert_str_eq(err.msg, "the map: no \"map\" line: not a MovingAI map");
  free(page);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

/* From files: the base names as data-name (the page's messages use them); a missing input or
 * an unwritable page is an error naming the file, and leaves an existing page as it was. */
Test(viewer, page_from_files) {
  char map[300], trace[300], page[300];
  mapf_diag err = {0};
  snprintf(map, sizeof map, "%s/rooms.map", tmpdir);
  snprintf(trace, sizeof trace, "%s/run.trace", tmpdir);
  snprintf(page, sizeof page, "%s/run.html", tmpdir);
  write_text(map, MAP);
  write_text(trace, "agents=1\nsolution=\n0:(0,0),\n");
  cr_assert_eq(farm_html_write_file(page, "run", map, trace, &err), 0, "%s", err.msg);
  char *text = test_slurp_file(page, NULL);
  cr_assert(strstr(text, "<script type=\"text/plain\" id=\"map\" data-name=\"rooms.map\">type "
                         "octile\n"));
  cr_assert(strstr(text, "<script type=\"text/plain\" id=\"trace\" data-name=\"run.trace\">"
                         "agents=1\n"));
  char missing[320];
  snprintf(missing, sizeof missing, "%s/none.map", tmpdir);
  cr_assert_eq(farm_html_write_file(page, "run", missing, trace, &err), -1);
  char want[700];
  snprintf(want, sizeof want, "%s: cannot read: No such file or directory", missing);
  cr_assert_str_eq(err.msg, want);
  cr_assert_eq(farm_html_write_file(page, "run", trace, trace, &err), -1);
  snprintf(want, sizeof want, "%s: no \"map\" line: not a MovingAI map", trace);
  cr_assert_str_eq(err.msg, want);
  char *again = test_slurp_file(page, NULL);
  cr_assert_str_eq(again, text, "a refused page replaced the old one");
  /* The trace in memory (solve --html without --trace): named, or not. */
  cr_assert_eq(
      farm_html_save(page, "run", map, "mem.trace", "agents=1\nsolution=\n0:(1,1),\n", &err), 0,
      "%s", err.msg);
  char *saved = test_slurp_file(page, NULL);
  cr_assert(strstr(saved, "<script type=\"text/plain\" id=\"trace\" data-name=\"mem.trace\">"
                          "agents=1\nsolution=\n0:(1,1),\n</script>"));
  free(saved);
  cr_assert_eq(farm_html_save(page, NULL, NULL, NULL, "agents=1\nsolution=\n0:(1,1),\n", &err),
               0, "%s", err.msg);
  saved = test_slurp_file(page, NULL);
  cr_assert(strstr(saved, "<script type=\"text/plain\" id=\"map\"></script>"));
  cr_assert(strstr(saved, "<script type=\"text/plain\" id=\"trace\">agents=1\n"));
  free(saved);
  cr_assert_eq(farm_html_save(page, NULL, NULL, NULL, "agents=1\n", &err), -1);
  cr_assert_str_eq(err.msg, "the trace: no \"solution=\" line: not a trace (as `mapfarm solve "
                        "--trace FILE` writes)");
  char bad[320];
  snprintf(bad, sizeof bad, "%s/no/such/dir/run.html", tmpdir);
  cr_assert_eq(farm_html_write_file(bad, "run", map, trace, &err), -1);
  snprintf(want, sizeof want, "%s.tmp: cannot write: No such file or directory", bad);
  cr_assert_str_eq(err.msg, want);
  free(text);
  free(again);
}

/* A legal trace of `agents` agents on an open 100 x 100 map (MAP100) for `steps` steps: agent i
 * stands at (2 (i mod 50), 2 (i div 50)) at even steps and one cell to the right at odd ones;
 * even agents have that cell as their goal, odd ones the next (malloc'd). */
static const char MAP100_HEAD[] = "type octile\nheight 100\nwidth 100\nmap\n";

static char *map100(void) {
  size_t n = strlen(MAP100_HEAD);
  char *m = malloc(n + 101 * 100 + 1), *p = m + n;
  memcpy(m, MAP100_HEAD, n);
  for (int y = 0; y < 100; y++, *p++ = '\n')
    for (int x = 0; x < 100; x++) *p++ = '.';
  *p = '\0';
  return m;
}

static char *shuttle_trace(int agents, int steps) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cr_assert_not_null(f);
  fprintf(f, "agents=%d\nmap_file=open100.map\nsolver=shuttle\nstarts=", agents);
  for (int i = 0; i < agents; i++) fprintf(f, "(%d,%d),", 2 * (i % 50), 2 * (i / 50));
  fprintf(f, "\ngoals=");
  for (int i = 0; i < agents; i++) fprintf(f, "(%d,%d),", 2 * (i % 50) + i % 2, 2 * (i / 50));
  fprintf(f, "\nsolution=\n");
  for (int t = 0; t <= steps; t++) {
    fprintf(f, "%d:", t);
    for (int i = 0; i < agents; i++) fprintf(f, "(%d,%d),", 2 * (i % 50) + t % 2, 2 * (i / 50));
    fputc('\n', f);
  }
  fclose(f);
  return text;
}

/* Base64 back to bytes (the test's own decoder); returns the count. */
static size_t from_base64(const char *s, size_t n, unsigned char *out) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t k = 0;
  unsigned v = 0;
  int bits = 0;
  for (size_t i = 0; i < n && s[i] != '='; i++) {
    const char *d = strchr(digits, s[i]);
    cr_assert(d && s[i], "not base64: %c at %zu", s[i], i);
    v = v << 6 | (unsigned)(d - digits);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[k++] = (unsigned char)(v >> bits);
    }
  }
  return k;
}

/* The bytes of the element that opens with `open` in page: base64, inflated (malloc'd, the
 * count in *n). */
static unsigned char *inflated(const char *page, const char *open, size_t *n) {
  char *b64 = element_text(page, open);
  size_t blen = strlen(b64);
  unsigned char *z = malloc(blen);
  size_t zlen = from_base64(b64, blen, z);
  z_stream s;
  memset(&s, 0, sizeof s);
  cr_assert_eq(inflateInit(&s), Z_OK);
  size_t cap = 1 << 20, got = 0;
  unsigned char *out = malloc(cap);
  s.next_in = z;
  s.avail_in = (uInt)zlen;
  int rc;
  do {
    if (got == cap) out = realloc(out, cap *= 2);
    s.next_out = out + got;
    s.avail_out = (uInt)(cap - got);
    rc = inflate(&s, Z_NO_FLUSH);
    got = cap - s.avail_out;
  } while (rc == Z_OK);
  cr_assert_eq(rc, Z_STREAM_END, "the embedded data does not inflate: %d", rc);
  cr_assert_eq(s.avail_in, 0, "bytes after the deflated data");
  inflateEnd(&s);
  free(z);
  free(b64);
  *n = got;
  return out;
}

static unsigned u16_at(const unsigned char *p) { return p[0] | (unsigned)p[1] << 8; }
static uint32_t u32_at(const unsigned char *p) {
  return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The trace back from its compact form (moves-deflate-base64, described in farm/html.c), each
 * step line written "T:(x,y),(x,y),...," (malloc'd): the test's own decoder. */
static char *trace_of_moves(const unsigned char *b, size_t n) {
  cr_assert_geq(n, 20);
  cr_assert_eq(memcmp(b, "MFMOVES1", 8), 0);
  uint32_t agents = u32_at(b + 8), steps = u32_at(b + 12), len = u32_at(b + 16);
  cr_assert_leq(20 + (size_t)len + 4 * (size_t)agents, n);
  const unsigned char *p = b + 20 + len, *end = b + n;
  unsigned *x = malloc(agents * sizeof *x), *y = malloc(agents * sizeof *y);
  char *out = NULL;
  size_t outlen = 0;
  FILE *f = open_memstream(&out, &outlen);
  const char *text = (const char *)b + 20, *tend = text + len;
  uint32_t t = 0;
  for (const char *l = text; l < tend;) {
    const char *e = memchr(l, '\n', (size_t)(tend - l));
    if (!e) e = tend;
    fwrite(l, 1, (size_t)(e - l), f);
    if (e > l && e[-1] == ':' && *l >= '0' && *l <= '9') { /* a step line */
      cr_assert_lt(t, steps, "more step lines than steps");
      for (uint32_t a = 0; a < agents; a++) {
        if (t == 0) {
          x[a] = u16_at(p), y[a] = u16_at(p + 2), p += 4;
        } else {
          cr_assert_lt(p, end, "the moves end early");
          unsigned c = *p++;
          if (c == 9) {
            cr_assert_leq(p + 4, end);
            x[a] = u16_at(p), y[a] = u16_at(p + 2), p += 4;
          } else {
            cr_assert_lt(c, 9u, "move %u", c);
            x[a] += c % 3 - 1, y[a] += c / 3 - 1;
          }
        }
        fprintf(f, "(%u,%u),", x[a], y[a]);
      }
      t++;
    }
    if (e < tend) fputc('\n', f);
    l = e + 1;
  }
  fclose(f);
  cr_assert_eq(t, steps);
  cr_assert_eq(p, end, "%td bytes after the last step", end - p);
  free(x);
  free(y);
  return out;
}

/* A trace over FARM_HTML_PLAIN_MAX goes in in its compact form, deflated and in base64, far
 * smaller than the text; decoded, it is the trace byte for byte: a goal change between two
 * steps, a jump of more than a cell and a wait kept, the header as it was. A small map beside
 * it stays plain. */
Test(viewer, large_trace_is_compact) {
  char *trace = shuttle_trace(500, 400), *map = map100();
  /* Agent 7 jumps 5 cells at step 3 (the form keeps an illegal step for the page to list),
   * agent 8 waits at step 3, and a goal change stands between steps 2 and 3. */
  char *s3 = strstr(trace, "\n3:") + 1;
  size_t at = (size_t)(s3 - trace), len = strlen(trace);
  const char *gc = "goal_change=3:5:(0,0)\n";
  char *t2 = malloc(len + strlen(gc) + 1);
  memcpy(t2, trace, at);
  strcpy(t2 + at, gc);
  strcpy(t2 + at + strlen(gc), s3);
  char *p7 = strstr(t2 + at + strlen(gc), "(15,0),(17,0),"); /* agents 7 and 8 at step 3 */
  cr_assert_not_null(p7);
  memcpy(p7, "(20,0),(16,0),", 14);
  free(trace);
  trace = t2;
  len = strlen(trace);
  cr_assert_gt(len, FARM_HTML_PLAIN_MAX);
  mapf_diag err = {0};
  int rc;
  char *page = page_of("big", map, trace, &rc, &err);
  cr_assert_eq(rc, 0, "%s", err.msg);
  char *m = element_text(page, "<script type=\"text/plain\" id=\"map\">");
  cr_assert_str_eq(m, map);
  const char *open = "<script type=\"text/plain\" id=\"trace\" data-encoding=\"moves-deflate-base64\">";
  char *b64 = element_text(page, open);
  cr_assert_lt(strlen(b64), len / 100, "%zu bytes of base64 for %zu of trace", strlen(b64), len);
  size_t n;
  unsigned char *blob = inflated(page, open, &n);
  /* A byte an agent a step, where the text spends 7 (the cells here are small numbers). */
  cr_assert_lt(n, 500 * 401 + 16000, "%zu bytes for %zu of trace", n, len);
  char *back = trace_of_moves(blob, n);
  cr_assert_str_eq(back, trace);
  free(back);
  free(blob);
  free(b64);
  free(m);
  free(page);
  free(map);
  free(trace);
}

/* A large trace the compact form does not keep as the page would read it (a third field in a
 * position, a malformed or missing step, no agents= count, a key with bytes outside ASCII) goes
 * in as deflated text, byte for byte, so that the page reports it with its line and column. */
Test(viewer, large_trace_out_of_the_compact_form_stays_text) {
  char *base = shuttle_trace(500, 400);
  const char *const edits[][2] = {
      {"\n2:(0,0),", "\n2:(0,0,1),"},               /* a third field */
      {"\n2:(0,0),(2,0),", "\n2:(0,0),(2,0)x,"},      /* not a position */
      {"\n2:(0,0),(2,0),", "\n2:(0,0),"},             /* one position short */
      {"\n3:", "\n4:"},                               /* a step out of order */
      {"agents=500\n", "agents=499\n"},               /* a count that is not the trace's */
      /* a key the page trims to "solution" (a no-break space before it), a step after it */
      {"agents=500\n", "agents=500\n\xc2\xa0solution=\n0:(0,0),\n"},
      {"agents=500\n", ""},                           /* no count */
      {"\n3:", "\nagents=500\n3:"},                   /* a count among the steps */
  };
  for (size_t k = 0; k < sizeof edits / sizeof *edits; k++) {
    const char *from = edits[k][0], *to = edits[k][1];
    char *at = strstr(base, from);
    cr_assert_not_null(at, "%s", from);
    size_t len = strlen(base), pre = (size_t)(at - base);
    char *trace = malloc(len + strlen(to) + 1);
    memcpy(trace, base, pre);
    strcpy(trace + pre, to);
    strcat(trace, at + strlen(from));
    mapf_diag err = {0};
    int rc;
    char *page = page_of("big", NULL, trace, &rc, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    const char *open = "<script type=\"text/plain\" id=\"trace\" data-encoding=\"deflate-base64\">";
    cr_assert(strstr(page, open), "edit %zu (%s): not kept as text", k, to);
    size_t n;
    unsigned char *text = inflated(page, open, &n);
    cr_assert_eq(n, strlen(trace));
    cr_assert_eq(memcmp(text, trace, n), 0);
    free(text);
    free(page);
    free(trace);
  }
  free(base);
}

/* ---- in the browser --------------------------------------------------------------------- */

/* Runs `node tools/viewer/test.js ARGS`, its output in tmpdir/node.log; fails the test with
 * that output unless it exits 0. */
static void run_node_test(const char *args) {
  char cmd[4096], log[400];
  snprintf(log, sizeof log, "%s/node.log", tmpdir);
  snprintf(cmd, sizeof cmd, "node '%s/tools/viewer/test.js' %s >'%s' 2>&1", MAPFARM_SOURCE_DIR,
           args, log);
  int st = system(cmd);
  int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  char *out = test_slurp_text(log);
  if (rc == 77 && !test_in_ci()) {
    fprintf(stderr, "\n*** test_viewer: SKIPPED: %s ***\n\n", out);
    cr_skip_test("%s", out);
  }
  cr_assert_eq(rc, 0, "node test.js exited %d:\n%s", rc, out);
  cr_log_info("%s", out);
  free(out);
}

/* A map of rooms and doors for a real run. */
static const char ROOMS[] = "type octile\nheight 12\nwidth 20\nmap\n"
                            "....................\n"
                            "....................\n"
                            "......@@@@@@@@......\n"
                            "......@.............\n"
                            "......@......@......\n"
                            "......@......@......\n"
                            ".............@......\n"
                            "......@@@@.@@@......\n"
                            "....................\n"
                            "..@@..........@@....\n"
                            "..@@..........@@....\n"
                            "....................\n";

/* The fixtures of tools/viewer (a legal trace stepped and checked pixel by pixel, an illegal
 * one and its conflict list, patrol with a goal change, map changes, a malformed trace, the
 * older format), then pages that farm_html_write_file made from real `mapfarm solve --trace`
 * runs, one with doors that close and open: loaded from their embedded data, legal (against
 * the map of each step), every agent drawn at its last cell, the changed cells as the map
 * changes left them. */
Test(viewer, page_in_chromium) {
  test_require_browser("test_viewer");
  char map[300], trace[300], page[300];
  mapf_diag err = {0};
  snprintf(map, sizeof map, "%s/rooms.map", tmpdir);
  snprintf(trace, sizeof trace, "%s/rooms.trace", tmpdir);
  snprintf(page, sizeof page, "%s/rooms.html", tmpdir);
  write_text(map, ROOMS);
  char *out, *errs;
  int rc = mapfarm(&out, &errs,
                   "solve --map '%s' --generator random --agents 24 --seed 3 --algo bmaa "
                   "--steps 300 --trace '%s'",
                   map, trace);
  cr_assert_eq(rc, 0, "solve exited %d: %s", rc, errs);
  cr_assert_eq(farm_html_write_file(page, "rooms: bmaa, 24 agents", map, trace, &err),
               0, "%s", err.msg);
  free(out);
  free(errs);
  /* The same with doors of ROOMS closing and opening (some waiting for an agent to leave). */
  char dtrace[300], dpage[300];
  snprintf(dtrace, sizeof dtrace, "%s/doors.trace", tmpdir);
  snprintf(dpage, sizeof dpage, "%s/doors.html", tmpdir);
  rc = mapfarm(&out, &errs,
               "solve --map '%s' --generator random --agents 24 --seed 3 --algo bmaa "
               "--steps 300 --doors 10,2,15,4 --trace '%s'",
               map, dtrace);
  cr_assert_eq(rc, 0, "solve exited %d: %s", rc, errs);
  cr_assert_gt(test_metric(out, "map_changes"), 4, "%s", out);
  cr_assert_eq(farm_html_write_file(dpage, "rooms: bmaa, 24 agents, doors", map, dtrace, &err),
               0, "%s", err.msg);
  /* A trace large enough to go in in its compact form. */
  char map2[300], trace2[300], page2[300];
  snprintf(map2, sizeof map2, "%s/open100.map", tmpdir);
  snprintf(trace2, sizeof trace2, "%s/shuttle.trace", tmpdir);
  snprintf(page2, sizeof page2, "%s/shuttle.html", tmpdir);
  char *m = map100(), *t = shuttle_trace(500, 400);
  write_text(map2, m);
  write_text(trace2, t);
  cr_assert_eq(farm_html_write_file(page2, "shuttle", map2, trace2, &err), 0, "%s", err.msg);
  char *text = test_slurp_file(page2, NULL);
  cr_assert(strstr(text, "id=\"trace\" data-name=\"shuttle.trace\" "
                         "data-encoding=\"moves-deflate-base64\">"));
  char args[2000];
  snprintf(args, sizeof args, "--page '%s' --trace '%s' --page '%s' --trace '%s' --page '%s' "
           "--trace '%s'", page, trace, page2, trace2, dpage, dtrace);
  run_node_test(args);
  free(text);
  free(m);
  free(t);
  free(out);
  free(errs);
}

/* A run on a real MovingAI map, checked the same way, and its screenshot in the build
 * directory (viewer.png; the README shows a copy, docs/img/viewer.png). */
Test(viewer, screenshot_of_a_movingai_run) {
  REQUIRE_MAPS(maps);
  test_require_browser("test_viewer");
  char map[4200], trace[300], page[300], shot[1200];
  mapf_diag err = {0};
  snprintf(map, sizeof map, "%s/dao/lak307d.map", maps);
  snprintf(trace, sizeof trace, "%s/lak307d.trace", tmpdir);
  snprintf(page, sizeof page, "%s/lak307d.html", tmpdir);
  snprintf(shot, sizeof shot, "%s/viewer.png", MAPFARM_BUILD_DIR);
  char *out, *errs;
  int rc = mapfarm(&out, &errs,
                   "solve --map '%s' --generator random --agents 100 --seed 1 --algo bmaa "
                   "--steps 400 --trace '%s'",
                   map, trace);
  cr_assert_eq(rc, 0, "solve exited %d: %s", rc, errs);
  cr_assert_eq(farm_html_write_file(page, "lak307d: bmaa, 100 agents", map, trace, &err),
               0, "%s", err.msg);
  char args[2000];
  snprintf(args, sizeof args, "--no-fixtures --page '%s' --trace '%s' --shot '%s'", page, trace,
           shot);
  run_node_test(args);
  free(out);
  free(errs);
}
