/* heap.h: the binary min-heap of the searches whose open-list entries are structs compared by
 * a function (DM's A*, WHCA*'s space-time A*, RRA*, whose entries hold exact integer keys),
 * made for each entry type by one macro.
 * Internal to core/.
 *
 *   MAPF__HEAP_DEFINE(prefix, type, before)
 *
 * defines, for `type` entries ordered by `int before(const type *a, const type *b)` (a comes
 * out first):
 *
 *   int  prefix_push(type **heap, int32_t *len, int32_t *cap, int32_t first_cap, type e)
 *        adds e, growing the array by half (first_cap entries at first); -1 when out of memory;
 *   type prefix_pop(type *heap, int32_t *len)
 *        removes and returns the first entry (*len > 0).
 *
 * The functions are inline: called through a wrapper, a plain static copy cost DM 2% more
 * instructions (callgrind). Sifting is the textbook one, with two comparisons per level: the
 * orders these searches use compare reals with an epsilon, which is not transitive, so a heap
 * that sifted otherwise could break a near-tie the other way and change results. The two open
 * lists that decide speed keep their own heaps: RTAA*'s and A*'s (search_int.h) compare one
 * integer key and sift Floyd's way, FAR's (far.c) is 4-ary and tracks each cell's position to
 * lower keys in place. */
#ifndef MAPF_HEAP_H
#define MAPF_HEAP_H

#include <stdint.h>
#include <stdlib.h>

#define MAPF__HEAP_DEFINE(prefix, type, before)                                                  \
  static inline int prefix##_push(type **heap, int32_t *len, int32_t *cap, int32_t first_cap,  \
                                  type e) {                                                    \
    if (*len == *cap) {                                                                          \
      int32_t ncap = *cap ? *cap + *cap / 2 : first_cap;                                         \
      type *h = realloc(*heap, (size_t)ncap * sizeof *h);                                        \
      if (!h) return -1;                                                                         \
      *heap = h;                                                                                 \
      *cap = ncap;                                                                               \
    }                                                                                            \
    type *h = *heap;                                                                             \
    int32_t i = (*len)++;                                                                        \
    while (i > 0) {                                                                              \
      int32_t p = (i - 1) >> 1;                                                                  \
      if (!before(&e, &h[p])) break;                                                             \
      h[i] = h[p];                                                                               \
      i = p;                                                                                     \
    }                                                                                            \
    h[i] = e;                                                                                    \
    return 0;                                                                                    \
  }                                                                                              \
                                                                                                 \
  static inline type prefix##_pop(type *h, int32_t *len) {                                         \
    type top = h[0];                                                                             \
    int32_t n = --*len;                                                                          \
    if (n > 0) {                                                                                 \
      type e = h[n];                                                                             \
      int32_t i = 0;                                                                             \
      for (;;) {                                                                                 \
        int32_t c = 2 * i + 1;                                                                   \
        if (c >= n) break;                                                                       \
        if (c + 1 < n && before(&h[c + 1], &h[c])) c++;                                          \
        if (!before(&h[c], &e)) break;                                                           \
        h[i] = h[c];                                                                             \
        i = c;                                                                                   \
      }                                                                                          \
      h[i] = e;                                                                                  \
    }                                                                                            \
    return top;                                                                                  \
  }

#endif
