# Turns tools/viewer/viewer.html into a C array (farm/html.c writes it with a map and a trace
# embedded): bytes rather than a string literal, which C11 limits to 4095 characters.
file(READ ${HTML} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){24})" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT}
"/* Generated from tools/viewer/viewer.html by tools/viewer/embed.cmake; do not edit. */
#include <stddef.h>

const unsigned char farm_viewer_html[] = {
${bytes}};
const size_t farm_viewer_html_len = sizeof farm_viewer_html;
")
