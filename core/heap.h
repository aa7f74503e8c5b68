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
 * that sifted otherwise could break a near-tie the other way and change results.
 *
 *   MAPF__HEAP_DEFINE_SELECT(prefix, type, before, before_nb)
 *
 * is the same heap, making the same comparisons in the same order, whose pop chooses between
 * two children with before_nb, which must return what before does, computed without branches:
 * which child is smaller is a coin toss for the branch predictor, while whether to go down a
 * level is not (DM: about 7 % less time; before_nb everywhere cost it 20 %).
 *
 * The open lists of A*, FAR and A*-Replan (search_int.h's bucket queue) and RTAA*'s
 * (search_int.h's heap) compare exact integer keys and keep their own structures. */
#ifndef MAPF_HEAP_H
#define MAPF_HEAP_H

#include <stdint.h>
#include <stdlib.h>

#define MAPF__HEAP_DEFINE(prefix, type, before)                                                  \
  MAPF__HEAP_DEFINE_SELECT(prefix, type, before, before)

#define MAPF__HEAP_DEFINE_SELECT(prefix, type, before, before_nb)                                \
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
        if (c + 1 < n) c += before_nb(&h[c + 1], &h[c]);                                         \
        if (!before(&h[c], &e)) break;                                                           \
        h[i] = h[c];                                                                             \
        i = c;                                                                                   \
      }                                                                                          \
      h[i] = e;                                                                                  \
    }                                                                                            \
    return top;                                                                                  \
  }

#endif
