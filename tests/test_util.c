/* test_util.c: the small shared pieces: seeded generator, hashes, key sets, suggestions,
 * diagnostics. */
#include <criterion/criterion.h>

#include "diag.h"
#include "error.h"
#include "hash.h"
#include "keyset.h"
#include "rng.h"
#include "suggest.h"

Test(rng, same_seed_same_stream_and_different_seeds_differ) {
  mapf_rng a, b, c;
  mapf_rng_seed(&a, 42);
  mapf_rng_seed(&b, 42);
  mapf_rng_seed(&c, 43);
  int same = 0;
  for (int i = 0; i < 1000; i++) {
    uint64_t x = mapf_rng_next(&a);
    cr_assert_eq(x, mapf_rng_next(&b));
    same += x == mapf_rng_next(&c);
  }
  cr_assert_eq(same, 0);
}

Test(rng, below_is_uniform_and_in_range) {
  mapf_rng r;
  mapf_rng_seed(&r, 0);
  int count[6] = {0};
  for (int i = 0; i < 60000; i++) {
    uint64_t v = mapf_rng_below(&r, 6);
    cr_assert_lt(v, 6);
    count[v]++;
  }
  for (int k = 0; k < 6; k++) cr_assert(count[k] > 9500 && count[k] < 10500, "%d", count[k]);
  for (int i = 0; i < 1000; i++) {
    double d = mapf_rng_double(&r);
    cr_assert(d >= 0 && d < 1);
  }
}

/* Keys must never change across versions: results databases key on them. */
Test(hash, values_are_pinned) {
  cr_assert_eq(mapf_hash64("", 0, 0), mapf_hash64("", 0, 0));
  char hex[33];
  mapf_hash128_hex(mapf_hash128_of("mapfarm", 7), hex);
  mapf_hash128 back;
  cr_assert_eq(mapf_hash128_parse(hex, &back), 0);
  mapf_hash128 h = mapf_hash128_of("mapfarm", 7);
  cr_assert(back.hi == h.hi && back.lo == h.lo);
  cr_assert_neq(mapf_hash64("a", 1, 0), mapf_hash64("b", 1, 0));
  cr_assert_neq(mapf_hash64("abcdefgh1", 9, 0), mapf_hash64("abcdefgh2", 9, 0));
  cr_assert_eq(mapf_hash128_parse("xyz", &back), -1);
  cr_assert_eq(mapf_hash128_parse("0123456789abcdef0123456789abcdef0", &back), -1);
  cr_assert_str_eq(hex, "ab1ce7f6454cc55ba92f1542543d25e6");
  cr_assert_eq(mapf_hash64("mapfarm", 7, 1), 0xc5ded79af92f34dfULL);
}

Test(keyset, holds_a_hundred_thousand_keys) {
  farm_keyset s = {0};
  for (uint64_t i = 0; i < 100000; i++) {
    mapf_hash128 k = {mapf_mix64(i), mapf_mix64(i + 1000000)};
    cr_assert_eq(farm_keyset_add(&s, k), 1);
  }
  mapf_hash128 zero = {0, 0};
  cr_assert_eq(farm_keyset_has(&s, zero), 0);
  cr_assert_eq(farm_keyset_add(&s, zero), 1);
  cr_assert_eq(farm_keyset_add(&s, zero), 0);
  for (uint64_t i = 0; i < 100000; i++) {
    mapf_hash128 k = {mapf_mix64(i), mapf_mix64(i + 1000000)};
    cr_assert(farm_keyset_has(&s, k));
    cr_assert_eq(farm_keyset_add(&s, k), 0);
    mapf_hash128 other = {mapf_mix64(i), mapf_mix64(i + 2000000)};
    cr_assert_not(farm_keyset_has(&s, other));
  }
  cr_assert_eq(s.n, 100000);
  farm_keyset_free(&s);
}

/* Resume holds every stored key: the table uses up to three slots in four (16 bytes a slot),
 * and a set reserved for its keys is allocated once, so that a large one is never held twice
 * while it grows (10,000,000 keys: 256 MB, where doubling at half load held 256 and 512 MB at
 * once). */
Test(keyset, holds_three_keys_in_four_slots_and_a_reserved_set_never_grows) {
  farm_keyset s = {0};
  for (uint64_t i = 0; i < 3000; i++) {
    mapf_hash128 k = {mapf_mix64(i), mapf_mix64(i + 7)};
    cr_assert_eq(farm_keyset_add(&s, k), 1);
  }
  cr_expect_eq(s.cap, 4096, "3,000 keys in %lld slots", (long long)s.cap);
  farm_keyset_free(&s);

  cr_assert_eq(farm_keyset_reserve(&s, 10000), 0);
  cr_expect_eq(s.cap, 16384);
  const mapf_hash128 *table = s.slots;
  for (uint64_t i = 0; i < 10000; i++) {
    mapf_hash128 k = {mapf_mix64(i), mapf_mix64(i + 7)};
    cr_assert_eq(farm_keyset_add(&s, k), 1);
  }
  cr_expect(s.slots == table && s.cap == 16384, "the reserved set grew to %lld slots",
            (long long)s.cap);
  for (uint64_t i = 0; i < 10000; i++) {
    mapf_hash128 k = {mapf_mix64(i), mapf_mix64(i + 7)};
    cr_assert(farm_keyset_has(&s, k));
  }
  /* Reserving less than it holds changes nothing. */
  cr_assert_eq(farm_keyset_reserve(&s, 10), 0);
  cr_expect_eq(s.cap, 16384);
  farm_keyset_free(&s);
}

Test(suggest, finds_near_names_and_refuses_far_ones) {
  const char *const params[] = {"expansions", "moves", "vision", "push", "flow", NULL};
  cr_assert_str_eq(farm_suggest("visoin", params, -1), "vision");
  cr_assert_str_eq(farm_suggest("expansion", params, -1), "expansions");
  cr_assert_str_eq(farm_suggest("pusj", params, -1), "push");
  cr_assert_null(farm_suggest("temperature", params, -1));
  const char *const cmds[] = {"run", "expand"};
  cr_assert_str_eq(farm_suggest("rnu", cmds, 2), "run");
}

Test(diag, formats_locations_and_collects_every_error) {
  mapf_diag d;
  char buf[256];
  mapf_diag_set(&d, MAPF_EPARSE, "plan.yaml", 3, 7, "agents: expected %s", "an integer");
  mapf_diag_format(&d, buf, sizeof buf);
  cr_assert_str_eq(buf, "plan.yaml:3:7: error: agents: expected an integer");
  mapf_diag_set(&d, MAPF_EIO, "x.map", 0, 0, "cannot read");
  mapf_diag_format(&d, buf, sizeof buf);
  cr_assert_str_eq(buf, "x.map: error: cannot read");
  cr_assert_str_eq(mapf_strerror(MAPF_ENOSPACE), "the map cannot hold the request");
  farm_diags ds = {0};
  for (int i = 0; i < 20; i++) farm_diags_add(&ds, "p", i + 1, 1, "error %d", i);
  cr_assert_eq(ds.n, 20);
  cr_assert_str_eq(ds.items[19].msg, "error 19");
  farm_diags_free(&ds);
  cr_assert_eq(ds.n, 0);
}
