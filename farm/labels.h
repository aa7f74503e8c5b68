/* labels.h: the configurations behind each label of a results database.
 *
 * Every table groups jobs by label, so a label must stand for one configuration: one
 * algorithm with one set of parameters, under one set of limits and one execution rule. A plan
 * refuses two configurations under one label (farm/plan.c), but a database can still hold
 * them: two plans run into one file with other limits, or the same label in two plans. This
 * module finds such labels among the jobs a report reads, and either names each configuration
 * by what sets it apart ("WHCA* [steps=50]"), for tables that can show them apart, or says what
 * differs and how to select one, for those that cannot. */
#ifndef FARM_LABELS_H
#define FARM_LABELS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

typedef struct farm_labels farm_labels;

/* Reads the configurations of every label among the jobs of results that pass `where` (an SQL
 * condition, NULL or "" for all) and max_agents (0: all). Parameters named in ignore
 * (NULL-terminated, or NULL) are left out of a configuration: a table that has them as a row
 * or column keeps their values apart already. A file of schema version 3 or older read as it
 * is has no limits: they are unknown there. Returns 0 and *out (free with farm_labels_free), or
 * -1 with err. */
int farm_labels_load(sqlite3 *db, const char *where, int32_t max_agents,
                     const char *const *ignore, farm_labels **out, mapf_diag *err);

/* Labels that hold more than one configuration. */
int32_t farm_labels_mixed(const farm_labels *l);

/* The SQL expression, over a row of results, of its configuration's key (label included): the
 * rows and columns of a table group on it where labels are mixed, and farm_labels_name turns
 * it into the printed name. Owned by l. */
const char *farm_labels_key_sql(const farm_labels *l);

/* The printed name of configuration key: its label, or where the label holds several
 * configurations, the label with what tells them apart, "BMAA* [steps=50 vision=2]". NULL for
 * a key that was not loaded. Owned by l. */
const char *farm_labels_name(const farm_labels *l, const char *key);

/* One line per mixed label, "LABEL: 2 configurations that differ in steps", at most max_lines
 * of them, then "and N more". Returns the length written, as snprintf does. */
int farm_labels_describe(const farm_labels *l, int max_lines, char *buf, size_t n);

/* Where labels run under different limits or execution rules (per-algorithm limits, or plans
 * run into one file): "Limits that differ between labels:" and one line per label (at most
 * max_lines, then "and N more") with the differing fields, "  FAR no budget: work=0". Nothing
 * when every configuration has the same. Returns the length written, as snprintf does. */
int farm_labels_describe_limits(const farm_labels *l, int max_lines, char *buf, size_t n);

/* For tables that cannot show configurations apart: 0 when every label has one, otherwise -1
 * with err naming the first mixed label, what differs with the values, and a --where that
 * selects one of them. */
int farm_labels_refuse_mixed(const farm_labels *l, mapf_diag *err);

/* farm_labels_load then farm_labels_refuse_mixed, freeing what it loaded. */
int farm_labels_check(sqlite3 *db, const char *where, int32_t max_agents, mapf_diag *err);

/* Frees l; NULL is a no-op. */
void farm_labels_free(farm_labels *l);

#endif
