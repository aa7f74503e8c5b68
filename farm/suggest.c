/* suggest.c: optimal string alignment distance, bounded to short words. */
#include "suggest.h"

#include <string.h>

#define SUGGEST_MAX 64

static int osa_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la >= SUGGEST_MAX || lb >= SUGGEST_MAX) return SUGGEST_MAX;
  int d[SUGGEST_MAX + 1][SUGGEST_MAX + 1];
  for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    for (size_t j = 1; j <= lb; j++) {
      int cost = a[i - 1] != b[j - 1];
      int best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + cost < best) best = d[i - 1][j - 1] + cost;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  }
  return d[la][lb];
}

const char *farm_suggest(const char *word, const char *const *candidates, int32_t n) {
  const char *best = NULL;
  int best_d = SUGGEST_MAX;
  for (int32_t i = 0; n < 0 ? candidates[i] != NULL : i < n; i++) {
    int dist = osa_distance(word, candidates[i]);
    if (dist < best_d) {
      best_d = dist;
      best = candidates[i];
    }
  }
  if (!best) return NULL;
  size_t la = strlen(word), lb = strlen(best);
  int limit = (int)((la > lb ? la : lb) / 3);
  if (limit < 1) limit = 1;
  return best_d <= limit ? best : NULL;
}
