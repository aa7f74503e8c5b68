/* columns.h: the columns of `results`, one row each.
 *
 * schema/schema.sql declares the columns (a test holds this table against a fresh database's
 * PRAGMA table_info: names, order, types, NOT NULL). A row here says the rest: where the store
 * finds a job's value, whether `mapfarm merge` compares it, when it is NULL, how `mapfarm solve`
 * prints it, and for a metric with a report, the report's name, title and format. The store's
 * INSERT and its bindings, merge's comparison, solve's printout and the metric reports are all
 * made from this table.
 *
 * Adding a metric: its field in mapf_result (core/sim.h), its row here, its line at the end of
 * results in schema/schema.sql, and a new schema version with its upgrade step (farm/store.h,
 * farm/store.c). */
#ifndef FARM_COLUMNS_H
#define FARM_COLUMNS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store.h"

/* Where a column's value comes from. */
typedef enum farm_col_src {
  FARM_COL_ROWID,   /* results.id: SQLite gives it, the store does not write it */
  FARM_COL_RECORD,  /* a field of farm_record at offset */
  FARM_COL_RESULT,  /* a field of the record's mapf_result at offset */
  FARM_COL_COMPUTED /* get() makes it from the job and its batch */
} farm_col_src;

/* The C type of a field at offset. */
typedef enum farm_col_ctype {
  FARM_CT_NONE,  /* ROWID and COMPUTED columns */
  FARM_CT_I32,   /* int32_t */
  FARM_CT_I64,   /* int64_t */
  FARM_CT_OPT64, /* int64_t; a negative value (-1: none) is NULL */
  FARM_CT_F64,   /* double; NaN (a mean over an empty set) is NULL, so that AVG() skips it */
  FARM_CT_STR,   /* const char *; a NULL pointer is NULL */
  FARM_CT_CHARS, /* char[size], NUL-terminated unless full */
  FARM_CT_HEX64  /* uint64_t, as 16 lowercase hex digits (SQLite integers are signed) */
} farm_col_ctype;

enum {
  FARM_COL_NOT_NULL = 1,      /* declared NOT NULL */
  /* Deterministic: the same job gives the same value on any machine, so `mapfarm merge`
   * reports two files that differ in it as a conflict. Not set for what depends on the clock,
   * for what is local to a file (id, run_id) and for what a plan may rename (label, map, the
   * plan_index). */
  FARM_COL_COMPARED = 2,
  FARM_COL_NULL_ON_ERROR = 4, /* NULL in a row with status 'error' (the job did not run) */
  /* Added after the oldest schema a mapfarm reads (FARM_SCHEMA_OLDEST): NULL in the rows of
   * an older file, where it was unknown. Merge takes a NULL on either side as agreeing. */
  FARM_COL_NULL_UNKNOWN = 8
};

/* Which results `mapfarm solve` prints a column for. */
typedef enum farm_col_show {
  FARM_SHOW_NEVER,
  FARM_SHOW_ALWAYS,
  FARM_SHOW_PATROL, /* patrol instances (mapf_result.loops > 0) */
  FARM_SHOW_SET     /* when the value is not NULL */
} farm_col_show;

/* A job as the store writes it: its record, and what its batch adds. */
typedef struct farm_row {
  const farm_record *rec;
  int64_t run_id;          /* <= 0: none (NULL) */
  const char *finished_at; /* ISO 8601 UTC */
} farm_row;

/* One column's value for one job. Text points into the record, a static string or hex. */
typedef struct farm_value {
  int type; /* SQLITE_NULL, SQLITE_INTEGER, SQLITE_FLOAT or SQLITE_TEXT */
  int len;  /* bytes of s, or -1: s is NUL-terminated */
  int64_t i;
  double r;
  const char *s;
  char hex[16];
} farm_value;

typedef struct farm_column {
  const char *name;
  const char *type; /* as declared, and as PRAGMA table_info reports it */
  unsigned flags;   /* FARM_COL_* */
  farm_col_src src;
  farm_col_ctype ctype;
  size_t offset, size; /* size: of a FARM_CT_CHARS array */
  void (*get)(const farm_row *row, farm_value *v); /* FARM_COL_COMPUTED */
  farm_col_show show;
  /* A metric's report (`mapfarm report NAME`: its mean per map and label), or NULL; the value
   * printed is scale x mean with that many decimals. */
  const char *report, *title;
  /* The SQL expression over results that the report averages when it is not the column
   * itself (NULL): soc_lb's report is the mean of soc / soc_lb. */
  const char *expr;
  double scale;
  int decimals;
} farm_column;

/* The largest number of columns results may have (merge sizes arrays with it). */
#define FARM_MAX_COLUMNS 64

/* Every column of results, in table order. */
extern const farm_column farm_columns[];
extern const int32_t farm_ncolumns;

/* The column of that name, or NULL. */
const farm_column *farm_column_find(const char *name);

/* The column whose report is named report, or NULL. */
const farm_column *farm_column_report(const char *report);

/* Fills v with c's value for row (c must not be the ROWID column). */
void farm_column_value(const farm_column *c, const farm_row *row, farm_value *v);

/* Binds the value of every column but the rowid, in table order, to parameters 1, 2, ... of s
 * (the store's INSERT), text without a copy: row, its record and vals (FARM_MAX_COLUMNS values
 * of scratch) must stay as they are until s is stepped. Returns the number of parameters. */
int farm_columns_bind(sqlite3_stmt *s, const farm_row *row, farm_value *vals);

/* Prints the "name: value" lines of `mapfarm solve` for rec (its res, map, agents, algorithm and
 * params): reals with 6 significant digits, NULL as NULL. */
void farm_columns_print(FILE *f, const farm_record *rec);

#endif
