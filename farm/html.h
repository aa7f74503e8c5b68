/* html.h: the trace viewer (tools/viewer/viewer.html) as one self-contained page with a map and
 * a trace embedded, which opens from disk in a browser with no network (`--html FILE`). The page
 * is compiled into the binary, so an installed mapfarm needs no file beside it. */
#ifndef FARM_HTML_H
#define FARM_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "diag.h"

/* A map or trace text longer than this goes into the page deflated and in base64 (a trace in
 * its compact form, farm/html.c). */
#define FARM_HTML_PLAIN_MAX (1u << 20)

/* tools/viewer/viewer.html as built, not NUL-terminated. */
extern const unsigned char farm_viewer_html[];
extern const size_t farm_viewer_html_len;

/* Writes the viewer page to out with title (NULL: "mapfarm viewer"), the text of a MovingAI
 * .map file (NULL: none; the page then draws an open grid and cannot check blocked cells) and a
 * trace as `mapfarm solve --trace` writes it. The texts go into <script type="text/plain">
 * elements with '&' and '<' written as "&amp;" and "&lt;", which the page undoes, so no text
 * can end the element early; one longer than FARM_HTML_PLAIN_MAX goes in deflated (zlib) and
 * in base64, with data-encoding="deflate-base64", or, for a trace whose steps are all well
 * formed, "moves-deflate-base64": its compact form, a byte an agent a step, which the page
 * reads several times faster. Only the shape is checked here (a map has its "map" line, a
 * trace its "solution=" line); the page itself reports anything else with its line and
 * column.
 * Returns 0, or -1 with the reason in err. */
int farm_html_write(FILE *out, const char *title, const char *map_text, const char *trace_text,
                    mapf_diag *err);

/* The same from files, into the file at path: the map file at map_path (NULL: none) and the
 * trace file at trace_path, whose base names the page uses in its messages. The page goes to
 * "path.tmp" first, renamed to path once complete, so path is either the whole new page or
 * left as it was. Returns 0, or -1 with err naming the file at fault ("PATH: cannot read:
 * ..."). */
int farm_html_write_file(const char *path, const char *title, const char *map_path,
                         const char *trace_path, mapf_diag *err);

/* The same with the trace in memory (as `solve --html` without `--trace` has it): trace_name
 * (NULL: none) is the name the page's messages use. */
int farm_html_save(const char *path, const char *title, const char *map_path,
                   const char *trace_name, const char *trace_text, mapf_diag *err);

#endif
