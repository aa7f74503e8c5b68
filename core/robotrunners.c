/* robotrunners.c: League of Robot Runners 2023 problem files (robotrunners.h).
 *
 * The JSON reader is a strict RFC 8259 parser that keeps the problem object's own members and
 * checks the rest for syntax only; agent and task files are a count line and then one location
 * (row * width + column) per line, `#` lines being comments, as the start kit reads them. */
#include "robotrunners.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"

#define JSON_MAX ((size_t)1 << 20)  /* a problem file is a few lines */
#define LIST_MAX ((size_t)1 << 30)  /* agent and task files: 1 GiB, 100 million lines */
#define MAP_MAX ((size_t)MAPF_GRID_MAX_CELLS + 2u * MAPF_GRID_MAX_SIDE + 65536u)
#define JSON_DEPTH 64               /* nesting of values the problem object ignores */
#define TEAM_MAX 100000000

const char *mapf_task_rule_name(int rule) {
  switch (rule) {
  case MAPF_TASKS_GREEDY:
    return "greedy";
  case MAPF_TASKS_ROUNDROBIN:
    return "roundrobin";
  case MAPF_TASKS_ROUNDROBIN_FIXED:
    return "roundrobin_fixed";
  default:
    return "?";
  }
}

/* Writes one byte for a message: 'c' when printable, '\xNN' otherwise, "end of file" at the
 * end. */
static const char *show_byte(char *out, size_t cap, const char *s, size_t pos, size_t len) {
  if (pos >= len) {
    snprintf(out, cap, "end of file");
    return out;
  }
  unsigned char u = (unsigned char)s[pos];
  if (u >= 0x20 && u < 0x7f && u != '\'' && u != '\\')
    snprintf(out, cap, "'%c'", u);
  else
    snprintf(out, cap, "'\\x%02x'", u);
  return out;
}

/* ---- JSON ------------------------------------------------------------------------------ */

enum { J_STRING, J_NUMBER, J_OTHER };

/* The problem object's members (docs/robot-runners.md). */
enum { K_MAP, K_AGENTS, K_TASKS, K_TEAM, K_REVEAL, K_STRATEGY, K_VERSION, NKEYS };
static const char *const key_name[NKEYS] = {"mapFile",  "agentFile",      "taskFile",
                                            "teamSize", "numTasksReveal", "taskAssignmentStrategy",
                                            "version"};

typedef struct member {
  int found;
  int line, col; /* where its value starts */
  int kind;      /* J_* */
  char *text;    /* a string's decoded value or a number's text, owned; else NULL */
} member;

typedef struct jcur {
  const char *s;
  size_t len, pos;
  int line, col; /* of s[pos], 1-based */
  const char *path;
  mapf_diag *d;
} jcur;

static void jadvance(jcur *c) {
  if (c->s[c->pos] == '\n') {
    c->line++;
    c->col = 1;
  } else {
    c->col++;
  }
  c->pos++;
}

static void jskip_ws(jcur *c) {
  while (c->pos < c->len && c->s[c->pos] && strchr(" \t\r\n", c->s[c->pos])) jadvance(c);
}

static int jerror(jcur *c, const char *what) {
  char ch[32];
  return mapf_diag_set(c->d, MAPF_EPARSE, c->path, c->line, c->col, "expected %s, found %s",
                       what, show_byte(ch, sizeof ch, c->s, c->pos, c->len));
}

static int hex4(const char *s, unsigned *v) {
  *v = 0;
  for (int i = 0; i < 4; i++) {
    char h = s[i];
    int x = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
            : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
    if (x < 0) return -1;
    *v = *v << 4 | (unsigned)x;
  }
  return 0;
}

/* A string at c (on its '"'); its decoded value into *out (malloc'd) when out is not NULL. */
static int jstring(jcur *c, char **out) {
  size_t cap = out ? 16 : 0, n = 0;
  char *buf = out ? malloc(cap) : NULL;
  if (out && !buf) return mapf_diag_set(c->d, MAPF_ENOMEM, c->path, 0, 0, "out of memory");
  jadvance(c);
  int rc = MAPF_OK;
  for (;;) {
    if (c->pos >= c->len) {
      rc = jerror(c, "'\"' to end the string");
      break;
    }
    unsigned char ch = (unsigned char)c->s[c->pos];
    unsigned cp = ch; /* the code point to append (bytes >= 0x80 go through as they are) */
    int raw = 1;
    if (ch == '"') {
      jadvance(c);
      break;
    }
    if (ch < 0x20) {
      rc = jerror(c, "a string character (control characters must be escaped)");
      break;
    }
    if (ch == '\\') {
      if (c->pos + 1 >= c->len) {
        jadvance(c);
        rc = jerror(c, "an escape");
        break;
      }
      char e = c->s[c->pos + 1];
      const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
      const char *k = e ? strchr(from, e) : NULL;
      if (k) {
        cp = (unsigned char)to[k - from];
        jadvance(c);
        jadvance(c);
      } else if (e == 'u') {
        int line = c->line, col = c->col;
        unsigned hi, lo;
        if (c->pos + 6 > c->len || hex4(c->s + c->pos + 2, &hi) < 0) {
          jadvance(c);
          jadvance(c);
          rc = jerror(c, "4 hex digits after \\u");
          break;
        }
        for (int i = 0; i < 6; i++) jadvance(c);
        cp = hi;
        if (hi >= 0xd800 && hi < 0xdc00) {
          if (c->pos + 6 > c->len || c->s[c->pos] != '\\' || c->s[c->pos + 1] != 'u' ||
              hex4(c->s + c->pos + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff) {
            rc = mapf_diag_set(c->d, MAPF_EPARSE, c->path, line, col,
                               "\\u%04x is half a surrogate pair without its second half", hi);
            break;
          }
          for (int i = 0; i < 6; i++) jadvance(c);
          cp = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
        } else if (hi >= 0xdc00 && hi < 0xe000) {
          rc = mapf_diag_set(c->d, MAPF_EPARSE, c->path, line, col,
                             "\\u%04x is the second half of a surrogate pair alone", hi);
          break;
        } else if (hi == 0) {
          rc = mapf_diag_set(c->d, MAPF_EPARSE, c->path, line, col,
                             "\\u0000 (a NUL character) in a string");
          break;
        }
        raw = 0;
      } else {
        jadvance(c);
        rc = jerror(c, "an escape (one of \" \\ / b f n r t u)");
        break;
      }
    } else {
      jadvance(c);
    }
    if (!out) continue;
    unsigned char enc[4];
    size_t k = 0;
    if (raw || cp < 0x80) {
      enc[k++] = (unsigned char)cp;
    } else if (cp < 0x800) {
      enc[k++] = (unsigned char)(0xc0 | cp >> 6);
      enc[k++] = (unsigned char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      enc[k++] = (unsigned char)(0xe0 | cp >> 12);
      enc[k++] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
      enc[k++] = (unsigned char)(0x80 | (cp & 0x3f));
    } else {
      enc[k++] = (unsigned char)(0xf0 | cp >> 18);
      enc[k++] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
      enc[k++] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
      enc[k++] = (unsigned char)(0x80 | (cp & 0x3f));
    }
    if (n + k + 1 > cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        rc = mapf_diag_set(c->d, MAPF_ENOMEM, c->path, 0, 0, "out of memory");
        break;
      }
      buf = nb;
      cap *= 2;
    }
    memcpy(buf + n, enc, k);
    n += k;
  }
  if (rc != MAPF_OK || !out) {
    free(buf);
    return rc;
  }
  buf[n] = '\0';
  *out = buf;
  return MAPF_OK;
}

static int jdigit(const jcur *c) {
  return c->pos < c->len && c->s[c->pos] >= '0' && c->s[c->pos] <= '9';
}

/* A number at c (RFC 8259's grammar); its text into *out (malloc'd) when out is not NULL. */
static int jnumber(jcur *c, char **out) {
  size_t start = c->pos;
  if (c->s[c->pos] == '-') jadvance(c);
  if (!jdigit(c)) return jerror(c, "a digit");
  if (c->s[c->pos] == '0') {
    jadvance(c);
    if (jdigit(c)) return jerror(c, "no leading zero (a number such as 0, 7 or 0.5)");
  } else {
    while (jdigit(c)) jadvance(c);
  }
  if (c->pos < c->len && c->s[c->pos] == '.') {
    jadvance(c);
    if (!jdigit(c)) return jerror(c, "a digit after the decimal point");
    while (jdigit(c)) jadvance(c);
  }
  if (c->pos < c->len && (c->s[c->pos] == 'e' || c->s[c->pos] == 'E')) {
    jadvance(c);
    if (c->pos < c->len && (c->s[c->pos] == '+' || c->s[c->pos] == '-')) jadvance(c);
    if (!jdigit(c)) return jerror(c, "a digit in the exponent");
    while (jdigit(c)) jadvance(c);
  }
  if (!out) return MAPF_OK;
  size_t n = c->pos - start;
  if (!(*out = malloc(n + 1)))
    return mapf_diag_set(c->d, MAPF_ENOMEM, c->path, 0, 0, "out of memory");
  memcpy(*out, c->s + start, n);
  (*out)[n] = '\0';
  return MAPF_OK;
}

static int jvalue(jcur *c, int depth, member *m, member *keys);

/* An object or array at c (on its '{' or '['). keys: the problem's members when this is the
 * problem object, else NULL (the members are checked and dropped). */
static int jcompound(jcur *c, int depth, member *keys) {
  char open = c->s[c->pos], close = open == '{' ? '}' : ']';
  if (depth >= JSON_DEPTH)
    return mapf_diag_set(c->d, MAPF_EPARSE, c->path, c->line, c->col,
                         "values nested more than %d deep", JSON_DEPTH);
  jadvance(c);
  jskip_ws(c);
  if (c->pos < c->len && c->s[c->pos] == close) {
    jadvance(c);
    return MAPF_OK;
  }
  for (;;) {
    member *m = NULL;
    if (open == '{') {
      if (c->pos >= c->len || c->s[c->pos] != '"') return jerror(c, "a key (a string)");
      int kline = c->line, kcol = c->col;
      char *key = NULL;
      int rc = jstring(c, keys ? &key : NULL);
      if (rc != MAPF_OK) return rc;
      if (keys) {
        int k = 0;
        while (k < NKEYS && strcmp(key, key_name[k]) != 0) k++;
        if (k == NKEYS) {
          rc = mapf_diag_set(c->d, MAPF_EINVAL, c->path, kline, kcol,
                             "unknown key \"%.100s\" (a Robot Runners 2023 problem has mapFile, "
                             "agentFile, taskFile, teamSize, numTasksReveal and "
                             "taskAssignmentStrategy)",
                             key);
        } else if (keys[k].found) {
          rc = mapf_diag_set(c->d, MAPF_EPARSE, c->path, kline, kcol,
                             "key \"%s\" again (first at line %d)", key, keys[k].line);
        }
        free(key);
        if (rc != MAPF_OK) return rc;
        m = &keys[k];
      }
      jskip_ws(c);
      if (c->pos >= c->len || c->s[c->pos] != ':') return jerror(c, "':' after the key");
      jadvance(c);
      jskip_ws(c);
    }
    int rc = jvalue(c, depth + 1, m, NULL);
    if (rc != MAPF_OK) return rc;
    jskip_ws(c);
    if (c->pos < c->len && c->s[c->pos] == ',') {
      jadvance(c);
      jskip_ws(c);
      continue;
    }
    if (c->pos < c->len && c->s[c->pos] == close) {
      jadvance(c);
      return MAPF_OK;
    }
    return jerror(c, open == '{' ? "',' or '}'" : "',' or ']'");
  }
}

/* A value at c (after white space). m: where to describe it (found, place, kind, the text of
 * a string or number), or NULL to check it only. keys: as jcompound's. */
static int jvalue(jcur *c, int depth, member *m, member *keys) {
  if (c->pos >= c->len) return jerror(c, "a value");
  char ch = c->s[c->pos];
  int kind = ch == '"' ? J_STRING : ch == '-' || (ch >= '0' && ch <= '9') ? J_NUMBER : J_OTHER;
  if (m) {
    m->line = c->line;
    m->col = c->col;
    m->found = 1;
    m->kind = kind;
  }
  if (kind == J_STRING) return jstring(c, m ? &m->text : NULL);
  if (kind == J_NUMBER) return jnumber(c, m ? &m->text : NULL);
  if (ch == '{' || ch == '[') return jcompound(c, depth, keys);
  static const char *const lit[3] = {"true", "false", "null"};
  for (int k = 0; k < 3; k++) {
    size_t n = strlen(lit[k]);
    if (c->len - c->pos >= n && memcmp(c->s + c->pos, lit[k], n) == 0) {
      for (size_t i = 0; i < n; i++) jadvance(c);
      return MAPF_OK;
    }
  }
  return jerror(c, "a value (a string, number, object, array, true, false or null)");
}

/* ---- files named by the problem ------------------------------------------------------- */

/* The path of a file the problem names: as given when absolute, else in the JSON file's
 * directory. NULL when out of memory. */
static char *beside(const char *json_path, const char *rel) {
  const char *slash = strrchr(json_path, '/');
  size_t dn = rel[0] == '/' || !slash ? 0 : (size_t)(slash - json_path) + 1;
  char *p = malloc(dn + strlen(rel) + 1);
  if (!p) return NULL;
  memcpy(p, json_path, dn);
  strcpy(p + dn, rel);
  return p;
}

/* A file named by member m that could not be read: the error moves to m's place in the JSON
 * file, with the reason. */
static int named_file_error(mapf_diag *d, const char *json_path, const member *m,
                            const char *key, const char *path) {
  if (!d) return MAPF_EINVAL;
  char why[sizeof d->msg];
  snprintf(why, sizeof why, "%s", d->msg);
  return mapf_diag_set(d, MAPF_EINVAL, json_path, m->line, m->col, "%s \"%s\": %s: %s", key,
                       m->text, path, why);
}

/* The map: a MovingAI header and rows of `@` and `T` (obstacles) and `.`, `E` and `S` (free).
 * `E` becomes `.` for the MovingAI reader, which checks the rest with its own messages. */
static int read_map(const char *path, mapf_grid **g, mapf_diag *d) {
  char *buf;
  size_t len;
  int rc = mapf_read_file(path, MAP_MAX, &buf, &len, d);
  if (rc != MAPF_OK) return rc;
  int line = 0, body = 0;
  for (size_t pos = 0; pos < len && rc == MAPF_OK;) {
    char *s = buf + pos;
    char *nl = memchr(s, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - s) : len - pos;
    pos += n + (nl ? 1 : 0);
    line++;
    if (n > 0 && s[n - 1] == '\r') n--;
    if (!body) {
      size_t a = 0, b = n;
      while (a < b && (s[a] == ' ' || s[a] == '\t')) a++;
      while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t')) b--;
      body = b - a == 3 && memcmp(s + a, "map", 3) == 0;
      continue;
    }
    for (size_t x = 0; x < n; x++) {
      if (s[x] == 'E') s[x] = '.';
      if (strchr("@T.S \t", s[x])) continue;
      char ch[32];
      rc = mapf_diag_set(d, MAPF_EPARSE, path, line, (int)x + 1,
                         "map character %s is not one of a Robot Runners map's (@ and T "
                         "obstacles; ., E and S free)",
                         show_byte(ch, sizeof ch, s, x, n));
      break;
    }
  }
  if (rc == MAPF_OK) rc = mapf_grid_parse(buf, len, path, g, d);
  free(buf);
  if (rc == MAPF_OK && mapf_grid_set_connectivity(*g, 4) != MAPF_OK) {
    mapf_grid_free(*g);
    *g = NULL;
    rc = mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory");
  }
  return rc;
}

/* An agent or task file: locations and where each is (line, column). */
typedef struct loclist {
  int64_t n;
  int32_t *cell, *line, *col;
  int count_line; /* the line that gives the count */
} loclist;

static void loclist_free(loclist *l) {
  free(l->cell);
  free(l->line);
  free(l->col);
  memset(l, 0, sizeof *l);
}

/* Parses an unsigned decimal integer at s[*i..n) up to max; -1 when there is none or it is
 * larger. */
static int64_t parse_count(const char *s, size_t n, size_t *i, int64_t max) {
  if (*i >= n || s[*i] < '0' || s[*i] > '9') return -1;
  int64_t v = 0;
  while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
    v = v * 10 + (s[*i] - '0');
    if (v > max) return -1;
    (*i)++;
  }
  return v;
}

/* Reads an agent or task file (what: "agent" or "task"): comment lines (starting with #)
 * anywhere, a line with the count, then that many lines of one location each, then only blank
 * or comment lines. Every location must lie inside g. */
static int read_locations(const char *path, const char *what, const mapf_grid *g, loclist *out,
                          mapf_diag *d) {
  memset(out, 0, sizeof *out);
  char *buf;
  size_t len;
  int rc = mapf_read_file(path, LIST_MAX, &buf, &len, d);
  if (rc != MAPF_OK) return rc;
  int line = 0;
  int64_t count = -1, got = 0;
  char ch[32];
  for (size_t pos = 0; pos < len && rc == MAPF_OK;) {
    const char *s = buf + pos;
    const char *nl = memchr(s, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - s) : len - pos;
    pos += n + (nl ? 1 : 0);
    line++;
    if (n > 0 && s[n - 1] == '\r') n--;
    if (n > 0 && s[0] == '#') continue;
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    if (count >= 0 && got == count) { /* after the last location: blank lines only */
      if (i < n)
        rc = mapf_diag_set(d, MAPF_EPARSE, path, line, (int)i + 1,
                           "more lines than the %lld %ss that line %d gives", (long long)count,
                           what, out->count_line);
      continue;
    }
    size_t at = i;
    int64_t v = parse_count(s, n, &i, count < 0 ? INT32_MAX : (int64_t)g->ncells - 1);
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    if (count < 0) {
      if (v < 0 || i < n) {
        rc = mapf_diag_set(d, MAPF_EPARSE, path, line, (int)(v < 0 ? at : i) + 1,
                           "expected the number of %ss (an integer from 0 to %d) alone on the "
                           "line, found %s",
                           what, INT32_MAX, show_byte(ch, sizeof ch, s, v < 0 ? at : i, n));
        break;
      }
      count = v;
      out->count_line = line;
      size_t m = count > 0 ? (size_t)count : 1;
      out->cell = malloc(m * sizeof *out->cell);
      out->line = malloc(m * sizeof *out->line);
      out->col = malloc(m * sizeof *out->col);
      if (!out->cell || !out->line || !out->col)
        rc = mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory for %lld %ss",
                           (long long)count, what);
      continue;
    }
    if (v < 0 && at < n && s[at] >= '0' && s[at] <= '9') {
      size_t e = at;
      while (e < n && s[e] >= '0' && s[e] <= '9') e++;
      rc = mapf_diag_set(d, MAPF_EINVAL, path, line, (int)at + 1,
                         "%s %lld: location %.*s is outside the %d x %d map %s (locations 0 to "
                         "%d: row * width + column)",
                         what, (long long)got, (int)(e - at < 20 ? e - at : 20), s + at,
                         g->width, g->height, g->name, g->ncells - 1);
    } else if (v < 0) {
      rc = mapf_diag_set(d, MAPF_EPARSE, path, line, (int)at + 1,
                         "expected a location (row * width + column) for %s %lld, found %s",
                         what, (long long)got, at < n ? show_byte(ch, sizeof ch, s, at, n)
                                                      : "an empty line");
    } else if (i < n && s[i] == ',') {
      rc = mapf_diag_set(d, MAPF_EPARSE, path, line, (int)i + 1,
                         "%s %lld has more than one location (a 2024 task with errands?); a "
                         "Robot Runners 2023 file has one per line",
                         what, (long long)got);
    } else if (i < n) {
      rc = mapf_diag_set(d, MAPF_EPARSE, path, line, (int)i + 1,
                         "expected one location alone on the line, found %s",
                         show_byte(ch, sizeof ch, s, i, n));
    } else {
      out->cell[got] = (int32_t)v;
      out->line[got] = line;
      out->col[got] = (int32_t)at + 1;
      got++;
    }
  }
  free(buf);
  if (rc == MAPF_OK && count < 0)
    rc = mapf_diag_set(d, MAPF_EPARSE, path, line + 1, 1,
                       "expected the number of %ss, found the end of the file", what);
  if (rc == MAPF_OK && got < count)
    rc = mapf_diag_set(d, MAPF_EPARSE, path, out->count_line, 1,
                       "this line gives %lld %ss; the file has %lld", (long long)count, what,
                       (long long)got);
  if (rc != MAPF_OK) {
    loclist_free(out);
    return rc;
  }
  out->n = got;
  return MAPF_OK;
}

/* ---- the problem ------------------------------------------------------------------------ */

/* The member k, which must be there with the given kind; an error at the problem object's
 * '{' (top) when it is not there. */
static int need(const member *keys, const member *top, int k, int kind, const char *path,
                mapf_diag *d) {
  const member *m = &keys[k];
  if (!m->found)
    return mapf_diag_set(d, MAPF_EINVAL, path, top->line, top->col, "the problem has no \"%s\"",
                         key_name[k]);
  if (m->kind != kind)
    return mapf_diag_set(d, MAPF_EINVAL, path, m->line, m->col, "%s: expected %s", key_name[k],
                         kind == J_STRING ? "a string" : "a number");
  return MAPF_OK;
}

/* Reads and checks the problem object: its members into keys, where it starts into *top. */
static int read_json(const char *path, member *keys, member *top, mapf_diag *d) {
  char *buf;
  size_t len;
  int rc = mapf_read_file(path, JSON_MAX, &buf, &len, d);
  if (rc != MAPF_OK) return rc;
  jcur c = {buf, len, 0, 1, 1, path, d};
  /* A UTF-8 byte order mark is allowed before the object (RFC 8259 Sec. 8.1 lets readers). */
  if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) c.pos = 3;
  jskip_ws(&c);
  if (c.pos >= len || buf[c.pos] != '{') {
    rc = jerror(&c, "'{' (a Robot Runners problem is a JSON object)");
  } else {
    rc = jvalue(&c, 0, top, keys);
    jskip_ws(&c);
    if (rc == MAPF_OK && c.pos < len) rc = jerror(&c, "the end of the file after the object");
  }
  free(buf);
  return rc;
}

void mapf_rr_free(mapf_rr_problem *p) {
  if (!p) return;
  mapf_instance_free(p->inst);
  mapf_grid_free(p->grid);
  free(p->map_path);
  p->inst = NULL;
  p->grid = NULL;
  p->map_path = NULL;
}

int mapf_rr_load(const char *path, mapf_rr_problem *out, mapf_diag *d) {
  memset(out, 0, sizeof *out);
  member keys[NKEYS];
  memset(keys, 0, sizeof keys);
  member top = {0};
  mapf_grid *g = NULL;
  mapf_instance *inst = NULL;
  char *map_path = NULL, *agents_path = NULL, *tasks_path = NULL;
  loclist agents = {0}, tasks = {0};
  int32_t *first_on = NULL;
  int rc = read_json(path, keys, &top, d);

  /* The members: the files, teamSize, one task revealed at a time, the strategy. */
  for (int k = K_MAP; rc == MAPF_OK && k <= K_TASKS; k++)
    rc = need(keys, &top, k, J_STRING, path, d);
  if (rc == MAPF_OK) rc = need(keys, &top, K_TEAM, J_NUMBER, path, d);
  long long team = 0;
  if (rc == MAPF_OK) {
    const member *m = &keys[K_TEAM];
    char *end;
    team = strtoll(m->text, &end, 10);
    if (*end || team < 1 || team > TEAM_MAX)
      rc = mapf_diag_set(d, MAPF_EINVAL, path, m->line, m->col,
                         "teamSize: expected an integer from 1 to %d, found %s", TEAM_MAX,
                         m->text);
  }
  const member *v = &keys[K_VERSION];
  if (rc == MAPF_OK && v->found && !(v->kind == J_STRING && strncmp(v->text, "2023", 4) == 0))
    rc = mapf_diag_set(d, MAPF_EINVAL, path, v->line, v->col,
                       "version %s: mapfarm reads the League of Robot Runners 2023 format (later "
                       "problems have tasks with several errands, dealt by the entry's own "
                       "scheduler, and no taskAssignmentStrategy)",
                       v->kind == J_STRING ? v->text : "(not a string)");
  const member *r = &keys[K_REVEAL];
  if (rc == MAPF_OK && r->found && !(r->kind == J_NUMBER && strtod(r->text, NULL) == 1.0))
    rc = mapf_diag_set(d, MAPF_EINVAL, path, r->line, r->col,
                       "numTasksReveal: only 1 is modelled (an agent knows its current task "
                       "alone), found %s",
                       r->kind == J_NUMBER ? r->text : "a value that is not a number");
  int rule = MAPF_TASKS_ROUNDROBIN; /* the start kit's documented default */
  const member *st = &keys[K_STRATEGY];
  if (rc == MAPF_OK && st->found) {
    rule = -1;
    /* The kit's code says roundrobin_fixed, its documentation roundrobin-fixed. */
    if (st->kind == J_STRING && strcmp(st->text, "roundrobin-fixed") == 0)
      rule = MAPF_TASKS_ROUNDROBIN_FIXED;
    for (int k = 0; st->kind == J_STRING && k < MAPF_TASK_RULES && rule < 0; k++)
      if (strcmp(st->text, mapf_task_rule_name(k)) == 0) rule = k;
    if (rule < 0)
      rc = mapf_diag_set(d, MAPF_EINVAL, path, st->line, st->col,
                         "taskAssignmentStrategy: expected \"greedy\", \"roundrobin\" or "
                         "\"roundrobin_fixed\", found %s",
                         st->kind == J_STRING ? st->text : "a value that is not a string");
  }

  /* The files, each error at its name when it cannot be read. */
  if (rc == MAPF_OK && (!(map_path = beside(path, keys[K_MAP].text)) ||
                        !(agents_path = beside(path, keys[K_AGENTS].text)) ||
                        !(tasks_path = beside(path, keys[K_TASKS].text))))
    rc = mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory");
  if (rc == MAPF_OK && (rc = read_map(map_path, &g, d)) == MAPF_EIO)
    rc = named_file_error(d, path, &keys[K_MAP], "mapFile", map_path);
  if (rc == MAPF_OK && (rc = read_locations(agents_path, "agent", g, &agents, d)) == MAPF_EIO)
    rc = named_file_error(d, path, &keys[K_AGENTS], "agentFile", agents_path);
  if (rc == MAPF_OK && (rc = read_locations(tasks_path, "task", g, &tasks, d)) == MAPF_EIO)
    rc = named_file_error(d, path, &keys[K_TASKS], "taskFile", tasks_path);
  if (rc == MAPF_OK && agents.n < team)
    rc = mapf_diag_set(d, MAPF_EINVAL, path, keys[K_TEAM].line, keys[K_TEAM].col,
                       "teamSize %lld, but %s has %lld agents", team, agents_path,
                       (long long)agents.n);
  if (rc == MAPF_OK && tasks.n < 1)
    rc = mapf_diag_set(d, MAPF_EINVAL, tasks_path, tasks.count_line, 1,
                       "no tasks: a run needs at least one");

  /* Starts: the first teamSize agents, on distinct free cells; tasks on free cells. */
  int32_t n = (int32_t)team;
  if (rc == MAPF_OK && !(first_on = malloc((size_t)g->ncells * sizeof *first_on)))
    rc = mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory");
  if (rc == MAPF_OK)
    for (int32_t c = 0; c < g->ncells; c++) first_on[c] = -1;
  for (int32_t a = 0; rc == MAPF_OK && a < n; a++) {
    int32_t c = agents.cell[a];
    if (!g->passable[c])
      rc = mapf_diag_set(d, MAPF_EINVAL, agents_path, agents.line[a], agents.col[a],
                         "agent %d starts on an obstacle: (row %d, column %d) of map %s",
                         (int)a, (int)mapf_grid_y(g, c), (int)mapf_grid_x(g, c), g->name);
    else if (first_on[c] >= 0)
      rc = mapf_diag_set(d, MAPF_EINVAL, agents_path, agents.line[a], agents.col[a],
                         "agent %d starts on agent %d's start (line %d): (row %d, column %d)",
                         (int)a, (int)first_on[c], (int)agents.line[first_on[c]],
                         (int)mapf_grid_y(g, c), (int)mapf_grid_x(g, c));
    else
      first_on[c] = a;
  }
  for (int64_t i = 0; rc == MAPF_OK && i < tasks.n; i++) {
    int32_t c = tasks.cell[i];
    if (!g->passable[c])
      rc = mapf_diag_set(d, MAPF_EINVAL, tasks_path, tasks.line[i], tasks.col[i],
                         "task %lld is on an obstacle: (row %d, column %d) of map %s",
                         (long long)i, (int)mapf_grid_y(g, c), (int)mapf_grid_x(g, c), g->name);
  }

  /* The instance: lifelong, the list and its rule, each goal its agent's first task. */
  if (rc == MAPF_OK && !(inst = mapf_instance_new(n)))
    rc = mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory");
  if (rc == MAPF_OK) {
    inst->lifelong = 1;
    inst->task = tasks.cell;
    inst->ntask = tasks.n;
    inst->task_rule = rule;
    tasks.cell = NULL;
    for (int32_t a = 0; a < n; a++) {
      inst->start[a] = agents.cell[a];
      int32_t f = mapf_tasks_first(inst, a);
      inst->goal[a] = f >= 0 ? f : inst->start[a];
    }
    int32_t a = -1;
    int64_t i = mapf_tasks_unreachable(g, inst, &a);
    if (i >= 0)
      rc = mapf_diag_set(d, MAPF_EINVAL, tasks_path, tasks.line[i], tasks.col[i],
                         "task %lld (row %d, column %d) cannot be reached from the start of "
                         "agent %d (%s line %d), which the %s rule may give it",
                         (long long)i, (int)mapf_grid_y(g, inst->task[i]),
                         (int)mapf_grid_x(g, inst->task[i]), (int)a, agents_path,
                         (int)agents.line[a], mapf_task_rule_name(rule));
  }
  /* What the simulator will check, so that a load that succeeds gives a runnable instance. */
  if (rc == MAPF_OK && (rc = mapf_instance_check(inst, g, d)) != MAPF_OK && d && !d->file[0])
    snprintf(d->file, sizeof d->file, "%s", path);

  for (int k = 0; k < NKEYS; k++) free(keys[k].text);
  free(agents_path);
  free(tasks_path);
  free(first_on);
  loclist_free(&agents);
  loclist_free(&tasks);
  if (rc != MAPF_OK) {
    mapf_instance_free(inst);
    mapf_grid_free(g);
    free(map_path);
    return rc;
  }
  out->grid = g;
  out->inst = inst;
  out->map_path = map_path;
  return MAPF_OK;
}
