# tessel-prof's catalogue as the build reads it: every name unique and of the scheme documented in
# tools/prof/kernels/catalogue.cmake, every spec's instance written without an error, and the
# Hopper FP8 mainloop and fused-epilogue kernels under the names tools/prof/README.md gives them,
# each instantiated with its epilogue.
#   cmake -DCATALOGUE=<tools/prof/kernels/catalogue.cmake> -P prof_catalogue_check.cmake
cmake_minimum_required(VERSION 3.25)  # script mode: today's policies (IN_LIST)
include("${CATALOGUE}")
tessel_prof_catalogue(specs)
set(names)
set(instances "")
foreach(spec IN LISTS specs)
  tessel_prof_spec_name("${spec}" n)
  list(APPEND names "${n}")
  tessel_prof_spec_instance("${spec}" 0 text)
  string(APPEND instances "${text}")
endforeach()

set(unique ${names})
list(REMOVE_DUPLICATES unique)
list(LENGTH names count)
list(LENGTH unique unique_count)
if(NOT count EQUAL unique_count)
  message(FATAL_ERROR "the catalogue names ${count} kernels but only ${unique_count} distinct names")
endif()

set(t "(f16|bf16|f32|e4m3)")
set(sm8x "^tessel_sm(75|80)_gemm_${t}_${t}_${t}_[0-9]+x[0-9]+x[0-9]+_[0-9]+x[0-9]+x[0-9]+_[0-9]+stage_(tn|nt|nn|tt)$")
set(sm90 "^tessel_sm90_gemm_${t}_${t}_${t}_[0-9]+x[0-9]+x[0-9]+_c[12]x1_[0-9]+stage_(coop|pingpong|coop_streamk)(_bias_gelu_amax|_bias_gelu_tanh_amax)?_tn$")
foreach(n IN LISTS names)
  if(NOT n MATCHES "${sm8x}" AND NOT n MATCHES "${sm90}")
    message(FATAL_ERROR "catalogue name '${n}' is not of the documented scheme")
  endif()
endforeach()

# name -> a fragment its instance must hold
set(expected
  "tessel_sm90_gemm_e4m3_e4m3_bf16_128x256x128_c1x1_4stage_coop_tn|Sm90UniversalTn<float_e4m3_t, bfloat16_t, 128, 256, 128, 4, gemm::kernel::KernelTmaWarpSpecializedCooperative"
  "tessel_sm90_gemm_e4m3_e4m3_bf16_128x128x128_c1x1_6stage_pingpong_tn|Sm90UniversalTn<float_e4m3_t, bfloat16_t, 128, 128, 128, 6, gemm::kernel::KernelTmaWarpSpecializedPingpong"
  "tessel_sm90_gemm_bf16_bf16_e4m3_128x256x64_c1x1_4stage_coop_bias_gelu_amax_tn|LinCombBiasGeluAmaxFp8<bfloat16_t, bfloat16_t, float_e4m3_t, epilogue::fusion::GeluErf>"
  "tessel_sm90_gemm_bf16_bf16_e4m3_128x256x64_c1x1_4stage_coop_bias_gelu_tanh_amax_tn|LinCombBiasGeluAmaxFp8<bfloat16_t, bfloat16_t, float_e4m3_t, epilogue::fusion::GeluTanh>")
foreach(pair IN LISTS expected)
  string(REPLACE "|" ";" pair "${pair}")
  list(GET pair 0 name)
  list(GET pair 1 fragment)
  if(NOT name IN_LIST names)
    message(FATAL_ERROR "the catalogue has no ${name}")
  endif()
  string(FIND "${instances}" "// ${name}\n" at)
  string(SUBSTRING "${instances}" ${at} 600 instance)
  string(FIND "${instance}" "${fragment}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "${name} is not instantiated as ${fragment}:\n${instance}")
  endif()
endforeach()
message(STATUS "ok: ${count} catalogue names")
