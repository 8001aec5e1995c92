# The build reads what --emit-best wrote: include the file, run the catalogue selection the
# tessel-prof build runs, and require exactly the expected kernels.
#   cmake -DLIST=<file from --emit-best> -DCATALOGUE=<tools/prof/kernels/catalogue.cmake>
#         -DEXPECT="name1|name2" -P prof_emit_best_check.cmake
include("${CATALOGUE}")
include("${LIST}")
if(NOT TESSEL_PROF_BEST_KERNELS)
  message(FATAL_ERROR "${LIST} sets no TESSEL_PROF_BEST_KERNELS")
endif()
tessel_prof_select(specs names GLOBS ${TESSEL_PROF_BEST_KERNELS} WHAT "${LIST}")
string(REPLACE "|" ";" expect "${EXPECT}")
list(SORT names)
list(SORT expect)
if(NOT names STREQUAL expect)
  message(FATAL_ERROR "the build would compile\n  ${names}\nbut the winners are\n  ${expect}")
endif()
message(STATUS "ok: ${LIST} selects ${names}")
