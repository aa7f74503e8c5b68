/* suggest.h: "did you mean" for misspelt keys and names. */
#ifndef FARM_SUGGEST_H
#define FARM_SUGGEST_H

#include <stdint.h>

/* Returns the candidate nearest to word by edit distance (Damerau: a swap of two neighbouring
 * letters costs 1, so "visoin" finds "vision"), if that distance is at most a third of the
 * longer word's length (at least 1) ; otherwise NULL. Candidates are NULL-terminated when
 * n < 0. */
const char *farm_suggest(const char *word, const char *const *candidates, int32_t n);

#endif
