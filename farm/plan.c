/* plan.c: reading and validating a YAML plan (README, "Plan format").
 *
 * Two passes. The first reads libyaml's event stream into a small tree of scalars, lists and
 * mappings that remembers every node's line and column; it refuses anchors and aliases (so a
 * plan can never expand into more than it says) and bounds the tree (nodes, depth, entries per
 * list). The second walks the tree section by section and checks every key and value against
 * the declarations in core/algo.h, core/mapgen.h and core/sim.h. It never stops at the first
 * mistake: every error goes to the caller's farm_diags as PLAN:LINE:COL (STYLE.md, Messages),
 * up to PLAN_MAX_ERRORS, and the plan is returned only when there were none.
 *
 * Beyond each value, the plan is checked for repetitions that would give two jobs the same key
 * (a map listed twice, an agent count in two scenarios, a parameter combination in two
 * algorithm entries), and for its size: the job count is bounded before anything runs. */
#include "plan.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "algo.h"
#include "hash.h"
#include "suggest.h"

/* Bounds, so that a malicious plan cannot make the tool use unbounded memory or time before a
 * single job runs. Each is far above what a real plan needs. */
#define PLAN_MAX_BYTES ((size_t)16 << 20) /* plan text */
#define PLAN_MAX_NODES 1000000            /* YAML nodes (scalars, lists, mappings) */
#define PLAN_MAX_DEPTH 64                 /* nesting of lists and mappings */
#define PLAN_MAX_LIST 100000              /* entries of one list or mapping; values of a range */
#define PLAN_MAX_SCENARIOS 1024           /* entries of `scenarios` */
#define PLAN_MAX_ALGORITHMS 1024          /* entries of `algorithms` */
#define PLAN_MAX_AGENT_COUNTS 1000000     /* agent counts over all scenarios */
#define PLAN_MAX_INSTANCES 1000000        /* `instances` of one scenario */
#define PLAN_MAX_COMBOS 1000000           /* parameter combinations over all algorithms */
#define PLAN_MAX_JOBS 1000000000LL        /* jobs of the whole plan */
#define PLAN_MAX_ERRORS 50                /* then "too many errors" and stop */

/* ---- the tree ------------------------------------------------------------------------- */

typedef enum { PN_SCALAR, PN_SEQ, PN_MAP, PN_BAD } pnode_kind;

/* A YAML node. PN_BAD stands for a node already reported (an alias, a scalar holding a NUL):
 * the checks skip it silently so one mistake gives one message. */
typedef struct pnode {
  pnode_kind kind;
  int line, col;       /* 1-based */
  int plain;           /* scalar written without quotes */
  char *str;           /* scalar text */
  struct pnode **kids; /* list items; for a mapping key0, value0, key1, value1, ... */
  int32_t nkids, cap;
} pnode;

typedef struct pctx {
  const char *file; /* the plan's name in messages */
  const char *text;
  size_t len;
  farm_diags *errs;
  int32_t nerr;  /* errors reported */
  int32_t nfail; /* errors reported or dropped, and PN_BAD nodes met: a section whose
                    count did not move is complete and valid */
  int stop;      /* a YAML syntax error, a bound or too many errors: report no more */
  int syntax;    /* the YAML itself was bad: MAPF_EPARSE */
  int oom;
  int64_t nnodes;
  yaml_parser_t parser;
} pctx;

/* Records one error at line:col, unless the list is closed. An error after PLAN_MAX_ERRORS
 * becomes a note that closes the list, so a plan with a million bad entries costs a
 * bounded amount of memory. */
static void perr(pctx *c, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void perr(pctx *c, int line, int col, const char *fmt, ...) {
  c->nfail++;
  if (c->stop) return;
  if (c->nerr >= PLAN_MAX_ERRORS) {
    farm_diags_add(c->errs, c->file, line, col,
                   "too many errors (more than %d); stopping here: fix these first",
                   PLAN_MAX_ERRORS);
    c->nerr++;
    c->stop = 1;
    return;
  }
  char msg[sizeof(((mapf_diag *)0)->msg)];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  farm_diags_add(c->errs, c->file, line, col, "%s", msg);
  c->nerr++;
}

static void perr_fatal_oom(pctx *c) {
  if (!c->oom) perr(c, 0, 0, "out of memory");
  c->oom = 1;
  c->stop = 1;
}

static void node_free(pnode *n) {
  if (!n) return;
  for (int32_t i = 0; i < n->nkids; i++) node_free(n->kids[i]);
  free(n->kids);
  free(n->str);
  free(n);
}

static int32_t node_pairs(const pnode *m) { return m->nkids / 2; }

/* Whether v was already reported (PN_BAD); counts it as a failure of the section that meets
 * it, so the section does not go on as if it were complete. */
static int bad(pctx *c, const pnode *v) {
  if (v->kind != PN_BAD) return 0;
  c->nfail++;
  return 1;
}

static pnode *node_new(pctx *c, pnode_kind kind, yaml_mark_t m) {
  if (++c->nnodes > PLAN_MAX_NODES) {
    perr(c, (int)m.line + 1, (int)m.column + 1,
         "the plan has more than %d YAML values; refusing to read further", PLAN_MAX_NODES);
    c->stop = 1;
    return NULL;
  }
  pnode *n = calloc(1, sizeof *n);
  if (!n) {
    perr_fatal_oom(c);
    return NULL;
  }
  n->kind = kind;
  n->line = (int)m.line + 1;
  n->col = (int)m.column + 1;
  return n;
}

/* Turns a byte offset into a 1-based line and column (for libyaml's reader errors, which
 * carry only an offset). */
static void offset_linecol(const pctx *c, size_t off, int *line, int *col) {
  int l = 1, k = 1;
  for (size_t i = 0; i < off && i < c->len; i++) {
    if (c->text[i] == '\n') {
      l++;
      k = 1;
    } else {
      k++;
    }
  }
  *line = l;
  *col = k;
}

/* Reports libyaml's error with its mark and closes the error list. */
static void yaml_error(pctx *c) {
  yaml_parser_t *p = &c->parser;
  const char *problem = p->problem ? p->problem : "unknown error";
  if (p->error == YAML_MEMORY_ERROR) {
    perr_fatal_oom(c);
  } else if (p->error == YAML_READER_ERROR) {
    int line, col;
    offset_linecol(c, p->problem_offset, &line, &col);
    if (p->problem_value >= 0)
      perr(c, line, col, "invalid YAML: %s (byte 0x%02x)", problem, (unsigned)p->problem_value);
    else
      perr(c, line, col, "invalid YAML: %s", problem);
  } else if (p->context) {
    perr(c, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1,
         "invalid YAML: %s (%s at line %d, column %d)", problem, p->context,
         (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
  } else {
    perr(c, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1, "invalid YAML: %s",
         problem);
  }
  c->syntax = 1;
  c->stop = 1;
}

static int next_event(pctx *c, yaml_event_t *ev) {
  if (yaml_parser_parse(&c->parser, ev)) return 0;
  yaml_error(c);
  return -1;
}

/* Refuses an anchor: aliases are refused too, so an anchor could only be a mistake, and
 * refusing both keeps "what you read is what runs". */
static void refuse_anchor(pctx *c, const yaml_char_t *anchor, yaml_mark_t m) {
  if (anchor)
    perr(c, (int)m.line + 1, (int)m.column + 1,
         "anchors and aliases are not supported (found anchor \"&%s\"); write the value out",
         (const char *)anchor);
}

static int node_add(pctx *c, pnode *parent, pnode *kid) {
  int32_t limit = parent->kind == PN_MAP ? 2 * PLAN_MAX_LIST : PLAN_MAX_LIST;
  if (parent->nkids >= limit) {
    perr(c, parent->line, parent->col, "a %s with more than %d entries; refusing to read further",
         parent->kind == PN_MAP ? "mapping" : "list", PLAN_MAX_LIST);
    c->stop = 1;
    return -1;
  }
  if (parent->nkids == parent->cap) {
    int32_t cap = parent->cap ? parent->cap * 2 : 4;
    pnode **k = realloc(parent->kids, (size_t)cap * sizeof *k);
    if (!k) {
      perr_fatal_oom(c);
      return -1;
    }
    parent->kids = k;
    parent->cap = cap;
  }
  parent->kids[parent->nkids++] = kid;
  return 0;
}

/* Builds the node that starts with event ev (consumed) and, for a list or mapping, every event
 * up to its end. Recursion is bounded by PLAN_MAX_DEPTH. Returns NULL after a fatal error
 * (reported; c->stop set). */
static pnode *build(pctx *c, yaml_event_t *ev, int depth) {
  pnode *n = NULL;
  yaml_mark_t m = ev->start_mark;
  switch (ev->type) {
  case YAML_ALIAS_EVENT:
    perr(c, (int)m.line + 1, (int)m.column + 1,
         "aliases are not supported (found \"*%s\"); write the value out",
         (const char *)ev->data.alias.anchor);
    n = node_new(c, PN_BAD, m);
    break;
  case YAML_SCALAR_EVENT: {
    refuse_anchor(c, ev->data.scalar.anchor, m);
    n = node_new(c, PN_SCALAR, m);
    if (!n) break;
    size_t len = ev->data.scalar.length;
    n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    n->str = malloc(len + 1);
    if (!n->str) {
      node_free(n);
      n = NULL;
      perr_fatal_oom(c);
      break;
    }
    memcpy(n->str, ev->data.scalar.value, len);
    n->str[len] = '\0';
    if (memchr(n->str, '\0', len)) {
      perr(c, n->line, n->col, "a value with a NUL character is not supported");
      n->kind = PN_BAD;
    }
    break;
  }
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT: {
    int is_map = ev->type == YAML_MAPPING_START_EVENT;
    refuse_anchor(c, is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor, m);
    if (depth >= PLAN_MAX_DEPTH) {
      perr(c, (int)m.line + 1, (int)m.column + 1,
           "lists and mappings nested deeper than %d levels; refusing to read further",
           PLAN_MAX_DEPTH);
      c->stop = 1;
      break;
    }
    n = node_new(c, is_map ? PN_MAP : PN_SEQ, m);
    if (!n) break;
    yaml_event_type_t end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
    for (;;) {
      yaml_event_t e;
      if (next_event(c, &e) != 0) {
        node_free(n);
        n = NULL;
        break;
      }
      if (e.type == end) {
        yaml_event_delete(&e);
        break;
      }
      pnode *kid = build(c, &e, depth + 1);
      if (!kid || node_add(c, n, kid) != 0) {
        node_free(kid);
        node_free(n);
        n = NULL;
        break;
      }
    }
    break;
  }
  default: /* cannot happen inside a document */
    perr(c, (int)m.line + 1, (int)m.column + 1, "invalid YAML: unexpected event");
    c->syntax = 1;
    c->stop = 1;
    break;
  }
  yaml_event_delete(ev);
  return n;
}

/* Reads the whole stream: one document whose tree is returned in *root (NULL when the stream
 * is empty or on a fatal error). */
static void read_tree(pctx *c, pnode **root) {
  *root = NULL;
  yaml_event_t ev;
  if (next_event(c, &ev) != 0) return; /* STREAM_START */
  yaml_event_delete(&ev);
  if (next_event(c, &ev) != 0) return;
  if (ev.type == YAML_STREAM_END_EVENT) {
    yaml_event_delete(&ev);
    return;
  }
  yaml_event_delete(&ev); /* DOCUMENT_START */
  if (next_event(c, &ev) != 0) return;
  *root = build(c, &ev, 0);
  if (!*root) return;
  if (next_event(c, &ev) != 0) return; /* DOCUMENT_END */
  yaml_event_delete(&ev);
  if (next_event(c, &ev) != 0) return;
  if (ev.type == YAML_DOCUMENT_START_EVENT)
    perr(c, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
         "a plan is a single YAML document; found a second one");
  yaml_event_delete(&ev);
}

/* ---- values ----------------------------------------------------------------------------- */

static int is_null(const pnode *v) {
  return v->kind == PN_SCALAR && v->plain &&
         (!v->str[0] || !strcmp(v->str, "~") || !strcmp(v->str, "null") ||
          !strcmp(v->str, "Null") || !strcmp(v->str, "NULL"));
}

/* Describes v for "found ...": the scalar quoted (shortened, control characters shown as ?),
 * or "nothing", "a list", "an empty list", "a mapping". */
static const char *found(const pnode *v, char *buf, size_t n) {
  if (v->kind == PN_SEQ) return v->nkids ? "a list" : "an empty list";
  if (v->kind == PN_MAP) return v->nkids ? "a mapping" : "an empty mapping";
  if (v->kind != PN_SCALAR || is_null(v)) return "nothing";
  size_t k = 0;
  buf[k++] = '"';
  const char *s = v->str;
  size_t i = 0;
  for (; s[i] && k + 8 < n && i < 60; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"' || ch == '\\') buf[k++] = '\\';
    buf[k++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
  }
  if (s[i]) {
    buf[k++] = '.';
    buf[k++] = '.';
    buf[k++] = '.';
  }
  buf[k++] = '"';
  buf[k] = '\0';
  return buf;
}

#define FOUND(v) found((v), fbuf, sizeof fbuf)

/* Decimal integer, optional sign, nothing else. Returns 0, or -1 (not an integer), or 1
 * (an integer out of the range of long long). */
static int parse_ll(const char *s, long long *out) {
  const char *p = s;
  if (*p == '+' || *p == '-') p++;
  if (*p < '0' || *p > '9') return -1;
  for (const char *q = p; *q; q++)
    if (*q < '0' || *q > '9') return -1;
  errno = 0;
  *out = strtoll(s, NULL, 10);
  return errno == ERANGE ? 1 : 0;
}

static int parse_ull(const char *s, unsigned long long *out) {
  const char *p = s;
  if (*p == '+') p++;
  if (*p < '0' || *p > '9') return -1;
  for (const char *q = p; *q; q++)
    if (*q < '0' || *q > '9') return -1;
  errno = 0;
  *out = strtoull(p, NULL, 10);
  return errno == ERANGE ? 1 : 0;
}

/* A finite decimal number (an integer or a real in C notation). */
static int parse_real(const char *s, double *out) {
  if (!*s || (s[0] != '-' && s[0] != '+' && s[0] != '.' && (s[0] < '0' || s[0] > '9'))) return -1;
  char *end = NULL;
  double v = strtod(s, &end);
  if (end == s || *end || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

/* Shortest %g text that reads back to the same double. */
static void fmt_real(double v, char *buf, size_t n) {
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, n, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
}

/* The checks below report "KEY: expected ..., found ..." at the value and return -1 on a bad
 * value (silently for a PN_BAD node, already reported). */

static int get_int(pctx *c, const pnode *v, const char *key, long long min, long long max,
                   long long *out) {
  char fbuf[80];
  if (bad(c, v)) return -1;
  long long x = 0;
  int rc = v->kind == PN_SCALAR && !is_null(v) ? parse_ll(v->str, &x) : -1;
  if (rc == 0 && x >= min && x <= max) {
    *out = x;
    return 0;
  }
  if (rc == -1 || (rc == 0 && x < min) || (rc == 1 && v->str[0] == '-'))
    perr(c, v->line, v->col, "%s: expected an integer >= %lld, found %s", key, min, FOUND(v));
  else
    perr(c, v->line, v->col, "%s: expected an integer <= %lld, found %s", key, max, FOUND(v));
  return -1;
}

static int get_u64(pctx *c, const pnode *v, const char *key, uint64_t *out) {
  char fbuf[80];
  if (bad(c, v)) return -1;
  unsigned long long x = 0;
  int rc = v->kind == PN_SCALAR && !is_null(v) ? parse_ull(v->str, &x) : -1;
  if (rc == 0 && x <= UINT64_MAX) {
    *out = (uint64_t)x;
    return 0;
  }
  if (rc == 1)
    perr(c, v->line, v->col, "%s: expected an integer <= %llu, found %s", key,
         (unsigned long long)UINT64_MAX, FOUND(v));
  else
    perr(c, v->line, v->col, "%s: expected an integer >= 0, found %s", key, FOUND(v));
  return -1;
}

static int get_real(pctx *c, const pnode *v, const char *key, double min, double max, double *out) {
  char fbuf[80], lo[32], hi[32];
  if (bad(c, v)) return -1;
  double x = 0;
  if (v->kind == PN_SCALAR && !is_null(v) && parse_real(v->str, &x) == 0 && x >= min && x <= max) {
    *out = x;
    return 0;
  }
  fmt_real(min, lo, sizeof lo);
  fmt_real(max, hi, sizeof hi);
  if (isinf(max))
    perr(c, v->line, v->col, "%s: expected a number >= %s, found %s", key, lo, FOUND(v));
  else
    perr(c, v->line, v->col, "%s: expected a number in [%s, %s], found %s", key, lo, hi, FOUND(v));
  return -1;
}

/* A non-empty string. */
static const char *get_str(pctx *c, const pnode *v, const char *key) {
  char fbuf[80];
  if (bad(c, v)) return NULL;
  if (v->kind == PN_SCALAR && !is_null(v) && v->str[0]) return v->str;
  perr(c, v->line, v->col, "%s: expected a non-empty string, found %s", key, FOUND(v));
  return NULL;
}

static char *xstrdup(pctx *c, const char *s) {
  char *d = strdup(s);
  if (!d) perr_fatal_oom(c);
  return d;
}

/* Appends ", name" for each candidate into buf: "a, b or c". */
static void list_names(const char *const *names, int32_t n, char *buf, size_t cap) {
  size_t k = 0;
  buf[0] = '\0';
  for (int32_t i = 0; i < n && k < cap; i++) {
    const char *sep = i == 0 ? "" : i == n - 1 ? " or " : ", ";
    int w = snprintf(buf + k, cap - k, "%s%s", sep, names[i]);
    if (w < 0) break;
    k += (size_t)w;
  }
}

/* " did you mean "x"?" or " (expected one of: ...)" after an unknown name. */
static void hint(const char *word, const char *const *names, int32_t n, char *buf, size_t cap) {
  const char *s = farm_suggest(word, names, n);
  if (s) {
    snprintf(buf, cap, "; did you mean \"%s\"?", s);
  } else {
    char all[400];
    list_names(names, n, all, sizeof all);
    snprintf(buf, cap, " (expected %s)", all);
  }
}

/* One known key of a mapping, as found. */
typedef struct kv {
  const pnode *key, *val;
} kv;

/* Matches the keys of mapping m against names[0..n): found[i] gets the i-th key's pair or stays
 * {NULL, NULL}. Unknown keys (with a suggestion) and repeated keys are errors. `in` names the
 * mapping in messages ("scenario", "params of bmaa"); NULL means the top level. O(pairs * n). */
static void walk_map(pctx *c, const pnode *m, const char *const *names, int32_t n, kv *found_kv,
                     const char *in) {
  char fbuf[80], h[480];
  for (int32_t i = 0; i < n; i++) found_kv[i].key = found_kv[i].val = NULL;
  for (int32_t p = 0; p < node_pairs(m); p++) {
    const pnode *k = m->kids[2 * p], *v = m->kids[2 * p + 1];
    if (bad(c, k)) continue;
    if (k->kind != PN_SCALAR || is_null(k)) {
      perr(c, k->line, k->col, "expected a key name%s%s, found %s", in ? " in " : "", in ? in : "",
           FOUND(k));
      continue;
    }
    int32_t i = 0;
    while (i < n && strcmp(names[i], k->str) != 0) i++;
    if (i == n) {
      hint(k->str, names, n, h, sizeof h);
      if (in)
        perr(c, k->line, k->col, "unknown key \"%s\" in %s%s", k->str, in, h);
      else
        perr(c, k->line, k->col, "unknown top-level key \"%s\"%s", k->str, h);
    } else if (found_kv[i].key) {
      perr(c, k->line, k->col, "duplicate key \"%s\" (first given at line %d, column %d)", k->str,
           found_kv[i].key->line, found_kv[i].key->col);
    } else {
      found_kv[i].key = k;
      found_kv[i].val = v;
    }
  }
}

static int require(pctx *c, const pnode *m, const kv *f, const char *name, const char *in) {
  if (f->val) return 0;
  if (in)
    perr(c, m->line, m->col, "missing required key \"%s\" in %s", name, in);
  else
    perr(c, m->line, m->col, "missing required key \"%s\"", name);
  return -1;
}

/* a * b, saturating at LLONG_MAX (both >= 0). */
static long long sat_mul(long long a, long long b) {
  if (a == 0 || b == 0) return 0;
  return a > LLONG_MAX / b ? LLONG_MAX : a * b;
}

static long long sat_add(long long a, long long b) { return a > LLONG_MAX - b ? LLONG_MAX : a + b; }

/* ---- maps ------------------------------------------------------------------------------- */

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir + "/" + rel in fresh memory ("." adds nothing). */
static char *join_path(const char *dir, const char *rel) {
  if (!strcmp(dir, ".")) return strdup(rel);
  size_t ld = strlen(dir), lr = strlen(rel);
  int slash = ld > 0 && dir[ld - 1] == '/';
  char *s = malloc(ld + lr + 2);
  if (!s) return NULL;
  memcpy(s, dir, ld);
  if (!slash) s[ld++] = '/';
  memcpy(s + ld, rel, lr + 1);
  return s;
}

/* Finds a map file: an absolute path as is; a relative one under the plan's directory, then
 * under each opts->map_dirs entry. Returns the path found (malloc'd) or NULL (reported). */
static char *resolve_map(pctx *c, const pnode *v, const char *dir, const farm_plan_opts *opts) {
  const char *rel = v->str;
  if (rel[0] == '/') {
    if (file_exists(rel)) return xstrdup(c, rel);
    perr(c, v->line, v->col, "map file not found: \"%s\"", rel);
    return NULL;
  }
  char looked[400];
  size_t k = 0;
  looked[0] = '\0';
  int32_t ndirs = opts ? opts->nmap_dirs : 0;
  for (int32_t i = -1; i < ndirs; i++) {
    const char *d = i < 0 ? dir : opts->map_dirs[i];
    if (!d || !d[0]) continue;
    char *p = join_path(d, rel);
    if (!p) {
      perr_fatal_oom(c);
      return NULL;
    }
    if (file_exists(p)) return p;
    free(p);
    if (k < sizeof looked) {
      int w = snprintf(looked + k, sizeof looked - k, "%s%s", k ? ", " : "", d);
      if (w > 0) k += (size_t)w;
    }
  }
  perr(c, v->line, v->col, "map file not found: \"%s\" (looked in: %s)", rel, looked);
  return NULL;
}

/* The generated map's name, exactly as mapgen.c names its grid ("random-64x64-d0.2-s7",
 * "rooms-64x64-r8-k1-s0", "maze-63x63-c2-s0"; the density with %g and a '.' whatever the
 * locale), so a map spec's source and its grid's name agree (tests/test_expand.c checks it).
 * `exact` gets a key that tells every parameter apart (the name rounds the density to six
 * digits), for finding a generate entry given twice. */
static void gen_name(const mapf_mapgen_params *g, char *buf, size_t n, char *exact, size_t ne) {
  char tmp[64], d[64];
  double density = g->density == 0 ? 0.0 : g->density;
  snprintf(tmp, sizeof tmp, "%g", density);
  size_t o = 0;
  for (size_t i = 0; tmp[i] && o + 1 < sizeof d; i++)
    d[o++] = (tmp[i] >= '0' && tmp[i] <= '9') || tmp[i] == '-' || tmp[i] == '+' || tmp[i] == 'e'
                 ? tmp[i]
                 : '.';
  d[o] = '\0';
  switch (g->kind) {
  case MAPF_MAPGEN_RANDOM:
    snprintf(buf, n, "random-%dx%d-d%s-s%llu", (int)g->width, (int)g->height, d,
             (unsigned long long)g->seed);
    break;
  case MAPF_MAPGEN_ROOMS:
    snprintf(buf, n, "rooms-%dx%d-r%d-k%d-s%llu", (int)g->width, (int)g->height, (int)g->room,
             (int)g->doors, (unsigned long long)g->seed);
    break;
  default:
    snprintf(buf, n, "maze-%dx%d-c%d-s%llu", (int)g->width, (int)g->height, (int)g->corridor,
             (unsigned long long)g->seed);
    break;
  }
  snprintf(exact, ne, "generate:%s:%.17g", buf, g->kind == MAPF_MAPGEN_RANDOM ? density : 0.0);
}

enum { G_KIND, G_WIDTH, G_HEIGHT, G_DENSITY, G_ROOM, G_DOORS, G_CORRIDOR, G_SEED, G_N };

/* `generate: {kind, width, height, ...}`. The map seed defaults to 0 and does not depend on
 * the plan seed: the same generate entry gives the same map in every plan. */
static void parse_generate(pctx *c, farm_map_spec *ms, const pnode *g) {
  static const char *const keys[G_N] = {"kind", "width", "height",   "density",
                                        "room", "doors", "corridor", "seed"};
  static const char *const kinds[3] = {"random", "rooms", "maze"};
  /* Which keys each kind takes (rows: random, rooms, maze; columns: keys). */
  static const int applies[3][G_N] = {
      {1, 1, 1, 1, 0, 0, 0, 1}, {1, 1, 1, 0, 1, 1, 0, 1}, {1, 1, 1, 0, 0, 0, 1, 1}};
  char fbuf[80], h[480];
  int32_t before = c->nfail;
  kv f[G_N];
  walk_map(c, g, keys, G_N, f, "generate");
  int kind = -1;
  if (require(c, g, &f[G_KIND], "kind", "generate") == 0) {
    const pnode *v = f[G_KIND].val;
    if (v->kind == PN_SCALAR && !is_null(v)) {
      kind = mapf_mapgen_kind_parse(v->str);
      if (kind < 0) {
        hint(v->str, kinds, 3, h, sizeof h);
        perr(c, v->line, v->col, "unknown map kind \"%s\"%s", v->str, h);
      }
    } else if (!bad(c, v)) {
      perr(c, v->line, v->col, "kind: expected random, rooms or maze, found %s", FOUND(v));
    }
  }
  mapf_mapgen_params *p = &ms->gen;
  mapf_mapgen_defaults(p, kind >= 0 ? (mapf_mapgen_kind)kind : MAPF_MAPGEN_RANDOM);
  require(c, g, &f[G_WIDTH], "width", "generate");
  require(c, g, &f[G_HEIGHT], "height", "generate");
  for (int i = 1; i < G_N; i++) {
    if (!f[i].val) continue;
    if (kind >= 0 && !applies[kind][i]) {
      perr(c, f[i].key->line, f[i].key->col, "key \"%s\" does not apply to kind %s", keys[i],
           kinds[kind]);
      continue;
    }
    long long x;
    const pnode *v = f[i].val;
    switch (i) {
    case G_WIDTH:
    case G_HEIGHT:
      if (get_int(c, v, keys[i], 1, MAPF_GRID_MAX_SIDE, &x) == 0) {
        if (i == G_WIDTH)
          p->width = (int32_t)x;
        else
          p->height = (int32_t)x;
      }
      break;
    case G_DENSITY:
      get_real(c, v, keys[i], 0, 0.9, &p->density);
      break;
    case G_ROOM:
      if (get_int(c, v, keys[i], 2, MAPF_GRID_MAX_SIDE, &x) == 0) p->room = (int32_t)x;
      break;
    case G_DOORS:
      if (get_int(c, v, keys[i], 1, MAPF_GRID_MAX_SIDE, &x) == 0) p->doors = (int32_t)x;
      break;
    case G_CORRIDOR:
      if (get_int(c, v, keys[i], 1, MAPF_GRID_MAX_SIDE, &x) == 0) p->corridor = (int32_t)x;
      break;
    case G_SEED:
      get_u64(c, v, keys[i], &p->seed);
      break;
    default:
      break;
    }
  }
  if (c->nfail != before) return;
  if ((long long)p->width * p->height > MAPF_GRID_MAX_CELLS) {
    perr(c, g->line, g->col, "a %dx%d map has more than %d cells", (int)p->width, (int)p->height,
         MAPF_GRID_MAX_CELLS);
    return;
  }
  char name[160], exact[256];
  gen_name(p, name, sizeof name, exact, sizeof exact);
  ms->generated = 1;
  ms->source = xstrdup(c, name);
}

typedef struct keyed {
  char *key;
  int32_t i;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  int r = strcmp(x->key, y->key);
  return r ? r : (x->i > y->i) - (x->i < y->i);
}

/* `maps`: paths and generate entries. A map listed twice (the same resolved path, or the same
 * generator parameters) is an error: its jobs would repeat with the same keys. Maps with equal
 * content under different names are caught when they are loaded (farm_space_init). */
static void parse_maps(pctx *c, farm_plan *plan, const pnode *v, const char *dir,
                       const farm_plan_opts *opts) {
  char fbuf[80];
  if (bad(c, v)) return;
  if (v->kind != PN_SEQ || v->nkids == 0) {
    perr(c, v->line, v->col,
         "maps: expected a non-empty list of map files and generate "
         "entries, found %s",
         FOUND(v));
    return;
  }
  plan->maps = calloc((size_t)v->nkids, sizeof *plan->maps);
  if (!plan->maps) {
    perr_fatal_oom(c);
    return;
  }
  plan->nmaps = v->nkids;
  int32_t before = c->nfail;
  for (int32_t i = 0; i < v->nkids && !c->stop; i++) {
    const pnode *it = v->kids[i];
    farm_map_spec *ms = &plan->maps[i];
    ms->line = it->line;
    ms->col = it->col;
    if (bad(c, it)) continue;
    if (it->kind == PN_SCALAR && !is_null(it) && it->str[0]) {
      ms->source = xstrdup(c, it->str);
      ms->path = resolve_map(c, it, dir, opts);
    } else if (it->kind == PN_MAP) {
      static const char *const keys[] = {"generate"};
      kv f[1];
      walk_map(c, it, keys, 1, f, "map entry");
      if (require(c, it, &f[0], "generate", "map entry") != 0) continue;
      const pnode *g = f[0].val;
      if (g->kind == PN_MAP)
        parse_generate(c, ms, g);
      else if (!bad(c, g))
        perr(c, g->line, g->col,
             "generate: expected a mapping (kind, width, height, ...), "
             "found %s",
             FOUND(g));
    } else {
      perr(c, it->line, it->col,
           "maps: expected a map file or a mapping with generate, "
           "found %s",
           FOUND(it));
    }
  }
  if (c->nfail != before || c->stop) return;
  /* Repetitions, by resolved path or generator parameters: sort, then compare neighbours. */
  keyed *k = calloc((size_t)plan->nmaps, sizeof *k);
  if (!k) {
    perr_fatal_oom(c);
    return;
  }
  int32_t nk = 0;
  for (; nk < plan->nmaps; nk++) {
    const farm_map_spec *ms = &plan->maps[nk];
    char name[160], exact[256];
    if (ms->generated) gen_name(&ms->gen, name, sizeof name, exact, sizeof exact);
    size_t len = ms->generated ? strlen(exact) + 1 : strlen(ms->path) + 6;
    char *key = malloc(len);
    if (!key) break;
    snprintf(key, len, "%s%s", ms->generated ? "" : "file:", ms->generated ? exact : ms->path);
    k[nk].key = key;
    k[nk].i = nk;
  }
  if (nk == plan->nmaps) {
    qsort(k, (size_t)nk, sizeof *k, cmp_keyed);
    for (int32_t j = 1; j < nk; j++) {
      if (strcmp(k[j].key, k[j - 1].key)) continue;
      /* The first of a run of equal keys is the earliest entry. */
      int32_t first = j - 1;
      while (first > 0 && !strcmp(k[first - 1].key, k[j].key)) first--;
      const farm_map_spec *a = &plan->maps[k[first].i], *b = &plan->maps[k[j].i];
      perr(c, b->line, b->col,
           "map \"%s\" is listed twice (first at line %d, column %d); its "
           "jobs would repeat",
           b->source, a->line, a->col);
    }
  } else {
    perr_fatal_oom(c);
  }
  for (int32_t j = 0; j < nk; j++) free(k[j].key);
  free(k);
}

/* ---- scenarios -------------------------------------------------------------------------- */

typedef struct agent_at {
  int32_t agents;
  int32_t scen, item; /* item: index of the list entry, or -1 */
} agent_at;

static int cmp_agent_at(const void *a, const void *b) {
  const agent_at *x = a, *y = b;
  if (x->agents != y->agents) return (x->agents > y->agents) - (x->agents < y->agents);
  if (x->scen != y->scen) return (x->scen > y->scen) - (x->scen < y->scen);
  return (x->item > y->item) - (x->item < y->item);
}

/* `agents`: an integer, a list of them, or {range: [from, to, step]} (to inclusive; step
 * defaults to 1). At most PLAN_MAX_LIST values. */
static void parse_agents(pctx *c, farm_scen_spec *ss, const pnode *v) {
  char fbuf[80];
  long long x;
  if (bad(c, v)) return;
  if (v->kind == PN_SCALAR) {
    if (get_int(c, v, "agents", 1, MAPF_GRID_MAX_CELLS, &x) != 0) return;
    ss->agents = malloc(sizeof *ss->agents);
    if (!ss->agents) {
      perr_fatal_oom(c);
      return;
    }
    ss->agents[0] = (int32_t)x;
    ss->nagents = 1;
    return;
  }
  if (v->kind == PN_SEQ) {
    const int32_t n = v->nkids;
    if (n <= 0) {
      perr(c, v->line, v->col,
           "agents: expected an integer >= 1 or a non-empty list of them, "
           "found an empty list");
      return;
    }
    ss->agents = malloc((size_t)n * sizeof *ss->agents);
    if (!ss->agents) {
      perr_fatal_oom(c);
      return;
    }
    int32_t before = c->nfail;
    for (int32_t i = 0; i < n; i++)
      if (get_int(c, v->kids[i], "agents", 1, MAPF_GRID_MAX_CELLS, &x) == 0)
        ss->agents[i] = (int32_t)x;
    if (c->nfail != before) return;
    ss->nagents = n;
    /* Repeated counts, reported at the later entry. */
    agent_at *a = malloc((size_t)n * sizeof *a);
    if (!a) {
      perr_fatal_oom(c);
      return;
    }
    for (int32_t i = 0; i < n; i++) a[i] = (agent_at){ss->agents[i], 0, i};
    qsort(a, (size_t)n, sizeof *a, cmp_agent_at);
    for (int32_t i = 1; i < n; i++)
      if (a[i].agents == a[i - 1].agents) {
        const pnode *it = v->kids[a[i].item];
        perr(c, it->line, it->col, "agents: %d is listed twice", (int)a[i].agents);
      }
    free(a);
    return;
  }
  if (v->kind != PN_MAP) return;
  static const char *const keys[] = {"range"};
  kv f[1];
  walk_map(c, v, keys, 1, f, "agents");
  if (require(c, v, &f[0], "range", "agents") != 0) return;
  const pnode *r = f[0].val;
  if (bad(c, r)) return;
  if (r->kind != PN_SEQ || r->nkids < 2 || r->nkids > 3) {
    perr(c, r->line, r->col, "range: expected [from, to, step], found %s", FOUND(r));
    return;
  }
  long long from = 0, to = 0, step = 1;
  int bad = get_int(c, r->kids[0], "range", 1, MAPF_GRID_MAX_CELLS, &from);
  bad |= get_int(c, r->kids[1], "range", 1, MAPF_GRID_MAX_CELLS, &to);
  if (r->nkids == 3) bad |= get_int(c, r->kids[2], "range", 1, MAPF_GRID_MAX_CELLS, &step);
  if (bad) return;
  if (to < from) {
    perr(c, r->line, r->col, "range: expected from <= to, found [%lld, %lld, %lld]", from, to,
         step);
    return;
  }
  long long count = (to - from) / step + 1;
  if (count > PLAN_MAX_LIST) {
    perr(c, r->line, r->col,
         "range: [%lld, %lld, %lld] gives %lld agent counts; at most %d "
         "are allowed",
         from, to, step, count, PLAN_MAX_LIST);
    return;
  }
  ss->agents = malloc((size_t)count * sizeof *ss->agents);
  if (!ss->agents) {
    perr_fatal_oom(c);
    return;
  }
  for (long long i = 0; i < count; i++) ss->agents[i] = (int32_t)(from + i * step);
  ss->nagents = (int32_t)count;
}

/* `scenarios`. An agent count in two scenarios of the same generator is an error: their
 * instances would have the same keys. */
static void parse_scenarios(pctx *c, farm_plan *plan, const pnode *v) {
  static const char *const keys[] = {"generator", "agents", "instances"};
  static const char *const generators[] = {"random"};
  char fbuf[80], h[480];
  if (bad(c, v)) return;
  if (v->kind != PN_SEQ || v->nkids == 0) {
    perr(c, v->line, v->col, "scenarios: expected a non-empty list, found %s", FOUND(v));
    return;
  }
  if (v->nkids > PLAN_MAX_SCENARIOS) {
    perr(c, v->line, v->col, "scenarios: %d entries; at most %d are allowed", (int)v->nkids,
         PLAN_MAX_SCENARIOS);
    return;
  }
  plan->scens = calloc((size_t)v->nkids, sizeof *plan->scens);
  if (!plan->scens) {
    perr_fatal_oom(c);
    return;
  }
  plan->nscens = v->nkids;
  const pnode **agents_node = calloc((size_t)v->nkids, sizeof *agents_node);
  if (!agents_node) {
    perr_fatal_oom(c);
    return;
  }
  long long total = 0;
  for (int32_t s = 0; s < v->nkids && !c->stop; s++) {
    const pnode *it = v->kids[s];
    farm_scen_spec *ss = &plan->scens[s];
    ss->line = it->line;
    ss->col = it->col;
    ss->instances = 1;
    if (bad(c, it)) continue;
    if (it->kind != PN_MAP) {
      perr(c, it->line, it->col,
           "scenarios: expected a mapping (generator, agents, instances), "
           "found %s",
           FOUND(it));
      continue;
    }
    kv f[3];
    walk_map(c, it, keys, 3, f, "scenario");
    const char *gen = "random";
    if (f[0].val) {
      const pnode *g = f[0].val;
      gen = get_str(c, g, "generator");
      if (gen && strcmp(gen, "random")) {
        hint(gen, generators, 1, h, sizeof h);
        perr(c, g->line, g->col, "unknown scenario generator \"%s\"%s", gen, h);
        gen = NULL;
      }
    }
    if (gen) ss->generator = xstrdup(c, gen);
    if (require(c, it, &f[1], "agents", "scenario") == 0) {
      parse_agents(c, ss, f[1].val);
      agents_node[s] = f[1].val;
      total += ss->nagents;
    }
    long long x;
    if (f[2].val && get_int(c, f[2].val, "instances", 1, PLAN_MAX_INSTANCES, &x) == 0)
      ss->instances = (int32_t)x;
  }
  if (!c->stop && total > PLAN_MAX_AGENT_COUNTS)
    perr(c, v->line, v->col, "scenarios: %lld agent counts in all; at most %d are allowed", total,
         PLAN_MAX_AGENT_COUNTS);
  if (c->stop || total > PLAN_MAX_AGENT_COUNTS) {
    free(agents_node);
    return;
  }
  /* Agent counts shared between scenarios (one generator for now, so all of them), over the
   * scenarios whose counts are valid: O(T log T) for T counts in all. */
  agent_at *a = malloc((size_t)(total ? total : 1) * sizeof *a);
  if (!a) {
    free(agents_node);
    perr_fatal_oom(c);
    return;
  }
  int32_t n = 0;
  for (int32_t s = 0; s < plan->nscens; s++)
    for (int32_t i = 0; i < plan->scens[s].nagents; i++)
      a[n++] = (agent_at){plan->scens[s].agents[i], s, i};
  qsort(a, (size_t)n, sizeof *a, cmp_agent_at);
  char reported[PLAN_MAX_SCENARIOS] = {0};
  int32_t run = 0;
  for (int32_t i = 1; i < n; i++) {
    if (a[i].agents != a[i - 1].agents) run = i;
    if (a[i].scen == a[run].scen || reported[a[i].scen]) continue;
    /* One message per later scenario, naming the earliest scenario with that count. */
    const farm_scen_spec *first = &plan->scens[a[run].scen];
    const pnode *an = agents_node[a[i].scen];
    perr(c, an->line, an->col,
         "agents: %d is also in the scenario at line %d, column %d; its "
         "instances would run twice",
         (int)a[i].agents, first->line, first->col);
    reported[a[i].scen] = 1;
  }
  free(a);
  free(agents_node);
}

/* ---- algorithms ------------------------------------------------------------------------- */

/* Fills p with the defaults and then the values of combination `combo` (mixed radix over the
 * axes, the first axis outermost). farm_space_job decodes the same way. */
static void combo_params(const farm_algo_spec *as, int64_t combo, mapf_params *p) {
  mapf_params_default(as->def, p);
  for (int32_t a = as->naxes - 1; a >= 0; a--) {
    const farm_param_axis *ax = &as->axes[a];
    p->v[ax->index] = ax->values[combo % ax->nvalues];
    combo /= ax->nvalues;
  }
}

typedef struct value_at {
  double v;
  int32_t i;
} value_at;

static int cmp_value_at(const void *a, const void *b) {
  const value_at *x = a, *y = b;
  if (x->v != y->v) return (x->v > y->v) - (x->v < y->v);
  return (x->i > y->i) - (x->i < y->i);
}

/* One parameter of `params`: a value or a non-empty list of values, each parsed and checked
 * by the registry (mapf_param_parse), none repeated. */
static void parse_axis(pctx *c, const farm_algo_spec *as, farm_param_axis *ax, const pnode *v) {
  char fbuf[80];
  const mapf_param_def *pd = &as->def->params[ax->index];
  if (bad(c, v)) return;
  int32_t n = v->kind == PN_SEQ ? v->nkids : 1;
  if (v->kind == PN_MAP || n <= 0 || is_null(v)) {
    perr(c, v->line, v->col, "%s: expected a value or a non-empty list of values, found %s",
         pd->name, FOUND(v));
    return;
  }
  ax->values = malloc((size_t)n * sizeof *ax->values);
  if (!ax->values) {
    perr_fatal_oom(c);
    return;
  }
  int32_t before = c->nfail;
  for (int32_t i = 0; i < n; i++) {
    const pnode *it = v->kind == PN_SEQ ? v->kids[i] : v;
    if (bad(c, it)) continue;
    if (it->kind != PN_SCALAR || is_null(it)) {
      perr(c, it->line, it->col, "%s: expected a value, found %s", pd->name, FOUND(it));
      continue;
    }
    /* YAML writes booleans also as True, TRUE, Yes, ON...: the registry takes lower case. */
    char lower[8];
    const char *text = it->str;
    size_t len = strlen(text);
    if (pd->type == MAPF_PARAM_BOOL && it->plain && len < sizeof lower) {
      for (size_t j = 0; j <= len; j++)
        lower[j] = text[j] >= 'A' && text[j] <= 'Z' ? (char)(text[j] - 'A' + 'a') : text[j];
      text = lower;
    }
    mapf_diag d;
    memset(&d, 0, sizeof d);
    if (mapf_param_parse(as->def, ax->index, text, &ax->values[i], &d) != MAPF_OK) {
      if (text != it->str) /* the message quotes the value as written */
        mapf_param_parse(as->def, ax->index, it->str, &ax->values[i], &d);
      perr(c, it->line, it->col, "%s", d.msg);
    }
  }
  if (c->nfail != before) return;
  ax->nvalues = n;
  if (n == 1) return;
  /* Repeated values (as parsed: 1 and 1.0 are one value), reported at the later entry. */
  value_at *sorted = malloc((size_t)n * sizeof *sorted);
  if (!sorted) {
    perr_fatal_oom(c);
    return;
  }
  for (int32_t i = 0; i < n; i++) sorted[i] = (value_at){ax->values[i], i};
  qsort(sorted, (size_t)n, sizeof *sorted, cmp_value_at);
  for (int32_t i = 1; i < n; i++) {
    if (sorted[i].v != sorted[i - 1].v) continue;
    char val[64];
    const pnode *it = v->kids[sorted[i].i];
    mapf_param_format(as->def, ax->index, sorted[i].v, val, sizeof val);
    perr(c, it->line, it->col, "%s: %s is listed twice", pd->name, val);
  }
  free(sorted);
}

/* `params` of one algorithm entry; then every combination through mapf_params_check, which
 * holds the algorithm's cross-parameter rules (bmaa refuses flow: true), reported at the
 * params key. */
static void parse_params(pctx *c, farm_algo_spec *as, const kv *pf, const pnode *entry,
                         long long *combos_left) {
  char fbuf[80], in[96];
  const mapf_algo_def *def = as->def;
  as->ncombos = 1;
  int32_t before = c->nfail;
  int line = entry->line, col = entry->col;
  if (pf->val) {
    const pnode *m = pf->val;
    line = pf->key->line;
    col = pf->key->col;
    if (m->kind != PN_MAP && !is_null(m)) {
      if (!bad(c, m))
        perr(c, m->line, m->col,
             "params: expected a mapping of parameter names to values, "
             "found %s",
             FOUND(m));
      return;
    }
    const char *names[MAPF_MAX_PARAMS];
    for (int32_t i = 0; i < def->nparams; i++) names[i] = def->params[i].name;
    snprintf(in, sizeof in, "params of %s", def->name);
    if (m->kind == PN_MAP) {
      kv f[MAPF_MAX_PARAMS];
      walk_map(c, m, names, def->nparams, f, in);
      as->axes = calloc((size_t)(node_pairs(m) ? node_pairs(m) : 1), sizeof *as->axes);
      if (!as->axes) {
        perr_fatal_oom(c);
        return;
      }
      /* In plan order: the first named parameter is the outermost axis. */
      for (int32_t p = 0; p < node_pairs(m) && !c->stop; p++) {
        const pnode *k = m->kids[2 * p];
        if (k->kind != PN_SCALAR) continue;
        int32_t i = mapf_param_index(def, k->str);
        if (i < 0 || f[i].key != k) continue; /* unknown or repeated: reported */
        farm_param_axis *ax = &as->axes[as->naxes++];
        ax->index = i;
        parse_axis(c, as, ax, f[i].val);
      }
    }
  }
  if (c->nfail != before || c->stop) return;
  long long n = 1;
  for (int32_t a = 0; a < as->naxes; a++) n = sat_mul(n, as->axes[a].nvalues);
  if (n > *combos_left) {
    perr(c, line, col,
         "params of %s: %lld combinations; the algorithms may give at most %d "
         "in all",
         def->name, n, PLAN_MAX_COMBOS);
    return;
  }
  *combos_left -= n;
  as->ncombos = n;
  long long failing = 0;
  mapf_diag first;
  int64_t first_combo = 0;
  for (int64_t k = 0; k < n; k++) {
    mapf_params p;
    mapf_diag d;
    combo_params(as, k, &p);
    memset(&d, 0, sizeof d);
    if (mapf_params_check(def, &p, &d) == MAPF_OK) continue;
    if (failing++ == 0) {
      first = d;
      first_combo = k;
    }
  }
  if (!failing) return;
  if (n == 1) {
    perr(c, line, col, "%s", first.msg);
  } else {
    mapf_params p;
    char json[1024];
    combo_params(as, first_combo, &p);
    mapf_params_json(def, &p, json, sizeof json);
    perr(c, line, col, "%s (%lld of %lld combinations, first %s)", first.msg, failing, n, json);
  }
}

typedef struct combo_key {
  mapf_hash128 h;
  int32_t algo;
  int64_t combo;
} combo_key;

static int cmp_combo_key(const void *a, const void *b) {
  const combo_key *x = a, *y = b;
  if (x->h.hi != y->h.hi) return (x->h.hi > y->h.hi) - (x->h.hi < y->h.hi);
  if (x->h.lo != y->h.lo) return (x->h.lo > y->h.lo) - (x->h.lo < y->h.lo);
  if (x->algo != y->algo) return (x->algo > y->algo) - (x->algo < y->algo);
  return (x->combo > y->combo) - (x->combo < y->combo);
}

/* Writes "name\nparams-json" of one combination; job keys contain exactly these two, so two
 * combinations with equal text would give jobs with equal keys. */
static int combo_text(const farm_algo_spec *as, int64_t combo, char *buf, size_t n) {
  mapf_params p;
  combo_params(as, combo, &p);
  int k = snprintf(buf, n, "%s\n", as->def->name);
  if (k < 0 || (size_t)k >= n) return k;
  return k + mapf_params_json(as->def, &p, buf + k, n - (size_t)k);
}

/* A combination given by two algorithm entries (e.g. bmaa twice, with different labels) is an
 * error: labels are not part of job keys. One message per later entry. O(C log C) for C
 * combinations over all entries (at most PLAN_MAX_COMBOS). */
static void check_combo_repeats(pctx *c, const farm_plan *plan, long long total) {
  combo_key *k = malloc((size_t)(total ? total : 1) * sizeof *k);
  if (!k) {
    perr_fatal_oom(c);
    return;
  }
  char text[2048];
  int64_t n = 0;
  for (int32_t a = 0; a < plan->nalgos; a++)
    for (int64_t i = 0; plan->algos[a].def && i < plan->algos[a].ncombos; i++) {
      int len = combo_text(&plan->algos[a], i, text, sizeof text);
      size_t used = len < 0 ? 0 : (size_t)len < sizeof text ? (size_t)len : sizeof text - 1;
      k[n++] = (combo_key){mapf_hash128_of(text, used), a, i};
    }
  qsort(k, (size_t)n, sizeof *k, cmp_combo_key);
  int32_t *reported = calloc((size_t)plan->nalgos, sizeof *reported);
  if (!reported) {
    free(k);
    perr_fatal_oom(c);
    return;
  }
  int64_t run = 0; /* start of the run of equal keys that k[i] is in: its earliest entry */
  for (int64_t i = 1; i < n; i++) {
    if (k[i].h.hi != k[i - 1].h.hi || k[i].h.lo != k[i - 1].h.lo) {
      run = i;
      continue;
    }
    if (reported[k[i].algo]) continue;
    reported[k[i].algo] = 1;
    const farm_algo_spec *later = &plan->algos[k[i].algo], *first = &plan->algos[k[run].algo];
    mapf_params p;
    char json[1024];
    combo_params(later, k[i].combo, &p);
    mapf_params_json(later->def, &p, json, sizeof json);
    if (k[i].algo == k[run].algo)
      perr(c, later->line, later->col, "algorithm %s gives the parameters %s twice",
           later->def->name, json);
    else
      perr(c, later->line, later->col,
           "algorithm %s with parameters %s is also the entry at "
           "line %d, column %d; its jobs would run twice (labels are not part of a job)",
           later->def->name, json, first->line, first->col);
  }
  free(reported);
  free(k);
}

static void parse_algorithms(pctx *c, farm_plan *plan, const pnode *v) {
  static const char *const keys[] = {"name", "label", "params"};
  char fbuf[80], h[480];
  if (bad(c, v)) return;
  if (v->kind != PN_SEQ || v->nkids == 0) {
    perr(c, v->line, v->col, "algorithms: expected a non-empty list, found %s", FOUND(v));
    return;
  }
  if (v->nkids > PLAN_MAX_ALGORITHMS) {
    perr(c, v->line, v->col, "algorithms: %d entries; at most %d are allowed", (int)v->nkids,
         PLAN_MAX_ALGORITHMS);
    return;
  }
  plan->algos = calloc((size_t)v->nkids, sizeof *plan->algos);
  if (!plan->algos) {
    perr_fatal_oom(c);
    return;
  }
  plan->nalgos = v->nkids;
  const char *names[64];
  int32_t nnames = 0;
  for (int32_t i = 0; i < mapf_algo_count() && nnames < 64; i++)
    names[nnames++] = mapf_algo_at(i)->name;
  int32_t before = c->nfail;
  long long combos_left = PLAN_MAX_COMBOS;
  for (int32_t a = 0; a < v->nkids && !c->stop; a++) {
    const pnode *it = v->kids[a];
    farm_algo_spec *as = &plan->algos[a];
    as->line = it->line;
    as->col = it->col;
    as->ncombos = 1;
    if (bad(c, it)) continue;
    if (it->kind != PN_MAP) {
      perr(c, it->line, it->col,
           "algorithms: expected a mapping (name, label, params), "
           "found %s",
           FOUND(it));
      continue;
    }
    kv f[3];
    walk_map(c, it, keys, 3, f, "algorithm");
    if (require(c, it, &f[0], "name", "algorithm") == 0) {
      const char *name = get_str(c, f[0].val, "name");
      if (name) {
        as->def = mapf_algo_find(name);
        if (!as->def) {
          hint(name, names, nnames, h, sizeof h);
          perr(c, f[0].val->line, f[0].val->col, "unknown algorithm \"%s\"%s", name, h);
        }
      }
    }
    if (f[1].val) {
      const char *label = get_str(c, f[1].val, "label");
      if (label) as->label = xstrdup(c, label);
    } else if (as->def) {
      as->label = xstrdup(c, as->def->label);
    }
    if (as->def) parse_params(c, as, &f[2], it, &combos_left);
  }
  if (c->nfail != before || c->stop) return;
  check_combo_repeats(c, plan, PLAN_MAX_COMBOS - combos_left);
}

/* ---- limits, execution, top level -------------------------------------------------------- */

static void parse_limits(pctx *c, farm_plan *plan, const pnode *v) {
  static const char *const keys[] = {"steps", "seconds", "expansions"};
  char fbuf[80];
  if (bad(c, v)) return;
  if (v->kind != PN_MAP) {
    perr(c, v->line, v->col, "limits: expected a mapping (steps, seconds, expansions), found %s",
         FOUND(v));
    return;
  }
  kv f[3];
  walk_map(c, v, keys, 3, f, "limits");
  long long x;
  if (f[0].val && get_int(c, f[0].val, "steps", 1, LLONG_MAX, &x) == 0) plan->limits.steps = x;
  if (f[1].val) get_real(c, f[1].val, "seconds", 0, INFINITY, &plan->limits.seconds);
  if (f[2].val && get_int(c, f[2].val, "expansions", 0, LLONG_MAX, &x) == 0)
    plan->limits.expansions = x;
}

static void parse_execution(pctx *c, farm_plan *plan, const pnode *v) {
  static const char *const names[] = {"chains", "single-pass"};
  char h[480];
  const char *s = get_str(c, v, "execution");
  if (!s) return;
  int e = mapf_execution_parse(s);
  if (e < 0) {
    hint(s, names, 2, h, sizeof h);
    perr(c, v->line, v->col, "unknown execution \"%s\"%s", s, h);
    return;
  }
  plan->execution = (mapf_execution)e;
}

enum { K_NAME, K_SEED, K_MAPS, K_SCENARIOS, K_ALGORITHMS, K_LIMITS, K_EXECUTION, K_N };

static void parse_root(pctx *c, farm_plan *plan, const pnode *root, const char *dir,
                       const farm_plan_opts *opts) {
  static const char *const keys[K_N] = {"name",       "seed",   "maps",     "scenarios",
                                        "algorithms", "limits", "execution"};
  char fbuf[80];
  if (!root || is_null(root)) {
    perr(c, root ? root->line : 1, root ? root->col : 1,
         "the plan is empty; expected a mapping with name, maps, scenarios and algorithms");
    return;
  }
  if (bad(c, root)) return;
  if (root->kind != PN_MAP) {
    perr(c, root->line, root->col,
         "expected a mapping of plan keys (name, seed, maps, "
         "scenarios, algorithms, limits, execution), found %s",
         FOUND(root));
    return;
  }
  kv f[K_N];
  walk_map(c, root, keys, K_N, f, NULL);
  if (require(c, root, &f[K_NAME], "name", NULL) == 0) {
    const char *s = get_str(c, f[K_NAME].val, "name");
    if (s) plan->name = xstrdup(c, s);
  }
  if (f[K_SEED].val) get_u64(c, f[K_SEED].val, "seed", &plan->seed);
  if (require(c, root, &f[K_MAPS], "maps", NULL) == 0)
    parse_maps(c, plan, f[K_MAPS].val, dir, opts);
  if (require(c, root, &f[K_SCENARIOS], "scenarios", NULL) == 0)
    parse_scenarios(c, plan, f[K_SCENARIOS].val);
  if (require(c, root, &f[K_ALGORITHMS], "algorithms", NULL) == 0)
    parse_algorithms(c, plan, f[K_ALGORITHMS].val);
  if (f[K_LIMITS].val) parse_limits(c, plan, f[K_LIMITS].val);
  if (f[K_EXECUTION].val) parse_execution(c, plan, f[K_EXECUTION].val);
  if (c->nerr || c->stop) return;
  /* The size of the job space, before anything is loaded or run. */
  long long per_map = 0, combos = 0;
  for (int32_t s = 0; s < plan->nscens; s++)
    per_map = sat_add(per_map, sat_mul(plan->scens[s].nagents, plan->scens[s].instances));
  for (int32_t a = 0; a < plan->nalgos; a++) combos = sat_add(combos, plan->algos[a].ncombos);
  long long jobs = sat_mul(sat_mul(plan->nmaps, per_map), combos);
  if (jobs > PLAN_MAX_JOBS)
    perr(c, root->line, root->col,
         "the plan has %s%lld jobs; at most %lld are allowed (%d "
         "maps x %lld instances x %lld algorithm configurations)",
         jobs == LLONG_MAX ? "more than " : "", jobs, PLAN_MAX_JOBS, (int)plan->nmaps, per_map,
         combos);
}

/* ---- entry points ----------------------------------------------------------------------- */

void farm_plan_free(farm_plan *p) {
  if (!p) return;
  free(p->path);
  free(p->text);
  free(p->name);
  for (int32_t i = 0; p->maps && i < p->nmaps; i++) {
    free(p->maps[i].source);
    free(p->maps[i].path);
  }
  free(p->maps);
  for (int32_t i = 0; p->scens && i < p->nscens; i++) {
    free(p->scens[i].generator);
    free(p->scens[i].agents);
  }
  free(p->scens);
  for (int32_t i = 0; p->algos && i < p->nalgos; i++) {
    free(p->algos[i].label);
    for (int32_t a = 0; p->algos[i].axes && a < p->algos[i].naxes; a++)
      free(p->algos[i].axes[a].values);
    free(p->algos[i].axes);
  }
  free(p->algos);
  free(p);
}

/* The directory of the plan file, for relative map paths: "." when path has no slash. */
static char *plan_dir(const char *path) {
  const char *slash = path ? strrchr(path, '/') : NULL;
  if (!slash) return strdup(".");
  if (slash == path) return strdup("/");
  size_t n = (size_t)(slash - path);
  char *d = malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, path, n);
  d[n] = '\0';
  return d;
}

int farm_plan_parse(const char *text, size_t len, const char *path, const farm_plan_opts *opts,
                    farm_plan **out, farm_diags *errs) {
  farm_diags local = {0, 0, NULL};
  pctx c;
  memset(&c, 0, sizeof c);
  c.file = path ? path : "<plan>";
  c.text = text;
  c.len = len;
  c.errs = errs ? errs : &local;
  *out = NULL;
  if (len > PLAN_MAX_BYTES) {
    perr(&c, 0, 0, "the plan is larger than %zu MiB", PLAN_MAX_BYTES >> 20);
    farm_diags_free(&local);
    return MAPF_EINVAL;
  }
  farm_plan *plan = calloc(1, sizeof *plan);
  char *dir = plan_dir(path);
  if (plan) {
    plan->path = strdup(c.file);
    plan->text = malloc(len + 1);
  }
  if (!plan || !dir || !plan->path || !plan->text || !yaml_parser_initialize(&c.parser)) {
    perr_fatal_oom(&c);
    farm_plan_free(plan);
    free(dir);
    farm_diags_free(&local);
    return MAPF_ENOMEM;
  }
  memcpy(plan->text, text, len);
  plan->text[len] = '\0';
  plan->text_len = len;
  mapf_hash128_hex(mapf_hash128_of(text, len), plan->hash);
  plan->seed = 1;
  plan->limits.steps = 10000;
  plan->limits.seconds = 0;
  plan->limits.expansions = 0;
  plan->execution = MAPF_EXEC_CHAINS;

  yaml_parser_set_input_string(&c.parser, (const unsigned char *)text, len);
  pnode *root = NULL;
  read_tree(&c, &root);
  yaml_parser_delete(&c.parser);
  if (!c.stop) parse_root(&c, plan, root, dir, opts);
  node_free(root);
  free(dir);
  farm_diags_free(&local);
  if (c.nerr || c.stop) {
    farm_plan_free(plan);
    return c.oom ? MAPF_ENOMEM : c.syntax ? MAPF_EPARSE : MAPF_EINVAL;
  }
  *out = plan;
  return MAPF_OK;
}

int farm_plan_load(const char *path, const farm_plan_opts *opts, farm_plan **out,
                   farm_diags *errs) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) {
    char why[128] = "unknown error";
    strerror_r(errno, why, sizeof why);
    if (errs) farm_diags_add(errs, path, 0, 0, "cannot read the plan: %s", why);
    return MAPF_EIO;
  }
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  int rc = MAPF_OK;
  while (buf) {
    if (len == cap) {
      if (cap > PLAN_MAX_BYTES) break; /* too big: farm_plan_parse says so */
      char *b = realloc(buf, cap * 2);
      if (!b) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = b;
      cap *= 2;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) {
      if (ferror(f)) rc = MAPF_EIO;
      break;
    }
  }
  fclose(f);
  if (!buf) {
    if (errs) farm_diags_add(errs, path, 0, 0, "out of memory reading the plan");
    return MAPF_ENOMEM;
  }
  if (rc != MAPF_OK) {
    free(buf);
    if (errs) farm_diags_add(errs, path, 0, 0, "cannot read the plan: read error");
    return rc;
  }
  rc = farm_plan_parse(buf, len, path, opts, out, errs);
  free(buf);
  return rc;
}
