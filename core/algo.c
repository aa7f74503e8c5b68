/* algo.c: the registry of algorithms and parameter handling. */
#include "algo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "sim_int.h"

/* BMAA* (seed 001 Sec. IV; slides seed 000). Defaults are the paper's: 32 expansions, 32 moves,
 * vision sqrt(2) (the eight neighbours). Names of the variants follow ALGORITHMS.md: -f push,
 * -c flow. */
static const mapf_param_def bmaa_params[] = {
    {"expansions", MAPF_PARAM_INT, 1, 10000000, 32,
     "node expansions per RTAA* search (lookahead)", NULL},
    {"moves", MAPF_PARAM_INT, 1, 1000000, 32,
     "moves along a path prefix before the agent searches again", NULL},
    {"vision", MAPF_PARAM_REAL, 0, 1000000, MAPF_SQRT2,
     "agents within this Euclidean distance are obstacles to the search", NULL},
    {"push", MAPF_PARAM_BOOL, 0, 1, 0,
     "an agent may push another off its goal to a free neighbour", NULL},
    {"flow", MAPF_PARAM_BOOL, 0, 1, 0,
     "search FAR's flow-annotated graph (annotations computed lazily and cached)", NULL},
};


/* WHCA* (Silver 2005; thesis 5.2.1; ALGORITHMS.md, WHCA*). Window 8 as in the thesis's portfolio
 * (5.4.2); replanning half-way through the window and rotating priorities as Silver suggests.
 * The choices behind each parameter are in core/whca.c's head comment; whca.c reads the
 * parameters in this order. */
static const mapf_param_def whca_params[] = {
    {"window", MAPF_PARAM_INT, 1, 1024, 8,
     "steps of each agent's space-time search; beyond them the true distance to the goal", NULL},
    {"replan", MAPF_PARAM_INT, 0, 1024, 0,
     "steps between rounds in which every agent plans again (0: window / 2, at least 1)", NULL},
    {"rotate", MAPF_PARAM_BOOL, 0, 1, 1,
     "rotate the agents' priority order every round (false: fixed order, agent index)", NULL},
    {"wait", MAPF_PARAM_REAL, 0, 1000, 1,
     "search cost of waiting one step off the goal (a wait on the goal is free)", NULL},
    {"memory", MAPF_PARAM_INT, 0, 1048576, 1024,
     "megabytes of RRA* data per run; past it the least recently used are dropped (0: no limit)",
     NULL},
};

static int whca_check(const mapf_params *p, mapf_diag *d) {
  if (p->v[1] > p->v[0])
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "whca: replan (%g) must be at most window (%g): an agent has no plan "
                         "beyond its window",
                         p->v[1], p->v[0]);
  return MAPF_OK;
}

/* FAR (Wang & Botea 2008; seed 002; seed 001 Sec. III-B and V) and A*-Replan, FAR without flow
 * annotation (seed 001 Sec. V). Reservation size k = 3 as suggested by FAR's authors and used by
 * seed 001. replan_after is our threshold for "an agent blocked for many steps replans locally";
 * the rules behind it are in core/far.c's head comment. Parameter order is read by far.c. */
static const mapf_param_def far_params[] = {
    {"reservation", MAPF_PARAM_INT, 1, 64, 3,
     "moves an agent must reserve ahead (space-time reservation table) before it moves", NULL},
    {"flow", MAPF_PARAM_BOOL, 0, 1, 1,
     "plan on the flow-annotated graph (false: the plain grid, as A*-Replan)", NULL},
    {"replan_after", MAPF_PARAM_INT, 1, 1000000, 5,
     "steps blocked before an agent repairs its path locally (and again every as many steps)",
     NULL},
};

static const mapf_param_def astar_replan_params[] = {
    {"reservation", MAPF_PARAM_INT, 1, 64, 3,
     "moves an agent must reserve ahead (space-time reservation table) before it moves", NULL},
    {"replan_after", MAPF_PARAM_INT, 1, 1000000, 5,
     "steps blocked before an agent repairs its path locally (and again every as many steps)",
     NULL},
};

/* Parametrized real-time heuristic search (thesis seed 003, Ch. 4, Algorithm 1; Bulitko 2016).
 * Ranges are the thesis's (line 303) where it gives them: w in [1, 10], b in [0, 1], lop, da,
 * expendable. It gives none for wc (it is not among line 303's five parameters): [1, 10] like
 * w, and >= 1 so that the learned h(n) is never below c + h of the node the agent moves to.
 * lop's choices are named as in ALGORITHMS.md (the thesis says avg at line 303 and mean at line
 * 264). The defaults are LRTA* with lookahead 1 (core/rths.c explains why). rths.c reads the
 * parameters in this order. */
static const char *const rths_lop[] = {"min", "mean", "median", "max", NULL};

static const mapf_param_def rths_params[] = {
    {"w", MAPF_PARAM_REAL, 1, 10, 1, "weight of the learned value: h(n) >= w * lop(...)", NULL},
    {"wc", MAPF_PARAM_REAL, 1, 10, 1,
     "weight of the edge cost in learning: lop of wc * c(n, n') + h(n')", NULL},
    {"b", MAPF_PARAM_REAL, 0, 1, 0,
     "lateral learning: lop combines the b fraction of the neighbours with the lowest "
     "wc * c + h (0: the lowest one)",
     NULL},
    {"lop", MAPF_PARAM_ENUM, 0, 0, 0,
     "learning operator over those neighbours: min, mean, median or max", rths_lop},
    {"da", MAPF_PARAM_BOOL, 0, 1, 0,
     "depression avoidance: consider only the neighbours with the least learning |h - h0|",
     NULL},
    {"expendable", MAPF_PARAM_BOOL, 0, 1, 0,
     "prune the current node from the agent's graph when it learned and its neighbours stay "
     "connected without it",
     NULL},
};

/* Direction maps (Jansen & Sturtevant 2008, seed 004; ALGORITHMS.md, Direction maps). alpha 0.8,
 * vision 5 and weight 5 are the paper's (it also used weight 10); local_radius 0 is its global
 * map, 2 its agent-centric one. The rules are in core/dm.c's head comment; dm.c reads the
 * parameters in this order. */
static const mapf_param_def dm_params[] = {
    {"alpha", MAPF_PARAM_REAL, 0, 1, 0.8,
     "learning rate of a cell's direction vector: dv = normalize(alpha dv + (1 - alpha) move)", NULL},
    {"weight", MAPF_PARAM_REAL, 0, 1000, 5,
     "extra cost of a move fully against the direction map (0: plain A*, the map only recorded)", NULL},
    {"vision", MAPF_PARAM_REAL, 0, 1000000, 5,
     "agents within this Euclidean distance are obstacles to the search", NULL},
    {"local_radius", MAPF_PARAM_INT, 0, 1024, 0,
     "0: one global map; r > 0: each agent plans with its own map, copied from the global one "
     "within Euclidean distance r of it after every step", NULL},
};

static const mapf_algo_def algo_table[] = {
    {"bmaa", "BMAA*",
     "Bounded Multi-Agent A*: every agent runs its own RTAA* (seed 001, Algs. 2-5)",
     bmaa_params, (int32_t)(sizeof bmaa_params / sizeof bmaa_params[0]), NULL,
     &mapf__bmaa_vt},
    {"whca", "WHCA*",
     "Windowed Hierarchical Cooperative A*: windowed space-time A* with a shared reservation "
     "table and RRA* distances (Silver 2005)",
     whca_params, (int32_t)(sizeof whca_params / sizeof whca_params[0]), whca_check,
     &mapf__whca_vt},
    {"far", "FAR",
     "Flow Annotation Replanning: complete A* paths on a flow-annotated grid, k-step "
     "reservations, wait-for deadlock breaking, local repair (Wang & Botea 2008)",
     far_params, (int32_t)(sizeof far_params / sizeof far_params[0]), NULL, &mapf__far_vt},
    {"astar-replan", "A*-Replan",
     "FAR without flow annotation: complete A* paths on the grid, k-step reservations, "
     "deadlock breaking, local repair (seed 001 Sec. V)",
     astar_replan_params, (int32_t)(sizeof astar_replan_params / sizeof astar_replan_params[0]),
     NULL, &mapf__astar_replan_vt},
    {"dm", "DM",
     "Direction maps: A* agents with edge costs raised against the direction others moved, "
     "replanning on failed moves; global or agent-centric maps (Jansen & Sturtevant 2008)",
     dm_params, (int32_t)(sizeof dm_params / sizeof dm_params[0]), NULL, &mapf__dm_vt},
    {"rths", "RTHS",
     "parametrized real-time heuristic search, lookahead 1, one agent's algorithm run by every "
     "agent alone (thesis Ch. 4, Algorithm 1); the defaults are LRTA*",
     rths_params, (int32_t)(sizeof rths_params / sizeof rths_params[0]), NULL, &mapf__rths_vt},
};

int32_t mapf_algo_count(void) { return (int32_t)(sizeof algo_table / sizeof algo_table[0]); }

const mapf_algo_def *mapf_algo_at(int32_t i) {
  return i >= 0 && i < mapf_algo_count() ? &algo_table[i] : NULL;
}

const mapf_algo_def *mapf_algo_find(const char *name) {
  for (int32_t i = 0; i < mapf_algo_count(); i++)
    if (strcmp(algo_table[i].name, name) == 0) return &algo_table[i];
  return NULL;
}

int32_t mapf_param_index(const mapf_algo_def *def, const char *name) {
  for (int32_t i = 0; i < def->nparams; i++)
    if (strcmp(def->params[i].name, name) == 0) return i;
  return -1;
}

void mapf_params_default(const mapf_algo_def *def, mapf_params *p) {
  memset(p, 0, sizeof *p);
  for (int32_t i = 0; i < def->nparams; i++) p->v[i] = def->params[i].def;
}

/* Shortest %g form that reads back to the same double, so JSON (and so job keys) are canonical
 * and readable: 0.2 stays "0.2", sqrt(2) gets all 17 digits. */
static int format_real(double v, char *buf, size_t n) {
  v += 0.0; /* -0 and 0 are one value: one text */
  /* %g drops trailing zeros, so "%.15g" already prints any value that has a shorter exact
   * form (0.2 -> "0.2") the same way a search over every precision would; only values that
   * need more digits try 16 and 17. Two snprintf calls instead of up to seventeen: this runs
   * for every job key. */
  char tmp[64];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, v);
    if (prec == 17 || strtod(tmp, NULL) == v) break;
  }
  return snprintf(buf, n, "%s", tmp);
}

int32_t mapf_param_nchoices(const mapf_param_def *pd) {
  int32_t k = 0;
  if (pd->type == MAPF_PARAM_ENUM && pd->choices)
    while (pd->choices[k]) k++;
  return k;
}

const char *mapf_param_choice(const mapf_algo_def *def, int32_t i, double value) {
  const mapf_param_def *pd = &def->params[i];
  if (!(value >= 0 && value < mapf_param_nchoices(pd) && value == floor(value))) return NULL;
  return pd->choices[(int32_t)value];
}

int mapf_param_format(const mapf_algo_def *def, int32_t i, double value, char *buf, size_t n) {
  switch (def->params[i].type) {
  case MAPF_PARAM_BOOL:
    return snprintf(buf, n, "%s", value != 0 ? "true" : "false");
  case MAPF_PARAM_INT:
    return snprintf(buf, n, "%lld", (long long)value);
  case MAPF_PARAM_ENUM: {
    /* Choice names are identifiers (no quotes or backslashes to escape). */
    const char *name = mapf_param_choice(def, i, value);
    return name ? snprintf(buf, n, "\"%s\"", name) : format_real(value, buf, n);
  }
  default:
    return format_real(value, buf, n);
  }
}

static const char *type_phrase(const mapf_param_def *pd) {
  switch (pd->type) {
  case MAPF_PARAM_BOOL:
    return "a boolean";
  case MAPF_PARAM_INT:
    return "an integer";
  default:
    return "a number";
  }
}

int mapf_param_choice_list(const mapf_param_def *pd, char *buf, size_t n) {
  size_t len = 0;
  if (n) buf[0] = '\0';
  for (int32_t k = 0; k < mapf_param_nchoices(pd); k++) {
    int w = snprintf(len < n ? buf + len : NULL, len < n ? n - len : 0, "%s%s", k ? ", " : "",
                     pd->choices[k]);
    len += (size_t)(w > 0 ? w : 0);
  }
  return (int)len;
}

/* "lop: expected one of min, mean, median, max, found " followed by found, into d. */
static int enum_error(const mapf_param_def *pd, const char *found, mapf_diag *d) {
  char list[256];
  mapf_param_choice_list(pd, list, sizeof list);
  return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "%s: expected one of %s, found %s", pd->name,
                       list, found);
}

int mapf_param_check(const mapf_algo_def *def, int32_t i, double value, mapf_diag *d) {
  const mapf_param_def *pd = &def->params[i];
  char lo[32], hi[32], found[32];
  if (pd->type == MAPF_PARAM_ENUM) {
    if (mapf_param_choice(def, i, value)) return MAPF_OK;
    format_real(value, found, sizeof found);
    return enum_error(pd, found, d);
  }
  int ok = isfinite(value);
  if (ok && pd->type == MAPF_PARAM_BOOL) ok = value == 0 || value == 1;
  if (ok && pd->type == MAPF_PARAM_INT) ok = value == floor(value);
  if (ok && pd->type != MAPF_PARAM_BOOL) ok = value >= pd->min && value <= pd->max;
  if (ok) return MAPF_OK;
  mapf_param_format(def, i, pd->min, lo, sizeof lo);
  mapf_param_format(def, i, pd->max, hi, sizeof hi);
  format_real(value, found, sizeof found);
  if (pd->type == MAPF_PARAM_BOOL)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "%s: expected a boolean, found %s",
                         pd->name, found);
  return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "%s: expected %s in [%s, %s], found %s",
                       pd->name, type_phrase(pd), lo, hi, found);
}

int mapf_param_parse(const mapf_algo_def *def, int32_t i, const char *text, double *value,
                     mapf_diag *d) {
  const mapf_param_def *pd = &def->params[i];
  if (pd->type == MAPF_PARAM_BOOL) {
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};
    for (int k = 0; k < 4; k++) {
      if (strcmp(text, yes[k]) == 0) return *value = 1, MAPF_OK;
      if (strcmp(text, no[k]) == 0) return *value = 0, MAPF_OK;
    }
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "%s: expected a boolean, found \"%s\"",
                         pd->name, text);
  }
  if (pd->type == MAPF_PARAM_ENUM) {
    for (int32_t k = 0; pd->choices && pd->choices[k]; k++)
      if (strcmp(text, pd->choices[k]) == 0) return *value = k, MAPF_OK;
    char found[128];
    snprintf(found, sizeof found, "\"%.100s\"", text);
    return enum_error(pd, found, d);
  }
  double v;
  if (pd->type == MAPF_PARAM_REAL && (strcmp(text, "sqrt(2)") == 0 || strcmp(text, "sqrt2") == 0)) {
    v = MAPF_SQRT2;
  } else {
    char *end = NULL;
    v = strtod(text, &end);
    if (!*text || end == text || *end != '\0') {
      return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "%s: expected %s, found \"%s\"",
                           pd->name, type_phrase(pd), text);
    }
  }
  int rc = mapf_param_check(def, i, v, d);
  if (rc == MAPF_OK) *value = v + 0.0; /* canonical: -0 is 0 */
  return rc;
}

int mapf_params_check(const mapf_algo_def *def, const mapf_params *p, mapf_diag *d) {
  for (int32_t i = 0; i < def->nparams; i++) {
    int rc = mapf_param_check(def, i, p->v[i], d);
    if (rc != MAPF_OK) return rc;
  }
  return def->check ? def->check(p, d) : MAPF_OK;
}

int mapf_params_json(const mapf_algo_def *def, const mapf_params *p, char *buf, size_t n) {
  /* Keys sorted by name: selection by index keeps this allocation-free. */
  int32_t order[MAPF_MAX_PARAMS];
  for (int32_t i = 0; i < def->nparams; i++) order[i] = i;
  for (int32_t i = 1; i < def->nparams; i++) {
    int32_t k = order[i], j = i;
    while (j > 0 && strcmp(def->params[order[j - 1]].name, def->params[k].name) > 0) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = k;
  }
  size_t len = 0;
  char val[64];
#define APPEND(...)                                                    \
  do {                                                                 \
    int w_ = snprintf(len < n ? buf + len : NULL, len < n ? n - len : 0, __VA_ARGS__); \
    len += (size_t)(w_ > 0 ? w_ : 0);                                  \
  } while (0)
  APPEND("{");
  for (int32_t k = 0; k < def->nparams; k++) {
    int32_t i = order[k];
    mapf_param_format(def, i, p->v[i], val, sizeof val);
    APPEND("%s\"%s\":%s", k ? "," : "", def->params[i].name, val);
  }
  APPEND("}");
#undef APPEND
  return (int)len;
}
