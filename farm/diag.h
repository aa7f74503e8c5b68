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

/* The error style of farm/ (docs/design.md, Errors). A function that can fail reports
 * through a diagnostics object: a plan, which reports every mistake, fills a farm_diags list;
 * every other function (the database, merge, reports, datasets) fills one mapf_diag, as core/
 * does, with the whole message in msg. A caller that does not want the message passes NULL.
 * farm_err sets d's message (no location) and returns -1, so a failing function can end with
 * `return farm_err(d, "...")`. */
int farm_err(mapf_diag *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
