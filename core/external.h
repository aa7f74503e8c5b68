/* external.h: the program of algorithm `external` (external.c; docs/external.md), as the farm
 * checks it before any job runs. */
#ifndef MAPF_EXTERNAL_H
#define MAPF_EXTERNAL_H

#include <stddef.h>

#include "error.h"

/* Finds program as execvp would run it: as given when it holds a slash (relative to the
 * current directory), else in the directories of PATH (/bin:/usr/bin when PATH is unset), the
 * first regular file there that this user may execute. Writes its path into path (n bytes).
 * Returns MAPF_OK, or MAPF_EINVAL with why in d ("program \"lacam3\" is not on PATH",
 * "\"./main\": No such file or directory", "\"./run.sh\" is not executable"). */
int mapf_external_find(const char *program, char *path, size_t n, mapf_diag *d);

/* The content hash of a command (a list parameter's canonical JSON, external's `command`):
 * its program's file (mapf_external_find) and every argument that names an existing regular
 * file (a script an interpreter runs: ["python3", "solver.py", ...]), as 32 hex digits into
 * hex. So a rebuilt solver gives new job keys. Returns MAPF_OK, or MAPF_EINVAL / MAPF_EIO with
 * why in d. */
int mapf_external_hash(const char *command, char hex[33], mapf_diag *d);

#endif
