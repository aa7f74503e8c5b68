/* test_algo.c: the algorithm registry: parameter parsing, range checks, canonical JSON. */
#include <criterion/criterion.h>
#include <math.h>

#include "algo.h"
#include "grid.h"

static const mapf_algo_def *bmaa(void) {
  const mapf_algo_def *def = mapf_algo_find("bmaa");
  cr_assert_not_null(def);
  return def;
}

Test(algo, finds_bmaa_and_its_paper_defaults) {
  const mapf_algo_def *def = bmaa();
  cr_assert_null(mapf_algo_find("bmaa*"));
  mapf_params p;
  mapf_params_default(def, &p);
  cr_assert_eq(p.v[mapf_param_index(def, "expansions")], 32);
  cr_assert_eq(p.v[mapf_param_index(def, "moves")], 32);
  cr_assert_float_eq(p.v[mapf_param_index(def, "vision")], MAPF_SQRT2, 1e-15);
  cr_assert_eq(p.v[mapf_param_index(def, "push")], 0);
  cr_assert_eq(p.v[mapf_param_index(def, "flow")], 0);
  cr_assert_eq(mapf_param_index(def, "visoin"), -1);
}

Test(algo, canonical_json_sorts_keys_and_prints_shortest_reals) {
  const mapf_algo_def *def = bmaa();
  mapf_params p;
  mapf_params_default(def, &p);
  char buf[256];
  int n = mapf_params_json(def, &p, buf, sizeof buf);
  cr_assert_str_eq(buf, "{\"expansions\":32,\"flow\":false,\"moves\":32,\"push\":false,"
                        "\"vision\":1.4142135623730951}");
  cr_assert_eq(n, (int)strlen(buf));
  p.v[mapf_param_index(def, "vision")] = 0.1;
  p.v[mapf_param_index(def, "push")] = 1;
  mapf_params_json(def, &p, buf, sizeof buf);
  cr_assert(strstr(buf, "\"vision\":0.1}") != NULL, "%s", buf);
  cr_assert(strstr(buf, "\"push\":true") != NULL, "%s", buf);
  /* A short buffer is never overrun and the needed length is still returned. */
  char small[8];
  cr_assert_eq(mapf_params_json(def, &p, small, sizeof small), (int)strlen(buf));
  cr_assert_eq(strlen(small), 7);
}

Test(algo, parses_values_of_each_type) {
  const mapf_algo_def *def = bmaa();
  double v;
  mapf_diag d = {0};
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "vision"), "sqrt(2)", &v, &d),
               MAPF_OK);
  cr_assert_float_eq(v, MAPF_SQRT2, 1e-15);
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "push"), "yes", &v, &d), MAPF_OK);
  cr_assert_eq(v, 1);
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "push"), "off", &v, &d), MAPF_OK);
  cr_assert_eq(v, 0);
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "expansions"), "64", &v, &d),
               MAPF_OK);
  cr_assert_eq(v, 64);
}

Test(algo, rejects_bad_values_saying_what_was_expected) {
  const mapf_algo_def *def = bmaa();
  double v = -7;
  mapf_diag d = {0};
  int32_t e = mapf_param_index(def, "expansions");
  cr_assert_eq(mapf_param_parse(def, e, "lots", &v, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "expansions: expected an integer, found \"lots\"");
  cr_assert_eq(v, -7, "the output is untouched on error");
  cr_assert_eq(mapf_param_parse(def, e, "0", &v, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "expansions: expected an integer in [1, 10000000], found 0");
  cr_assert_eq(mapf_param_parse(def, e, "2.5", &v, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "push"), "maybe", &v, &d),
               MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "push: expected a boolean, found \"maybe\"");
  cr_assert_eq(mapf_param_check(def, mapf_param_index(def, "vision"), NAN, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_check(def, mapf_param_index(def, "vision"), -1, &d), MAPF_EINVAL);
}

Test(algo, bmaa_accepts_flow_and_checks_it_as_a_boolean) {
  const mapf_algo_def *def = bmaa();
  mapf_params p;
  mapf_params_default(def, &p);
  mapf_diag d = {0};
  p.v[mapf_param_index(def, "flow")] = 1;
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_OK, "%s", d.msg);
  p.v[mapf_param_index(def, "flow")] = 2;
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "flow: expected a boolean, found 2");
}
