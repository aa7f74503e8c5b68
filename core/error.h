/* error.h: error codes and diagnostics shared by every core module.
 *
 * Functions return an int from MAPF_ERRNO_MAP (0 on success). The detail, with the file, line
 * and column of bad input, goes into a caller-owned mapf_diag (as SQLite keeps it in the
 * connection). The core never prints and never exits. */
#ifndef MAPF_ERROR_H
#define MAPF_ERROR_H

#include <stddef.h>

#define MAPF_ERRNO_MAP(XX)                                             \
  XX(OK, "success")                                                    \
  XX(ENOMEM, "out of memory")                                          \
  XX(EIO, "cannot read or write a file")                               \
  XX(EPARSE, "malformed input")                                        \
  XX(EINVAL, "invalid argument")                                       \
  XX(ENOSPACE, "the map cannot hold the request")                      \
  XX(EUNSUPPORTED, "not supported")

typedef enum {
#define MAPF__ERR_ENUM(code, text) MAPF_##code,
  MAPF_ERRNO_MAP(MAPF__ERR_ENUM)
#undef MAPF__ERR_ENUM
  MAPF_ERRNO_COUNT
} mapf_errno;

/* Returns a static description of err; never NULL. */
const char *mapf_strerror(int err);

/* Where and why something failed. line and col are 1-based; 0 means "unknown" and is left out
 * of the formatted message. */
typedef struct mapf_diag {
  char file[512];
  int line;
  int col;
  char msg[1024];
} mapf_diag;

/* Fills d (if not NULL) with a location and a printf-style message. file may be NULL.
 * Returns err so callers can write `return mapf_diag_set(d, MAPF_EPARSE, ...)`. */
int mapf_diag_set(mapf_diag *d, int err, const char *file, int line, int col,
                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Writes "file:line:col: error: msg" (parts that are unknown are left out) into buf, always
 * NUL-terminated. Returns the length the full message needs, as snprintf does. */
int mapf_diag_format(const mapf_diag *d, char *buf, size_t n);

#endif
