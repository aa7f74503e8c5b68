/* image.c: instance images (image.h): rendering, the agent-preserving resize, the per-problem
 * marks, and PNG output through libpng's simplified API.
 *
 * The simplified API (png_image_*, libpng 1.6) keeps the setjmp/longjmp error handling inside
 * libpng, per png_image, so this file has no jmp_buf, no volatile locals and no globals. */
#include "image.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

farm_image *farm_image_new(int32_t width, int32_t height) {
  if (width < 1 || height < 1 || width > FARM_IMAGE_MAX_SIDE || height > FARM_IMAGE_MAX_SIDE)
    return NULL;
  farm_image *im = malloc(sizeof *im);
  if (!im) return NULL;
  im->width = width;
  im->height = height;
  im->rgb = calloc((size_t)width * (size_t)height, 3);
  if (!im->rgb) {
    free(im);
    return NULL;
  }
  return im;
}

void farm_image_free(farm_image *im) {
  if (!im) return;
  free(im->rgb);
  free(im);
}

static void put(farm_image *im, int32_t x, int32_t y, uint8_t r, uint8_t g, uint8_t b) {
  uint8_t *p = farm_image_px(im, x, y);
  p[0] = r;
  p[1] = g;
  p[2] = b;
}

/* The same, doing nothing outside the image (marks at the border are clipped). */
static void put_clipped(farm_image *im, int32_t x, int32_t y, uint8_t r, uint8_t g, uint8_t b) {
  if (x >= 0 && y >= 0 && x < im->width && y < im->height) put(im, x, y, r, g, b);
}

/* What a pixel of a rendered image stands for. */
enum { PX_TERRAIN, PX_START, PX_GOAL };

static int px_class(const uint8_t *p) {
  static const uint8_t start[3] = {FARM_IMAGE_START}, goal[3] = {FARM_IMAGE_GOAL};
  if (memcmp(p, goal, 3) == 0) return PX_GOAL;
  if (memcmp(p, start, 3) == 0) return PX_START;
  return PX_TERRAIN;
}

/* Thesis 5.3.3 (Sigurdson 2018): white blocked, black open, green starts, red goals. Goals
 * are drawn after starts, so a cell that is both is red (image.h). O(cells + agents). */
int farm_image_render(const mapf_grid *g, const mapf_instance *inst, farm_image **out,
                      mapf_diag *d) {
  if (inst) {
    for (int32_t i = 0; i < inst->n; i++) {
      if (inst->start[i] < 0 || inst->start[i] >= g->ncells)
        return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                             "agent %d: start %d is not a cell of the %dx%d map", (int)i,
                             (int)inst->start[i], (int)g->width, (int)g->height);
      if (inst->goal[i] < 0 || inst->goal[i] >= g->ncells)
        return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                             "agent %d: goal %d is not a cell of the %dx%d map", (int)i,
                             (int)inst->goal[i], (int)g->width, (int)g->height);
    }
  }
  farm_image *im = farm_image_new(g->width, g->height);
  if (!im) return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory for a %dx%d image",
                                (int)g->width, (int)g->height);
  /* farm_image_new() made every pixel black (open): only blocked cells need drawing. */
  for (int32_t id = 0; id < g->ncells; id++)
    if (!g->passable[id]) put(im, mapf_grid_x(g, id), mapf_grid_y(g, id), FARM_IMAGE_BLOCKED);
  if (inst) {
    for (int32_t i = 0; i < inst->n; i++)
      put(im, mapf_grid_x(g, inst->start[i]), mapf_grid_y(g, inst->start[i]), FARM_IMAGE_START);
    for (int32_t i = 0; i < inst->n; i++)
      put(im, mapf_grid_x(g, inst->goal[i]), mapf_grid_y(g, inst->goal[i]), FARM_IMAGE_GOAL);
  }
  *out = im;
  return MAPF_OK;
}

int32_t farm_image_scale(int32_t s, int32_t from, int32_t to) {
  /* The centre of s is at s + 1/2 source pixels, (s + 1/2) * to / from output pixels. */
  return (int32_t)(((2 * (int64_t)s + 1) * to) / (2 * (int64_t)from));
}

/* For one axis of a resize from n to m pixels: the source pixels lo[t] .. hi[t] whose agent
 * pixels output pixel t shows. These are the pixels whose centres t holds
 * (farm_image_scale(s, n, m) == t, a run since the scale is monotone), so every source pixel
 * belongs to exactly one t; where t holds no centre (enlarging), the pixel under t's own centre.
 * O(n + m). */
static void agent_spans(int32_t n, int32_t m, int32_t *lo, int32_t *hi) {
  for (int32_t t = 0; t < m; t++) lo[t] = -1;
  for (int32_t s = 0; s < n; s++) {
    int32_t t = farm_image_scale(s, n, m);
    if (lo[t] < 0) lo[t] = s;
    hi[t] = s;
  }
  for (int32_t t = 0; t < m; t++)
    if (lo[t] < 0) lo[t] = hi[t] = farm_image_scale(t, m, n);
}

/* Area averaging of the terrain and exact placement of the agents (the rule and its reasons are
 * in image.h). In units of 1/(n*m) of the side, source pixel s of n spans [s*m, (s+1)*m) and
 * output pixel t of m spans [t*n, (t+1)*n), so every overlap is an exact integer and an output
 * pixel's weights sum to W*H: the arithmetic is in int64 (255 * W * H < 2^37) and rounds
 * once. One output row at a time: each source row is read once per output row it overlaps
 * (at most twice when shrinking). */
int farm_image_resize(const farm_image *src, int32_t width, int32_t height, farm_image **out,
                      mapf_diag *d) {
  if (width == 0) width = FARM_IMAGE_SIDE;
  if (height == 0) height = FARM_IMAGE_SIDE;
  if (width < 0 || height < 0 || width > FARM_IMAGE_MAX_SIDE || height > FARM_IMAGE_MAX_SIDE)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "image size %dx%d: expected sides in 1 .. %d (0 for %d)", (int)width,
                         (int)height, FARM_IMAGE_MAX_SIDE, FARM_IMAGE_SIDE);
  const int32_t W = src->width, H = src->height;
  farm_image *im = farm_image_new(width, height);
  int64_t *acc = malloc((size_t)width * 3 * sizeof *acc);
  int32_t *span = malloc(((size_t)width * 2 + (size_t)height * 2) * sizeof *span);
  if (!im || !acc || !span) {
    farm_image_free(im);
    free(acc);
    free(span);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory for a %dx%d image",
                         (int)width, (int)height);
  }
  int32_t *xlo = span, *xhi = xlo + width, *ylo = xhi + width, *yhi = ylo + height;
  agent_spans(W, width, xlo, xhi);
  agent_spans(H, height, ylo, yhi);
  const int64_t total = (int64_t)W * H;

  for (int32_t ty = 0; ty < height; ty++) {
    /* Terrain: the area-weighted sums of this output row. */
    memset(acc, 0, (size_t)width * 3 * sizeof *acc);
    const int64_t y0 = (int64_t)ty * H, y1 = y0 + H; /* the row's span, in units */
    for (int32_t sy = (int32_t)(y0 / height); sy < H && (int64_t)sy * height < y1; sy++) {
      int64_t top = (int64_t)sy * height, bottom = top + height;
      int64_t oy = (bottom < y1 ? bottom : y1) - (top > y0 ? top : y0);
      for (int32_t tx = 0; tx < width; tx++) {
        const int64_t x0 = (int64_t)tx * W, x1 = x0 + W;
        for (int32_t sx = (int32_t)(x0 / width); sx < W && (int64_t)sx * width < x1; sx++) {
          int64_t left = (int64_t)sx * width, right = left + width;
          int64_t w = oy * ((right < x1 ? right : x1) - (left > x0 ? left : x0));
          const uint8_t *p = farm_image_px(src, sx, sy);
          if (px_class(p) != PX_TERRAIN) continue; /* an agent: open terrain, black, adds 0 */
          acc[tx * 3 + 0] += w * p[0];
          acc[tx * 3 + 1] += w * p[1];
          acc[tx * 3 + 2] += w * p[2];
        }
      }
    }
    for (int32_t tx = 0; tx < width; tx++) {
      /* Agents: goals against starts among the source pixels this output pixel shows. */
      int32_t starts = 0, goals = 0;
      for (int32_t sy = ylo[ty]; sy <= yhi[ty]; sy++)
        for (int32_t sx = xlo[tx]; sx <= xhi[tx]; sx++) {
          int c = px_class(farm_image_px(src, sx, sy));
          starts += c == PX_START;
          goals += c == PX_GOAL;
        }
      if (goals > 0 && goals >= starts)
        put(im, tx, ty, FARM_IMAGE_GOAL);
      else if (starts > 0)
        put(im, tx, ty, FARM_IMAGE_START);
      else
        put(im, tx, ty, (uint8_t)((acc[tx * 3 + 0] + total / 2) / total),
            (uint8_t)((acc[tx * 3 + 1] + total / 2) / total),
            (uint8_t)((acc[tx * 3 + 2] + total / 2) / total));
    }
  }
  free(acc);
  free(span);
  *out = im;
  return MAPF_OK;
}

/* Bresenham's line from (x0, y0) to (x1, y1), both ends included, 8-connected: one pixel per
 * step of the longer axis, so the line is one pixel wide (thesis 4.4, Sigurdson 2018). The
 * all-octant integer form (error term e = dx + dy). */
static void draw_line(farm_image *im, int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
  int32_t dx = x1 > x0 ? x1 - x0 : x0 - x1, sx = x0 < x1 ? 1 : -1;
  int32_t dy = y1 > y0 ? y0 - y1 : y1 - y0, sy = y0 < y1 ? 1 : -1; /* dy <= 0 */
  int32_t e = dx + dy;
  for (;;) {
    put_clipped(im, x0, y0, FARM_IMAGE_LINE);
    if (x0 == x1 && y0 == y1) break;
    int32_t e2 = 2 * e;
    if (e2 >= dy) {
      e += dy;
      x0 += sx;
    }
    if (e2 <= dx) {
      e += dx;
      y0 += sy;
    }
  }
}

static void draw_mark(farm_image *im, int32_t cx, int32_t cy, uint8_t r, uint8_t g, uint8_t b) {
  for (int32_t y = cy - 1; y <= cy + 1; y++)
    for (int32_t x = cx - 1; x <= cx + 1; x++) put_clipped(im, x, y, r, g, b);
}

/* Thesis 4.4, per-problem (Sigurdson 2018): the map image, a 3x3 green mark at the start, a
 * 3x3 red mark at the goal and a one-pixel line between them, drawn on the resized map in the
 * order line, start, goal (image.h says why). */
int farm_image_render_problem(const mapf_grid *g, int32_t start, int32_t goal, int32_t width,
                              int32_t height, farm_image **out, mapf_diag *d) {
  if (start < 0 || start >= g->ncells || goal < 0 || goal >= g->ncells)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "start %d or goal %d is not a cell of the %dx%d map", (int)start,
                         (int)goal, (int)g->width, (int)g->height);
  farm_image *map = NULL, *im = NULL;
  int rc = farm_image_render(g, NULL, &map, d);
  if (rc != MAPF_OK) return rc;
  rc = farm_image_resize(map, width, height, &im, d);
  farm_image_free(map);
  if (rc != MAPF_OK) return rc;
  int32_t x0 = farm_image_scale(mapf_grid_x(g, start), g->width, im->width);
  int32_t y0 = farm_image_scale(mapf_grid_y(g, start), g->height, im->height);
  int32_t x1 = farm_image_scale(mapf_grid_x(g, goal), g->width, im->width);
  int32_t y1 = farm_image_scale(mapf_grid_y(g, goal), g->height, im->height);
  draw_line(im, x0, y0, x1, y1);
  draw_mark(im, x0, y0, FARM_IMAGE_START);
  draw_mark(im, x1, y1, FARM_IMAGE_GOAL);
  *out = im;
  return MAPF_OK;
}

/* The system's reason for errno value e, into why (strerror_r: strerror is not reentrant). */
static const char *reason(int e, char *why, size_t n) {
  if (strerror_r(e, why, n) != 0) snprintf(why, n, "errno %d", e);
  return why;
}

/* To path.tmp, then rename: a reader of path never sees half an image, and a failed write leaves
 * an older file at path alone. png_image_write_to_stdio() rather than _to_file() so that the
 * flush and close, where a full disk shows, are checked here. */
int farm_image_write_png(const farm_image *im, const char *path, mapf_diag *d) {
  if (!path || !*path) return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "no file name given");
  if (!im || !im->rgb || im->width < 1 || im->height < 1)
    return mapf_diag_set(d, MAPF_EINVAL, path, 0, 0, "cannot write an image without pixels");
  size_t len = strlen(path);
  char *tmp = malloc(len + 5);
  if (!tmp) return mapf_diag_set(d, MAPF_ENOMEM, path, 0, 0, "out of memory");
  memcpy(tmp, path, len);
  memcpy(tmp + len, ".tmp", 5);

  char why[256];
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    int e = errno;
    mapf_diag_set(d, MAPF_EIO, path, 0, 0, "cannot create %s: %s", tmp, reason(e, why, sizeof why));
    free(tmp);
    return MAPF_EIO;
  }
  png_image png;
  memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = (png_uint_32)im->width;
  png.height = (png_uint_32)im->height;
  png.format = PNG_FORMAT_RGB; /* 8 bits a channel; the simplified API never interlaces */
  int ok = png_image_write_to_stdio(&png, f, 0, im->rgb, 0, NULL);
  if (!ok) snprintf(why, sizeof why, "libpng: %s", png.message);
  png_image_free(&png); /* a no-op when libpng already freed it */
  if (ok && (fflush(f) != 0 || ferror(f))) {
    ok = 0;
    reason(errno, why, sizeof why);
  }
  if (fclose(f) != 0 && ok) {
    ok = 0;
    reason(errno, why, sizeof why);
  }
  if (ok && rename(tmp, path) != 0) {
    int e = errno;
    mapf_diag_set(d, MAPF_EIO, path, 0, 0, "cannot rename %s to the file: %s", tmp,
                  reason(e, why, sizeof why));
    remove(tmp);
    free(tmp);
    return MAPF_EIO;
  }
  if (!ok) {
    remove(tmp);
    mapf_diag_set(d, MAPF_EIO, path, 0, 0, "cannot write the PNG (via %s): %s", tmp, why);
    free(tmp);
    return MAPF_EIO;
  }
  free(tmp);
  return MAPF_OK;
}
