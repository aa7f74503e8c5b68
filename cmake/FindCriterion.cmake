# Finds the Criterion test framework (Debian and Ubuntu: libcriterion-dev; Fedora and Homebrew:
# criterion), with pkg-config's paths as hints where it has them. Sets Criterion_FOUND and
# defines the imported target Criterion::Criterion. `-DCMAKE_DISABLE_FIND_PACKAGE_Criterion=ON`
# makes a configure behave as if it were not installed.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_CRITERION QUIET criterion)
endif()
find_path(CRITERION_INCLUDE_DIR NAMES criterion/criterion.h HINTS ${PC_CRITERION_INCLUDE_DIRS})
find_library(CRITERION_LIBRARY NAMES criterion HINTS ${PC_CRITERION_LIBRARY_DIRS})
mark_as_advanced(CRITERION_INCLUDE_DIR CRITERION_LIBRARY)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Criterion
  REQUIRED_VARS CRITERION_LIBRARY CRITERION_INCLUDE_DIR)

if(Criterion_FOUND AND NOT TARGET Criterion::Criterion)
  add_library(Criterion::Criterion UNKNOWN IMPORTED)
  set_target_properties(Criterion::Criterion PROPERTIES
    IMPORTED_LOCATION "${CRITERION_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CRITERION_INCLUDE_DIR}")
endif()
