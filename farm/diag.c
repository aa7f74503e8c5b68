/* diag.c: growing list of diagnostics, and one-line errors. */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mapf_diag *diags_slot(farm_diags *ds) {
  if (ds->n == ds->cap) {
    int32_t cap = ds->cap ? ds->cap * 2 : 8;
    mapf_diag *p = realloc(ds->items, (size_t)cap * sizeof *p);
    if (!p) {
      ds->n++; /* still counted */
      return NULL;
    }
    ds->items = p;
    ds->cap = cap;
  }
  return &ds->items[ds->n++];
}

void farm_diags_add(farm_diags *ds, const char *file, int line, int col, const char *fmt, ...) {
  mapf_diag *d = diags_slot(ds);
  if (!d) return;
  snprintf(d->file, sizeof d->file, "%s", file ? file : "");
  d->line = line;
  d->col = col;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->msg, sizeof d->msg, fmt, ap);
  va_end(ap);
}

void farm_diags_push(farm_diags *ds, const mapf_diag *src) {
  mapf_diag *d = diags_slot(ds);
  if (d) *d = *src;
}

void farm_diags_free(farm_diags *ds) {
  free(ds->items);
  memset(ds, 0, sizeof *ds);
}

int farm_err(mapf_diag *d, const char *fmt, ...) {
  if (!d) return -1;
  d->file[0] = '\0';
  d->line = d->col = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->msg, sizeof d->msg, fmt, ap);
  va_end(ap);
  return -1;
}
