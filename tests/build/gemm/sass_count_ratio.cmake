# Compares one opcode count between two kernels: the numerator kernel must carry exactly RATIO
# times the count of the denominator kernel, and the denominator must be nonzero.
#
#   cmake -DSASS=<tessel-sass> -DNUM=<file> -DNUM_ARCH=sm_75 -DDEN=<file> -DDEN_ARCH=sm_80
#         -DKERNEL=<glob> -DKEY=HMMA -DRATIO=2 -P sass_count_ratio.cmake
#
# KEY is an opcode or a dotted prefix of one, as in tessel-sass gates (HMMA, HMMA.16816). Each
# file and arch must select exactly one kernel: a ratio between sums over several kernels would
# not say which one moved. Reads `tessel-sass --json`; fails with a sentence naming both counts.

# Failure sentences go out unwrapped (a FATAL_ERROR block is re-flowed to the terminal width),
# then the script stops with a nonzero status.
function(fail sentence)
  message(NOTICE "sass_count_ratio: ${sentence}")
  message(FATAL_ERROR "sass_count_ratio failed")
endfunction()

foreach(var SASS NUM NUM_ARCH DEN DEN_ARCH KERNEL KEY RATIO)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "sass_count_ratio: -D${var}=... is required")
  endif()
endforeach()

# The count of KEY in the one kernel of `file` for `arch`; sets `out`.
function(kernel_count file arch out)
  execute_process(COMMAND "${SASS}" "${file}" --json "--arch=${arch}" "--kernel=${KERNEL}"
                  OUTPUT_VARIABLE json ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    fail("tessel-sass failed on ${file} [${arch}] (status ${rc}): ${err}")
  endif()
  string(JSON kernels LENGTH "${json}" kernels)
  if(NOT kernels EQUAL 1)
    fail("--kernel=${KERNEL} selects ${kernels} kernels in ${file} [${arch}]; give a glob that selects exactly one")
  endif()
  string(JSON name GET "${json}" kernels 0 name)
  string(JSON ops LENGTH "${json}" kernels 0 opcodes)
  set(sum 0)
  if(ops GREATER 0)
    math(EXPR last "${ops} - 1")
    foreach(i RANGE ${last})
      string(JSON op MEMBER "${json}" kernels 0 opcodes ${i})
      string(JSON n GET "${json}" kernels 0 opcodes "${op}")
      string(LENGTH "${KEY}." key_len)
      string(SUBSTRING "${op}" 0 ${key_len} head)
      if(op STREQUAL KEY OR head STREQUAL "${KEY}.")
        math(EXPR sum "${sum} + ${n}")
      endif()
    endforeach()
  endif()
  set(${out} ${sum} PARENT_SCOPE)
  set(${out}_name "${name}" PARENT_SCOPE)
endfunction()

kernel_count("${NUM}" "${NUM_ARCH}" num)
kernel_count("${DEN}" "${DEN_ARCH}" den)
math(EXPR want "${RATIO} * ${den}")
set(found "${KEY}: ${num} in the ${NUM_ARCH} kernel, ${den} in the ${DEN_ARCH} kernel")
if(den EQUAL 0)
  fail("FAIL: ${found}; the ${DEN_ARCH} kernel has no ${KEY} at all")
endif()
if(NOT num EQUAL want)
  fail("FAIL: ${found}; expected ${RATIO} x ${den} = ${want}")
endif()
message(STATUS "sass_count_ratio: ${found}: ratio ${RATIO} as expected")
