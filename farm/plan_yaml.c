/* plan_yaml.c: the first pass of the plan reader (farm/plan.c), and the values and messages of
 * the second. libyaml's event stream becomes a small tree of scalars, lists and mappings that
 * remembers every node's line and column; anchors and aliases are refused (so a plan can never
 * expand into more than it says) and the tree is bounded (nodes, depth, entries per list). The
 * getters check one value each and report "KEY: expected ..., found ..." at it; perr collects
 * the messages as PLAN:LINE:COL, up to PLAN_MAX_ERRORS. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plan_int.h"
#include "suggest.h"

/* ---- the tree ------------------------------------------------------------------------- */

/* Records one error at line:col, unless the list is closed. An error after PLAN_MAX_ERRORS
 * becomes a note that closes the list, so a plan with a million bad entries costs a
 * bounded amount of memory. */
void farm__plan_perr(pctx *c, int line, int col, const char *fmt, ...) {
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

void farm__plan_perr_fatal_oom(pctx *c) {
  if (!c->oom) farm__plan_perr(c, 0, 0, "out of memory");
  c->oom = 1;
  c->stop = 1;
}

void farm__plan_node_free(pnode *n) {
  if (!n) return;
  for (int32_t i = 0; i < n->nkids; i++) farm__plan_node_free(n->kids[i]);
  free(n->kids);
  free(n->str);
  free(n);
}

/* Whether v was already reported (PN_BAD); counts it as a failure of the section that meets
 * it, so the section does not go on as if it were complete. */
int farm__plan_bad(pctx *c, const pnode *v) {
  if (v->kind != PN_BAD) return 0;
  c->nfail++;
  return 1;
}

static pnode *node_new(pctx *c, pnode_kind kind, yaml_mark_t m) {
  if (++c->nnodes > PLAN_MAX_NODES) {
    farm__plan_perr(c, (int)m.line + 1, (int)m.column + 1,
                    "the plan has more than %d YAML values; refusing to read further",
                    PLAN_MAX_NODES);
    c->stop = 1;
    return NULL;
  }
  pnode *n = calloc(1, sizeof *n);
  if (!n) {
    farm__plan_perr_fatal_oom(c);
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
    farm__plan_perr_fatal_oom(c);
  } else if (p->error == YAML_READER_ERROR) {
    int line, col;
    offset_linecol(c, p->problem_offset, &line, &col);
    if (p->problem_value >= 0)
      farm__plan_perr(c, line, col, "invalid YAML: %s (byte 0x%02x)", problem,
                      (unsigned)p->problem_value);
    else
      farm__plan_perr(c, line, col, "invalid YAML: %s", problem);
  } else if (p->context) {
    farm__plan_perr(c, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1,
                    "invalid YAML: %s (%s at line %d, column %d)", problem, p->context,
                    (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
  } else {
    farm__plan_perr(c, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1,
                    "invalid YAML: %s", problem);
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
    farm__plan_perr(
        c, (int)m.line + 1, (int)m.column + 1,
        "anchors and aliases are not supported (found anchor \"&%s\"); write the value out",
        (const char *)anchor);
}

static int node_add(pctx *c, pnode *parent, pnode *kid) {
  int32_t limit = parent->kind == PN_MAP ? 2 * PLAN_MAX_LIST : PLAN_MAX_LIST;
  if (parent->nkids >= limit) {
    farm__plan_perr(c, parent->line, parent->col,
                    "a %s with more than %d entries; refusing to read further",
                    parent->kind == PN_MAP ? "mapping" : "list", PLAN_MAX_LIST);
    c->stop = 1;
    return -1;
  }
  if (parent->nkids == parent->cap) {
    int32_t cap = parent->cap ? parent->cap * 2 : 4;
    pnode **k = realloc(parent->kids, (size_t)cap * sizeof *k);
    if (!k) {
      farm__plan_perr_fatal_oom(c);
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
    farm__plan_perr(c, (int)m.line + 1, (int)m.column + 1,
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
      farm__plan_node_free(n);
      n = NULL;
      farm__plan_perr_fatal_oom(c);
      break;
    }
    memcpy(n->str, ev->data.scalar.value, len);
    n->str[len] = '\0';
    if (memchr(n->str, '\0', len)) {
      farm__plan_perr(c, n->line, n->col, "a value with a NUL character is not supported");
      n->kind = PN_BAD;
    }
    break;
  }
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT: {
    int is_map = ev->type == YAML_MAPPING_START_EVENT;
    refuse_anchor(c, is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor, m);
    if (depth >= PLAN_MAX_DEPTH) {
      farm__plan_perr(c, (int)m.line + 1, (int)m.column + 1,
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
        farm__plan_node_free(n);
        n = NULL;
        break;
      }
      if (e.type == end) {
        yaml_event_delete(&e);
        break;
      }
      pnode *kid = build(c, &e, depth + 1);
      if (!kid || node_add(c, n, kid) != 0) {
        farm__plan_node_free(kid);
        farm__plan_node_free(n);
        n = NULL;
        break;
      }
    }
    break;
  }
  default: /* cannot happen inside a document */
    farm__plan_perr(c, (int)m.line + 1, (int)m.column + 1, "invalid YAML: unexpected event");
    c->syntax = 1;
    c->stop = 1;
    break;
  }
  yaml_event_delete(ev);
  return n;
}

/* Reads the whole stream: one document whose tree is returned in *root (NULL when the stream
 * is empty or on a fatal error). */
void farm__plan_read_tree(pctx *c, pnode **root) {
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
    farm__plan_perr(c, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
                    "a plan is a single YAML document; found a second one");
  yaml_event_delete(&ev);
}

/* ---- values ----------------------------------------------------------------------------- */

int farm__plan_is_null(const pnode *v) {
  return v->kind == PN_SCALAR && v->plain &&
         (!v->str[0] || !strcmp(v->str, "~") || !strcmp(v->str, "null") ||
          !strcmp(v->str, "Null") || !strcmp(v->str, "NULL"));
}

/* Describes v for "found ...": the scalar quoted (shortened, control characters shown as ?),
 * or "nothing", "a list", "an empty list", "a mapping". */
const char *farm__plan_found(const pnode *v, char *buf, size_t n) {
  if (v->kind == PN_SEQ) return v->nkids ? "a list" : "an empty list";
  if (v->kind == PN_MAP) return v->nkids ? "a mapping" : "an empty mapping";
  if (v->kind != PN_SCALAR || farm__plan_is_null(v)) return "nothing";
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

/* The checks below report "KEY: expected ..., found ..." at the value and return -1 on a bad
 * value (silently for a PN_BAD node, already reported). */

int farm__plan_get_int(pctx *c, const pnode *v, const char *key, long long min, long long max,
                       long long *out) {
  char fbuf[80];
  if (farm__plan_bad(c, v)) return -1;
  long long x = 0;
  int rc = v->kind == PN_SCALAR && !farm__plan_is_null(v) ? parse_ll(v->str, &x) : -1;
  if (rc == 0 && x >= min && x <= max) {
    *out = x;
    return 0;
  }
  if (rc == -1 || (rc == 0 && x < min) || (rc == 1 && v->str[0] == '-'))
    farm__plan_perr(c, v->line, v->col, "%s: expected an integer >= %lld, found %s", key, min,
                    FOUND(v));
  else
    farm__plan_perr(c, v->line, v->col, "%s: expected an integer <= %lld, found %s", key, max,
                    FOUND(v));
  return -1;
}

int farm__plan_get_u64(pctx *c, const pnode *v, const char *key, uint64_t *out) {
  char fbuf[80];
  if (farm__plan_bad(c, v)) return -1;
  unsigned long long x = 0;
  int rc = v->kind == PN_SCALAR && !farm__plan_is_null(v) ? parse_ull(v->str, &x) : -1;
  if (rc == 0 && x <= UINT64_MAX) {
    *out = (uint64_t)x;
    return 0;
  }
  if (rc == 1)
    farm__plan_perr(c, v->line, v->col, "%s: expected an integer <= %llu, found %s", key,
                    (unsigned long long)UINT64_MAX, FOUND(v));
  else
    farm__plan_perr(c, v->line, v->col, "%s: expected an integer >= 0, found %s", key, FOUND(v));
  return -1;
}

int farm__plan_get_real(pctx *c, const pnode *v, const char *key, double min, double max,
                        double *out) {
  char fbuf[80], lo[32], hi[32];
  if (farm__plan_bad(c, v)) return -1;
  double x = 0;
  if (v->kind == PN_SCALAR && !farm__plan_is_null(v) && parse_real(v->str, &x) == 0 && x >= min &&
      x <= max) {
    *out = x;
    return 0;
  }
  mapf_format_real(min, MAPF_REAL_DIGITS, lo, sizeof lo);
  mapf_format_real(max, MAPF_REAL_DIGITS, hi, sizeof hi);
  if (isinf(max))
    farm__plan_perr(c, v->line, v->col, "%s: expected a number >= %s, found %s", key, lo, FOUND(v));
  else
    farm__plan_perr(c, v->line, v->col, "%s: expected a number in [%s, %s], found %s", key, lo, hi,
                    FOUND(v));
  return -1;
}

/* A non-empty string. */
const char *farm__plan_get_str(pctx *c, const pnode *v, const char *key) {
  char fbuf[80];
  if (farm__plan_bad(c, v)) return NULL;
  if (v->kind == PN_SCALAR && !farm__plan_is_null(v) && v->str[0]) return v->str;
  farm__plan_perr(c, v->line, v->col, "%s: expected a non-empty string, found %s", key, FOUND(v));
  return NULL;
}

char *farm__plan_xstrdup(pctx *c, const char *s) {
  char *d = strdup(s);
  if (!d) farm__plan_perr_fatal_oom(c);
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
void farm__plan_hint(const char *word, const char *const *names, int32_t n, char *buf, size_t cap) {
  const char *s = farm_suggest(word, names, n);
  if (s) {
    snprintf(buf, cap, "; did you mean \"%s\"?", s);
  } else {
    char all[400];
    list_names(names, n, all, sizeof all);
    snprintf(buf, cap, " (expected %s)", all);
  }
}

/* Matches the keys of mapping m against names[0..n): found[i] gets the i-th key's pair or stays
 * {NULL, NULL}. Unknown keys (with a suggestion) and repeated keys are errors. `in` names the
 * mapping in messages ("scenario", "params of bmaa"); NULL means the top level. O(pairs * n). */
void farm__plan_walk_map(pctx *c, const pnode *m, const char *const *names, int32_t n, kv *found_kv,
                         const char *in) {
  char fbuf[80], h[480];
  for (int32_t i = 0; i < n; i++) found_kv[i].key = found_kv[i].val = NULL;
  for (int32_t p = 0; p < farm__plan_node_pairs(m); p++) {
    const pnode *k = m->kids[2 * p], *v = m->kids[2 * p + 1];
    if (farm__plan_bad(c, k)) continue;
    if (k->kind != PN_SCALAR || farm__plan_is_null(k)) {
      farm__plan_perr(c, k->line, k->col, "expected a key name%s%s, found %s", in ? " in " : "",
                      in ? in : "", FOUND(k));
      continue;
    }
    int32_t i = 0;
    while (i < n && strcmp(names[i], k->str) != 0) i++;
    if (i == n) {
      farm__plan_hint(k->str, names, n, h, sizeof h);
      if (in)
        farm__plan_perr(c, k->line, k->col, "unknown key \"%s\" in %s%s", k->str, in, h);
      else
        farm__plan_perr(c, k->line, k->col, "unknown top-level key \"%s\"%s", k->str, h);
    } else if (found_kv[i].key) {
      farm__plan_perr(c, k->line, k->col,
                      "duplicate key \"%s\" (first given at line %d, column %d)", k->str,
                      found_kv[i].key->line, found_kv[i].key->col);
    } else {
      found_kv[i].key = k;
      found_kv[i].val = v;
    }
  }
}

int farm__plan_require(pctx *c, const pnode *m, const kv *f, const char *name, const char *in) {
  if (f->val) return 0;
  if (in)
    farm__plan_perr(c, m->line, m->col, "missing required key \"%s\" in %s", name, in);
  else
    farm__plan_perr(c, m->line, m->col, "missing required key \"%s\"", name);
  return -1;
}

/* A boolean as YAML spells it (as a parameter takes them, farm/plan_algos.c), into *out.
 * Returns 0, or -1 (reported). */
int farm__plan_get_bool(pctx *c, const pnode *v, const char *key, int *out) {
  const char *s = farm__plan_get_str(c, v, key);
  if (!s) return -1;
  static const char *const words[] = {"false", "no", "off", "0", "true", "yes", "on", "1"};
  for (int k = 0; k < 8; k++)
    if (strcasecmp(s, words[k]) == 0) {
      *out = k >= 4;
      return 0;
    }
  farm__plan_perr(c, v->line, v->col, "%s: expected true or false, found \"%s\"", key, s);
  return -1;
}
