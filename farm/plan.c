/* plan.c: reading and validating a YAML plan (README, "Plan format").
 *
 * Two passes. The first reads libyaml's event stream into a small tree of scalars, lists and
 * mappings that remembers every node's line and column; it refuses anchors and aliases (so a
 * plan can never expand into more than it says) and bounds the tree (nodes, depth, entries per
 * list). The second walks the tree section by section and checks every key and value against
 * the declarations in core/algo.h, core/mapgen.h and core/sim.h. It never stops at the first
 * mistake: every error goes to the caller's farm_diags as PLAN:LINE:COL (docs/design.md, Errors),
 * up to PLAN_MAX_ERRORS, and the plan is returned only when there were none.
 *
 * Beyond each value, the plan is checked for repetitions that would give two jobs the same key
 * (a map listed twice, an agent count in two scenarios, a zip row listed twice, a parameter
 * combination in two algorithm entries), and for its size: the job count is bounded before
 * anything runs.
 *
 * An algorithm entry is resolved completely here: `defaults` fold into its base parameters,
 * `zip` groups become tables of rows, `sample` is drawn (core/rng.h, one generator per
 * parameter seeded from the sample seed and the parameter's name) and its repeated draws
 * dropped, `exclude` is applied once over the raw combinations (at most PLAN_MAX_COMBOS in all),
 * leaving the ascending indices of the survivors, and a label template is parsed into pieces.
 * Decoding a combination (farm_algo_combo) is then O(parameters), with no allocation. */
#include "plan.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "algo.h"
#include "hash.h"
#include "rng.h"
#include "scen.h"
#include "scengen.h"
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
#define PLAN_MAX_SAMPLES 1000000          /* `count` of one sample */
#define PLAN_MAX_EXCLUDE_CHECKS 100000000LL /* exclude entries x combinations, in all */
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
  *out = v + 0.0; /* -0 is 0: equal values give equal key text */
  return 0;
}

void farm_format_real(double v, char *buf, size_t n) {
  v += 0.0; /* never "-0" in key text */
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
  farm_format_real(min, lo, sizeof lo);
  farm_format_real(max, hi, sizeof hi);
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

/* Whether something is at path, or we may not look: the loader then says what is wrong when it
 * is not a regular file we can read ("is a directory", "Permission denied"). */
static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
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
static char *resolve_file(pctx *c, const pnode *v, const char *dir, const farm_plan_opts *opts,
                          const char *what) {
  const char *rel = v->str;
  if (rel[0] == '/') {
    if (file_exists(rel)) return xstrdup(c, rel);
    perr(c, v->line, v->col, "%s not found: \"%s\"", what, rel);
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
  perr(c, v->line, v->col, "%s not found: \"%s\" (looked in: %s)", what, rel, looked);
  return NULL;
}

static char *resolve_map(pctx *c, const pnode *v, const char *dir, const farm_plan_opts *opts) {
  return resolve_file(c, v, dir, opts, "map file");
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

/* The keys of `generate`, declared once (plan.h): parse_generate reads only this table,
 * `mapfarm generators` lists it, and tests/test_plan.c checks that the defaults agree with
 * core/mapgen.c (mapf_mapgen_defaults). `kind` comes first: it decides which other keys
 * apply. */
#define GEN_RANDOM (1u << MAPF_MAPGEN_RANDOM)
#define GEN_ROOMS (1u << MAPF_MAPGEN_ROOMS)
#define GEN_MAZE (1u << MAPF_MAPGEN_MAZE)
#define GEN_ALL (GEN_RANDOM | GEN_ROOMS | GEN_MAZE)

typedef farm_gen_key gen_key;

static const gen_key gen_keys[] = {
    {"kind", FARM_GEN_KIND, 0, 0, 0, 1, GEN_ALL, offsetof(mapf_mapgen_params, kind),
     "the generator: random, rooms or maze"},
    {"width", FARM_GEN_INT, 1, MAPF_GRID_MAX_SIDE, 0, 1, GEN_ALL,
     offsetof(mapf_mapgen_params, width), "columns of the map"},
    {"height", FARM_GEN_INT, 1, MAPF_GRID_MAX_SIDE, 0, 1, GEN_ALL,
     offsetof(mapf_mapgen_params, height), "rows of the map"},
    {"density", FARM_GEN_REAL, 0, 0.9, 0.2, 0, GEN_RANDOM, offsetof(mapf_mapgen_params, density),
     "probability that a cell is blocked"},
    {"room", FARM_GEN_INT, 2, MAPF_GRID_MAX_SIDE, 8, 0, GEN_ROOMS,
     offsetof(mapf_mapgen_params, room), "side of a room's interior, in cells"},
    {"doors", FARM_GEN_INT, 1, MAPF_GRID_MAX_SIDE, 1, 0, GEN_ROOMS,
     offsetof(mapf_mapgen_params, doors), "one-cell openings in each wall between two rooms"},
    {"corridor", FARM_GEN_INT, 1, MAPF_GRID_MAX_SIDE, 1, 0, GEN_MAZE,
     offsetof(mapf_mapgen_params, corridor), "width of corridors and walls, in cells"},
    {"seed", FARM_GEN_U64, 0, 0, 0, 0, GEN_ALL, offsetof(mapf_mapgen_params, seed),
     "the map's seed (the plan's seed does not change it)"},
};

#define GEN_NKEYS ((int32_t)(sizeof gen_keys / sizeof gen_keys[0]))

int32_t farm_gen_key_count(void) { return GEN_NKEYS; }

const farm_gen_key *farm_gen_key_at(int32_t i) {
  return i >= 0 && i < GEN_NKEYS ? &gen_keys[i] : NULL;
}

/* Stores x in the field of p that key k names. */
static void gen_set(mapf_mapgen_params *p, const gen_key *k, double x, uint64_t u) {
  char *field = (char *)p + k->offset;
  switch (k->type) {
  case FARM_GEN_INT:
    *(int32_t *)(void *)field = (int32_t)x;
    break;
  case FARM_GEN_REAL:
    *(double *)(void *)field = x;
    break;
  case FARM_GEN_U64:
    *(uint64_t *)(void *)field = u;
    break;
  default:
    break;
  }
}

/* `generate: {kind, width, height, ...}`, checked against gen_keys. The map seed defaults to 0
 * and does not depend on the plan seed: the same generate entry gives the same map in every
 * plan. */
static void parse_generate(pctx *c, farm_map_spec *ms, const pnode *g) {
  static const char *const kinds[3] = {"random", "rooms", "maze"};
  const char *keys[GEN_NKEYS];
  for (int32_t i = 0; i < GEN_NKEYS; i++) keys[i] = gen_keys[i].name;
  char fbuf[80], h[480];
  int32_t before = c->nfail;
  kv f[GEN_NKEYS];
  walk_map(c, g, keys, GEN_NKEYS, f, "generate");
  int kind = -1;
  if (require(c, g, &f[0], "kind", "generate") == 0) {
    const pnode *v = f[0].val;
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
  for (int32_t i = 1; i < GEN_NKEYS; i++) {
    const gen_key *k = &gen_keys[i];
    if (k->required)
      require(c, g, &f[i], k->name, "generate");
    else if (kind >= 0 && (k->kinds >> kind & 1u))
      gen_set(p, k, k->def, (uint64_t)k->def);
  }
  for (int32_t i = 1; i < GEN_NKEYS; i++) {
    const gen_key *k = &gen_keys[i];
    const pnode *v = f[i].val;
    if (!v) continue;
    if (kind >= 0 && !(k->kinds >> kind & 1u)) {
      perr(c, f[i].key->line, f[i].key->col, "key \"%s\" does not apply to kind %s", k->name,
           kinds[kind]);
      continue;
    }
    long long x;
    double r;
    uint64_t u;
    switch (k->type) {
    case FARM_GEN_INT:
      if (get_int(c, v, k->name, (long long)k->min, (long long)k->max, &x) == 0)
        gen_set(p, k, (double)x, 0);
      break;
    case FARM_GEN_REAL:
      if (get_real(c, v, k->name, k->min, k->max, &r) == 0) gen_set(p, k, r, 0);
      break;
    case FARM_GEN_U64:
      if (get_u64(c, v, k->name, &u) == 0) gen_set(p, k, 0, u);
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
  int32_t group;      /* scenarios of one generator configuration share a group */
  int32_t agents;
  int32_t scen, item; /* item: index of the list entry, or -1 */
} agent_at;

static int cmp_agent_at(const void *a, const void *b) {
  const agent_at *x = a, *y = b;
  if (x->group != y->group) return (x->group > y->group) - (x->group < y->group);
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
    for (int32_t i = 0; i < n; i++) a[i] = (agent_at){0, ss->agents[i], 0, i};
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

static int parse_single(pctx *c, const mapf_algo_def *def, int32_t i, const pnode *v,
                        double *out);

/* `params` of a scenario: single values of the generator's declared parameters (a sweep over
 * them is one scenario entry per value). Fills ss->gparams, ss->generator and
 * ss->generator_key. */
static void parse_gen_params(pctx *c, farm_scen_spec *ss, const pnode *v) {
  char fbuf[80];
  const mapf_scengen_def *gd = ss->gdef;
  const mapf_algo_def *view = gd->view;
  mapf_scengen_params_default(gd, &ss->gparams);
  if (v && !bad(c, v)) {
    if (v->kind != PN_MAP) {
      perr(c, v->line, v->col, "params: expected a mapping of %s's parameters, found %s",
           gd->name, FOUND(v));
    } else if (gd->nparams == 0) {
      if (node_pairs(v) > 0)
        perr(c, v->line, v->col, "params: generator %s has no parameters", gd->name);
    } else {
      const char *names[MAPF_MAX_PARAMS];
      for (int32_t i = 0; i < gd->nparams; i++) names[i] = gd->params[i].name;
      char in[64];
      snprintf(in, sizeof in, "params of %s", gd->name);
      kv f[MAPF_MAX_PARAMS];
      walk_map(c, v, names, gd->nparams, f, in);
      for (int32_t i = 0; i < gd->nparams; i++)
        if (f[i].val) parse_single(c, view, i, f[i].val, &ss->gparams.v[i]);
    }
  }
  char json[1024], text[1100];
  if (gd->nparams == 0) {
    ss->generator = xstrdup(c, gd->name);
    ss->generator_key = xstrdup(c, gd->name);
    return;
  }
  mapf_params_json(view, &ss->gparams, json, sizeof json);
  snprintf(text, sizeof text, "%s %s", gd->name, json);
  ss->generator_key = xstrdup(c, text);
  mapf_params def;
  mapf_scengen_params_default(gd, &def);
  int all_default = 1;
  for (int32_t i = 0; i < gd->nparams; i++) all_default &= def.v[i] == ss->gparams.v[i];
  ss->generator = xstrdup(c, all_default ? gd->name : text);
}

/* `scenarios`. An agent count in two scenarios of the same generator configuration is an
 * error: their instances would have the same keys. */
/* `generator: scen` with `file`: loads the scenario file and names the configuration by the
 * content of its problems (so a moved or reformatted file keeps its jobs' keys). */
static void parse_scen_file(pctx *c, farm_scen_spec *ss, const pnode *file, const char *dir,
                            const farm_plan_opts *opts) {
  const char *rel = get_str(c, file, "file");
  if (!rel) return;
  ss->scen_path = resolve_file(c, file, dir, opts, "scenario file");
  if (!ss->scen_path) return;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  if (mapf_scen_load(ss->scen_path, NULL, 0, &ss->scen, &d) != MAPF_OK) {
    /* As a map's error reads: "cannot load scenario: F: is a directory", "... F:3:7: ...". */
    if (d.line > 0)
      perr(c, file->line, file->col, "cannot load scenario: %s:%d:%d: %s", d.file, d.line,
           d.col, d.msg);
    else
      perr(c, file->line, file->col, "cannot load scenario: %s: %s", d.file, d.msg);
    ss->scen = NULL;
    return;
  }
  if (ss->scen->n == 0) {
    perr(c, file->line, file->col, "scenario file \"%s\" has no problems", rel);
    return;
  }
  uint64_t h = 0;
  for (int32_t i = 0; i < ss->scen->n; i++) {
    const mapf_scen_entry *e = &ss->scen->entries[i];
    int32_t w[6] = {e->width, e->height, e->sx, e->sy, e->gx, e->gy};
    h = mapf_hash64(w, sizeof w, h);
  }
  char text[600];
  const char *base = strrchr(rel, '/');
  snprintf(text, sizeof text, "scen %s", base ? base + 1 : rel);
  ss->generator = xstrdup(c, text);
  snprintf(text, sizeof text, "scen %016llx", (unsigned long long)h);
  ss->generator_key = xstrdup(c, text);
}

static void parse_scenarios(pctx *c, farm_plan *plan, const pnode *v, const char *dir,
                            const farm_plan_opts *opts) {
  static const char *const keys[] = {"generator", "agents", "instances", "params", "file"};
  const char *generators[64];
  int32_t ngen = mapf_scengen_count();
  for (int32_t i = 0; i < ngen && i < 63; i++) generators[i] = mapf_scengen_at(i)->name;
  generators[ngen < 63 ? ngen++ : 63] = "scen";
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
    kv f[5];
    walk_map(c, it, keys, 5, f, "scenario");
    const char *gen = "random";
    if (f[0].val) {
      const pnode *g = f[0].val;
      gen = get_str(c, g, "generator");
      if (gen && strcmp(gen, "scen") != 0 && !mapf_scengen_find(gen)) {
        hint(gen, generators, ngen, h, sizeof h);
        perr(c, g->line, g->col, "unknown scenario generator \"%s\"%s", gen, h);
        gen = NULL;
      }
    }
    int from_file = gen && strcmp(gen, "scen") == 0;
    if (from_file) {
      if (f[3].val)
        perr(c, f[3].key->line, f[3].key->col, "params: generator scen has no parameters");
      if (require(c, it, &f[4], "file", "scenario") == 0) parse_scen_file(c, ss, f[4].val, dir, opts);
    } else if (f[4].val) {
      perr(c, f[4].key->line, f[4].key->col, "file: only generator scen reads a file");
    }
    if (gen && !from_file) {
      ss->gdef = mapf_scengen_find(gen);
      parse_gen_params(c, ss, f[3].val);
    }
    if (from_file && !f[1].val) {
      /* One single-agent problem per line. */
      ss->scen_single = 1;
      ss->agents = malloc(sizeof *ss->agents);
      if (!ss->agents) {
        perr_fatal_oom(c);
        continue;
      }
      ss->agents[0] = 1;
      ss->nagents = 1;
      total += 1;
    } else if (require(c, it, &f[1], "agents", "scenario") == 0) {
      parse_agents(c, ss, f[1].val);
      agents_node[s] = f[1].val;
      total += ss->nagents;
    }
    long long x;
    if (f[2].val && get_int(c, f[2].val, "instances", 1, PLAN_MAX_INSTANCES, &x) == 0)
      ss->instances = (int32_t)x;
    if (from_file && ss->scen) {
      int32_t lines = ss->scen->n;
      if (ss->scen_single) {
        if (!f[2].val) ss->instances = lines; /* every line */
        if (ss->instances > lines)
          perr(c, f[2].val->line, f[2].val->col,
               "instances: %d, but the scenario file has %d problems", (int)ss->instances,
               (int)lines);
      } else {
        if (f[2].val && ss->instances != 1)
          perr(c, f[2].val->line, f[2].val->col,
               "instances: a scenario file with `agents` gives one instance per agent count (its "
               "first lines); remove `agents` for one single-agent problem per line");
        for (int32_t i = 0; i < ss->nagents; i++)
          if (ss->agents[i] > lines) {
            perr(c, f[1].val->line, f[1].val->col,
                 "agents: %d, but the scenario file has %d lines", (int)ss->agents[i],
                 (int)lines);
            break;
          }
      }
    }
  }
  if (!c->stop && total > PLAN_MAX_AGENT_COUNTS)
    perr(c, v->line, v->col, "scenarios: %lld agent counts in all; at most %d are allowed", total,
         PLAN_MAX_AGENT_COUNTS);
  if (c->stop || total > PLAN_MAX_AGENT_COUNTS) {
    free(agents_node);
    return;
  }
  /* Agent counts shared between scenarios of one generator configuration, over the scenarios
   * whose counts are valid: O(T log T) for T counts in all (and O(S^2) to group S scenarios). */
  agent_at *a = malloc((size_t)(total ? total : 1) * sizeof *a);
  if (!a) {
    free(agents_node);
    perr_fatal_oom(c);
    return;
  }
  int32_t n = 0;
  for (int32_t s = 0; s < plan->nscens; s++) {
    int32_t group = s;
    const char *gk = plan->scens[s].generator_key;
    for (int32_t t = 0; t < s && gk; t++)
      if (plan->scens[t].generator_key && strcmp(plan->scens[t].generator_key, gk) == 0) {
        group = t;
        break;
      }
    for (int32_t i = 0; i < plan->scens[s].nagents; i++)
      a[n++] = (agent_at){group, plan->scens[s].agents[i], s, i};
  }
  qsort(a, (size_t)n, sizeof *a, cmp_agent_at);
  char reported[PLAN_MAX_SCENARIOS] = {0};
  int32_t run = 0;
  for (int32_t i = 1; i < n; i++) {
    if (a[i].agents != a[i - 1].agents || a[i].group != a[i - 1].group) run = i;
    if (a[i].scen == a[run].scen || reported[a[i].scen]) continue;
    /* One message per later scenario, naming the earliest scenario with that count. */
    const farm_scen_spec *first = &plan->scens[a[run].scen];
    /* A scenario file without `agents` has no agents node: point at the scenario. */
    const pnode *an = agents_node[a[i].scen];
    const farm_scen_spec *later = &plan->scens[a[i].scen];
    perr(c, an ? an->line : later->line, an ? an->col : later->col,
         "agents: %d is also in the scenario at line %d, column %d; its "
         "instances would run twice",
         (int)a[i].agents, first->line, first->col);
    reported[a[i].scen] = 1;
  }
  free(a);
  free(agents_node);
}

/* ---- algorithms ------------------------------------------------------------------------- */

/* Sets the parameters of row `row` of table t in p. */
static void table_row(const farm_param_table *t, int64_t row, mapf_params *p) {
  const double *v = t->values + row * t->ncols;
  for (int32_t k = 0; k < t->ncols; k++) p->v[t->index[k]] = v[k];
}

/* Fills p with as->base and the values of raw combination `raw`: mixed radix with the params
 * axes outermost (the first named first), then the zip groups, then the sampled
 * configurations. farm_space_job decodes through farm_algo_combo, so both agree. */
static void raw_params(const farm_algo_spec *as, int64_t raw, mapf_params *p) {
  *p = as->base;
  if (as->sample.nrows > 0) {
    table_row(&as->sample, raw % as->sample.nrows, p);
    raw /= as->sample.nrows;
  }
  for (int32_t z = as->nzips - 1; z >= 0; z--) {
    table_row(&as->zips[z], raw % as->zips[z].nrows, p);
    raw /= as->zips[z].nrows;
  }
  for (int32_t a = as->naxes - 1; a >= 0; a--) {
    const farm_param_axis *ax = &as->axes[a];
    p->v[ax->index] = ax->values[raw % ax->nvalues];
    raw /= ax->nvalues;
  }
}

void farm_algo_combo(const farm_algo_spec *as, int64_t combo, mapf_params *p) {
  raw_params(as, as->keep ? as->keep[combo] : combo, p);
}

int farm_algo_label(const farm_algo_spec *as, const mapf_params *p, char *buf, size_t n) {
  if (!as->label_template) return snprintf(buf, n, "%s", as->label ? as->label : "");
  size_t len = 0;
  char val[64];
  for (int32_t i = 0; i < as->nlabel_parts; i++) {
    const farm_label_part *part = &as->label_parts[i];
    const char *s = as->label_text + part->off;
    size_t k = (size_t)part->len;
    if (part->param >= 0) {
      /* An enumeration's choice without the JSON quotes: a label reads "RTHS lop=median". */
      const char *choice = mapf_param_choice(as->def, part->param, p->v[part->param]);
      int w = choice ? snprintf(val, sizeof val, "%s", choice)
                     : mapf_param_format(as->def, part->param, p->v[part->param], val, sizeof val);
      s = val;
      k = w < 0 ? 0 : (size_t)w < sizeof val ? (size_t)w : sizeof val - 1;
    }
    if (len < n) memcpy(buf + len, s, len + k < n ? k : n - len);
    len += k;
  }
  if (n) buf[len < n ? len : n - 1] = '\0';
  return (int)len;
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

/* Parses the scalar v as a value of parameter i of def: type and declared range through the
 * registry (mapf_param_parse), so `sqrt(2)` and 1.4142135623730951 are one value. Returns 0,
 * or -1 (reported, with the registry's "expected ..., found ..."). */
static int parse_value(pctx *c, const mapf_algo_def *def, int32_t i, const pnode *v, double *out) {
  char fbuf[80];
  const mapf_param_def *pd = &def->params[i];
  if (bad(c, v)) return -1;
  if (v->kind != PN_SCALAR || is_null(v)) {
    perr(c, v->line, v->col, "%s: expected a value, found %s", pd->name, FOUND(v));
    return -1;
  }
  /* YAML writes booleans also as True, TRUE, Yes, ON...: the registry takes lower case. */
  char lower[8];
  const char *text = v->str;
  size_t len = strlen(text);
  if (pd->type == MAPF_PARAM_BOOL && v->plain && len < sizeof lower) {
    for (size_t j = 0; j <= len; j++)
      lower[j] = text[j] >= 'A' && text[j] <= 'Z' ? (char)(text[j] - 'A' + 'a') : text[j];
    text = lower;
  }
  mapf_diag d;
  memset(&d, 0, sizeof d);
  if (mapf_param_parse(def, i, text, out, &d) == MAPF_OK) return 0;
  if (text != v->str) /* the message quotes the value as written */
    mapf_param_parse(def, i, v->str, out, &d);
  perr(c, v->line, v->col, "%s", d.msg);
  return -1;
}

/* One value, not a list (`defaults`, `exclude`). */
static int parse_single(pctx *c, const mapf_algo_def *def, int32_t i, const pnode *v,
                        double *out) {
  char fbuf[80];
  if (bad(c, v)) return -1;
  if (v->kind == PN_SEQ || v->kind == PN_MAP) {
    perr(c, v->line, v->col, "%s: expected a single value, found %s", def->params[i].name,
         FOUND(v));
    return -1;
  }
  return parse_value(c, def, i, v, out);
}

/* Values of parameter i: a non-empty list, or (scalar_ok) one value. With `unique`, a value
 * given twice (as parsed: 1 and 1.0 are one value) is an error at the later one. Returns the
 * count and the values in *out (malloc'd), or -1 (reported; *out NULL). O(n log n). */
static int32_t parse_values(pctx *c, const mapf_algo_def *def, int32_t i, const pnode *v,
                            int scalar_ok, int unique, double **out) {
  char fbuf[80];
  const mapf_param_def *pd = &def->params[i];
  *out = NULL;
  if (bad(c, v)) return -1;
  int32_t n = v->kind == PN_SEQ ? v->nkids : 1;
  if (v->kind == PN_MAP || n <= 0 || is_null(v) || (!scalar_ok && v->kind != PN_SEQ)) {
    if (scalar_ok)
      perr(c, v->line, v->col, "%s: expected a value or a non-empty list of values, found %s",
           pd->name, FOUND(v));
    else
      perr(c, v->line, v->col, "%s: expected a non-empty list of values, found %s", pd->name,
           FOUND(v));
    return -1;
  }
  double *values = malloc((size_t)n * sizeof *values);
  if (!values) {
    perr_fatal_oom(c);
    return -1;
  }
  int32_t before = c->nfail;
  for (int32_t k = 0; k < n; k++)
    parse_value(c, def, i, v->kind == PN_SEQ ? v->kids[k] : v, &values[k]);
  if (c->nfail != before) {
    free(values);
    return -1;
  }
  if (unique && n > 1) {
    value_at *sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted) {
      free(values);
      perr_fatal_oom(c);
      return -1;
    }
    for (int32_t k = 0; k < n; k++) sorted[k] = (value_at){values[k], k};
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_value_at);
    for (int32_t k = 1; k < n; k++) {
      if (sorted[k].v != sorted[k - 1].v) continue;
      char val[64];
      const pnode *it = v->kids[sorted[k].i];
      mapf_param_format(def, i, sorted[k].v, val, sizeof val);
      perr(c, it->line, it->col, "%s: %s is listed twice", pd->name, val);
    }
    free(sorted);
    if (c->nfail != before) {
      free(values);
      return -1;
    }
  }
  *out = values;
  return n;
}

/* Where an entry varies a parameter. */
enum { SRC_BASE, SRC_AXIS, SRC_ZIP, SRC_SAMPLE };
static const char *const src_names[] = {"defaults", "params", "zip", "sample"};

enum { DIST_UNIFORM, DIST_LOGUNIFORM, DIST_CHOICE, DIST_N };
static const char *const dist_names[DIST_N] = {"uniform", "loguniform", "choice"};

/* A distribution of `sample`. */
typedef struct dist {
  int kind;
  double lo, hi;   /* uniform, loguniform: inclusive bounds, checked against the declared range */
  double *choices; /* choice: distinct values */
  int32_t nchoices;
} dist;

/* A partial assignment of `exclude`. */
typedef struct excl {
  int32_t n;
  int32_t index[MAPF_MAX_PARAMS];
  double value[MAPF_MAX_PARAMS];
} excl;

/* What parsing one algorithm entry needs beyond its farm_algo_spec. */
typedef struct entry {
  farm_algo_spec *as;
  const char *names[MAPF_MAX_PARAMS]; /* the algorithm's parameter names, for suggestions */
  char in[96];                        /* scratch for "params of bmaa" and the like */
  const pnode *src_key[MAPF_MAX_PARAMS]; /* where the entry varies parameter i; NULL: base */
  int src[MAPF_MAX_PARAMS];
  int32_t src_at[MAPF_MAX_PARAMS];    /* axis or zip group */
  int32_t src_col[MAPF_MAX_PARAMS];   /* column of the zip group or the sample */
  dist dists[MAPF_MAX_PARAMS];        /* by column of the sample */
  excl *excls;
  int32_t nexcl;
  uint32_t varied; /* bit i: parameter i takes more than one value over the combinations */
} entry;

static void entry_free(entry *e) {
  for (int32_t k = 0; k < MAPF_MAX_PARAMS; k++) free(e->dists[k].choices);
  free(e->excls);
}

/* Records that the entry varies parameter i at key (params, zip or sample). A parameter varied
 * in two places is an error at the later one: its values would be ambiguous. */
static int claim(pctx *c, entry *e, int32_t i, const pnode *key, int src, int32_t at,
                 int32_t col) {
  if (e->src_key[i]) {
    perr(c, key->line, key->col,
         "%s: already varied in %s (line %d, column %d); a parameter may be in only one of "
         "params, zip and sample",
         e->as->def->params[i].name, src_names[e->src[i]], e->src_key[i]->line,
         e->src_key[i]->col);
    return -1;
  }
  e->src_key[i] = key;
  e->src[i] = src;
  e->src_at[i] = at;
  e->src_col[i] = col;
  return 0;
}

/* `params` of one algorithm entry: each named parameter is an axis (a value or a list), in
 * plan order. */
static void parse_params(pctx *c, entry *e, const kv *pf) {
  char fbuf[80];
  farm_algo_spec *as = e->as;
  const mapf_algo_def *def = as->def;
  const pnode *m = pf->val;
  if (is_null(m) || bad(c, m)) return;
  if (m->kind != PN_MAP) {
    perr(c, m->line, m->col, "params: expected a mapping of parameter names to values, found %s",
         FOUND(m));
    return;
  }
  snprintf(e->in, sizeof e->in, "params of %s", def->name);
  kv f[MAPF_MAX_PARAMS];
  walk_map(c, m, e->names, def->nparams, f, e->in);
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
    if (claim(c, e, i, k, SRC_AXIS, as->naxes, 0) != 0) continue;
    farm_param_axis *ax = &as->axes[as->naxes++];
    ax->index = i;
    int32_t n = parse_values(c, def, i, f[i].val, 1, 1, &ax->values);
    if (n > 0) ax->nvalues = n;
  }
}

typedef struct row_at {
  mapf_hash128 h;
  int32_t i;
} row_at;

static int cmp_row_at(const void *a, const void *b) {
  const row_at *x = a, *y = b;
  if (x->h.hi != y->h.hi) return (x->h.hi > y->h.hi) - (x->h.hi < y->h.hi);
  if (x->h.lo != y->h.lo) return (x->h.lo > y->h.lo) - (x->h.lo < y->h.lo);
  return (x->i > y->i) - (x->i < y->i);
}

/* Finds the rows of t equal to an earlier row (bit for bit, as job keys would see them): sorts
 * rows by a hash of their values and compares neighbours with equal hashes. Returns a fresh
 * array: for each row, the index of the earliest row equal to it (itself when none); NULL when
 * out of memory. O(R log R) for R rows. */
static int32_t *table_repeats(const farm_param_table *t) {
  int32_t n = t->nrows;
  row_at *r = malloc((size_t)(n ? n : 1) * sizeof *r);
  int32_t *first = malloc((size_t)(n ? n : 1) * sizeof *first);
  if (!r || !first) {
    free(r);
    free(first);
    return NULL;
  }
  size_t bytes = (size_t)t->ncols * sizeof *t->values;
  for (int32_t i = 0; i < n; i++) {
    r[i] = (row_at){mapf_hash128_of(t->values + (size_t)i * (size_t)t->ncols, bytes), i};
    first[i] = i;
  }
  qsort(r, (size_t)n, sizeof *r, cmp_row_at);
  for (int32_t i = 1; i < n; i++) {
    /* Within a run of equal hashes (in row order), the earliest equal row. */
    for (int32_t j = i - 1; j >= 0 && r[j].h.hi == r[i].h.hi && r[j].h.lo == r[i].h.lo; j--) {
      const double *a = t->values + (size_t)r[i].i * (size_t)t->ncols;
      const double *b = t->values + (size_t)r[j].i * (size_t)t->ncols;
      if (memcmp(a, b, bytes) == 0) first[r[i].i] = first[r[j].i];
    }
  }
  free(r);
  return first;
}

/* Writes "expansions 16, moves 8" for row `row` of t. */
static void table_row_text(const mapf_algo_def *def, const farm_param_table *t, int32_t row,
                           char *buf, size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int32_t k = 0; k < t->ncols && len < n; k++) {
    char val[64];
    mapf_param_format(def, t->index[k], t->values[(size_t)row * (size_t)t->ncols + (size_t)k],
                      val, sizeof val);
    int w = snprintf(buf + len, n - len, "%s%s %s", k ? ", " : "", def->params[t->index[k]].name,
                     val);
    if (w < 0) break;
    len += (size_t)w;
  }
}

/* One zip group: a mapping of parameter names to lists of one length; row r takes the r-th
 * value of every list. A row given twice is an error (its jobs would repeat). */
static void parse_zip_group(pctx *c, entry *e, int32_t z, const pnode *g) {
  char fbuf[80];
  const mapf_algo_def *def = e->as->def;
  farm_param_table *t = &e->as->zips[z];
  if (bad(c, g)) return;
  if (g->kind != PN_MAP || g->nkids == 0) {
    perr(c, g->line, g->col, "zip: expected a mapping of parameter names to lists, found %s",
         FOUND(g));
    return;
  }
  int32_t before = c->nfail;
  snprintf(e->in, sizeof e->in, "zip of %s", def->name);
  kv f[MAPF_MAX_PARAMS];
  walk_map(c, g, e->names, def->nparams, f, e->in);
  double *cols[MAPF_MAX_PARAMS];
  int32_t lens[MAPF_MAX_PARAMS];
  const pnode *nodes[MAPF_MAX_PARAMS];
  int32_t ncols = 0;
  for (int32_t p = 0; p < node_pairs(g) && !c->stop; p++) {
    const pnode *k = g->kids[2 * p];
    if (k->kind != PN_SCALAR) continue;
    int32_t i = mapf_param_index(def, k->str);
    if (i < 0 || f[i].key != k) continue;
    if (claim(c, e, i, k, SRC_ZIP, z, ncols) != 0) continue;
    double *vals = NULL;
    int32_t n = parse_values(c, def, i, f[i].val, 0, 0, &vals);
    if (n < 0) continue;
    t->index[ncols] = i;
    cols[ncols] = vals;
    lens[ncols] = n;
    nodes[ncols] = f[i].val;
    ncols++;
  }
  for (int32_t k = 1; k < ncols; k++)
    if (lens[k] != lens[0])
      perr(c, nodes[k]->line, nodes[k]->col,
           "zip: %s has %d values and %s has %d; the lists of a zip group must have equal "
           "lengths",
           def->params[t->index[k]].name, (int)lens[k], def->params[t->index[0]].name,
           (int)lens[0]);
  if (c->nfail == before && ncols > 0) {
    t->values = malloc((size_t)lens[0] * (size_t)ncols * sizeof *t->values);
    if (!t->values) {
      perr_fatal_oom(c);
    } else {
      for (int32_t r = 0; r < lens[0]; r++)
        for (int32_t k = 0; k < ncols; k++) t->values[(size_t)r * (size_t)ncols + (size_t)k] = cols[k][r];
      t->ncols = ncols;
      t->nrows = lens[0];
      int32_t *first = table_repeats(t);
      if (!first) perr_fatal_oom(c);
      for (int32_t r = 0; first && r < t->nrows; r++) {
        if (first[r] == r) continue;
        char row[400];
        table_row_text(def, t, r, row, sizeof row);
        const pnode *at = nodes[0]->kids[r];
        perr(c, at->line, at->col, "zip: %s is listed twice (positions %d and %d)", row,
             (int)first[r] + 1, (int)r + 1);
      }
      free(first);
    }
  }
  for (int32_t k = 0; k < ncols; k++) free(cols[k]);
}

/* `zip`: one group (a mapping) or a list of groups. */
static void parse_zip(pctx *c, entry *e, const kv *zf) {
  char fbuf[80];
  const pnode *v = zf->val;
  if (bad(c, v)) return;
  int32_t n = v->kind == PN_MAP && v->nkids ? 1 : v->kind == PN_SEQ ? v->nkids : 0;
  if (n == 0) {
    perr(c, v->line, v->col,
         "zip: expected a mapping of parameter names to lists, or a list of such mappings, "
         "found %s",
         FOUND(v));
    return;
  }
  e->as->zips = calloc((size_t)n, sizeof *e->as->zips);
  if (!e->as->zips) {
    perr_fatal_oom(c);
    return;
  }
  e->as->nzips = n;
  for (int32_t z = 0; z < n && !c->stop; z++)
    parse_zip_group(c, e, z, v->kind == PN_MAP ? v : v->kids[z]);
}

/* One distribution of `sample` for parameter i: {uniform: [lo, hi]}, {loguniform: [lo, hi]} or
 * {choice: [values]}. Bounds and choices are checked against the declared type and range, so
 * no draw can leave it. */
static void parse_dist(pctx *c, entry *e, int32_t i, const pnode *v, dist *d) {
  char fbuf[80], in[96];
  const mapf_algo_def *def = e->as->def;
  const mapf_param_def *pd = &def->params[i];
  if (bad(c, v)) return;
  if (v->kind != PN_MAP || v->nkids == 0) {
    perr(c, v->line, v->col,
         "%s: expected a distribution ({uniform: [lo, hi]}, {loguniform: [lo, hi]} or "
         "{choice: [values]}), found %s",
         pd->name, FOUND(v));
    return;
  }
  snprintf(in, sizeof in, "distribution of %s", pd->name);
  kv f[DIST_N];
  walk_map(c, v, dist_names, DIST_N, f, in);
  int kind = -1;
  for (int k = 0; k < DIST_N; k++) {
    if (!f[k].key) continue;
    if (kind < 0) {
      kind = k;
    } else {
      perr(c, f[k].key->line, f[k].key->col, "%s: expected one distribution, found %s and %s",
           pd->name, dist_names[kind], dist_names[k]);
      return;
    }
  }
  if (kind < 0) return; /* only unknown keys: reported */
  d->kind = kind;
  const pnode *r = f[kind].val;
  if (kind == DIST_CHOICE) {
    int32_t n = parse_values(c, def, i, r, 1, 1, &d->choices);
    if (n > 0) d->nchoices = n;
    return;
  }
  if (pd->type == MAPF_PARAM_BOOL) {
    perr(c, f[kind].key->line, f[kind].key->col, "%s: %s is a boolean; use choice: [false, true]",
         dist_names[kind], pd->name);
    return;
  }
  if (pd->type == MAPF_PARAM_ENUM) {
    char list[256];
    mapf_param_choice_list(pd, list, sizeof list);
    perr(c, f[kind].key->line, f[kind].key->col, "%s: %s is an enumeration; use choice: [%s]",
         dist_names[kind], pd->name, list);
    return;
  }
  if (bad(c, r)) return;
  if (r->kind != PN_SEQ || r->nkids != 2) {
    perr(c, r->line, r->col, "%s: expected [lo, hi], found %s", dist_names[kind], FOUND(r));
    return;
  }
  if ((parse_value(c, def, i, r->kids[0], &d->lo) | parse_value(c, def, i, r->kids[1], &d->hi)) !=
      0)
    return;
  char lo[64], hi[64];
  mapf_param_format(def, i, d->lo, lo, sizeof lo);
  mapf_param_format(def, i, d->hi, hi, sizeof hi);
  if (!(d->lo < d->hi))
    perr(c, r->line, r->col, "%s: expected lo < hi, found [%s, %s]", dist_names[kind], lo, hi);
  else if (kind == DIST_LOGUNIFORM && !(d->lo > 0))
    perr(c, r->line, r->col, "loguniform: expected lo > 0, found [%s, %s]", lo, hi);
}

/* `sample: {count, seed, params}`: the distributions are parsed here; the draws are made by
 * draw_sample once the entry is known to be valid and within bounds. */
static void parse_sample(pctx *c, entry *e, const kv *sf) {
  static const char *const keys[] = {"count", "seed", "params"};
  char fbuf[80];
  farm_algo_spec *as = e->as;
  const mapf_algo_def *def = as->def;
  const pnode *v = sf->val;
  if (bad(c, v)) return;
  if (v->kind != PN_MAP) {
    perr(c, v->line, v->col, "sample: expected a mapping (count, seed, params), found %s",
         FOUND(v));
    return;
  }
  kv f[3];
  walk_map(c, v, keys, 3, f, "sample");
  long long x;
  if (require(c, v, &f[0], "count", "sample") == 0 &&
      get_int(c, f[0].val, "count", 1, PLAN_MAX_SAMPLES, &x) == 0)
    as->sample_count = (int32_t)x;
  if (f[1].val) get_u64(c, f[1].val, "seed", &as->sample_seed);
  if (require(c, v, &f[2], "params", "sample") != 0) return;
  const pnode *m = f[2].val;
  if (bad(c, m)) return;
  if (m->kind != PN_MAP || m->nkids == 0) {
    perr(c, m->line, m->col,
         "params: expected a mapping of parameter names to distributions, found %s", FOUND(m));
    return;
  }
  snprintf(e->in, sizeof e->in, "sample params of %s", def->name);
  kv fp[MAPF_MAX_PARAMS];
  walk_map(c, m, e->names, def->nparams, fp, e->in);
  farm_param_table *t = &as->sample;
  for (int32_t p = 0; p < node_pairs(m) && !c->stop; p++) {
    const pnode *k = m->kids[2 * p];
    if (k->kind != PN_SCALAR) continue;
    int32_t i = mapf_param_index(def, k->str);
    if (i < 0 || fp[i].key != k) continue;
    if (claim(c, e, i, k, SRC_SAMPLE, 0, t->ncols) != 0) continue;
    parse_dist(c, e, i, fp[i].val, &e->dists[t->ncols]);
    t->index[t->ncols++] = i;
  }
}

/* Rounds x to 12 significant digits. exp and log are not correctly rounded on every C
 * library; rounding their result keeps log-uniform draws (and so job keys) the same on every
 * platform unless a result falls within an ulp of a 12-digit boundary. */
static double round12(double x) {
  char buf[40];
  snprintf(buf, sizeof buf, "%.11e", x);
  return strtod(buf, NULL);
}

/* One draw of distribution d for parameter pd, inside [lo, hi] (or among the choices).
 * uniform: a real lo + (hi - lo) u, u in [0, 1) with 53 bits (exact IEEE arithmetic, the same
 * everywhere), or for an int a uniform integer in [lo, hi]; loguniform: exp of a uniform in
 * [log lo, log hi] rounded to 12 digits, or for an int the floor of one in [lo, hi + 1). */
static double draw(const dist *d, const mapf_param_def *pd, mapf_rng *r) {
  if (d->kind == DIST_CHOICE) return d->choices[mapf_rng_below(r, (uint64_t)d->nchoices)];
  double x, span = d->hi - d->lo;
  if (d->kind == DIST_UNIFORM) {
    if (pd->type == MAPF_PARAM_INT && span < 9007199254740992.0) /* 2^53 */
      return d->lo + (double)mapf_rng_below(r, (uint64_t)span + 1);
    double u = mapf_rng_double(r);
    x = d->lo + span * u;
    if (!isfinite(x)) x = d->lo * (1 - u) + d->hi * u; /* a span beyond DBL_MAX */
    if (pd->type == MAPF_PARAM_INT) x = floor(x);
  } else {
    double top = pd->type == MAPF_PARAM_INT ? d->hi + 1 : d->hi;
    x = round12(exp(log(d->lo) + (log(top) - log(d->lo)) * mapf_rng_double(r)));
    if (pd->type == MAPF_PARAM_INT) x = floor(x);
  }
  return x < d->lo ? d->lo : x > d->hi ? d->hi : x;
}

/* Draws as->sample_count configurations and keeps the distinct ones, in draw order. Each
 * parameter has its own generator, seeded from the sample seed and the parameter's name only:
 * its draws do not depend on the other parameters, the entry's position or the plan, and a
 * larger count keeps the first draws. O(count x parameters) time and memory, then O(count log
 * count) for the repeats. Returns 0, or -1 out of memory (reported). */
static int draw_sample(pctx *c, entry *e) {
  farm_algo_spec *as = e->as;
  farm_param_table *t = &as->sample;
  int32_t n = as->sample_count, m = t->ncols;
  t->values = malloc((size_t)n * (size_t)m * sizeof *t->values);
  if (!t->values) {
    perr_fatal_oom(c);
    return -1;
  }
  for (int32_t k = 0; k < m; k++) {
    const mapf_param_def *pd = &as->def->params[t->index[k]];
    mapf_rng r;
    mapf_rng_seed(&r, mapf_hash64(pd->name, strlen(pd->name), as->sample_seed));
    for (int32_t row = 0; row < n; row++)
      t->values[(size_t)row * (size_t)m + (size_t)k] = draw(&e->dists[k], pd, &r);
  }
  t->nrows = n;
  int32_t *first = table_repeats(t);
  if (!first) {
    perr_fatal_oom(c);
    return -1;
  }
  int32_t kept = 0;
  for (int32_t row = 0; row < n; row++) {
    if (first[row] != row) continue;
    if (kept != row)
      memmove(t->values + (size_t)kept * (size_t)m, t->values + (size_t)row * (size_t)m,
              (size_t)m * sizeof *t->values);
    kept++;
  }
  free(first);
  t->nrows = kept;
  return 0;
}

/* Whether the entry can give parameter i the value x; if not, describes what it gives. */
static int value_occurs(const entry *e, int32_t i, double x, char *buf, size_t n) {
  const farm_algo_spec *as = e->as;
  const double *vals = NULL;
  int32_t nvals = 0, stride = 1;
  switch (e->src[i]) {
  case SRC_AXIS:
    vals = as->axes[e->src_at[i]].values;
    nvals = as->axes[e->src_at[i]].nvalues;
    break;
  case SRC_ZIP: {
    const farm_param_table *t = &as->zips[e->src_at[i]];
    vals = t->values + e->src_col[i];
    nvals = t->nrows;
    stride = t->ncols;
    break;
  }
  case SRC_SAMPLE: {
    const dist *d = &e->dists[e->src_col[i]];
    if (d->kind == DIST_CHOICE) {
      vals = d->choices;
      nvals = d->nchoices;
      break;
    }
    if (x >= d->lo && x <= d->hi) return 1;
    char lo[64], hi[64];
    mapf_param_format(as->def, i, d->lo, lo, sizeof lo);
    mapf_param_format(as->def, i, d->hi, hi, sizeof hi);
    snprintf(buf, n, "it is drawn from %s [%s, %s]", dist_names[d->kind], lo, hi);
    return 0;
  }
  default:
    vals = &as->base.v[i];
    nvals = 1;
    break;
  }
  for (int32_t k = 0; k < nvals; k++)
    if (vals[(size_t)k * (size_t)stride] == x) return 1;
  size_t len = (size_t)snprintf(buf, n, "its value%s: ", nvals == 1 ? "" : "s");
  for (int32_t k = 0; k < nvals && len < n; k++) {
    char val[64];
    if (k == 8) {
      snprintf(buf + len, n - len, ", ...");
      break;
    }
    mapf_param_format(as->def, i, vals[(size_t)k * (size_t)stride], val, sizeof val);
    int w = snprintf(buf + len, n - len, "%s%s", k ? ", " : "", val);
    if (w < 0) break;
    len += (size_t)w;
  }
  return 0;
}

/* `exclude`: a list of partial assignments (or one). A value the entry never gives to that
 * parameter is an error (a misspelt value would otherwise exclude nothing, silently); the
 * check needs the entry's params, zip and sample to be valid (sources_ok). */
static void parse_exclude(pctx *c, entry *e, const kv *xf, int sources_ok) {
  char fbuf[80];
  const mapf_algo_def *def = e->as->def;
  const pnode *v = xf->val;
  if (bad(c, v)) return;
  int32_t n = v->kind == PN_MAP && v->nkids ? 1 : v->kind == PN_SEQ ? v->nkids : 0;
  if (n == 0) {
    perr(c, v->line, v->col,
         "exclude: expected a list of mappings of parameter names to values, found %s",
         FOUND(v));
    return;
  }
  e->excls = calloc((size_t)n, sizeof *e->excls);
  if (!e->excls) {
    perr_fatal_oom(c);
    return;
  }
  e->nexcl = n;
  snprintf(e->in, sizeof e->in, "exclude of %s", def->name);
  for (int32_t x = 0; x < n && !c->stop; x++) {
    const pnode *it = v->kind == PN_MAP ? v : v->kids[x];
    excl *ex = &e->excls[x];
    if (bad(c, it)) continue;
    if (it->kind != PN_MAP || it->nkids == 0) {
      perr(c, it->line, it->col, "exclude: expected a mapping of parameter names to values, found %s",
           FOUND(it));
      continue;
    }
    kv f[MAPF_MAX_PARAMS];
    walk_map(c, it, e->names, def->nparams, f, e->in);
    for (int32_t p = 0; p < node_pairs(it); p++) {
      const pnode *k = it->kids[2 * p];
      if (k->kind != PN_SCALAR) continue;
      int32_t i = mapf_param_index(def, k->str);
      if (i < 0 || f[i].key != k) continue;
      double val;
      if (parse_single(c, def, i, f[i].val, &val) != 0) continue;
      char what[400], text[64];
      if (sources_ok && !value_occurs(e, i, val, what, sizeof what)) {
        mapf_param_format(def, i, val, text, sizeof text);
        perr(c, f[i].val->line, f[i].val->col, "exclude: %s: %s never occurs in this entry (%s)",
             def->params[i].name, text, what);
        continue;
      }
      ex->index[ex->n] = i;
      ex->value[ex->n++] = val;
    }
  }
}

static int excluded(const entry *e, const mapf_params *p) {
  for (int32_t x = 0; x < e->nexcl; x++) {
    const excl *ex = &e->excls[x];
    int32_t k = 0;
    while (k < ex->n && p->v[ex->index[k]] == ex->value[k]) k++;
    if (k == ex->n) return 1;
  }
  return 0;
}

/* The first control character of a label (C0, DEL or a UTF-8-encoded C1), or NULL. A label is
 * one line of printable text: a table's header cell, a CSV field, a column of results. */
static const char *label_control(const char *s) {
  for (const unsigned char *u = (const unsigned char *)s; *u; u++)
    if (*u < 0x20 || *u == 0x7f || (u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f))
      return (const char *)u;
  return NULL;
}

/* The label: plain text, or a template where {name} stands for the value of parameter name
 * and {{ and }} for literal braces. Parsed once here (unknown names are errors, with a
 * suggestion); farm_algo_label renders it per job. */
static void parse_label(pctx *c, entry *e, const pnode *v, const char *text) {
  char fbuf[80], h[480];
  farm_algo_spec *as = e->as;
  const mapf_algo_def *def = as->def;
  size_t len = strlen(text);
  as->label_text = malloc(len + 1);
  as->label_parts = malloc((len + 1) * sizeof *as->label_parts);
  if (!as->label_text || !as->label_parts) {
    perr_fatal_oom(c);
    return;
  }
  size_t out = 0;
  int32_t np = 0, nparams = 0;
  int failed = 0;
  for (size_t i = 0; i < len;) {
    if (text[i] == '{' && text[i + 1] != '{') {
      const char *close = strchr(text + i + 1, '}');
      if (!close) {
        perr(c, v->line, v->col,
             "label: \"{\" without a matching \"}\" in %s; write \"{{\" for a literal brace",
             FOUND(v));
        failed = 1;
        break;
      }
      size_t nlen = (size_t)(close - text) - i - 1;
      char name[128];
      snprintf(name, sizeof name, "%.*s", (int)(nlen < sizeof name ? nlen : sizeof name - 1),
               text + i + 1);
      int32_t idx = nlen > 0 && nlen < sizeof name ? mapf_param_index(def, name) : -1;
      if (nlen == 0) {
        perr(c, v->line, v->col,
             "label: an empty placeholder \"{}\" in %s; write a parameter name, e.g. \"{%s}\"",
             FOUND(v), def->nparams ? def->params[0].name : "name");
        failed = 1;
      } else if (idx < 0) {
        hint(name, e->names, def->nparams, h, sizeof h);
        perr(c, v->line, v->col, "label: unknown parameter \"%s\" in \"{%s}\"%s", name, name, h);
        failed = 1;
      } else {
        as->label_parts[np++] = (farm_label_part){idx, 0, 0};
        nparams++;
      }
      i = (size_t)(close - text) + 1;
      continue;
    }
    if (text[i] == '}' && text[i + 1] != '}') {
      perr(c, v->line, v->col,
           "label: \"}\" without a matching \"{\" in %s; write \"}}\" for a literal brace",
           FOUND(v));
      failed = 1;
      break;
    }
    /* Literal text up to the next brace; a doubled brace gives one. */
    if (np == 0 || as->label_parts[np - 1].param >= 0)
      as->label_parts[np++] = (farm_label_part){-1, (int32_t)out, 0};
    if (text[i] == '{' || text[i] == '}') {
      as->label_text[out++] = text[i];
      i += 2;
    } else {
      as->label_text[out++] = text[i++];
    }
    as->label_parts[np - 1].len++;
  }
  as->label_text[out] = '\0';
  as->nlabel_parts = np;
  if (failed) return;
  as->label_template = nparams > 0;
  as->label = xstrdup(c, as->label_template ? text : as->label_text);
}

/* An entry whose parameters vary and whose label names none of them gets a label that names
 * what varies, in registry order: `whca` with `window: [4, 8]` is "WHCA* window=4" and
 * "WHCA* window=8", never two configurations under one "WHCA*". Rewritten as a template (braces
 * of the plain label doubled) and parsed as the plan's own would be. */
static void auto_label(pctx *c, entry *e, const pnode *at) {
  farm_algo_spec *as = e->as;
  if (as->label_template || !e->varied || !as->label) return;
  const mapf_algo_def *def = as->def;
  size_t cap = 2 * strlen(as->label) + 1;
  for (int32_t i = 0; i < def->nparams; i++) cap += 2 * strlen(def->params[i].name) + 4;
  char *t = malloc(cap);
  if (!t) {
    perr_fatal_oom(c);
    return;
  }
  size_t k = 0;
  for (const char *s = as->label; *s; s++) {
    if (*s == '{' || *s == '}') t[k++] = *s;
    t[k++] = *s;
  }
  for (int32_t i = 0; i < def->nparams; i++)
    if (e->varied & (UINT32_C(1) << i))
      k += (size_t)sprintf(t + k, " %s={%s}", def->params[i].name, def->params[i].name);
  t[k] = '\0';
  free(as->label);
  free(as->label_text);
  free(as->label_parts);
  as->label = as->label_text = NULL;
  as->label_parts = NULL;
  parse_label(c, e, at, t);
  free(t);
}

/* After the entry's keys are parsed and valid: bounds the raw combinations (every draw of a
 * sample and every excluded combination counts against PLAN_MAX_COMBOS; exclude work against
 * PLAN_MAX_EXCLUDE_CHECKS) before anything is allocated for them, draws the sample, then
 * enumerates the raw combinations once: drops the excluded ones, keeping the indices of the
 * others, and checks the survivors against the algorithm's cross-parameter rules (def->rules,
 * as mapf_params_check would: bmaa refuses flow: true), reported at `at`. O(raw x (parameters +
 * exclude entries)). */
static void finish_entry(pctx *c, entry *e, const pnode *at, const pnode *exclude_key,
                         long long *combos_left, long long *checks_left) {
  farm_algo_spec *as = e->as;
  const mapf_algo_def *def = as->def;
  long long n = 1, n_params = 1, n_zip = 1;
  for (int32_t a = 0; a < as->naxes; a++) n_params = sat_mul(n_params, as->axes[a].nvalues);
  for (int32_t z = 0; z < as->nzips; z++) n_zip = sat_mul(n_zip, as->zips[z].nrows);
  n = sat_mul(sat_mul(n_params, n_zip), as->sample_count ? as->sample_count : 1);
  if (n > *combos_left) {
    if (!as->nzips && !as->sample_count) {
      perr(c, at->line, at->col,
           "params of %s: %lld combinations; the algorithms may give at most %d in all",
           def->name, n, PLAN_MAX_COMBOS);
    } else {
      char detail[160];
      int w = snprintf(detail, sizeof detail, "%lld from params", n_params);
      if (as->nzips && w > 0 && (size_t)w < sizeof detail)
        w += snprintf(detail + w, sizeof detail - (size_t)w, " x %lld from zip", n_zip);
      if (as->sample_count && w > 0 && (size_t)w < sizeof detail)
        snprintf(detail + w, sizeof detail - (size_t)w, " x %d drawn", (int)as->sample_count);
      perr(c, at->line, at->col,
           "%s: %lld parameter combinations (%s); the algorithms may give at most %d in all",
           def->name, n, detail, PLAN_MAX_COMBOS);
    }
    return;
  }
  long long checks = sat_mul(n, e->nexcl);
  if (checks > *checks_left) {
    perr(c, exclude_key->line, exclude_key->col,
         "exclude: %d entries over %lld combinations; the algorithms may make at most %lld "
         "such checks in all",
         (int)e->nexcl, n, PLAN_MAX_EXCLUDE_CHECKS);
    return;
  }
  *combos_left -= n;
  *checks_left -= checks;
  if (as->sample_count && draw_sample(c, e) != 0) return;
  as->nraw = sat_mul(sat_mul(n_params, n_zip), as->sample_count ? as->sample.nrows : 1);
  int32_t *keep = NULL;
  if (e->nexcl) {
    keep = malloc((size_t)as->nraw * sizeof *keep);
    if (!keep) {
      perr_fatal_oom(c);
      return;
    }
  }
  int64_t kept = 0;
  long long failing = 0;
  mapf_diag first;
  mapf_params first_p;
  memset(&first, 0, sizeof first);
  memset(&first_p, 0, sizeof first_p);
  mapf_params p0;
  for (int64_t raw = 0; raw < as->nraw; raw++) {
    mapf_params p;
    raw_params(as, raw, &p);
    if (e->nexcl && excluded(e, &p)) continue;
    if (keep) keep[kept] = (int32_t)raw;
    if (kept++ == 0) p0 = p;
    for (int32_t i = 0; i < def->nparams; i++)
      if (p.v[i] != p0.v[i]) e->varied |= UINT32_C(1) << i;
    /* Every value was checked against its declared type and range when it was parsed (or
     * drawn inside a checked range), so only the cross-parameter rules remain: calling them
     * directly keeps a million combinations well under a second. */
    mapf_diag d;
    memset(&d, 0, sizeof d);
    if (mapf_params_check_rules(def, &p, &d) == MAPF_OK) continue;
    if (failing++ == 0) {
      first = d;
      first_p = p;
    }
  }
  if (kept == 0) {
    free(keep);
    perr(c, exclude_key->line, exclude_key->col,
         "exclude: all %lld combinations of this entry are excluded; it would give no jobs",
         (long long)as->nraw);
    return;
  }
  if (keep && kept == as->nraw) {
    free(keep);
    keep = NULL;
  } else if (keep) {
    int32_t *k = realloc(keep, (size_t)kept * sizeof *keep);
    if (k) keep = k;
  }
  as->keep = keep;
  as->ncombos = kept;
  if (!failing) return;
  if (kept == 1) {
    perr(c, at->line, at->col, "%s", first.msg);
  } else {
    char json[1024];
    mapf_params_json(def, &first_p, json, sizeof json);
    perr(c, at->line, at->col, "%s (%lld of %lld combinations, first %s)", first.msg, failing,
         (long long)kept, json);
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

/* Hashes what job keys take of one combination: the algorithm's name and its parameters'
 * canonical JSON. The JSON is a function of the values that tells distinct values apart
 * (shortest round-trip reals, integers, booleans), except that -0 prints as 0: so hashing the
 * values, with -0 folded into 0, gives equal hashes exactly for
 * equal texts, without formatting a million JSON texts (O(parameters) per combination). */
static mapf_hash128 combo_hash(const farm_algo_spec *as, int64_t combo) {
  mapf_params p;
  farm_algo_combo(as, combo, &p);
  unsigned char buf[128 + MAPF_MAX_PARAMS * sizeof(double)];
  size_t len = strlen(as->def->name);
  if (len > 127) len = 127; /* registry names are short identifiers */
  memcpy(buf, as->def->name, len);
  buf[len++] = '\n';
  for (int32_t i = 0; i < as->def->nparams; i++) {
    double v = p.v[i] + 0.0; /* -0 -> +0, as the JSON prints it */
    memcpy(buf + len, &v, sizeof v);
    len += sizeof v;
  }
  return mapf_hash128_of(buf, len);
}

/* A combination given by two algorithm entries (e.g. bmaa twice, with different labels) is an
 * error: labels are not part of job keys. One message per later entry. O(C log C) for C
 * combinations over all entries (at most PLAN_MAX_COMBOS). Within one entry no combination can
 * repeat (axis values, zip rows and sampled configurations are distinct, and a parameter is
 * varied in one place only), so the same-entry message is only a safeguard. */
static void check_combo_repeats(pctx *c, const farm_plan *plan, long long total) {
  combo_key *k = malloc((size_t)(total ? total : 1) * sizeof *k);
  if (!k) {
    perr_fatal_oom(c);
    return;
  }
  int64_t n = 0;
  for (int32_t a = 0; a < plan->nalgos; a++)
    for (int64_t i = 0; plan->algos[a].def && i < plan->algos[a].ncombos; i++)
      k[n++] = (combo_key){combo_hash(&plan->algos[a], i), a, i};
  qsort(k, (size_t)n, sizeof *k, cmp_combo_key);
  /* Per later entry, its first repeated combination and the earliest entry that gives it;
   * reported afterwards in plan order, so the messages do not depend on hash order. */
  typedef struct repeat {
    int64_t combo;
    int32_t first; /* the earliest entry, or -1: none */
  } repeat;
  repeat *rep = malloc((size_t)plan->nalgos * sizeof *rep);
  if (!rep) {
    free(k);
    perr_fatal_oom(c);
    return;
  }
  for (int32_t a = 0; a < plan->nalgos; a++) rep[a] = (repeat){0, -1};
  int64_t run = 0; /* start of the run of equal keys that k[i] is in: its earliest entry */
  for (int64_t i = 1; i < n; i++) {
    if (k[i].h.hi != k[i - 1].h.hi || k[i].h.lo != k[i - 1].h.lo) {
      run = i;
      continue;
    }
    repeat *r = &rep[k[i].algo];
    if (r->first < 0 || k[i].combo < r->combo) *r = (repeat){k[i].combo, k[run].algo};
  }
  for (int32_t a = 0; a < plan->nalgos; a++) {
    if (rep[a].first < 0) continue;
    const farm_algo_spec *later = &plan->algos[a], *first = &plan->algos[rep[a].first];
    mapf_params p;
    char json[1024];
    farm_algo_combo(later, rep[a].combo, &p);
    mapf_params_json(later->def, &p, json, sizeof json);
    if (rep[a].first == a)
      perr(c, later->line, later->col, "algorithm %s gives the parameters %s twice",
           later->def->name, json);
    else
      perr(c, later->line, later->col,
           "algorithm %s with parameters %s is also the entry at "
           "line %d, column %d; its jobs would run twice (labels are not part of a job)",
           later->def->name, json, first->line, first->col);
  }
  free(rep);
  free(k);
}

/* Names of the registered algorithms (at most 64), for suggestions. */
static int32_t algo_names(const char **names) {
  int32_t n = 0;
  for (int32_t i = 0; i < mapf_algo_count() && n < 64; i++) names[n++] = mapf_algo_at(i)->name;
  return n;
}

/* `defaults: {ALGORITHM: {PARAM: value, ...}, ...}`: single values that replace the registry's
 * defaults for every entry of that algorithm (bases[i] for mapf_algo_at(i), filled with the
 * registry's defaults first). Each value is checked like a params value. */
static void parse_defaults(pctx *c, const pnode *v, mapf_params *bases) {
  char fbuf[80], in[96];
  const char *names[64];
  int32_t nnames = algo_names(names);
  if (bad(c, v)) return;
  if (is_null(v)) return;
  if (v->kind != PN_MAP) {
    perr(c, v->line, v->col,
         "defaults: expected a mapping of algorithm names to parameter values, found %s",
         FOUND(v));
    return;
  }
  kv f[64];
  walk_map(c, v, names, nnames, f, "defaults");
  for (int32_t a = 0; a < nnames && !c->stop; a++) {
    const pnode *m = f[a].val;
    if (!m || bad(c, m)) continue;
    const mapf_algo_def *def = mapf_algo_at(a);
    if (m->kind != PN_MAP) {
      perr(c, m->line, m->col,
           "defaults of %s: expected a mapping of parameter names to values, found %s",
           def->name, FOUND(m));
      continue;
    }
    const char *pnames[MAPF_MAX_PARAMS];
    for (int32_t i = 0; i < def->nparams; i++) pnames[i] = def->params[i].name;
    snprintf(in, sizeof in, "defaults of %s", def->name);
    kv fp[MAPF_MAX_PARAMS];
    walk_map(c, m, pnames, def->nparams, fp, in);
    for (int32_t i = 0; i < def->nparams; i++)
      if (fp[i].val) parse_single(c, def, i, fp[i].val, &bases[a].v[i]);
  }
}

/* One combination's label and configuration, for check_label_repeats. */
typedef struct label_key {
  mapf_hash128 label, config;
  int32_t algo;
  int64_t combo;
} label_key;

static int cmp_label_key(const void *a, const void *b) {
  const label_key *x = a, *y = b;
  if (x->label.hi != y->label.hi) return (x->label.hi > y->label.hi) - (x->label.hi < y->label.hi);
  if (x->label.lo != y->label.lo) return (x->label.lo > y->label.lo) - (x->label.lo < y->label.lo);
  if (x->algo != y->algo) return (x->algo > y->algo) - (x->algo < y->algo);
  return (x->combo > y->combo) - (x->combo < y->combo);
}

/* " {name}" for each parameter whose value differs between p and q (same algorithm), into
 * buf: the placeholders that would tell the two apart. */
static void differing_placeholders(const mapf_algo_def *def, const mapf_params *p,
                                   const mapf_params *q, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = '\0';
  for (int32_t i = 0; i < def->nparams && k < n; i++)
    if (p->v[i] != q->v[i]) {
      int w = snprintf(buf + k, n - k, " {%s}", def->params[i].name);
      k += w > 0 ? (size_t)w : 0;
    }
}

/* Two combinations with one label and different configurations (another algorithm, other
 * parameters) are an error: every table groups by label, and would average them as one. This
 * catches two entries with one plain label, and a template that leaves out a varied parameter.
 * One message per entry, at its first clash, in plan order. O(C log C) for C combinations. */
static void check_label_repeats(pctx *c, const farm_plan *plan, long long total) {
  label_key *k = malloc((size_t)(total ? total : 1) * sizeof *k);
  if (!k) {
    perr_fatal_oom(c);
    return;
  }
  int64_t n = 0;
  char label[1024];
  for (int32_t a = 0; a < plan->nalgos; a++) {
    const farm_algo_spec *as = &plan->algos[a];
    for (int64_t i = 0; i < as->ncombos; i++) {
      mapf_params p;
      farm_algo_combo(as, i, &p);
      int len = farm_algo_label(as, &p, label, sizeof label);
      size_t used = len < 0 ? 0 : (size_t)len < sizeof label ? (size_t)len : sizeof label - 1;
      k[n++] = (label_key){mapf_hash128_of(label, used), combo_hash(as, i), a, i};
    }
  }
  qsort(k, (size_t)n, sizeof *k, cmp_label_key);
  /* Per entry, its first clash: the pair (earlier, later) with the smallest later combination. */
  typedef struct clash {
    int64_t i;      /* index into k of the later combination, or -1 */
    int64_t first;  /* index into k of the earliest combination with that label */
  } clash;
  clash *cl = malloc((size_t)plan->nalgos * sizeof *cl);
  if (!cl) {
    free(k);
    perr_fatal_oom(c);
    return;
  }
  for (int32_t a = 0; a < plan->nalgos; a++) cl[a] = (clash){-1, -1};
  int64_t run = 0;
  for (int64_t i = 1; i < n; i++) {
    if (k[i].label.hi != k[run].label.hi || k[i].label.lo != k[run].label.lo) {
      run = i;
      continue;
    }
    if (k[i].config.hi == k[run].config.hi && k[i].config.lo == k[run].config.lo) continue;
    clash *x = &cl[k[i].algo];
    if (x->i < 0 || k[i].combo < k[x->i].combo) *x = (clash){i, run};
  }
  for (int32_t a = 0; a < plan->nalgos; a++) {
    if (cl[a].i < 0) continue;
    const label_key *later = &k[cl[a].i], *first = &k[cl[a].first];
    const farm_algo_spec *la = &plan->algos[later->algo], *fa = &plan->algos[first->algo];
    mapf_params lp, fp;
    char ljson[1024], fjson[1024], hint_text[256];
    farm_algo_combo(la, later->combo, &lp);
    farm_algo_combo(fa, first->combo, &fp);
    farm_algo_label(la, &lp, label, sizeof label);
    mapf_params_json(la->def, &lp, ljson, sizeof ljson);
    mapf_params_json(fa->def, &fp, fjson, sizeof fjson);
    hint_text[0] = '\0';
    if (la->def == fa->def) differing_placeholders(la->def, &lp, &fp, hint_text, sizeof hint_text);
    if (first->algo == later->algo)
      perr(c, la->line, la->col,
           "label \"%s\" names two configurations of this entry, %s %s and %s; name every "
           "varied parameter in the label (add%s)",
           label, la->def->name, fjson, ljson, hint_text);
    else
      perr(c, la->line, la->col,
           "label \"%s\" is also the label of the entry at line %d, column %d, which has "
           "another configuration (%s %s there, %s %s here); tables would average the two as "
           "one: give each its own label%s%s%s",
           label, fa->line, fa->col, fa->def->name, fjson, la->def->name, ljson,
           hint_text[0] ? " or name what differs (add" : "", hint_text, hint_text[0] ? ")" : "");
  }
  free(cl);
  free(k);
}

enum { A_NAME, A_LABEL, A_PARAMS, A_ZIP, A_EXCLUDE, A_SAMPLE, A_N };

/* One entry of `algorithms`. */
static void parse_entry(pctx *c, farm_algo_spec *as, const pnode *it, const mapf_params *bases,
                        long long *combos_left, long long *checks_left) {
  static const char *const keys[A_N] = {"name", "label", "params", "zip", "exclude", "sample"};
  char h[480];
  const char *names[64];
  int32_t nnames = algo_names(names);
  kv f[A_N];
  walk_map(c, it, keys, A_N, f, "algorithm");
  int32_t algo = -1;
  if (require(c, it, &f[A_NAME], "name", "algorithm") == 0) {
    const char *name = get_str(c, f[A_NAME].val, "name");
    if (name) {
      as->def = mapf_algo_find(name);
      for (int32_t i = 0; as->def && i < nnames; i++)
        if (mapf_algo_at(i) == as->def) algo = i;
      if (!as->def) {
        hint(name, names, nnames, h, sizeof h);
        perr(c, f[A_NAME].val->line, f[A_NAME].val->col, "unknown algorithm \"%s\"%s", name, h);
      }
    }
  }
  const char *label = NULL;
  if (f[A_LABEL].val) {
    label = get_str(c, f[A_LABEL].val, "label");
    const char *cc = label ? label_control(label) : NULL;
    if (cc) {
      char fbuf[80];
      perr(c, f[A_LABEL].val->line, f[A_LABEL].val->col,
           "label: %s holds a control character (byte 0x%02x at offset %d); a label is one line "
           "of printable text",
           FOUND(f[A_LABEL].val), (unsigned)(unsigned char)*cc, (int)(cc - label));
      label = NULL;
    }
    if (label && !as->def) as->label = xstrdup(c, label);
  } else if (as->def) {
    as->label = xstrdup(c, as->def->label);
  }
  if (!as->def) return;
  if (algo >= 0)
    as->base = bases[algo];
  else
    mapf_params_default(as->def, &as->base);
  entry e;
  memset(&e, 0, sizeof e);
  e.as = as;
  for (int32_t i = 0; i < as->def->nparams; i++) e.names[i] = as->def->params[i].name;
  int32_t before = c->nfail;
  if (f[A_PARAMS].val) parse_params(c, &e, &f[A_PARAMS]);
  if (f[A_ZIP].val && !c->stop) parse_zip(c, &e, &f[A_ZIP]);
  if (f[A_SAMPLE].val && !c->stop) parse_sample(c, &e, &f[A_SAMPLE]);
  if (f[A_EXCLUDE].val && !c->stop) parse_exclude(c, &e, &f[A_EXCLUDE], c->nfail == before);
  if (label && !c->stop) parse_label(c, &e, f[A_LABEL].val, label);
  if (c->nfail == before && !c->stop) {
    /* Combination errors go to the first of params, zip and sample, else to the entry. */
    const pnode *at = f[A_PARAMS].key   ? f[A_PARAMS].key
                      : f[A_ZIP].key    ? f[A_ZIP].key
                      : f[A_SAMPLE].key ? f[A_SAMPLE].key
                                        : it;
    finish_entry(c, &e, at, f[A_EXCLUDE].key, combos_left, checks_left);
    if (c->nfail == before && !c->stop) auto_label(c, &e, f[A_LABEL].val ? f[A_LABEL].val : it);
  }
  entry_free(&e);
}

static void parse_algorithms(pctx *c, farm_plan *plan, const pnode *v, const mapf_params *bases) {
  char fbuf[80];
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
  int32_t before = c->nfail;
  long long combos_left = PLAN_MAX_COMBOS, checks_left = PLAN_MAX_EXCLUDE_CHECKS;
  for (int32_t a = 0; a < v->nkids && !c->stop; a++) {
    const pnode *it = v->kids[a];
    farm_algo_spec *as = &plan->algos[a];
    as->line = it->line;
    as->col = it->col;
    as->ncombos = 1;
    as->nraw = 1;
    if (bad(c, it)) continue;
    if (it->kind != PN_MAP) {
      perr(c, it->line, it->col,
           "algorithms: expected a mapping (name, label, params, zip, exclude, sample), "
           "found %s",
           FOUND(it));
      continue;
    }
    parse_entry(c, as, it, bases, &combos_left, &checks_left);
  }
  if (c->nfail != before || c->stop) return;
  long long total = 0;
  for (int32_t a = 0; a < plan->nalgos; a++) total += plan->algos[a].ncombos;
  check_combo_repeats(c, plan, total);
  if (c->nfail == before && !c->stop) check_label_repeats(c, plan, total);
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

/* What the top-level keys' parsers share: where relative paths start, where maps are looked
 * up, and each registered algorithm's defaults as the plan's `defaults` change them (read
 * before `algorithms`, wherever the key stands). */
typedef struct root_ctx {
  const char *dir;
  const farm_plan_opts *opts;
  mapf_params *bases;
} root_ctx;

static void root_name(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)r;
  const char *s = get_str(c, v, "name");
  if (s) plan->name = xstrdup(c, s);
}

static void root_seed(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)r;
  get_u64(c, v, "seed", &plan->seed);
}

static void root_maps(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  parse_maps(c, plan, v, r->dir, r->opts);
}

static void root_scenarios(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  parse_scenarios(c, plan, v, r->dir, r->opts);
}

static void root_defaults(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)plan;
  parse_defaults(c, v, r->bases);
}

static void root_algorithms(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  parse_algorithms(c, plan, v, r->bases);
}

static void root_limits(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)r;
  parse_limits(c, plan, v);
}

static void root_execution(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)r;
  parse_execution(c, plan, v);
}

static void root_coherence_every(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)r;
  long long every;
  if (get_int(c, v, "coherence_every", 0, LLONG_MAX, &every) == 0) plan->coherence_every = every;
}

/* The plan's top-level keys, in the order they are parsed (`defaults` before `algorithms`):
 * the one declaration that walk_map, "missing required key" and the messages listing the keys
 * read. */
typedef struct root_key {
  const char *name;
  int required;
  void (*parse)(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r);
  const char *doc;
} root_key;

static const root_key root_keys[] = {
    {"name", 1, root_name, "the plan's name, recorded with every run"},
    {"seed", 0, root_seed, "integer >= 0, default 1; seeds the scenario generators"},
    {"maps", 1, root_maps, "MovingAI .map files and generated maps"},
    {"scenarios", 1, root_scenarios, "scenario generators or .scen files, agent counts, instances"},
    {"defaults", 0, root_defaults, "per algorithm, values replacing the registry's defaults"},
    {"algorithms", 1, root_algorithms, "algorithm entries: name, label, params, zip, exclude, sample"},
    {"limits", 0, root_limits, "steps (default 10000), seconds and expansions (0: none)"},
    {"execution", 0, root_execution, "chains (default) or single-pass"},
    {"coherence_every", 0, root_coherence_every,
     "steps between direction-map coherence samples (default 100; 0: none)"},
};
#define ROOT_KEYS ((int32_t)(sizeof root_keys / sizeof root_keys[0]))

/* "name, seed, maps, ..." (all keys) or "name, maps, scenarios and algorithms" (required). */
static void root_key_list(int required_only, char *buf, size_t n) {
  const char *names[ROOT_KEYS];
  int32_t k = 0;
  for (int32_t i = 0; i < ROOT_KEYS; i++)
    if (!required_only || root_keys[i].required) names[k++] = root_keys[i].name;
  size_t len = 0;
  buf[0] = '\0';
  for (int32_t i = 0; i < k && len < n; i++) {
    const char *sep = i == 0 ? "" : i + 1 == k && required_only ? " and " : ", ";
    int w = snprintf(buf + len, n - len, "%s%s", sep, names[i]);
    len += w > 0 ? (size_t)w : 0;
  }
}

static void parse_root(pctx *c, farm_plan *plan, const pnode *root, const char *dir,
                       const farm_plan_opts *opts) {
  char fbuf[80], list[256];
  if (!root || is_null(root)) {
    root_key_list(1, list, sizeof list);
    perr(c, root ? root->line : 1, root ? root->col : 1,
         "the plan is empty; expected a mapping with %s", list);
    return;
  }
  if (bad(c, root)) return;
  if (root->kind != PN_MAP) {
    root_key_list(0, list, sizeof list);
    perr(c, root->line, root->col, "expected a mapping of plan keys (%s), found %s", list,
         FOUND(root));
    return;
  }
  const char *names[ROOT_KEYS];
  for (int32_t i = 0; i < ROOT_KEYS; i++) names[i] = root_keys[i].name;
  kv f[ROOT_KEYS];
  walk_map(c, root, names, ROOT_KEYS, f, NULL);
  mapf_params *bases = calloc((size_t)(mapf_algo_count() ? mapf_algo_count() : 1), sizeof *bases);
  if (!bases) {
    perr_fatal_oom(c);
    return;
  }
  for (int32_t a = 0; a < mapf_algo_count(); a++) mapf_params_default(mapf_algo_at(a), &bases[a]);
  root_ctx r = {dir, opts, bases};
  for (int32_t i = 0; i < ROOT_KEYS; i++) {
    if (root_keys[i].required && require(c, root, &f[i], root_keys[i].name, NULL) != 0) continue;
    if (f[i].val) root_keys[i].parse(c, plan, f[i].val, &r);
  }
  free(bases);
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
    free(p->scens[i].generator_key);
    free(p->scens[i].scen_path);
    mapf_scen_free(p->scens[i].scen);
    free(p->scens[i].agents);
  }
  free(p->scens);
  for (int32_t i = 0; p->algos && i < p->nalgos; i++) {
    farm_algo_spec *as = &p->algos[i];
    free(as->label);
    free(as->label_parts);
    free(as->label_text);
    for (int32_t a = 0; as->axes && a < as->naxes; a++) free(as->axes[a].values);
    free(as->axes);
    for (int32_t z = 0; as->zips && z < as->nzips; z++) free(as->zips[z].values);
    free(as->zips);
    free(as->sample.values);
    free(as->keep);
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

/* What a plan is without the optional top-level keys. */
static void plan_defaults(farm_plan *plan) {
  plan->seed = 1;
  plan->limits = (mapf_limits){.steps = 10000, .seconds = 0, .expansions = 0};
  plan->execution = MAPF_EXEC_CHAINS;
  plan->coherence_every = 100;
}

int farm_plan_read_limits(const char *text, size_t len, mapf_limits *limits,
                          mapf_execution *execution) {
  farm_diags errs = {0, 0, NULL};
  pctx c;
  memset(&c, 0, sizeof c);
  c.file = "<plan>";
  c.text = text;
  c.len = len;
  c.errs = &errs;
  farm_plan plan;
  memset(&plan, 0, sizeof plan);
  plan_defaults(&plan);
  if (len > PLAN_MAX_BYTES || !yaml_parser_initialize(&c.parser)) return -1;
  yaml_parser_set_input_string(&c.parser, (const unsigned char *)text, len);
  pnode *root = NULL;
  read_tree(&c, &root);
  yaml_parser_delete(&c.parser);
  if (!c.stop && root && root->kind == PN_MAP) {
    for (int32_t p = 0; p < node_pairs(root); p++) {
      const pnode *k = root->kids[2 * p], *v = root->kids[2 * p + 1];
      if (k->kind != PN_SCALAR) continue;
      if (strcmp(k->str, "limits") == 0) parse_limits(&c, &plan, v);
      if (strcmp(k->str, "execution") == 0) parse_execution(&c, &plan, v);
    }
  }
  int ok = root && root->kind == PN_MAP && !c.nerr && !c.stop;
  node_free(root);
  farm_diags_free(&errs);
  if (!ok) return -1;
  *limits = plan.limits;
  *execution = plan.execution;
  return 0;
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
  plan_defaults(plan);

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
  char *buf;
  size_t len;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  int rc = mapf_read_file(path, PLAN_MAX_BYTES, &buf, &len, &d);
  if (rc != MAPF_OK) {
    if (errs) farm_diags_push(errs, &d);
    return rc;
  }
  rc = farm_plan_parse(buf, len, path, opts, out, errs);
  free(buf);
  return rc;
}
