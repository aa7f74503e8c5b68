/* error.c: error strings and diagnostics. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *mapf_strerror(int err) {
  switch (err) {
#define MAPF__ERR_CASE(code, text) \
  case MAPF_##code:                \
    return text;
    MAPF_ERRNO_MAP(MAPF__ERR_CASE)
#undef MAPF__ERR_CASE
  default:
    return "unknown error";
  }
}

int mapf_diag_set(mapf_diag *d, int err, const char *file, int line, int col,
                  const char *fmt, ...) {
  if (!d) return err;
  snprintf(d->file, sizeof d->file, "%s", file ? file : "");
  d->line = line;
  d->col = col;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->msg, sizeof d->msg, fmt, ap);
  va_end(ap);
  return err;
}

int mapf_diag_format(const mapf_diag *d, char *buf, size_t n) {
  if (d->file[0] && d->line > 0 && d->col > 0)
    return snprintf(buf, n, "%s:%d:%d: error: %s", d->file, d->line, d->col, d->msg);
  if (d->file[0] && d->line > 0)
    return snprintf(buf, n, "%s:%d: error: %s", d->file, d->line, d->msg);
  if (d->file[0]) return snprintf(buf, n, "%s: error: %s", d->file, d->msg);
  return snprintf(buf, n, "error: %s", d->msg);
}
