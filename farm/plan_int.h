/* plan_int.h: what the parts of the plan reader share (farm/plan_yaml.c: the tree, values and
 * messages; farm/plan.c: the top level and the entry points; farm/plan_maps.c: maps and
 * scenarios; farm/plan_algos.c: algorithm entries). Not part of the public API (farm/plan.h). */
#ifndef FARM_PLAN_INT_H
#define FARM_PLAN_INT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "algo.h"
#include "plan.h"

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
  farm_plan *plan; /* the plan being read: it keeps the texts of list values */
} pctx;

/* One known key of a mapping, as found. */
typedef struct kv {
  const pnode *key, *val;
} kv;

static inline int32_t farm__plan_node_pairs(const pnode *m) { return m->nkids / 2; }

/* farm/plan_yaml.c, where each is described. */
void farm__plan_perr(pctx *c, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void farm__plan_perr_fatal_oom(pctx *c);
void farm__plan_read_tree(pctx *c, pnode **root);
void farm__plan_node_free(pnode *n);
int farm__plan_bad(pctx *c, const pnode *v);

/* ---- values ----------------------------------------------------------------------------- */

int farm__plan_is_null(const pnode *v);
const char *farm__plan_found(const pnode *v, char *buf, size_t n);
/* "found ..." for v, in a function that has a `char fbuf[...]`. */
#define FOUND(v) farm__plan_found((v), fbuf, sizeof fbuf)
int farm__plan_get_int(pctx *c, const pnode *v, const char *key, long long min, long long max,
                       long long *out);
int farm__plan_get_u64(pctx *c, const pnode *v, const char *key, uint64_t *out);
int farm__plan_get_real(pctx *c, const pnode *v, const char *key, double min, double max,
                        double *out);
const char *farm__plan_get_str(pctx *c, const pnode *v, const char *key);
int farm__plan_get_bool(pctx *c, const pnode *v, const char *key, int *out);
char *farm__plan_xstrdup(pctx *c, const char *s);
void farm__plan_hint(const char *word, const char *const *names, int32_t n, char *buf,
                     size_t cap);
void farm__plan_walk_map(pctx *c, const pnode *m, const char *const *names, int32_t n,
                         kv *found_kv, const char *in);
int farm__plan_require(pctx *c, const pnode *m, const kv *f, const char *name, const char *in);

/* a * b, saturating at LLONG_MAX (both >= 0). */
static inline long long farm__plan_sat_mul(long long a, long long b) {
  if (a == 0 || b == 0) return 0;
  return a > LLONG_MAX / b ? LLONG_MAX : a * b;
}

static inline long long farm__plan_sat_add(long long a, long long b) {
  return a > LLONG_MAX - b ? LLONG_MAX : a + b;
}

/* ---- maps and scenarios (farm/plan_maps.c) ----------------------------------------------- */

void farm__plan_parse_maps(pctx *c, farm_plan *plan, const pnode *v, const char *dir,
                           const farm_plan_opts *opts);
void farm__plan_parse_scenarios(pctx *c, farm_plan *plan, const pnode *v, const char *dir,
                                const farm_plan_opts *opts);

/* ---- algorithm entries (farm/plan_algos.c) ----------------------------------------------- */

int farm__plan_parse_single(pctx *c, const mapf_algo_def *def, int32_t i, const pnode *v,
                            double *out);
void farm__plan_parse_defaults(pctx *c, const pnode *v, mapf_params *bases);
/* A list value (core/algo.h, MAPF_PARAM_LIST) of parameter i: a YAML list of strings, kept by
 * the plan and set in p. Returns 0, or -1 (reported). */
int farm__plan_parse_list(pctx *c, const mapf_algo_def *def, int32_t i, const pnode *v,
                          mapf_params *p);
/* `limits` (the plan's or an entry's) into out; the FARM_LIMIT_* bits of the keys given are
 * set in *set. */
void farm__plan_parse_limits(pctx *c, const pnode *v, mapf_limits *out, unsigned *set);
void farm__plan_parse_algorithms(pctx *c, farm_plan *plan, const pnode *v,
                                 const mapf_params *bases);

#endif
