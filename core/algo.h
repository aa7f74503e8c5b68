/* algo.h: the registry of algorithms and their declared parameters.
 *
 * An algorithm is one source file of core/ that defines one description (mapf_algo_def) with
 * MAPF_ALGORITHM: its names, a typed parameter struct, the table that describes each field of
 * that struct (name, type, range, default, meaning, offsetof), its cross-parameter rules and
 * its planner. The build collects every MAPF_ALGORITHM line of the .c files of core/ into
 * the registry (cmake/algo-registry.cmake); docs/adding-an-algorithm.md walks through one.
 *
 * The farm holds values generically, as doubles in table order (mapf_params: integers and
 * booleans, 0 or 1, are exact there), for plans, `mapfarm solve --param`, job keys and JSON.
 * A planner never reads them by position: mapf_params_fill copies them, once per run, into
 * the algorithm's typed struct, field by field as the table says. */
#ifndef MAPF_ALGO_H
#define MAPF_ALGO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define MAPF_MAX_PARAMS 16

/* An enumeration (MAPF_PARAM_ENUM) is held as the index of its choice, 0 .. count - 1, and
 * written as the choice's name (a JSON string); its min and max are ignored. A list
 * (MAPF_PARAM_LIST) is a list of strings, an argument vector (external's `command`), held as
 * its canonical JSON text in mapf_params.text; its min, max and default are ignored (the
 * default is the empty list). */
typedef enum {
  MAPF_PARAM_INT,
  MAPF_PARAM_REAL,
  MAPF_PARAM_BOOL,
  MAPF_PARAM_ENUM,
  MAPF_PARAM_LIST
} mapf_param_type;

/* The longest canonical JSON text of a list value, in bytes: a job's parameters stay within
 * the farm's 512-byte text (a longer command belongs in a wrapper script). */
#define MAPF_LIST_MAX_JSON 400

typedef struct mapf_param_def {
  const char *name;
  mapf_param_type type;
  double min, max; /* inclusive range (ignored for booleans and enumerations) */
  double def;      /* default (for an enumeration, the index of the default choice) */
  const char *doc; /* one line for help and the README */
  /* MAPF_PARAM_ENUM: the choices' names, NULL-terminated, at least one; NULL otherwise. */
  const char *const *choices;
  /* Where the value lives in the algorithm's typed parameter struct (offsetof), whose field
   * has the C type its parameter type sets: int32_t for MAPF_PARAM_INT and MAPF_PARAM_ENUM
   * (the choice's index), double for MAPF_PARAM_REAL, bool for MAPF_PARAM_BOOL, const char *
   * for MAPF_PARAM_LIST (the list's canonical JSON, "[]" when empty). Scenario
   * generators describe theirs the same way (scengen.c). */
  size_t offset;
} mapf_param_def;

typedef struct mapf_params {
  double v[MAPF_MAX_PARAMS]; /* in the order of mapf_algo_def.params */
  /* MAPF_PARAM_LIST: the value's canonical JSON (mapf_list_parse), NULL for the empty list;
   * v[i] then holds a 53-bit hash of that text (mapf_params_set_list), so that values compare
   * and hash as numbers do. Not owned: whoever sets it keeps the text alive as long as any copy
   * of these parameters (a plan keeps its lists, `solve` its --param values). */
  const char *text[MAPF_MAX_PARAMS];
} mapf_params;

struct mapf__planner_vt; /* sim_int.h */

/* The work model of an algorithm (limits.work, sim.h): what its operations cost, in
 * nanoseconds of this project's reference machine, so that a budget charges each algorithm
 * for what its search costs and the charge never depends on the clock (results stay the same
 * on every machine and thread count). A run's work is
 *   expansion_ns x node expansions + agent_step_ns x agents x steps begun.
 * `mapfarm calibrate` measures both weights on the machine at hand and prints them beside
 * these (docs/choices.md, "The work budget"). Both 0: no model (a `work` limit is refused). */
typedef struct mapf_work_model {
  double expansion_ns;  /* one node expansion, with the successors it generates */
  double agent_step_ns; /* one agent for one step: the planner's per-agent overhead and moves */
} mapf_work_model;

/* Whether m holds a model (a weight above 0). */
static inline int mapf_work_model_set(const mapf_work_model *m) {
  return m->expansion_ns > 0 || m->agent_step_ns > 0;
}

typedef struct mapf_algo_def {
  const char *name;  /* canonical name in plans and on the command line, e.g. "bmaa" */
  const char *label; /* display name, e.g. "BMAA*" */
  const char *doc;
  const mapf_param_def *params; /* one row per field of the typed parameter struct */
  int32_t nparams;
  size_t size; /* sizeof the typed parameter struct; 0: no parameters */
  /* Cross-parameter rules beyond each parameter's range, on the typed struct (size bytes,
   * every value already in its range); NULL when there are none. Returns MAPF_OK or
   * MAPF_EINVAL / MAPF_EUNSUPPORTED with the reason in d (no location). */
  int (*rules)(const void *params, mapf_diag *d);
  const struct mapf__planner_vt *vt;
  mapf_work_model work; /* zero: no work model */
  /* The planner decides every agent's move together, as one joint step (PIBT): it runs under
   * the joint rule (sim.h, MAPF_EXEC_JOINT) whatever a plan asks, and is the only kind that
   * may. false: it plans each agent on its own, under `chains` or `single-pass`. */
  bool joint;
  /* The name of the list parameter that is the argument vector of a program the planner runs
   * (external's "command"), or NULL. The farm finds the program as execvp would and puts a
   * hash of its content in the job key (docs/external.md); a run that takes every algorithm
   * with its defaults leaves such an algorithm out, since its default command is empty. */
  const char *program;
  /* Parameters added after the algorithm's jobs were first stored, NULL-terminated (NULL:
   * none): each is left out of the canonical JSON (mapf_params_json: job keys, results.params)
   * while it holds its default, so the plans written before it keep their keys and results. */
  const char *const *later_params;
} mapf_algo_def;

/* Defines mapf_algo_<id>, the description of one algorithm, and registers it: the build lists
 * every line of core/'s .c files that starts with MAPF_ALGORITHM(id, order) in the registry,
 * by order and then id (bmaa 10, whca 20, far 30, astar-replan 40, dm 50, rths 60; a new
 * algorithm takes the next free ten). The order is that of `mapfarm algorithms`, of
 * suggestions and of a plan's `defaults`. Usage:
 *   MAPF_ALGORITHM(toy, 70) = {.name = "toy", ...}; */
#define MAPF_ALGORITHM(id, order) const mapf_algo_def mapf_algo_##id

/* Number of rows of a parameter table (an array). */
#define MAPF_NPARAMS(table) ((int32_t)(sizeof(table) / sizeof((table)[0])))

/* Number of registered algorithms, and the i-th (0 <= i < count). */
int32_t mapf_algo_count(void);
const mapf_algo_def *mapf_algo_at(int32_t i);

/* The algorithm with this canonical name, or NULL. */
const mapf_algo_def *mapf_algo_find(const char *name);

/* Index of parameter name in def->params, or -1. */
int32_t mapf_param_index(const mapf_algo_def *def, const char *name);

/* Fills p with every parameter's default. */
void mapf_params_default(const mapf_algo_def *def, mapf_params *p);

/* Number of choices of an enumeration (0 for other types). */
int32_t mapf_param_nchoices(const mapf_param_def *pd);

/* Writes an enumeration's choices as a list, "min, mean, median, max" ("" for other types).
 * Returns the length needed (as snprintf). */
int mapf_param_choice_list(const mapf_param_def *pd, char *buf, size_t n);

/* The name of the choice that value stands for when parameter i is an enumeration and value
 * a valid index; otherwise NULL. The string is static. */
const char *mapf_param_choice(const mapf_algo_def *def, int32_t i, double value);

/* Checks value against parameter i's type and range. Returns MAPF_OK or MAPF_EINVAL with a
 * message saying what was expected, e.g. "expansions: expected an integer in [1, 10000000],
 * found 0.5", or for an enumeration "lop: expected one of min, mean, median, max, found 4". */
int mapf_param_check(const mapf_algo_def *def, int32_t i, double value, mapf_diag *d);

/* Parses text as a value of parameter i: integers, reals (also "sqrt(2)" and "sqrt2"),
 * booleans (true/false, yes/no, on/off, 1/0), enumerations (a choice's name exactly, giving its
 * index; otherwise "lop: expected one of min, mean, median, max, found \"avg\""). Returns
 * MAPF_OK and *value, or MAPF_EINVAL (value untouched). */
int mapf_param_parse(const mapf_algo_def *def, int32_t i, const char *text, double *value,
                     mapf_diag *d);

/* Checks every parameter's range and then def->rules. */
int mapf_params_check(const mapf_algo_def *def, const mapf_params *p, mapf_diag *d);

/* Checks def->rules alone (MAPF_OK when there are none), for values already checked one by
 * one: what a plan with a million combinations calls for each. MAPF_ENOMEM when the typed
 * struct cannot be allocated. */
int mapf_params_check_rules(const mapf_algo_def *def, const mapf_params *p, mapf_diag *d);

/* Fills out, the algorithm's typed parameter struct of size bytes, from p: every field the
 * table describes, at its offset, in its C type. Returns MAPF_OK, or MAPF_EINVAL when size is
 * not def->size (a planner given another algorithm's description). */
int mapf_params_fill(const mapf_algo_def *def, const mapf_params *p, void *out, size_t size,
                     mapf_diag *d);

/* The C type a field of this parameter type has in a typed struct: its size in bytes. */
size_t mapf_param_ctype_size(mapf_param_type type);

/* Checks a description against the rules every registered one keeps: a planner, and what
 * mapf_params_validate checks. Returns MAPF_OK or MAPF_EINVAL with what is wrong in d. */
int mapf_algo_validate(const mapf_algo_def *def, mapf_diag *d);

/* The rules of the parameter table alone (scenario generators' views keep them too): a name,
 * a label and a doc; at most MAPF_MAX_PARAMS parameters with distinct names, each default
 * valid, integer ranges within int32_t, enumerations with choices, and aligned fields inside
 * the typed struct that do not overlap. Returns MAPF_OK or MAPF_EINVAL with what is wrong. */
int mapf_params_validate(const mapf_algo_def *def, mapf_diag *d);

/* Writes v in %g's shortest form that reads back to the same double, counting significant
 * digits up from min_digits; -0 prints as 0. The one number formatter of key text, parameter
 * JSON and messages: MAPF_REAL_DIGITS (15) gives plain decimals up to 1e15 (0.2 -> "0.2", 30 ->
 * "30", sqrt(2) with all 17 digits). Key text version 1 writes `limits.seconds` from one digit
 * (30 -> "3e+01"); that form is part of the job keys (farm/expand.c). Returns the length
 * needed (as snprintf). */
#define MAPF_REAL_DIGITS 15
int mapf_format_real(double v, int min_digits, char *buf, size_t n);

/* Writes p as canonical JSON: keys sorted by name, integers without a fraction, booleans as
 * true/false, enumerations as their choice's name in quotes ("lop":"median"), reals in the
 * shortest form that reads back to the same double. Returns the length needed (as snprintf). */
int mapf_params_json(const mapf_algo_def *def, const mapf_params *p, char *buf, size_t n);

/* ---- list values (MAPF_PARAM_LIST) ---- */

/* Parses text, a JSON array of strings (["./solver", "-m", "{map}"]; the escapes of JSON
 * strings, \uXXXX included), into its canonical JSON (malloc'd into *out: no blanks, and only
 * \" \\ \n \t \r and \u00XX for the other control characters escaped), at most
 * MAPF_LIST_MAX_JSON bytes. name prefixes messages ("command: expected ..."). Returns MAPF_OK,
 * MAPF_EINVAL with the reason in d, or MAPF_ENOMEM. */
int mapf_list_parse(const char *name, const char *text, char **out, mapf_diag *d);

/* The canonical JSON of the n strings items, malloc'd, or NULL when out of memory. */
char *mapf_list_json(const char *const *items, int32_t n);

/* Splits a canonical list (NULL: the empty list) into *argv, a NULL-terminated array of its
 * strings in one malloc'd block (free(*argv) frees all), and *argc. Returns MAPF_OK,
 * MAPF_EINVAL when json is not a list of strings, or MAPF_ENOMEM. */
int mapf_list_split(const char *json, char ***argv, int32_t *argc);

/* Sets list parameter i of p to json (canonical, or NULL for the empty list; not copied) and
 * v[i] to its hash. */
void mapf_params_set_list(const mapf_algo_def *def, mapf_params *p, int32_t i, const char *json);

/* Writes the value of parameter i the way mapf_params_json does (an enumeration's name in
 * quotes; an index that names no choice, only ever seen in error messages, as a number). A
 * list's value is not a number: it writes "[]", the default (mapf_params_format writes lists). */
int mapf_param_format(const mapf_algo_def *def, int32_t i, double value, char *buf, size_t n);

/* Writes parameter i of p as mapf_params_json does, lists included. */
int mapf_params_format(const mapf_algo_def *def, const mapf_params *p, int32_t i, char *buf,
                       size_t n);

#endif
