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

/* text deflated (zlib's format, which the browser's DecompressionStream("deflate") reads) and
 * in base64. Returns 0, or -1 with err. */
static int put_deflated(FILE *out, const char *text, size_t len, mapf_diag *err) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit(&z, Z_DEFAULT_COMPRESSION) != Z_OK) {
    farm_err(err, "cannot compress the trace: out of memory");
    return -1;
  }
  unsigned char buf[65536 + 2];
  size_t carry = 0;
  int rc;
  z.next_in = (unsigned char *)(uintptr_t)text; /* zlib's next_in is not const */
  do {
    size_t chunk = len > (1u << 30) ? (1u << 30) : len; /* avail_in is an unsigned int */
    z.avail_in = (unsigned)chunk;
    len -= chunk;
    int flush = len ? Z_NO_FLUSH : Z_FINISH;
    do {
      z.next_out = buf + carry;
      z.avail_out = 65536;
      rc = deflate(&z, flush);
      carry = put_base64(out, buf, carry + (65536 - z.avail_out), rc == Z_STREAM_END);
    } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  } while (len);
  deflateEnd(&z);
  return 0;
}

/* An opening mark with a data-name attribute when name is given, then the text: as it is, but
 * for '&' and '<', up to FARM_HTML_PLAIN_MAX bytes, deflated and in base64 above (the attribute
 * data-encoding says so): a large trace compresses tens of times, and a page that the browser
 * reads faster. Returns 0, or -1 with err. */
static int put_data(FILE *out, const char *mark, const char *name, const char *text,
                    mapf_diag *err) {
  size_t len = text ? strlen(text) : 0;
  fwrite(mark, 1, strlen(mark) - 1, out); /* without its '>' */
  if (name) {
    fputs(" data-name=\"", out);
    put_escaped(out, name, 1);
    fputc('"', out);
  }
  if (len > FARM_HTML_PLAIN_MAX) {
    fputs(" data-encoding=\"deflate-base64\">", out);
    return put_deflated(out, text, len, err);
  }
  fputc('>', out);
  if (text) put_escaped(out, text, 0);
  return 0;
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
  if (put_data(out, MAP_MARK, map_name, map_text, err) != 0) return -1;
  p = m + strlen(MAP_MARK);
  fwrite(p, 1, (size_t)(tr - p), out);
  if (put_data(out, TRACE_MARK, trace_name, trace_text, err) != 0) return -1;
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
