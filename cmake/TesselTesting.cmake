# tessel_add_gtest(NAME <name> LABEL host|gpu|build SOURCES <src...> [LIBS <libs...>])
#
# One GoogleTest executable registered with CTest under one label. GPU tests call
# GTEST_SKIP() when no CUDA device exists; the SKIP_REGULAR_EXPRESSION below makes
# CTest report them as skipped instead of passed.
find_package(GTest REQUIRED)

function(tessel_add_gtest)
  cmake_parse_arguments(T "" "NAME;LABEL" "SOURCES;LIBS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE tessel::tessel GTest::gtest GTest::gtest_main ${T_LIBS})
  target_compile_options(${T_NAME} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  set_tests_properties(${T_NAME} PROPERTIES
    LABELS ${T_LABEL}
    SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
endfunction()
