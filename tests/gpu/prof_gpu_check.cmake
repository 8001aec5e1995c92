# tessel-prof's profile mode on the GPU: every compiled kernel on small ragged problems, verified
# against cuBLAS and the device reference; then analyze mode on the device profile it measured.
#   cmake -DEXE=<tessel-prof> -DOUT_DIR=<dir> -P prof_gpu_check.cmake
# Prints "SKIPPED: ..." (which CTest reports as a skip) where no CUDA device is visible.
file(MAKE_DIRECTORY "${OUT_DIR}")
set(common --mode=profile --warmup-iterations=2 --profiling-iterations=5 --verification-providers=cublas,device
           --progress=never)

# Every tessel row ran and passed, or was refused only because this GPU lacks the kernel's
# architecture, or (an e4m3 kernel) because K is not a multiple of 16 bytes; cuBLAS ran. Where the
# CSV holds rows of the FP8 or fused kernels, at least one of each passed.
function(check_csv csv)
  file(STRINGS "${csv}" lines)
  set(passed 0)
  set(cublas 0)
  foreach(kind fp8 fused)
    set(${kind}_rows 0)
    set(${kind}_passed 0)
    set(${kind}_refused 0)
  endforeach()
  foreach(line IN LISTS lines)
    set(kind "")
    if(line MATCHES "^tessel,tessel_sm90_gemm_e4m3_")
      set(kind fp8)
    elseif(line MATCHES "^tessel,tessel_sm90_gemm_[a-z0-9]+_[a-z0-9]+_e4m3_")
      set(kind fused)
    endif()
    if(kind)
      math(EXPR ${kind}_rows "${${kind}_rows} + 1")
    endif()
    if(line MATCHES "^cublas,cublas,.*,Success,")
      math(EXPR cublas "${cublas} + 1")
    elseif(line MATCHES "^tessel,")
      if(line MATCHES ",Success,.*,passed,")
        math(EXPR passed "${passed} + 1")
        if(kind)
          math(EXPR ${kind}_passed "${${kind}_passed} + 1")
        endif()
      elseif(kind STREQUAL "fp8" AND line MATCHES "^tessel,[^,]*,[0-9]+,[0-9]+,([0-9]+),.*,Error Misaligned Operand,")
        math(EXPR k_rest "${CMAKE_MATCH_1} % 16")
        if(k_rest EQUAL 0)
          message(FATAL_ERROR "${csv}: an e4m3 kernel refused a K that is a multiple of 16:\n${line}")
        endif()
        math(EXPR fp8_refused "${fp8_refused} + 1")
      elseif(NOT line MATCHES ",Error Architecture Mismatch,")
        message(FATAL_ERROR "${csv}: a kernel did not run and pass:\n${line}")
      endif()
    endif()
  endforeach()
  if(passed EQUAL 0 OR cublas EQUAL 0)
    message(FATAL_ERROR "${csv}: ${passed} tessel rows passed and cuBLAS ran ${cublas} times; expected both")
  endif()
  # A CSV whose every FP8 row was refused for its K (as one with K = 136 must be) proves nothing
  # about them either way; the long-K run below has FP8 rows that must pass.
  foreach(kind fp8 fused)
    if(${kind}_rows GREATER ${kind}_refused AND ${kind}_passed EQUAL 0)
      message(FATAL_ERROR "${csv}: none of the ${${kind}_rows} ${kind} rows passed")
    endif()
  endforeach()
  message(STATUS "${csv}: ${passed} kernel rows passed verification (FP8 ${fp8_passed}, fused ${fused_passed})")
  math(EXPR e4m3_rows "${fp8_rows} + ${fused_rows}")
  set(e4m3_rows ${e4m3_rows} PARENT_SCOPE)
endfunction()

execute_process(COMMAND "${EXE}" ${common} --m=256,520 --n=256,136 --k=256,72 --output=${OUT_DIR}/beta0.csv
                        --plot=${OUT_DIR}/beta0.svg --emit-best=${OUT_DIR}/best.cmake
                        --device-profile=${OUT_DIR}/device.txt
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 3 AND err MATCHES "none is visible")
  message(STATUS "SKIPPED: no CUDA device is visible; tessel-prof's profile mode runs only on a GPU machine")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tessel-prof exited with ${rc}\nstdout: ${out}\nstderr: ${err}")
endif()
check_csv(${OUT_DIR}/beta0.csv)
foreach(f beta0.svg best.cmake device.txt)
  if(NOT EXISTS ${OUT_DIR}/${f})
    message(FATAL_ERROR "${f} was not written")
  endif()
endforeach()

# One more profile run into OUT_DIR/<name>.csv with the options after `name`, then its checks.
function(profile_and_check name)
  execute_process(COMMAND "${EXE}" ${common} ${ARGN} --output=${OUT_DIR}/${name}.csv
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tessel-prof ${ARGN} exited with ${rc}\nstdout: ${out}\nstderr: ${err}")
  endif()
  check_csv(${OUT_DIR}/${name}.csv)
  set(e4m3_rows ${e4m3_rows} PARENT_SCOPE)
endfunction()

# alpha and beta through C, on a shape no tile divides.
profile_and_check(beta --m=264 --n=200 --k=136 --alpha=1.5 --beta=-0.5)

# The FP8 and fused kernels, where compiled in, on long K: where the FP8 accumulation bound, and
# the fused rows' 1-ulp and amax bounds against the unfused chain, leave the least room.
if(e4m3_rows GREATER 0)
  profile_and_check(e4m3 --kernels=e4m3 --shapes=1024x1024x8192,264x520x4096 --beta=0.5)
endif()

# The measured ceilings feed analyze mode: every row gets a roofline floor.
execute_process(COMMAND "${EXE}" --mode=analyze --device-profile=${OUT_DIR}/device.txt --m=4096 --n=4096 --k=4096
                        --tile=128x128
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "tile 128x128 +4096x4096x4096 +1024 .* (compute|memory) ")
  message(FATAL_ERROR "analyze mode on the measured profile failed (${rc}):\n${out}\n${err}")
endif()
message(STATUS "ok")
