/* test_algo.c: the algorithm registry: parameter parsing, range checks, canonical JSON. */
#include <criterion/criterion.h>
#include <math.h>

#include "algo.h"
#include "grid.h"
#include "testutil.h"

Test(algo, finds_bmaa_and_its_paper_defaults) {
  const mapf_algo_def *def = test_algo("bmaa");
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
  const mapf_algo_def *def = test_algo("bmaa");
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
  const mapf_algo_def *def = test_algo("bmaa");
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
  const mapf_algo_def *def = test_algo("bmaa");
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
  const mapf_algo_def *def = test_algo("bmaa");
  mapf_params p;
  mapf_params_default(def, &p);
  mapf_diag d = {0};
  p.v[mapf_param_index(def, "flow")] = 1;
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_OK, "%s", d.msg);
  p.v[mapf_param_index(def, "flow")] = 2;
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "flow: expected a boolean, found 2");
}

/* ---- enumerations (MAPF_PARAM_ENUM; rths's lop) ------------------------------------------ */

Test(algo, enumeration_parses_choice_names_exactly) {
  const mapf_algo_def *def = test_algo("rths");
  int32_t lop = mapf_param_index(def, "lop");
  cr_assert_eq(def->params[lop].type, MAPF_PARAM_ENUM);
  cr_assert_eq(mapf_param_nchoices(&def->params[lop]), 4);
  char list[64], small[6];
  cr_assert_eq(mapf_param_choice_list(&def->params[lop], list, sizeof list), 22);
  cr_assert_str_eq(list, "min, mean, median, max");
  cr_assert_eq(mapf_param_choice_list(&def->params[lop], small, sizeof small), 22);
  cr_assert_str_eq(small, "min, ");
  static const char *const names[] = {"min", "mean", "median", "max"};
  mapf_diag d = {0};
  for (int k = 0; k < 4; k++) {
    double v = -1;
    cr_assert_eq(mapf_param_parse(def, lop, names[k], &v, &d), MAPF_OK, "%s", d.msg);
    cr_assert_eq(v, k, "%s is choice %d", names[k], k);
    cr_assert_str_eq(mapf_param_choice(def, lop, v), names[k]);
  }
  /* The thesis's "avg" (line 303) is not a name here; neither are other spellings or the index. */
  static const char *const bad[] = {"avg", "Median", "MIN", " min", "min ", "2", "", "minimum"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    double v = -7;
    cr_assert_eq(mapf_param_parse(def, lop, bad[k], &v, &d), MAPF_EINVAL, "\"%s\"", bad[k]);
    cr_assert_eq(v, -7, "the output is untouched on error");
  }
  mapf_param_parse(def, lop, "avg", &(double){0}, &d);
  cr_assert_str_eq(d.msg, "lop: expected one of min, mean, median, max, found \"avg\"");
}

Test(algo, enumeration_writes_its_name_as_a_json_string) {
  const mapf_algo_def *def = test_algo("rths");
  int32_t lop = mapf_param_index(def, "lop");
  mapf_params p;
  mapf_params_default(def, &p);
  char buf[256];
  int n = mapf_params_json(def, &p, buf, sizeof buf);
  cr_assert_str_eq(buf, "{\"b\":0,\"da\":false,\"expendable\":false,\"lop\":\"min\",\"w\":1,"
                        "\"wc\":1}");
  cr_assert_eq(n, (int)strlen(buf));
  p.v[lop] = 2;
  mapf_params_json(def, &p, buf, sizeof buf);
  cr_assert(strstr(buf, "\"lop\":\"median\",") != NULL, "%s", buf);
  cr_assert_eq(mapf_param_format(def, lop, 3, buf, sizeof buf), 5);
  cr_assert_str_eq(buf, "\"max\"");
  /* Truncation as snprintf: the needed length, a terminated prefix. */
  char small[4];
  cr_assert_eq(mapf_param_format(def, lop, 1, small, sizeof small), 6);
  cr_assert_str_eq(small, "\"me");
}

Test(algo, enumeration_check_accepts_only_indices_of_choices) {
  const mapf_algo_def *def = test_algo("rths");
  int32_t lop = mapf_param_index(def, "lop");
  mapf_diag d = {0};
  for (int k = 0; k < 4; k++) cr_assert_eq(mapf_param_check(def, lop, k, &d), MAPF_OK);
  cr_assert_eq(mapf_param_check(def, lop, 4, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "lop: expected one of min, mean, median, max, found 4");
  static const double bad[] = {-1, 1.5, NAN, INFINITY, -0.5};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    cr_assert_eq(mapf_param_check(def, lop, bad[k], &d), MAPF_EINVAL, "%g", bad[k]);
    cr_assert_null(mapf_param_choice(def, lop, bad[k]));
  }
  mapf_params p;
  mapf_params_default(def, &p);
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_OK, "%s", d.msg);
  p.v[lop] = 7;
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_EINVAL);
  /* An index that names no choice is written as a number (only error messages see it). */
  char buf[32];
  mapf_param_format(def, lop, 7, buf, sizeof buf);
  cr_assert_str_eq(buf, "7");
}

Test(algo, other_types_have_no_choices) {
  const mapf_algo_def *def = test_algo("bmaa");
  for (int32_t i = 0; i < def->nparams; i++) {
    cr_assert_eq(mapf_param_nchoices(&def->params[i]), 0);
    char list[8] = "x";
    cr_assert_eq(mapf_param_choice_list(&def->params[i], list, sizeof list), 0);
    cr_assert_str_eq(list, "");
    cr_assert_null(mapf_param_choice(def, i, 0));
  }
}

Test(algo, rths_declares_the_thesis_ranges_and_lrta_star_defaults) {
  const mapf_algo_def *def = test_algo("rths");
  cr_assert_str_eq(def->label, "RTHS");
  cr_assert_eq(mapf_algo_at(mapf_algo_count() - 1), def, "registered after the others");
  mapf_diag d = {0};
  double v;
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "w"), "0.5", &v, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "w: expected a number in [1, 10], found 0.5");
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "b"), "1.5", &v, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "wc"), "0.9", &v, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "da"), "yes", &v, &d), MAPF_OK);
}
