/* hash.c: a portable 64/128-bit byte hash. Reads bytes one 8-byte word at a time in little-endian
 * order regardless of the host, so keys are the same everywhere. */
#include "hash.h"

#include <string.h>

uint64_t mapf_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* The n <= 8 bytes at p as a little-endian number. */
static uint64_t load_le64(const unsigned char *p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* The 8 bytes at p as a little-endian number: one load on a little-endian host (GCC does not
 * merge the byte loop above into one, and job keys hash every job's text twice). */
static uint64_t load_le64_full(const unsigned char *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
#else
  return load_le64(p, 8);
#endif
}

uint64_t mapf_hash64(const void *data, size_t len, uint64_t seed) {
  const unsigned char *p = data;
  uint64_t h = mapf_mix64(seed ^ 0x243f6a8885a308d3ULL ^ (uint64_t)len);
  while (len >= 8) {
    h = mapf_mix64(h ^ load_le64_full(p)) * 0x9e3779b97f4a7c15ULL;
    p += 8;
    len -= 8;
  }
  h = mapf_mix64(h ^ load_le64(p, len) ^ ((uint64_t)len << 59));
  return mapf_mix64(h);
}

mapf_hash128 mapf_hash128_of(const void *data, size_t len) {
  mapf_hash128 h;
  h.hi = mapf_hash64(data, len, 0x6d617066ULL);          /* "mapf" */
  h.lo = mapf_hash64(data, len, 0x6661726d00000001ULL);  /* "farm" */
  return h;
}

void mapf_hash128_hex(mapf_hash128 h, char out[33]) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 16; i++) out[i] = digits[(h.hi >> (60 - 4 * i)) & 15];
  for (int i = 0; i < 16; i++) out[16 + i] = digits[(h.lo >> (60 - 4 * i)) & 15];
  out[32] = '\0';
}

int mapf_hash128_parse(const char *s, mapf_hash128 *h) {
  uint64_t part[2] = {0, 0};
  for (int i = 0; i < 32; i++) {
    char c = s[i];
    int v;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    else return -1;
    part[i / 16] = (part[i / 16] << 4) | (uint64_t)v;
  }
  if (s[32] != '\0') return -1;
  h->hi = part[0];
  h->lo = part[1];
  return 0;
}
