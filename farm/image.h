/* image.h: MAPF instances as images, the input of the algorithm selector (docs/choices.md,
 * Portfolios; thesis Sigurdson 2018, 4.4 and 5.3.3).
 *
 * An instance is first drawn at native size, one pixel per cell: blocked cells white, open cells
 * black, start cells green, goal cells red. farm_image_resize() then brings it to the network's
 * input size (227 x 227, AlexNet's) with a rule that keeps every agent visible. The per-problem
 * images of thesis 4.4 (one agent, 3x3 marks and a line from start to goal) are drawn on the
 * resized map, so their marks keep their size whatever the map's.
 *
 * Everything here is reentrant (no globals; libpng is used through its simplified API, which
 * keeps its error state in each png_image): threads may render and write images at once, as
 * long as no two write the same path. */
#ifndef FARM_IMAGE_H
#define FARM_IMAGE_H

#include <stdint.h>

#include "error.h"
#include "grid.h"
#include "scen.h"

/* The side of the thesis's network input (Sigurdson 2018: "a 227 x 227 colour pixel
 * image"); a width or height of 0 asks for it. */
#define FARM_IMAGE_SIDE 227
/* The largest side an image may have, the largest side a map may have. */
#define FARM_IMAGE_MAX_SIDE MAPF_GRID_MAX_SIDE

/* The colours, as {r, g, b}. */
#define FARM_IMAGE_BLOCKED 255, 255, 255
#define FARM_IMAGE_OPEN 0, 0, 0
#define FARM_IMAGE_START 0, 255, 0
#define FARM_IMAGE_GOAL 255, 0, 0
/* The start-to-goal line of the per-problem images. The thesis does not give its colour; blue is
 * the one primary that neither the terrain nor the marks use, so the line never reads as one. */
#define FARM_IMAGE_LINE 0, 0, 255

/* An 8-bit RGB image: rgb holds width * height pixels of 3 bytes (r, g, b), row by row, the top
 * row first (row y of the image is row y of the map). The caller owns it: free with
 * farm_image_free(). */
typedef struct farm_image {
  int32_t width, height;
  uint8_t *rgb;
} farm_image;

/* Returns a width x height image, every pixel black, or NULL when out of memory or a side is
 * outside 1 .. FARM_IMAGE_MAX_SIDE. */
farm_image *farm_image_new(int32_t width, int32_t height);

/* Frees im and its pixels; NULL is a no-op. */
void farm_image_free(farm_image *im);

/* The 3 bytes of pixel (x, y); no bounds check. */
static inline uint8_t *farm_image_px(const farm_image *im, int32_t x, int32_t y) {
  return im->rgb + ((size_t)y * (size_t)im->width + (size_t)x) * 3;
}

/* The image of inst on g at native size (g->width x g->height, pixel (x, y) is cell (x, y)):
 * blocked cells white, open cells black, every agent's start green and goal red (thesis 5.3.3,
 * Sigurdson 2018). A cell that is one agent's start and another's goal (or, in a scenario
 * that allows it, one agent's start and goal) is red: the goal is drawn over the start, as the
 * thesis draws its goal mark after its start mark (4.4, line 379). inst may be NULL: the map
 * alone (the per-map images of 4.4). Returns MAPF_OK with the image in *out (the caller frees
 * it), MAPF_EINVAL naming the agent when a start or goal is not a cell of g, or MAPF_ENOMEM;
 * *out is set only on success. Starts and goals are not checked for passability: an instance
 * from mapf_instance_check() puts them on open cells, which farm_image_resize() relies on. */
int farm_image_render(const mapf_grid *g, const mapf_instance *inst, farm_image **out,
                      mapf_diag *d);

/* The index in a side of `to` pixels of the pixel that holds the centre of pixel s of a side of
 * `from` pixels: floor((s + 1/2) * to / from). This is where farm_image_resize() puts the agent
 * pixel at s, and where the per-problem marks go. */
int32_t farm_image_scale(int32_t s, int32_t from, int32_t to);

/* Resizes src, as drawn by farm_image_render(), to width x height (0 for either:
 * FARM_IMAGE_SIDE). Deterministic, integers only, the same bytes on every platform:
 *  - Terrain is area-averaged: each output pixel is the mean, per channel and rounded to
 *    nearest, of the source pixels under its footprint, each weighted by the exact area it
 *    covers; agent pixels count as open (black), the cells agents stand on. So a block of a
 *    map that is 30 % blocked comes out 30 % grey, and the mean brightness of the image is the
 *    blocked fraction of the map (up to rounding).
 *  - Agents are pixels of exactly the start or goal colour. Each one goes to exactly one output
 *    pixel, the one that holds its centre (farm_image_scale()): when shrinking none is lost and
 *    none is counted twice. An output pixel that receives more goals than starts is red, more
 *    starts than goals green, as many of both (at least one) red, the goal drawn over the start
 *    as in farm_image_render(); otherwise it is terrain. When enlarging, an output pixel holds
 *    no source centre and takes the agent class of the source pixel under its own centre
 *    (nearest neighbour), so an agent cell becomes a block of agent pixels.
 * Why not the thesis's bicubic resize (Sigurdson 2018: "the image is bicubically resized")?
 * A start or goal is one pixel (line 526); shrinking a 512 x 512 map to 227 x 227 by bicubic
 * (or bilinear) interpolation smears it into a dim tint of the terrain, and by nearest
 * neighbour drops four in five of them. The agents are the part of the image that varies
 * between instances on one map, so they are kept exact; the terrain gets what bicubic with
 * antialiasing (MATLAB's imresize default when shrinking) approximates, a local mean.
 * Cost O(src pixels + output pixels) when shrinking. Returns MAPF_OK with the image in *out (the
 * caller frees it), MAPF_EINVAL when a side is negative or above FARM_IMAGE_MAX_SIDE, or
 * MAPF_ENOMEM; *out is set only on success. */
int farm_image_resize(const farm_image *src, int32_t width, int32_t height, farm_image **out,
                      mapf_diag *d);

/* The per-problem image of thesis 4.4 (Sigurdson 2018), for one agent going from cell start
 * to cell goal of g: the map alone rendered and resized to width x height (0: FARM_IMAGE_SIDE)
 * as above, then, on the resized image, a one-pixel line (Bresenham, 8-connected, blue) from
 * the start's pixel to the goal's (farm_image_scale() of each coordinate), then a 3x3 green
 * mark centred on the start, then a 3x3 red mark centred on the goal (clipped at the border).
 * The marks are drawn after resizing so that they are 3x3 in the network's input, as the
 * thesis describes them, whatever the map's size; drawn last, they cover the line's ends, and
 * the goal's mark covers the start's where they overlap. Returns MAPF_OK with the image in
 * *out (the caller frees it), MAPF_EINVAL when start or goal is not a cell of g or a side is
 * out of range, or MAPF_ENOMEM; *out is set only on success. */
int farm_image_render_problem(const mapf_grid *g, int32_t start, int32_t goal, int32_t width,
                              int32_t height, farm_image **out, mapf_diag *d);

/* Writes im to path as a PNG: 8-bit RGB, not interlaced. The data goes to "path.tmp" first,
 * renamed to path once complete, so path is either the whole new image or left as it was; the
 * temporary file is removed on failure. Returns MAPF_OK, MAPF_EINVAL for an image without
 * pixels or an empty or NULL path, MAPF_ENOMEM, or MAPF_EIO with path in d->file and the reason
 * (the system's, or libpng's) in d->msg. */
int farm_image_write_png(const farm_image *im, const char *path, mapf_diag *d);

#endif
