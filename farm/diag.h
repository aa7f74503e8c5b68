/* diag.h: a list of diagnostics, so a plan with several mistakes reports all of them
 * (docs/design.md, Errors: as SQLite counts nErr). */
#ifndef FARM_DIAG_H
#define FARM_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct farm_diags {
  int32_t n, cap;
  mapf_diag *items;
} farm_diags;

/* Appends one error; file may be NULL, line/col 1-based or 0. Out of memory drops the message
 * but still counts it, so callers can rely on n > 0 after an error. */
void farm_diags_add(farm_diags *ds, const char *file, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Appends a copy of d. */
void farm_diags_push(farm_diags *ds, const mapf_diag *d);

/* Frees the list and zeroes it. */
void farm_diags_free(farm_diags *ds);

/* Formats a one-line error into err (the err/errlen pair of the database and dataset
 * functions), cut to fit; a NULL err or an errlen of 0 is a no-op. */
void farm_set_err(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
