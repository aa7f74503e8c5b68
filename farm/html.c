/* html.c: the viewer page with a map and a trace embedded (html.h). The page is the template
 * tools/viewer/viewer.html, compiled in by tools/viewer/embed.cmake; the text goes where the
 * template marks it, so the page and the file opened from tools/ stay one program. */
#include "html.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "diag.h"

/* Where the template takes its title, map and trace (tools/viewer/viewer.html). */
static const char TITLE_MARK[] = "<title>mapfarm viewer</title>";
static const char MAP_MARK[] = "<script type=\"text/plain\" id=\"map\">";
static const char TRACE_MARK[] = "<script type=\"text/plain\" id=\"trace\">";

/* The first occurrence of the NUL-terminated needle in the n bytes at hay, or NULL. */
static const char *find(const char *hay, size_t n, const char *needle) {
  size_t k = strlen(needle);
  for (size_t i = 0; i + k <= n; i++)
    if (hay[i] == needle[0] && memcmp(hay + i, needle, k) == 0) return hay + i;
  return NULL;
}

/* Whether text has a line that starts with prefix (after leading blanks); a whole line when
 * whole is set (trailing blanks and a CR allowed). */
static int has_line(const char *text, const char *prefix, int whole) {
  size_t k = strlen(prefix);
  for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, prefix, k) != 0) continue;
    if (!whole) return 1;
    const char *q = p + k;
    while (*q == ' ' || *q == '\t' || *q == '\r') q++;
    if (*q == '\n' || *q == '\0') return 1;
  }
  return 0;
}

/* text with '&' and '<' as entities: inside a text/plain script element nothing else can end
 * the element (the page turns them back). In an attribute or the title, '>' and '"' too. */
static void put_escaped(FILE *out, const char *text, int attribute) {
  const char *stop = attribute ? "&<>\"" : "&<";
  while (*text) {
    size_t n = strcspn(text, stop);
    fwrite(text, 1, n, out);
    text += n;
    if (!*text) break;
    switch (*text++) {
      case '&': fputs("&amp;", out); break;
      case '<': fputs("&lt;", out); break;
      case '>': fputs("&gt;", out); break;
      default: fputs("&quot;", out); break;
    }
  }
}

/* Base64 of n bytes, whole groups of 3 unless last; returns the bytes left over (0 to 2),
 * moved to the front of b. */
static size_t put_base64(FILE *out, unsigned char *b, size_t n, int last) {
  static const char digits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char line[4 * 1024];
  size_t i = 0, k = 0;
  for (; i + 3 <= n; i += 3) {
    unsigned v = (unsigned)b[i] << 16 | (unsigned)b[i + 1] << 8 | b[i + 2];
    line[k++] = digits[v >> 18];
    line[k++] = digits[v >> 12 & 63];
    line[k++] = digits[v >> 6 & 63];
    line[k++] = digits[v & 63];
    if (k == sizeof line) fwrite(line, 1, k, out), k = 0;
  }
  if (last && i < n) {
    unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0);
    line[k++] = digits[v >> 18];
    line[k++] = digits[v >> 12 & 63];
    line[k++] = i + 1 < n ? digits[v >> 6 & 63] : '=';
    line[k++] = '=';
    i = n;
  }
  fwrite(line, 1, k, out);
  memmove(b, b + i, n - i);
  return n - i;
}

/* ---- the compact form of a large trace ---------------------------------------------------
 * As text, a trace spends some ten bytes on each agent at each step, and the page would spend
 * most of its load reading, inflating and parsing them. A step moves an agent by at most one
 * cell, so the page gets one byte for it instead: the form data-encoding="moves-deflate-base64"
 * names, deflated and in base64, little-endian:
 *   "MFMOVES1", u32 N (positions a step), u32 S (step lines), u32 L (bytes of text);
 *   L bytes: the trace with each step line cut to its "T:" (every other line as it was, so
 *     the header, goal changes between steps and the line numbers of messages stay);
 *   step 0: N times u16 x, u16 y;
 *   each later step, each agent: (dy + 1) * 3 + (dx + 1) for a move of at most one cell in
 *     each direction (4: a wait), or MOVE_TO and then u16 x, u16 y.
 * Only a trace whose positions the page would read without a message goes in so: its
 * "solution=" line found as the page finds it, steps 0, 1, ... in order, each with the
 * agents= count of positions (x,y), nothing else on a step line. Anything else stays text,
 * where the page points at the line and column at fault. */
static const char MOVES_MAGIC[8] = {'M', 'F', 'M', 'O', 'V', 'E', 'S', '1'};
enum { MOVES_HEAD = 20, MOVE_TO = 9 };

/* A growing byte buffer; oom set once an allocation failed (the rest is dropped). */
typedef struct bytes {
  unsigned char *b;
  size_t n, cap;
  int oom;
} bytes;

static void put_bytes(bytes *o, const void *p, size_t k) {
  if (o->oom) return;
  if (k > o->cap - o->n) {
    size_t cap = o->cap ? o->cap : 65536;
    while (cap - o->n < k) cap *= 2;
    unsigned char *nb = realloc(o->b, cap);
    if (!nb) {
      o->oom = 1;
      return;
    }
    o->b = nb;
    o->cap = cap;
  }
  memcpy(o->b + o->n, p, k);
  o->n += k;
}

static void put_u16(bytes *o, unsigned v) {
  unsigned char b[2] = {(unsigned char)(v & 255), (unsigned char)(v >> 8)};
  put_bytes(o, b, 2);
}

static void set_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> 8 * i);
}

/* JavaScript's String.prototype.trim takes these and more (no-break spaces, ...), which a
 * key with bytes outside ASCII could hold: such a trace stays text. */
static int is_blank(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* The key of the line [p, e) as the page reads a header line (before the first '=', blanks
 * trimmed) into [*k, *ke), and its '=' in *eq; returns 1, 0 for a line with no '=', -1 for a
 * key with a byte outside ASCII. */
static int line_key(const char *p, const char *e, const char **k, const char **ke,
                    const char **eq_at) {
  const char *eq = memchr(p, '=', (size_t)(e - p));
  if (!eq) return 0;
  *eq_at = eq;
  for (const char *q = p; q < eq; q++)
    if ((unsigned char)*q >= 0x80) return -1;
  while (p < eq && is_blank((unsigned char)*p)) p++;
  const char *q = eq;
  while (q > p && is_blank((unsigned char)q[-1])) q--;
  *k = p;
  *ke = q;
  return 1;
}

static int key_is(const char *k, const char *ke, const char *name) {
  size_t n = strlen(name);
  return (size_t)(ke - k) == n && memcmp(k, name, n) == 0;
}

/* The whole number of at most max_digits digits at *p (before e), moved past; -1 when there is
 * none or it is longer. */
static long number_at(const char **p, const char *e, int max_digits) {
  const char *q = *p;
  long v = 0;
  while (q < e && *q >= '0' && *q <= '9') {
    if (q - *p == max_digits) return -1;
    v = v * 10 + (*q++ - '0');
  }
  if (q == *p) return -1;
  *p = q;
  return v;
}

/* The agents= value after the '=' at [p, e): digits between blanks, or -1. */
static long count_value(const char *p, const char *e) {
  while (p < e && is_blank((unsigned char)*p)) p++;
  long v = number_at(&p, e, 9);
  while (p < e && is_blank((unsigned char)*p)) p++;
  return p == e && v > 0 ? v : -1;
}

/* The step line [p, e) (e at its '\n' or the end of the text), step t of a trace of n
 * positions a step (t = 0: n is counted here, in *n), into txt ("T:") and mv (positions or
 * moves); prev holds the step before, x and y side by side (2 n entries, set here at t = 0).
 * Returns 0, or 1 when the line is not one the compact form keeps. */
static int moves_step(const char *p, const char *e, uint32_t t, uint32_t *n, uint16_t **prev,
                      bytes *txt, bytes *mv) {
  const char *q = p;
  long tt = number_at(&q, e, 9);
  if (tt < 0 || (uint32_t)tt != t || q == e || *q != ':') return 1;
  put_bytes(txt, p, (size_t)(++q - p));
  uint32_t a = 0;
  while (q < e) {
    if (*q == ' ' || *q == '\t' || (*q == '\r' && q + 1 == e)) {
      q++;
      continue;
    }
    if (*q++ != '(') return 1;
    long x = number_at(&q, e, 5);
    if (x < 0 || x > 65535 || q == e || *q++ != ',') return 1;
    long y = number_at(&q, e, 5);
    if (y < 0 || y > 65535 || q == e || *q++ != ')') return 1;
    if (q < e && *q == ',') q++;
    if (t == 0) {
      put_u16(mv, (unsigned)x);
      put_u16(mv, (unsigned)y);
    } else {
      if (a >= *n) return 1;
      long dx = x - (*prev)[2 * a], dy = y - (*prev)[2 * a + 1];
      if (dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1) {
        unsigned char c = (unsigned char)((dy + 1) * 3 + dx + 1);
        put_bytes(mv, &c, 1);
      } else {
        unsigned char c = MOVE_TO;
        put_bytes(mv, &c, 1);
        put_u16(mv, (unsigned)x);
        put_u16(mv, (unsigned)y);
      }
      (*prev)[2 * a] = (uint16_t)x;
      (*prev)[2 * a + 1] = (uint16_t)y;
    }
    a++;
  }
  if (t == 0) {
    if (a == 0 || mv->oom) return 1;
    *n = a;
    *prev = malloc(2 * (size_t)a * sizeof **prev);
    if (!*prev) return 1;
    for (size_t i = 0; i < 2 * (size_t)a; i++)
      (*prev)[i] = (uint16_t)(mv->b[2 * i] | mv->b[2 * i + 1] << 8);
  } else if (a != *n) {
    return 1;
  }
  return 0;
}

/* The compact form of text (len bytes), in txt (the head and the text) and mv (positions and
 * moves), the two to be written one after the other. Returns 0, or 1 when the trace stays
 * text (txt and mv freed by the caller either way). */
static int moves_encode(const char *text, size_t len, bytes *txt, bytes *mv) {
  unsigned char head[MOVES_HEAD] = {0};
  put_bytes(txt, head, sizeof head);
  const char *p = text, *end = text + len;
  long agents = -1;
  int solution = 0, rc = 0;
  uint32_t n = 0, steps = 0;
  uint16_t *prev = NULL;
  while (p < end && rc == 0) {
    const char *e = memchr(p, '\n', (size_t)(end - p));
    if (!e) e = end;
    if (solution && *p >= '0' && *p <= '9') {
      rc = steps == UINT32_MAX || moves_step(p, e, steps, &n, &prev, txt, mv);
      steps++;
    } else {
      const char *k, *ke, *eq;
      int has = line_key(p, e, &k, &ke, &eq);
      if (has < 0) rc = 1;
      else if (has && key_is(k, ke, "agents")) /* N is fixed once the steps begin */
        rc = solution || (agents = count_value(eq + 1, e)) < 0;
      else if (has && key_is(k, ke, "solution")) solution = 1;
      put_bytes(txt, p, (size_t)(e - p));
    }
    if (e < end) put_bytes(txt, "\n", 1);
    p = e + 1;
  }
  free(prev);
  if (rc || !steps || agents != (long)n || txt->oom || mv->oom) return 1;
  memcpy(txt->b, MOVES_MAGIC, sizeof MOVES_MAGIC);
  set_u32(txt->b + 8, n);
  set_u32(txt->b + 12, steps);
  set_u32(txt->b + 16, (uint32_t)(txt->n - MOVES_HEAD));
  return txt->n - MOVES_HEAD > UINT32_MAX;
}

/* The parts, one after the other, deflated at level (zlib's format, which the browser's
 * DecompressionStream("deflate") reads) and in base64. Returns 0, or -1 with err. */
static int put_deflated(FILE *out, int level, int nparts, const void *const *parts,
                        const size_t *lens, mapf_diag *err) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit(&z, level) != Z_OK) {
    farm_err(err, "cannot compress the trace: out of memory");
    return -1;
  }
  unsigned char buf[65536 + 2];
  size_t carry = 0;
  int rc;
  for (int i = 0; i < nparts; i++) {
    const unsigned char *p = parts[i];
    size_t len = lens[i];
    do {
      size_t chunk = len > (1u << 30) ? (1u << 30) : len; /* avail_in is an unsigned int */
      z.next_in = (unsigned char *)(uintptr_t)p; /* zlib's next_in is not const */
      z.avail_in = (unsigned)chunk;
      p += chunk;
      len -= chunk;
      int flush = len || i + 1 < nparts ? Z_NO_FLUSH : Z_FINISH;
      do {
        z.next_out = buf + carry;
        z.avail_out = 65536;
        rc = deflate(&z, flush);
        carry = put_base64(out, buf, carry + (65536 - z.avail_out), rc == Z_STREAM_END);
      } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    } while (len);
  }
  deflateEnd(&z);
  return 0;
}

/* An opening mark with a data-name attribute when name is given, then the text: as it is, but
 * for '&' and '<', up to FARM_HTML_PLAIN_MAX bytes; above, deflated and in base64 (the
 * attribute data-encoding says so), a trace in its compact form where it has one: a large
 * trace compresses tens of times, and a page that the browser reads faster. Returns 0, or -1
 * with err. */
static int put_data(FILE *out, const char *mark, const char *name, const char *text,
                    int is_trace, mapf_diag *err) {
  size_t len = text ? strlen(text) : 0;
  fwrite(mark, 1, strlen(mark) - 1, out); /* without its '>' */
  if (name) {
    fputs(" data-name=\"", out);
    put_escaped(out, name, 1);
    fputc('"', out);
  }
  if (len <= FARM_HTML_PLAIN_MAX) {
    fputc('>', out);
    if (text) put_escaped(out, text, 0);
    return 0;
  }
  bytes txt = {0}, mv = {0};
  int rc;
  if (is_trace && moves_encode(text, len, &txt, &mv) == 0) {
    /* zlib's fastest level: on moves, a tenth of the time of its default for a seventh more
     * bytes, which the browser reads in milliseconds. */
    fputs(" data-encoding=\"moves-deflate-base64\">", out);
    const void *parts[] = {txt.b, mv.b};
    size_t lens[] = {txt.n, mv.n};
    rc = put_deflated(out, Z_BEST_SPEED, 2, parts, lens, err);
  } else {
    fputs(" data-encoding=\"deflate-base64\">", out);
    rc = put_deflated(out, Z_DEFAULT_COMPRESSION, 1, (const void *const[]){text}, &len, err);
  }
  free(txt.b);
  free(mv.b);
  return rc;
}

/* Checks the shape of the texts; the labels name map and trace in messages ("the map" or a
 * path). Returns 0, or -1 with err. */
static int check_texts(const char *map_text, const char *map_label, const char *trace_text,
                       const char *trace_label, mapf_diag *err) {
  if (!trace_text) {
    farm_err(err, "no trace given");
    return -1;
  }
  if (!has_line(trace_text, "solution=", 0)) {
    farm_err(err, "%s: no \"solution=\" line: not a trace (as `mapfarm solve --trace "
                 "FILE` writes)", trace_label);
    return -1;
  }
  if (map_text && !has_line(map_text, "map", 1)) {
    farm_err(err, "%s: no \"map\" line: not a MovingAI map", map_label);
    return -1;
  }
  return 0;
}

/* The page, the texts checked. Returns 0, or -1 with err. */
static int write_page(FILE *out, const char *title, const char *map_name, const char *map_text,
                      const char *trace_name, const char *trace_text, mapf_diag *err) {
  const char *page = (const char *)farm_viewer_html, *end = page + farm_viewer_html_len;
  const char *t = find(page, farm_viewer_html_len, TITLE_MARK);
  const char *m = t ? find(t, (size_t)(end - t), MAP_MARK) : NULL;
  const char *tr = m ? find(m, (size_t)(end - m), TRACE_MARK) : NULL;
  if (!tr) { /* only a broken build gets here: tests/test_viewer.c checks the template */
    farm_err(err, "the viewer page built in lacks its title, map or trace mark");
    return -1;
  }
  fwrite(page, 1, (size_t)(t - page), out);
  fputs("<title>", out);
  put_escaped(out, title ? title : "mapfarm viewer", 1);
  fputs("</title>", out);
  const char *p = t + strlen(TITLE_MARK);
  fwrite(p, 1, (size_t)(m - p), out);
  if (put_data(out, MAP_MARK, map_name, map_text, 0, err) != 0) return -1;
  p = m + strlen(MAP_MARK);
  fwrite(p, 1, (size_t)(tr - p), out);
  if (put_data(out, TRACE_MARK, trace_name, trace_text, 1, err) != 0) return -1;
  p = tr + strlen(TRACE_MARK);
  fwrite(p, 1, (size_t)(end - p), out);
  if (fflush(out) != 0 || ferror(out)) {
    farm_err(err, "cannot write the page: %s", strerror(errno));
    return -1;
  }
  return 0;
}

int farm_html_write(FILE *out, const char *title, const char *map_text, const char *trace_text,
                    mapf_diag *err) {
  if (check_texts(map_text, "the map", trace_text, "the trace", err) != 0) return -1;
  return write_page(out, title, NULL, map_text, NULL, trace_text, err);
}

/* The whole file at path, NUL-terminated (malloc'd), or NULL with err. */
static char *slurp(const char *path, mapf_diag *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    farm_err(err, "%s: cannot read: %s", path, strerror(errno));
    return NULL;
  }
  char *buf = NULL;
  size_t cap = 0, n = 0, got;
  do {
    if (n == cap) {
      cap = cap ? 2 * cap : 65536;
      char *nb = realloc(buf, cap + 1);
      if (!nb) {
        farm_err(err, "%s: out of memory", path);
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = nb;
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  if (ferror(f)) {
    farm_err(err, "%s: cannot read: %s", path, strerror(errno));
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  buf[n] = '\0';
  return buf;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* The page into path.tmp, then renamed: a reader of path never sees half a page, and a failed
 * write leaves an older file at path alone. */
static int write_page_file(const char *path, const char *title, const char *map_path,
                           const char *map, const char *trace_name, const char *trace,
                           mapf_diag *err) {
  size_t len = strlen(path);
  char *tmp = malloc(len + 5);
  if (!tmp) {
    farm_err(err, "%s: out of memory", path);
    return -1;
  }
  memcpy(tmp, path, len);
  memcpy(tmp + len, ".tmp", 5);
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    farm_err(err, "%s: cannot write: %s", tmp, strerror(errno));
    free(tmp);
    return -1;
  }
  mapf_diag why = {0};
  int rc = write_page(f, title, map_path ? base_name(map_path) : NULL, map, trace_name, trace,
                      &why);
  if (fclose(f) != 0 && rc == 0) rc = farm_err(&why, "cannot write the page: %s", strerror(errno));
  if (rc == 0 && rename(tmp, path) != 0)
    rc = farm_err(&why, "cannot rename %s to the file: %s", tmp, strerror(errno));
  if (rc != 0) {
    remove(tmp);
    farm_err(err, "%s: %s", path, why.msg);
  }
  free(tmp);
  return rc;
}

int farm_html_save(const char *path, const char *title, const char *map_path,
                   const char *trace_name, const char *trace_text, mapf_diag *err) {
  if (!path || !*path) {
    farm_err(err, "no file name given");
    return -1;
  }
  char *map = NULL;
  int rc = -1;
  const char *label = trace_name ? trace_name : "the trace";
  if ((!map_path || (map = slurp(map_path, err))) &&
      check_texts(map, map_path, trace_text, label, err) == 0)
    rc = write_page_file(path, title, map_path, map, trace_name, trace_text, err);
  free(map);
  return rc;
}

int farm_html_write_file(const char *path, const char *title, const char *map_path,
                         const char *trace_path, mapf_diag *err) {
  if (!trace_path) {
    farm_err(err, "no trace given");
    return -1;
  }
  char *trace = slurp(trace_path, err);
  if (!trace) return -1;
  /* Messages name the trace by its path; the page, by its base name. */
  int rc = -1;
  if (check_texts(NULL, NULL, trace, trace_path, err) == 0)
    rc = farm_html_save(path, title, map_path, base_name(trace_path), trace, err);
  free(trace);
  return rc;
}
