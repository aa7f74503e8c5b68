/* report.h: named result tables (Tables I-III of seed 001: maps as rows, labels as columns, an
 * Overall row and column). */
#ifndef FARM_REPORT_H
#define FARM_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "store.h"

typedef enum { FARM_FORMAT_TEXT, FARM_FORMAT_MD, FARM_FORMAT_CSV } farm_format;

typedef struct farm_report_opts {
  farm_format format;
  int32_t max_agents; /* only instances with at most this many agents; 0 = all */
} farm_report_opts;

/* Names of the reports, NULL-terminated: "completion-rate", "completion-time",
 * "travel-distance". */
extern const char *const farm_report_names[];

/* Writes report `name` to out. Returns 0, or -1 with err (unknown name: the message lists the
 * valid names and suggests the nearest). */
int farm_report(farm_store *st, const char *name, const farm_report_opts *opts, FILE *out,
                char *err, size_t errlen);

#endif
