# Which GPU code each CUDA target holds, decided here once.
#
#   tessel_cuda_archs(TARGET BASE... [HOPPER])
#
# gives TARGET machine code and PTX for the BASE architectures (e.g. 80), sm_90a code when the
# target has a Hopper path (HOPPER: wgmma and TMA kernels exist only as sm_90a code, and a
# compute_80 image cannot stand in for them), and TESSEL_GPU_EXTRA_ARCHS on top.
#
# TESSEL_GPU_EXTRA_ARCHS defaults to the GPU visible when the build is configured (nvidia-smi's
# compute capability: 9.0 -> 90a-real, 8.9 -> 89-real), so that a build made on a GPU machine
# runs there without the driver JIT-compiling PTX at the first launch; empty where none is seen.
include_guard(GLOBAL)

function(_tessel_detect_gpu_arch out)
  set(arch "")
  find_program(_tessel_nvidia_smi nvidia-smi)
  if(_tessel_nvidia_smi)
    execute_process(COMMAND "${_tessel_nvidia_smi}" --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 20)
    if(rc EQUAL 0 AND caps MATCHES "^[ \t]*([0-9]+)\\.([0-9]+)")
      set(arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
      if(arch STREQUAL "90")
        set(arch "90a")  # the Hopper kernels' instructions need the arch-specific target
      endif()
      set(arch "${arch}-real")
    endif()
  endif()
  set(${out} "${arch}" PARENT_SCOPE)
endfunction()

if(NOT DEFINED CACHE{TESSEL_GPU_EXTRA_ARCHS})
  _tessel_detect_gpu_arch(_tessel_detected)
  if(_tessel_detected)
    message(STATUS "tessel: GPU seen at configure time; its code (${_tessel_detected}) is added to the GPU tests and benchmarks")
  endif()
  set(TESSEL_GPU_EXTRA_ARCHS "${_tessel_detected}" CACHE STRING
      "CUDA architectures added to the GPU tests and benchmarks (default: the GPU seen at configure time, e.g. 90a-real)")
endif()

function(tessel_cuda_archs target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "HOPPER" "" "")
  set(archs ${arg_UNPARSED_ARGUMENTS})
  if(arg_HOPPER)
    list(APPEND archs 90a)
  endif()
  foreach(extra IN LISTS TESSEL_GPU_EXTRA_ARCHS)
    # 90a already holds sm_90a machine code; 90a-real beside it would compile it twice.
    string(REGEX REPLACE "-real$" "" plain "${extra}")
    if(NOT plain IN_LIST archs)
      list(APPEND archs "${extra}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES archs)
  set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES ${archs})
endfunction()
