/* movingai.c: readers for MovingAI .map and .scen files (movingai/README.md, Format notes).
 *
 * Both readers take the whole file into memory and walk it line by line. Every error names the
 * file, the 1-based line and column of the offending text, what was expected and what was
 * found. Nothing here prints, exits or keeps state between calls. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grid.h"
#include "scen.h"

/* The largest .map file we read: the largest grid the limits allow, a CR LF per row and room
 * for the header and trailing blank lines. A longer file cannot be a valid map, so we stop
 * reading instead of allocating without bound (e.g. on /dev/zero). */
#define MAP_FILE_MAX ((size_t)MAPF_GRID_MAX_CELLS + 2u * MAPF_GRID_MAX_SIDE + 65536u)
/* The largest .scen file we read (1 GiB: about 20 million lines). */
#define SCEN_FILE_MAX ((size_t)1 << 30)

#define MAPF__STR2(x) #x
#define MAPF__STR(x) MAPF__STR2(x)

/* ---- files and lines ------------------------------------------------------------------ */

/* What a path that is not a regular file is, for a message. */
static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "is not a regular file (a FIFO)";
  if (S_ISCHR(mode)) return "is not a regular file (a character device)";
  if (S_ISBLK(mode)) return "is not a regular file (a block device)";
  if (S_ISSOCK(mode)) return "is not a regular file (a socket)";
  return "is not a regular file";
}

static int errno_diag(mapf_diag *d, const char *path, const char *what, int e) {
  char why[128];
  if (strerror_r(e, why, sizeof why) != 0) snprintf(why, sizeof why, "errno %d", e);
  return mapf_diag_set(d, MAPF_EIO, path, 0, 0, "%s: %s", what, why);
}

int mapf_read_file(const char *path, size_t max, char **out, size_t *outlen, mapf_diag *d) {
  if (!path) return mapf_diag_set(d, MAPF_EIO, NULL, 0, 0, "no file name given");
  /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. fstat on the
   * open descriptor then says what the path is without a race between a stat and the open. */
  int fd;
  do fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return errno_diag(d, path, "cannot open file", errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return errno_diag(d, path, "cannot read file", e);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return mapf_diag_set(d, MAPF_EIO, path, 0, 0, "%s", file_kind(st.st_mode));
  }
  /* Back to blocking reads (regular files ignore the flag, so this cannot fail in a way that
   * matters). */
  int fl = fcntl(fd, F_GETFL);
  if (fl != -1) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  size_t cap = max < 65536 ? max + 1 : 65536, len = 0;
  char *buf = malloc(cap + 1);
  if (!buf) {
    close(fd);
    return mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory reading the file");
  }
  for (;;) {
    if (len == cap) {
      if (cap > max) break; /* read max + 1 bytes: too long */
      size_t ncap = cap <= max / 2 ? cap * 2 : max + 1;
      char *nbuf = realloc(buf, ncap + 1);
      if (!nbuf) {
        free(buf);
        close(fd);
        return mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory reading the file");
      }
      buf = nbuf;
      cap = ncap;
    }
    ssize_t got = read(fd, buf + len, cap - len);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      int e = errno;
      free(buf);
      close(fd);
      return errno_diag(d, path, "cannot read file", e);
    }
    if (got == 0) break;
    len += (size_t)got;
  }
  close(fd);
  if (len > max) {
    free(buf);
    return mapf_diag_set(d, MAPF_EPARSE, path, 0, 0,
                         "file is larger than %zu bytes, the most this reader accepts", max);
  }
  buf[len] = '\0';
  *out = buf;
  *outlen = len;
  return MAPF_OK;
}

typedef struct cursor {
  const char *buf;
  size_t len, pos;
  int line; /* number of the line last returned */
} cursor;

/* Returns the next line (without its "\n" or "\r\n") in *s and *n, or 0 at the end of the
 * buffer. A final line without a newline is a line; an empty buffer has no lines. */
static int next_line(cursor *c, const char **s, size_t *n) {
  if (c->pos >= c->len) return 0;
  const char *start = c->buf + c->pos;
  const char *nl = memchr(start, '\n', c->len - c->pos);
  size_t len = nl ? (size_t)(nl - start) : c->len - c->pos;
  c->pos += len + (nl ? 1 : 0);
  if (len > 0 && start[len - 1] == '\r') len--;
  c->line++;
  *s = start;
  *n = len;
  return 1;
}

static int is_blank(char ch) { return ch == ' ' || ch == '\t'; }

static int blank_line(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!is_blank(s[i])) return 0;
  return 1;
}

/* Writes s[0..n) into out as a double-quoted string for a message: at most 40 characters,
 * non-printable bytes as \xNN, "..." after a cut. */
static const char *quote(char *out, size_t cap, const char *s, size_t n) {
  size_t o = 0;
  out[o++] = '"';
  size_t i;
  for (i = 0; i < n && i < 40 && o + 8 < cap; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') {
      out[o++] = (char)ch;
    } else {
      o += (size_t)snprintf(out + o, cap - o, "\\x%02x", ch);
    }
  }
  if (i < n && o + 4 < cap) {
    memcpy(out + o, "...", 3);
    o += 3;
  }
  out[o++] = '"';
  out[o] = '\0';
  return out;
}

/* Writes one character for a message: 'c' when printable, '\xNN' otherwise. */
static const char *show_char(char *out, size_t cap, char ch) {
  unsigned char u = (unsigned char)ch;
  if (u >= 0x20 && u < 0x7f && u != '\'' && u != '\\')
    snprintf(out, cap, "'%c'", u);
  else
    snprintf(out, cap, "'\\x%02x'", u);
  return out;
}

/* A blank-separated word of a line: its start, length and 1-based column. */
typedef struct word {
  const char *s;
  size_t n;
  int col;
} word;

/* Splits s[0..n) at runs of blanks into at most max words; returns how many there are (which
 * may exceed max: only the first max are stored). */
static int split_words(const char *s, size_t n, word *w, int max) {
  int count = 0;
  size_t i = 0;
  while (i < n) {
    while (i < n && is_blank(s[i])) i++;
    if (i >= n) break;
    size_t start = i;
    while (i < n && !is_blank(s[i])) i++;
    if (count < max) {
      w[count].s = s + start;
      w[count].n = i - start;
      w[count].col = (int)start + 1;
    }
    count++;
  }
  return count;
}

static int word_is(const word *w, const char *lit) {
  size_t n = strlen(lit);
  return w->n == n && memcmp(w->s, lit, n) == 0;
}

/* Parses a decimal integer (optional sign when allow_sign) into *v; 0 on success, -1 when the
 * word is not an integer or it is outside [lo, hi]. */
static int parse_int(const word *w, int allow_sign, int64_t lo, int64_t hi, int64_t *v) {
  size_t i = 0;
  int neg = 0;
  if (allow_sign && i < w->n && (w->s[i] == '-' || w->s[i] == '+')) neg = w->s[i++] == '-';
  if (i >= w->n) return -1;
  int64_t x = 0;
  for (; i < w->n; i++) {
    char ch = w->s[i];
    if (ch < '0' || ch > '9') return -1;
    if (x > (INT64_C(1) << 40)) return -1; /* far beyond any bound we use */
    x = x * 10 + (ch - '0');
  }
  if (neg) x = -x;
  if (x < lo || x > hi) return -1;
  *v = x;
  return 0;
}

/* Parses a non-negative decimal number `digits[.digits][e[+-]digits]` without the C library,
 * so the result does not depend on the locale. The first 19 significant digits are kept; the
 * value is correctly rounded for up to 15 significant digits (all MovingAI files) and within
 * an ulp or two beyond. Sets *decimals to the digits printed after the point. 0 or -1. */
static int parse_length(const word *w, double *v, int32_t *decimals) {
  static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  size_t i = 0;
  uint64_t mant = 0;
  int sig = 0, exp10 = 0, ndigits = 0, nfrac = 0;
  if (i < w->n && w->s[i] == '+') i++;
  for (; i < w->n && w->s[i] >= '0' && w->s[i] <= '9'; i++, ndigits++) {
    if (sig < 19) {
      mant = mant * 10 + (uint64_t)(w->s[i] - '0');
      if (mant) sig++;
    } else {
      exp10++;
    }
  }
  if (i < w->n && w->s[i] == '.') {
    i++;
    for (; i < w->n && w->s[i] >= '0' && w->s[i] <= '9'; i++, ndigits++, nfrac++) {
      if (sig < 19) {
        mant = mant * 10 + (uint64_t)(w->s[i] - '0');
        if (mant) sig++;
        exp10--;
      }
    }
  }
  if (ndigits == 0) return -1;
  if (i < w->n && (w->s[i] == 'e' || w->s[i] == 'E')) {
    i++;
    int eneg = 0, edigits = 0, e = 0;
    if (i < w->n && (w->s[i] == '-' || w->s[i] == '+')) eneg = w->s[i++] == '-';
    for (; i < w->n && w->s[i] >= '0' && w->s[i] <= '9'; i++, edigits++)
      if (e < 10000) e = e * 10 + (w->s[i] - '0');
    if (edigits == 0) return -1;
    exp10 += eneg ? -e : e;
  }
  if (i != w->n) return -1;
  double x = (double)mant;
  if (mant != 0) {
    while (exp10 > 22) {
      x *= 1e22;
      exp10 -= 22;
    }
    while (exp10 < -22) {
      x /= 1e22;
      exp10 += 22;
    }
    x = exp10 >= 0 ? x * pow10[exp10] : x / pow10[-exp10];
  }
  if (!(x <= 1e300)) return -1; /* overflow to infinity */
  *v = x;
  *decimals = nfrac;
  return 0;
}

/* ---- .map ----------------------------------------------------------------------------- */

/* 1 for a passable terrain character, 0 for a blocked one, -1 for anything else. */
static int terrain_kind(char ch) {
  switch (ch) {
  case '.':
  case 'G':
  case 'S':
    return 1;
  case '@':
  case 'O':
  case 'T':
  case 'W':
    return 0;
  default:
    return -1;
  }
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

/* Parses the `height H` or `width W` header line into *h or *w (whichever key it has; each
 * once). */
static int parse_dim_line(const char *path, int line, const char *s, size_t n, int32_t *h,
                          int32_t *w, mapf_diag *d) {
  word wd[3];
  char q[200];
  int nw = split_words(s, n, wd, 3);
  int32_t *dst = NULL;
  const char *key = NULL;
  if (nw >= 1 && word_is(&wd[0], "height") && *h == 0) {
    dst = h;
    key = "height";
  } else if (nw >= 1 && word_is(&wd[0], "width") && *w == 0) {
    dst = w;
    key = "width";
  }
  if (!dst) {
    const char *want = *h ? "\"width W\"" : *w ? "\"height H\"" : "\"height H\" or \"width W\"";
    return mapf_diag_set(d, MAPF_EPARSE, path, line, 1, "expected %s, found %s", want,
                         quote(q, sizeof q, s, n));
  }
  if (nw < 2)
    return mapf_diag_set(d, MAPF_EPARSE, path, line, (int)n + 1,
                         "%s: expected an integer in 1..%d, found nothing", key,
                         MAPF_GRID_MAX_SIDE);
  int64_t v;
  if (parse_int(&wd[1], 0, 1, MAPF_GRID_MAX_SIDE, &v) != 0)
    return mapf_diag_set(d, MAPF_EPARSE, path, line, wd[1].col,
                         "%s: expected an integer in 1..%d, found %s", key, MAPF_GRID_MAX_SIDE,
                         quote(q, sizeof q, wd[1].s, wd[1].n));
  if (nw > 2)
    return mapf_diag_set(d, MAPF_EPARSE, path, line, wd[2].col,
                         "expected the end of the line after \"%s %d\", found %s", key, (int)v,
                         quote(q, sizeof q, wd[2].s, (size_t)(s + n - wd[2].s)));
  *dst = (int32_t)v;
  return MAPF_OK;
}

/* Reads the header (`type octile`, `height H` and `width W` in either order, `map`) and then
 * exactly H rows of exactly W terrain characters; trailing blank lines are allowed. Sizes are
 * checked against the limits of grid.h before anything is allocated. O(file size). */
int mapf_grid_parse(const char *buf, size_t len, const char *path, mapf_grid **out,
                    mapf_diag *d) {
  if (!path) path = "";
  cursor c = {buf, len, 0, 0};
  const char *s;
  size_t n;
  char q[200];
  word wd[3];

  if (!next_line(&c, &s, &n))
    return mapf_diag_set(d, MAPF_EPARSE, path, 1, 1,
                         "empty file; expected a MovingAI map starting with \"type octile\"");
  int nw = split_words(s, n, wd, 3);
  if (nw < 1 || !word_is(&wd[0], "type") || nw != 2)
    return mapf_diag_set(d, MAPF_EPARSE, path, c.line, 1, "expected \"type octile\", found %s",
                         quote(q, sizeof q, s, n));
  if (!word_is(&wd[1], "octile"))
    return mapf_diag_set(d, MAPF_EPARSE, path, c.line, wd[1].col,
                         "unsupported map type %s, expected \"octile\"",
                         quote(q, sizeof q, wd[1].s, wd[1].n));

  int32_t height = 0, width = 0;
  for (int k = 0; k < 2; k++) {
    if (!next_line(&c, &s, &n))
      return mapf_diag_set(d, MAPF_EPARSE, path, c.line + 1, 1,
                           "unexpected end of file; expected \"%s\"",
                           height ? "width W" : "height H");
    int err = parse_dim_line(path, c.line, s, n, &height, &width, d);
    if (err) return err;
  }
  if ((int64_t)width * height > MAPF_GRID_MAX_CELLS)
    return mapf_diag_set(d, MAPF_EPARSE, path, c.line, 1,
                         "map of %d x %d = %lld cells exceeds the limit of %d cells", width,
                         height, (long long)width * height, MAPF_GRID_MAX_CELLS);

  if (!next_line(&c, &s, &n))
    return mapf_diag_set(d, MAPF_EPARSE, path, c.line + 1, 1,
                         "unexpected end of file; expected \"map\"");
  nw = split_words(s, n, wd, 2);
  if (nw != 1 || !word_is(&wd[0], "map"))
    return mapf_diag_set(d, MAPF_EPARSE, path, c.line, 1, "expected \"map\", found %s",
                         quote(q, sizeof q, s, n));

  mapf_grid *g = mapf_grid_new(width, height, base_name(path));
  char *terrain = g ? malloc((size_t)g->ncells) : NULL;
  if (!terrain) {
    mapf_grid_free(g);
    return mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory for a %d x %d map", width,
                         height);
  }
  g->terrain = terrain;

  int err = MAPF_OK;
  for (int32_t y = 0; y < height && !err; y++) {
    if (!next_line(&c, &s, &n)) {
      err = mapf_diag_set(d, MAPF_EPARSE, path, c.line + 1, 1,
                          "map ends after %d rows, expected %d (height %d)", (int)y, height,
                          height);
      break;
    }
    size_t check = n < (size_t)width ? n : (size_t)width;
    for (size_t x = 0; x < check; x++) {
      int kind = terrain_kind(s[x]);
      if (kind < 0) {
        char ch[16];
        err = mapf_diag_set(d, MAPF_EPARSE, path, c.line, (int)x + 1,
                            "unknown terrain character %s (expected one of . G S @ O T W)",
                            show_char(ch, sizeof ch, s[x]));
        break;
      }
      terrain[(size_t)y * (size_t)width + x] = s[x];
      g->passable[(size_t)y * (size_t)width + x] = (uint8_t)kind;
    }
    if (!err && n != (size_t)width)
      err = mapf_diag_set(d, MAPF_EPARSE, path, c.line, (int)check + 1,
                          "row y=%d has %zu characters, expected %d (width %d)", (int)y, n,
                          width, width);
  }
  while (!err && next_line(&c, &s, &n)) {
    if (blank_line(s, n)) continue;
    size_t i = 0;
    while (is_blank(s[i])) i++;
    err = mapf_diag_set(d, MAPF_EPARSE, path, c.line, (int)i + 1,
                        "found more than %d rows (height %d)", height, height);
  }
  if (!err && mapf_grid_finish(g) != MAPF_OK)
    err = mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory for a %d x %d map", width,
                        height);
  if (err) {
    mapf_grid_free(g);
    return err;
  }
  *out = g;
  return MAPF_OK;
}

int mapf_grid_load(const char *path, mapf_grid **out, mapf_diag *d) {
  char *buf;
  size_t len;
  int err = mapf_read_file(path, MAP_FILE_MAX, &buf, &len, d);
  if (err) return err;
  err = mapf_grid_parse(buf, len, path, out, d);
  free(buf);
  return err;
}

/* ---- .scen ---------------------------------------------------------------------------- */

static const char *const scen_field_name[9] = {
    "bucket", "map", "width", "height", "start_x", "start_y", "goal_x", "goal_y",
    "optimal_length"};

/* Checks one end (start or goal) of a scenario line against g; fills d and returns
 * MAPF_EPARSE when it is outside g or blocked. */
static int scen_check_cell(const char *path, int line, int col, const char *what, int32_t x,
                           int32_t y, const mapf_grid *g, mapf_diag *d) {
  if (!mapf_grid_in(g, x, y))
    return mapf_diag_set(d, MAPF_EPARSE, path, line, col,
                         "%s (%d,%d) is outside the map %s (%d x %d)", what, (int)x, (int)y,
                         g->name, g->width, g->height);
  int32_t id = mapf_grid_id(g, x, y);
  if (!g->passable[id]) {
    char ch[16];
    if (g->terrain)
      return mapf_diag_set(d, MAPF_EPARSE, path, line, col,
                           "%s (%d,%d) is on a blocked cell %s of map %s", what, (int)x, (int)y,
                           show_char(ch, sizeof ch, g->terrain[id]), g->name);
    return mapf_diag_set(d, MAPF_EPARSE, path, line, col,
                         "%s (%d,%d) is on a blocked cell of map %s", what, (int)x, (int)y,
                         g->name);
  }
  return MAPF_OK;
}

/* Parses one scenario line of nine blank-separated fields into *e. Returns MAPF_EPARSE on a
 * syntax error. When g is given and the line's start or goal does not fit g, returns
 * MAPF_EINVAL (the caller turns it into MAPF_EPARSE or skips the line). */
static int scen_parse_line(const char *path, int line, const char *s, size_t n,
                           const mapf_grid *g, mapf_scen_entry *e, word *map_word,
                           mapf_diag *d) {
  word w[10];
  char q[200];
  int nw = split_words(s, n, w, 10);
  if (nw < 9)
    return mapf_diag_set(d, MAPF_EPARSE, path, line, (int)n + 1,
                         "expected 9 fields (bucket map width height start_x start_y goal_x "
                         "goal_y optimal_length), found %d; missing %s",
                         nw, scen_field_name[nw]);
  if (nw > 9)
    return mapf_diag_set(d, MAPF_EPARSE, path, line, w[9].col,
                         "expected 9 fields (bucket map width height start_x start_y goal_x "
                         "goal_y optimal_length), found more: %s",
                         quote(q, sizeof q, w[9].s, (size_t)(s + n - w[9].s)));
  int64_t v[9];
  for (int f = 0; f < 8; f++) {
    if (f == 1) continue;
    int bad;
    const char *want;
    if (f == 0) {
      bad = parse_int(&w[f], 0, 0, INT32_MAX, &v[f]);
      want = "an integer >= 0";
    } else if (f <= 3) {
      bad = parse_int(&w[f], 0, 1, MAPF_GRID_MAX_SIDE, &v[f]);
      want = "an integer in 1.." MAPF__STR(MAPF_GRID_MAX_SIDE);
    } else {
      bad = parse_int(&w[f], 1, INT32_MIN, INT32_MAX, &v[f]);
      want = "an integer";
    }
    if (bad)
      return mapf_diag_set(d, MAPF_EPARSE, path, line, w[f].col, "%s: expected %s, found %s",
                           scen_field_name[f], want, quote(q, sizeof q, w[f].s, w[f].n));
  }
  if (parse_length(&w[8], &e->optimal, &e->decimals) != 0)
    return mapf_diag_set(d, MAPF_EPARSE, path, line, w[8].col,
                         "optimal_length: expected a number >= 0, found %s",
                         quote(q, sizeof q, w[8].s, w[8].n));
  e->bucket = (int32_t)v[0];
  e->width = (int32_t)v[2];
  e->height = (int32_t)v[3];
  e->sx = (int32_t)v[4];
  e->sy = (int32_t)v[5];
  e->gx = (int32_t)v[6];
  e->gy = (int32_t)v[7];
  e->line = line;
  *map_word = w[1];
  if (g) {
    if (scen_check_cell(path, line, w[4].col, "start", e->sx, e->sy, g, d) ||
        scen_check_cell(path, line, w[6].col, "goal", e->gx, e->gy, g, d))
      return MAPF_EINVAL;
  }
  return MAPF_OK;
}

/* Reads a whole .scen file: a version line, then one entry per non-blank line. Lines whose
 * start or goal does not fit g fail the load, or are skipped under MAPF_SCEN_SKIP_INVALID
 * (counted, the first reason kept). O(file size). */
int mapf_scen_load(const char *path, const mapf_grid *g, unsigned flags, mapf_scen **out,
                   mapf_diag *d) {
  char *buf;
  size_t len;
  int err = mapf_read_file(path, SCEN_FILE_MAX, &buf, &len, d);
  if (err) return err;
  mapf_scen *sc = calloc(1, sizeof *sc);
  if (!sc) {
    free(buf);
    return mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory");
  }
  cursor c = {buf, len, 0, 0};
  const char *s;
  size_t n;
  char q[200];
  word wd[3];
  int32_t cap = 0;

  if (!next_line(&c, &s, &n)) {
    err = mapf_diag_set(d, MAPF_EPARSE, path, 1, 1,
                        "empty file; expected \"version 1\" or \"version 1.0\"");
    goto fail;
  }
  int nw = split_words(s, n, wd, 3);
  if (nw != 2 || !word_is(&wd[0], "version") ||
      !(word_is(&wd[1], "1") || word_is(&wd[1], "1.0"))) {
    err = mapf_diag_set(d, MAPF_EPARSE, path, 1, 1,
                        "expected \"version 1\" or \"version 1.0\", found %s",
                        quote(q, sizeof q, s, n));
    goto fail;
  }
  while (next_line(&c, &s, &n)) {
    if (blank_line(s, n)) continue;
    mapf_scen_entry e;
    word map_word = {NULL, 0, 0};
    mapf_diag why;
    err = scen_parse_line(path, c.line, s, n, g, &e, &map_word, &why);
    if (err == MAPF_EINVAL && (flags & MAPF_SCEN_SKIP_INVALID)) {
      if (sc->skipped++ == 0) sc->first_skip = why;
      continue;
    }
    if (err) {
      if (d) *d = why;
      err = MAPF_EPARSE;
      goto fail;
    }
    if (!sc->map) {
      sc->map = malloc(map_word.n + 1);
      if (!sc->map) goto nomem;
      memcpy(sc->map, map_word.s, map_word.n);
      sc->map[map_word.n] = '\0';
    }
    if (sc->n == cap) {
      if (cap > INT32_MAX / 2) goto nomem;
      int32_t ncap = cap ? cap * 2 : 64;
      mapf_scen_entry *p = realloc(sc->entries, (size_t)ncap * sizeof *p);
      if (!p) goto nomem;
      sc->entries = p;
      cap = ncap;
    }
    sc->entries[sc->n++] = e;
  }
  free(buf);
  *out = sc;
  return MAPF_OK;

nomem:
  err = mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory");
fail:
  free(buf);
  mapf_scen_free(sc);
  return err;
}

void mapf_scen_free(mapf_scen *s) {
  if (!s) return;
  free(s->entries);
  free(s->map);
  free(s);
}
