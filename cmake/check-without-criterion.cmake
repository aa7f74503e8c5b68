# The CTest test build_without_criterion: configures this source tree as if Criterion were not
# installed (CMAKE_DISABLE_FIND_PACKAGE_Criterion) and checks that
#   - with MAPFARM_TESTS=AUTO and CI unset, the configure succeeds, says so in one line, defines
#     no tests, and the mapfarm binary builds and runs;
#   - with MAPFARM_TESTS=ON, and with AUTO under CI=true, the configure fails and names Criterion.
# Only the mapfarm target is built, in WORK (kept, so that later runs are incremental).
#   cmake -DSOURCE=DIR -DWORK=DIR -DC_COMPILER=CC -DBUILD_TYPE=TYPE -P check-without-criterion.cmake
set(line "mapfarm: Criterion not found: tests are off (install libcriterion-dev, or criterion on Fedora/Homebrew)")
set(common -S ${SOURCE} -DCMAKE_DISABLE_FIND_PACKAGE_Criterion=ON
  -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_BUILD_TYPE=${BUILD_TYPE})

function(fail what output)
  message(FATAL_ERROR "${what}\n--- output:\n${output}")
endfunction()

# AUTO without Criterion: one line, no tests, a working binary.
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=CI
    ${CMAKE_COMMAND} ${common} -B ${WORK}/auto -DMAPFARM_TESTS=AUTO
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  fail("configure without Criterion failed (exit ${rc})" "${out}")
endif()
string(FIND "${out}" "${line}\n" first)
string(FIND "${out}" "${line}\n" last REVERSE)
if(first EQUAL -1 OR NOT first EQUAL last)
  fail("configure without Criterion must print, once: ${line}" "${out}")
endif()
if(EXISTS ${WORK}/auto/CTestTestfile.cmake)
  fail("configure without Criterion defined tests" "${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/auto --target mapfarm -j 2
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  fail("building mapfarm without Criterion failed (exit ${rc})" "${out}")
endif()
execute_process(COMMAND ${WORK}/auto/mapfarm run --help
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "usage: mapfarm run PLAN.yaml")
  fail("the mapfarm built without Criterion does not run (exit ${rc})" "${out}")
endif()

# Tests asked for (ON), or AUTO under CI=true: no Criterion is an error that names it.
foreach(mode ON CI)
  if(mode STREQUAL "ON")
    set(env --unset=CI)
    set(opt -DMAPFARM_TESTS=ON)
  else()
    set(env CI=true)
    set(opt -DMAPFARM_TESTS=AUTO)
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${env}
      ${CMAKE_COMMAND} ${common} -B ${WORK}/required ${opt}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0 OR NOT out MATCHES "requires the tests, and Criterion was not found")
    fail("with ${opt} (${env}) and no Criterion the configure must fail and say why" "${out}")
  endif()
endforeach()
message(STATUS "without Criterion: configured with one line, built and ran mapfarm; "
  "MAPFARM_TESTS=ON and CI=true refused")
