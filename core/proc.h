/* proc.h: running another program under a wall-clock limit (external's solvers), and removing
 * a private scratch directory. Internal to core/.
 *
 * Thread safety: reentrant. No signal handler is installed and no process state is changed
 * (no chdir, no environment): the child is started with posix_spawnp in a process group of its
 * own, watched by polling, and killed with its whole group at the limit. */
#ifndef MAPF_PROC_H
#define MAPF_PROC_H

#include <stddef.h>

#include "error.h"

/* The bytes kept of each of the child's output streams: the last ones. */
#define MAPF__PROC_TAIL 2048

typedef struct mapf__proc_result {
  int exited;        /* 1: it exited by itself with exit code `code` */
  int code;
  int signal;        /* the signal that ended it when not `exited` (SIGKILL after a timeout) */
  int timed_out;     /* 1: killed (with its process group) at the limit */
  double seconds;    /* wall time from the start to the end (or the kill) */
  /* The tails of its stderr and stdout, NUL-terminated, as written (stdin is /dev/null). */
  char err[MAPF__PROC_TAIL + 1], out[MAPF__PROC_TAIL + 1];
} mapf__proc_result;

/* Runs argv[0] (found on PATH as execvp does when it has no slash) with argv, in a process
 * group of its own, for at most limit seconds (> 0): then SIGKILL to the group. When it ends
 * by itself, whatever it left running in its group is killed too, so nothing of it outlives
 * the call, and it is reaped. Its output streams are read while it runs (a chatty child never
 * blocks on a full pipe). Returns MAPF_OK with *r filled when the program ran, or MAPF_EIO
 * ("cannot run \"prog\": No such file or directory") or MAPF_ENOMEM with the reason in d. */
int mapf__proc_run(char *const argv[], double limit, mapf__proc_result *r, mapf_diag *d);

/* Makes a fresh private directory (mode 0700) "<$TMPDIR or /tmp>/<prefix>-XXXXXX" into dir (n
 * bytes). Returns MAPF_OK, or MAPF_EIO with the reason in d. */
int mapf__proc_tmpdir(const char *prefix, char *dir, size_t n, mapf_diag *d);

/* Removes dir and everything below it (symbolic links as links, never followed). Returns 0,
 * or -1 when something could not be removed. */
int mapf__proc_rmtree(const char *dir);

#endif
