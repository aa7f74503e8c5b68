/* algo.h: the registry of algorithms and their declared parameters.
 *
 * Each algorithm declares its parameters once (name, type, range, default, meaning); plans,
 * `mapfarm solve --param`, job keys and the README all read this one table. Parameter values
 * are held as doubles in declaration order: integers and booleans (0 or 1) are exact there. */
#ifndef MAPF_ALGO_H
#define MAPF_ALGO_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define MAPF_MAX_PARAMS 16

/* An enumeration (MAPF_PARAM_ENUM) is held as the index of its choice, 0 .. count - 1, and
 * written as the choice's name (a JSON string); its min and max are ignored. */
typedef enum {
  MAPF_PARAM_INT,
  MAPF_PARAM_REAL,
  MAPF_PARAM_BOOL,
  MAPF_PARAM_ENUM
} mapf_param_type;

typedef struct mapf_param_def {
  const char *name;
  mapf_param_type type;
  double min, max; /* inclusive range (ignored for booleans and enumerations) */
  double def;      /* default (for an enumeration, the index of the default choice) */
  const char *doc; /* one line for help and the README */
  /* MAPF_PARAM_ENUM: the choices' names, NULL-terminated, at least one; NULL otherwise. */
  const char *const *choices;
} mapf_param_def;

typedef struct mapf_params {
  double v[MAPF_MAX_PARAMS]; /* in the order of mapf_algo_def.params */
} mapf_params;

struct mapf__planner_vt; /* sim_int.h */

typedef struct mapf_algo_def {
  const char *name;  /* canonical name in plans and on the command line, e.g. "bmaa" */
  const char *label; /* display name, e.g. "BMAA*" */
  const char *doc;
  const mapf_param_def *params;
  int32_t nparams;
  /* Cross-parameter checks beyond each parameter's range; NULL when there are none. Returns
   * MAPF_OK or MAPF_EINVAL / MAPF_EUNSUPPORTED with the reason in d (no location). */
  int (*check)(const mapf_params *p, mapf_diag *d);
  const struct mapf__planner_vt *vt;
} mapf_algo_def;

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

/* Checks every parameter's range and then def->check. */
int mapf_params_check(const mapf_algo_def *def, const mapf_params *p, mapf_diag *d);

/* Writes p as canonical JSON: keys sorted by name, integers without a fraction, booleans as
 * true/false, enumerations as their choice's name in quotes ("lop":"median"), reals in the
 * shortest form that reads back to the same double. Returns the length needed (as snprintf). */
int mapf_params_json(const mapf_algo_def *def, const mapf_params *p, char *buf, size_t n);

/* Writes the value of parameter i the way mapf_params_json does (an enumeration's name in
 * quotes; an index that names no choice, only ever seen in error messages, as a number). */
int mapf_param_format(const mapf_algo_def *def, int32_t i, double value, char *buf, size_t n);

#endif
