/* astar.c: plain A* over the legal moves of a grid (seed 001, Alg. 1). Generation-stamped node
 * records mean a search costs O(expanded nodes log open), never O(map). */
#include "astar.h"

#include <stdlib.h>

#include "search_int.h"

struct mapf_astar {
  mapf__search s;
};

mapf_astar *mapf_astar_new(void) { return calloc(1, sizeof(mapf_astar)); }

void mapf_astar_free(mapf_astar *a) {
  if (!a) return;
  mapf__search_free(&a->s);
  free(a);
}

int mapf_astar_run(mapf_astar *a, const mapf_grid *g, int32_t start, int32_t goal,
                   mapf_astar_result *r, int32_t *path, int32_t *path_len) {
  r->found = 0;
  r->cost = 0;
  r->expansions = 0;
  int32_t cap = path_len ? *path_len : 0;
  if (path_len) *path_len = 0;
  if (start < 0 || goal < 0 || start >= g->ncells || goal >= g->ncells ||
      !g->passable[start] || !g->passable[goal])
    return MAPF_EINVAL;
  mapf__search *s = &a->s;
  if (mapf__search_begin(s, g->ncells) < 0) return MAPF_ENOMEM;

  mapf__node *nd = s->node;
  int32_t gx = mapf_grid_x(g, goal), gy = mapf_grid_y(g, goal);
  nd[start].g = 0;
  nd[start].parent = -1;
  nd[start].gen = s->gen;
  nd[start].heap = -2;
  if (mapf__open_push(s, start, 0, mapf_octile(g, start, goal)) < 0) return MAPF_ENOMEM;

  while (s->heap_len > 0) {
    if (s->heap[0].id == goal) break; /* Alg. 1 line 7: First() is the goal. */
    mapf__entry e = mapf__open_pop(s);
    int32_t u = e.id;
    int32_t ux = u % g->width, uy = u / g->width;
    r->expansions++;
    uint8_t m = g->moves[u];
    for (int d = 0; d < 8; d++) {
      if (!(m >> d & 1)) continue;
      int32_t v = u + g->offset[d];
      double ng = e.g + mapf_dir_cost[d];
      if (nd[v].gen == s->gen) {
        if (nd[v].heap == MAPF__HEAP_CLOSED || nd[v].g <= ng + MAPF__EPS) continue;
      } else {
        nd[v].gen = s->gen;
        nd[v].heap = -2; /* not yet in the heap */
      }
      nd[v].g = ng;
      nd[v].parent = u;
      double h = mapf_octile_xy(ux + mapf_dir_dx[d], uy + mapf_dir_dy[d], gx, gy);
      if (mapf__open_push(s, v, ng, ng + h) < 0) return MAPF_ENOMEM;
    }
  }
  if (s->heap_len == 0) return MAPF_OK;
  r->found = 1;
  r->cost = nd[goal].g;
  if (path_len) {
    int32_t len = 0;
    for (int32_t c = goal; c != -1; c = nd[c].parent) len++;
    *path_len = len;
    if (path && len <= cap) {
      int32_t i = len;
      for (int32_t c = goal; c != -1; c = nd[c].parent) path[--i] = c;
    }
  }
  return MAPF_OK;
}
