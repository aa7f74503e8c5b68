/* merge.h: `mapfarm merge OUT.db IN.db...`, combining shard databases into one.
 *
 * Results and their agent rows are copied by job key: a key OUT lacks is copied, a key OUT holds
 * is compared with OUT's row on every deterministic column (FARM_COL_COMPARED in farm/columns.h;
 * a difference is a conflict: reported, and OUT's row is kept). Runs are copied by runs.run_uid, their identity
 * across files, and get new run_id values in OUT (results.run_id is remapped); likewise a copied
 * job gets a new results.id in OUT, under which its agent rows are written. So merging the
 * same input twice adds nothing, and shards merge in any order, in one step or in several.
 *
 * The whole merge is one transaction on OUT: on an error nothing of it stays, and an OUT that
 * the merge created is removed again. Inputs are opened read-only and never written. */
#ifndef FARM_MERGE_H
#define FARM_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* Conflicts kept with their details (all are counted). */
#define FARM_MERGE_MAX_SHOWN 10

/* Return values of farm_merge. */
enum {
  FARM_MERGE_OK = 0,         /* merged; no conflict */
  FARM_MERGE_CONFLICTS = 1,  /* merged (committed), but some rows conflict with OUT's */
  FARM_MERGE_FAILED = -1,    /* a database error while merging: OUT is as it was */
  FARM_MERGE_BAD_INPUT = -2  /* an input or OUT is not a mapfarm database, an input is OUT, ...:
                                nothing was written */
};

/* What one input brought. */
typedef struct farm_merge_input {
  const char *path;          /* as given (points into the caller's array) */
  int64_t added;             /* results rows copied into OUT */
  int64_t agent_rows;        /* agent_results rows copied with them */
  int64_t present;           /* keys OUT held already, with the same values */
  int64_t conflicts;         /* keys OUT held already, with different values */
  int64_t runs_added;        /* runs new to OUT */
  int64_t runs_updated;      /* runs OUT had as running, which have ended in this input */
  int64_t runs_running;      /* runs of this input without a recorded end and with no later
                                run of their plan and shard: still running (or stopped without
                                a clean exit); merge again once they end */
} farm_merge_input;

/* One conflicting row: the first column (in a fixed order) whose values differ. */
typedef struct farm_merge_conflict {
  int32_t input;             /* index of the input */
  char job_key[33];
  char column[40];
  char out_value[64];        /* OUT's value and the input's, as text (long text cut, "...") */
  char in_value[64];
} farm_merge_conflict;

typedef struct farm_merge_result {
  farm_merge_input *inputs;  /* ninputs entries, in the order given */
  int32_t ninputs;
  int created;               /* OUT did not exist before */
  int64_t conflicts;         /* over all inputs */
  int32_t nshown;            /* the first min(conflicts, FARM_MERGE_MAX_SHOWN), input order,
                                then job key order */
  farm_merge_conflict shown[FARM_MERGE_MAX_SHOWN];
  char note[640];            /* farm_store_note of OUT's open: "" or a note for the user */
} farm_merge_result;

/* Merges the n databases in_paths into out_path (created as a mapfarm database when missing).
 * Every input is checked (exists, is a mapfarm database of this schema version, is not OUT)
 * before OUT is opened, so bad input leaves OUT untouched, byte for byte. Returns one of the
 * FARM_MERGE_* values; res is filled in every case (what was merged, when the return is >= 0) and
 * must be released with farm_merge_result_free. On a negative return err holds the reason. */
int farm_merge(const char *out_path, const char *const *in_paths, int32_t n,
               farm_merge_result *res, mapf_diag *err);

/* Frees what farm_merge allocated in res (not res itself); a zeroed res is a no-op. */
void farm_merge_result_free(farm_merge_result *res);

#endif
