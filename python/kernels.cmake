# The prebuilt GEMM kernels: cubins compiled by nvcc from the JIT's own generated sources, so a
# plain tessel.gemm call needs no run-time compilation. Device code only (nvcc -cubin): no host
# code, no CUDA runtime in the package. Built when nvcc is found; without it every
# configuration is compiled on first use instead. Beside them, the FP8 quantize kernels of
# tessel.quantize_fp8_1x128 (tessel/jit/quantize.py), which NVRTC cannot compile: built for every
# architecture whatever the filter says, and missing (the call refused) without nvcc.
#
#   TESSEL_PYTHON_KERNELS        ON/OFF (default: ON when a CUDA compiler is found)
#   TESSEL_PYTHON_KERNEL_ARCHS   SASS targets, default "80;90a" (A100-class and H100/H200)
#   TESSEL_PYTHON_KERNEL_FILTER  regular expression on GEMM kernel names: build only those (default: all)

set(_tessel_kernels_default OFF)
if(CMAKE_CUDA_COMPILER)
  set(_tessel_kernels_default ON)
endif()
option(TESSEL_PYTHON_KERNELS "Build the Python package's prebuilt GEMM cubins (needs nvcc)" ${_tessel_kernels_default})
set(TESSEL_PYTHON_KERNEL_ARCHS "80;90a" CACHE STRING "SASS architectures of the prebuilt GEMM cubins")
set(TESSEL_PYTHON_KERNEL_FILTER "." CACHE STRING "Regular expression: the prebuilt GEMM kernels whose names it finds")

if(TESSEL_PYTHON_KERNELS)
  if(NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "TESSEL_PYTHON_KERNELS is ON but no CUDA compiler was found: put nvcc on PATH, or turn it OFF")
  endif()
  set(_gen ${CMAKE_CURRENT_BINARY_DIR}/kernels)
  execute_process(
    COMMAND "${Python_EXECUTABLE}" ${CMAKE_CURRENT_SOURCE_DIR}/build_kernels.py ${_gen} ${TESSEL_PYTHON_KERNEL_FILTER} ${TESSEL_PYTHON_KERNEL_ARCHS}
    RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "python/build_kernels.py failed (${_rc})")
  endif()
  # Re-run the generator when the code that writes the sources changes.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    ${CMAKE_CURRENT_SOURCE_DIR}/build_kernels.py
    ${CMAKE_CURRENT_SOURCE_DIR}/tessel/jit/codegen.py
    ${CMAKE_CURRENT_SOURCE_DIR}/tessel/jit/codegen_sm90.py
    ${CMAKE_CURRENT_SOURCE_DIR}/tessel/jit/config.py
    ${CMAKE_CURRENT_SOURCE_DIR}/tessel/jit/cxx.py
    ${CMAKE_CURRENT_SOURCE_DIR}/tessel/jit/sm90_rules.py
    ${CMAKE_CURRENT_SOURCE_DIR}/tessel/jit/status.py
    ${CMAKE_CURRENT_SOURCE_DIR}/tessel/jit/prebuilt.py
    ${CMAKE_CURRENT_SOURCE_DIR}/tessel/jit/quantize.py
    ${CMAKE_CURRENT_SOURCE_DIR}/tessel/jit/small_n.py
    ${CMAKE_CURRENT_SOURCE_DIR}/tessel/jit/paths.py
    ${PROJECT_SOURCE_DIR}/include/tessel/gemm/kernel/small_n_rules.hpp)  # kSmallNTmaAutoMaxN: the rings shipped
  file(STRINGS ${_gen}/sources.txt _sources)
  file(GLOB_RECURSE _headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/tessel/*.hpp)
  set(_cubins)
  foreach(_line IN LISTS _sources)
    string(REPLACE " " ";" _fields "${_line}")
    list(POP_FRONT _fields _src)
    string(REGEX REPLACE "\\.cu$" "" _name ${_src})
    foreach(_arch IN LISTS _fields)
      set(_out ${_gen}/${_name}.sm_${_arch}.cubin)
      add_custom_command(
        OUTPUT ${_out}
        COMMAND ${CMAKE_CUDA_COMPILER} -cubin -std=c++20 -O3 -DNDEBUG --expt-relaxed-constexpr
                -arch=sm_${_arch} -I${PROJECT_SOURCE_DIR}/include -o ${_out} ${_gen}/${_src}
        DEPENDS ${_gen}/${_src} ${_headers}
        COMMENT "tessel prebuilt kernel ${_name} for sm_${_arch}"
        VERBATIM)
      list(APPEND _cubins ${_out})
    endforeach()
  endforeach()
  add_custom_target(tessel_python_kernels ALL DEPENDS ${_cubins})
  install(FILES ${_cubins} ${_gen}/manifest.json DESTINATION tessel/kernels COMPONENT python)
endif()
