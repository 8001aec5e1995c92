# The kernel catalogue: every kernel tessel-prof can be built with, named as the kernels name
# themselves, and the build-time selection of the ones compiled in.
#
# A spec is "family:A:B:D:tile:warp:stages:layout", e.g. "sm80:bf16:bf16:bf16:128x128x32:64x64x32:3:tn";
# the Hopper families put their cluster where the others have a warp tile, and their schedule after
# the stages ("sm90:...:128x256x64:c1x1:4:coop:tn"; coop, pingpong, or coop_streamk for the stream-K
# scheduler's split-K / stream-K decompositions); sm90u adds its epilogue after the schedule
# ("sm90u:bf16:bf16:e4m3:128x256x64:c1x1:4:coop:bias_gelu_amax:tn").
# Its name is what the kernel's handle calls itself (the registry test checks the two agree):
#   tessel_<family>_gemm_<A>_<B>_<D>_<tile>_<warp>_<stages>stage_<layout>                       Sm75, Sm80
#   tessel_sm90_gemm_<A>_<B>_<D>_<tile>_<cluster>_<stages>stage_<schedule>[_<epilogue>]_<layout>  Sm90
# The epilogue part is absent for the linear combination D = alpha A B + beta C, and otherwise one
# of Epilogue's spellings (core/types.hpp): bias_gelu_amax (GELU with erf) or bias_gelu_tanh_amax
# (its tanh form), each with the bias, the amax and the scaled cast to D's FP8 type. C has D's type,
# except where D is FP8 (C is bf16 there). C and D are column-major, as BLAS writes them; the
# layout letters are BLAS's: "tn" is A row-major, B column-major.
#
# A new family adds its specs to tessel_prof_catalogue (a cross product of types, tiles and
# layouts, or a list of whole specs), a branch to tessel_prof_spec_name and
# tessel_prof_spec_instance, an adaptor header next to sm80_operation.cuh and an instances_<family>
# template that includes it.
include_guard(GLOBAL)

set(_TESSEL_PROF_KERNELS_DIR ${CMAKE_CURRENT_LIST_DIR})

# Tiles the Sm80 handle serves well, as tile:warp:stages. Every one is a whole number of warps and
# fits the 164 KiB of shared memory an A100 offers a CTA (the H200 offers 227 KiB).
set(TESSEL_PROF_SM80_TILES
  128x128x32:64x64x32:3 128x128x32:64x64x32:4 128x256x32:64x64x32:3 256x128x32:64x64x32:3
  128x128x64:64x64x64:4 128x64x32:64x32x32:4 64x128x32:32x64x32:4 64x64x32:32x32x32:5)
set(TESSEL_PROF_SM80_TYPES f16:f16:f16 f16:f16:f32 bf16:bf16:bf16 bf16:bf16:f32)
# Turing has no bf16 tensor cores and no cp.async: f16 only, two stages.
set(TESSEL_PROF_SM75_TILES 128x128x32:64x64x32:2 64x64x32:32x32x32:2)
set(TESSEL_PROF_SM75_TYPES f16:f16:f16 f16:f16:f32)
set(TESSEL_PROF_SM80_LAYOUTS tn nt nn tt)
set(TESSEL_PROF_SM75_LAYOUTS tn nt nn tt)
# Hopper (tessel::gemm::device::GemmSm90): bf16 or f16 in, the same or f32 out, TN; BM 128 and BK
# 64 are the kernel's, BN one of the wgmma widths, stages filling up to about 192 KiB of shared
# memory beside the epilogue's 32 KiB. The tuned ones of bench/RESULTS.md: 128x256 cooperative
# (large squares), 128x192 (whole waves where 256 leaves a partial one), 128x128 ping-pong (short
# K), 128x256 and 128x64 with the stream-K scheduler (few tiles, long K; decode).
set(TESSEL_PROF_SM90_TILES 128x256x64:c1x1:4:coop 128x128x64:c1x1:5:coop 128x128x64:c1x1:6:coop 128x64x64:c1x1:8:coop
    128x192x64:c1x1:4:coop 128x128x64:c1x1:6:pingpong 128x256x64:c1x1:4:coop_streamk 128x64x64:c1x1:8:coop_streamk)
set(TESSEL_PROF_SM90_TYPES bf16:bf16:bf16 bf16:bf16:f32 f16:f16:f16 f16:f16:f32)
set(TESSEL_PROF_SM90_LAYOUTS tn)
# Hopper through the collective builders and GemmUniversalAdapter (sm90u_operation.cuh), for what
# GemmSm90 does not take: the FP8 mainloop, e4m3 x e4m3 -> bf16 (BK 128 bytes of e4m3; 128x256
# cooperative is bench/fusion_bench's FP8 tile, 128x128 ping-pong its neighbour), and bf16 GEMMs
# with the fused FP8 epilogue (bias, GELU, amax, scaled e4m3 cast) on the plain 128x256 tile, so
# that each fused row has a plain row of the same tile beside it. (The fused epilogue on the
# 128x128 ping-pong tile spills registers: 18 LDL / 10 STL with GELU's erf form.)
set(TESSEL_PROF_SM90U_SPECS
  sm90u:e4m3:e4m3:bf16:128x256x128:c1x1:4:coop:linear_combination:tn
  sm90u:e4m3:e4m3:bf16:128x128x128:c1x1:6:pingpong:linear_combination:tn
  sm90u:bf16:bf16:e4m3:128x256x64:c1x1:4:coop:bias_gelu_amax:tn
  sm90u:bf16:bf16:e4m3:128x256x64:c1x1:4:coop:bias_gelu_tanh_amax:tn)
set(TESSEL_PROF_FAMILIES sm90 sm90u sm80 sm75)

function(tessel_prof_catalogue out)
  set(specs)
  foreach(family IN LISTS TESSEL_PROF_FAMILIES)
    string(TOUPPER ${family} F)
    list(APPEND specs ${TESSEL_PROF_${F}_SPECS})
    foreach(types IN LISTS TESSEL_PROF_${F}_TYPES)
      foreach(tile IN LISTS TESSEL_PROF_${F}_TILES)
        foreach(layout IN LISTS TESSEL_PROF_${F}_LAYOUTS)
          list(APPEND specs "${family}:${types}:${tile}:${layout}")
        endforeach()
      endforeach()
    endforeach()
  endforeach()
  set(${out} ${specs} PARENT_SCOPE)
endfunction()

function(tessel_prof_spec_name spec out)
  string(REPLACE ":" ";" f "${spec}")
  list(GET f 0 family)
  list(GET f 1 a)
  list(GET f 2 b)
  list(GET f 3 c)
  list(GET f 4 tile)
  list(GET f 5 warp)
  list(GET f 6 stages)
  set(schedule "")
  if(family STREQUAL "sm90")
    list(GET f 7 schedule)
    list(GET f 8 layout)
    set(schedule "${schedule}_")
  elseif(family STREQUAL "sm90u")
    # The same names as the GemmSm90 kernels, with the epilogue where it is not the plain one.
    set(family sm90)
    list(GET f 7 schedule)
    list(GET f 8 epilogue)
    list(GET f 9 layout)
    if(epilogue STREQUAL "linear_combination")
      set(schedule "${schedule}_")
    else()
      set(schedule "${schedule}_${epilogue}_")
    endif()
  else()
    list(GET f 7 layout)
  endif()
  set(${out} "tessel_${family}_gemm_${a}_${b}_${c}_${tile}_${warp}_${stages}stage_${schedule}${layout}" PARENT_SCOPE)
endfunction()

# The C++ lines that instantiate and register one spec; `index` keeps names unique in a file.
function(tessel_prof_spec_instance spec index out)
  string(REPLACE ":" ";" f "${spec}")
  list(GET f 0 family)
  set(types)
  foreach(i 1 2 3)
    list(GET f ${i} e)
    if(e STREQUAL "f16")
      list(APPEND types half_t)
    elseif(e STREQUAL "bf16")
      list(APPEND types bfloat16_t)
    elseif(e STREQUAL "e4m3")
      list(APPEND types float_e4m3_t)
    else()
      list(APPEND types float)
    endif()
  endforeach()
  list(GET types 0 ta)
  list(GET types 1 tb)
  list(GET types 2 tc)
  list(GET f 4 tile)
  list(GET f 5 warp)
  list(GET f 6 stages)
  string(REPLACE "x" ", " tile "${tile}")
  tessel_prof_spec_name("${spec}" name)
  if(family STREQUAL "sm90")
    # The handle fixes the layouts (TN); the adaptor presents D column-major.
    list(GET f 7 schedule)
    set(sched gemm::kernel::KernelTmaWarpSpecializedCooperative)
    set(scheduler gemm::PersistentScheduler)
    if(schedule STREQUAL "pingpong")
      set(sched gemm::kernel::KernelTmaWarpSpecializedPingpong)
    elseif(schedule STREQUAL "coop_streamk")
      set(scheduler gemm::StreamKScheduler)
    elseif(NOT schedule STREQUAL "coop")
      message(FATAL_ERROR "tessel-prof catalogue: unknown Hopper schedule '${schedule}' in ${spec}")
    endif()
    set(${out}
"// ${name}
using Kernel${index} = gemm::device::GemmSm90<${tc}, ${tile}, ${stages}, ${sched}, ${scheduler}, ${ta}>;
const Registrar kRegister${index}{make_sm90_tn_operation<Kernel${index}>()};
" PARENT_SCOPE)
    return()
  endif()
  if(family STREQUAL "sm90u")
    list(GET f 7 schedule)
    list(GET f 8 epilogue)
    if(schedule STREQUAL "coop")
      set(sched gemm::kernel::KernelTmaWarpSpecializedCooperative)
    elseif(schedule STREQUAL "pingpong")
      set(sched gemm::kernel::KernelTmaWarpSpecializedPingpong)
    else()
      message(FATAL_ERROR "tessel-prof catalogue: unknown sm90u schedule '${schedule}' in ${spec}")
    endif()
    if(epilogue STREQUAL "linear_combination")
      set(fusion "epilogue::LinearCombination<${tc}, bfloat16_t>")
    elseif(epilogue STREQUAL "bias_gelu_amax")
      set(fusion "epilogue::fusion::LinCombBiasGeluAmaxFp8<bfloat16_t, bfloat16_t, ${tc}, epilogue::fusion::GeluErf>")
    elseif(epilogue STREQUAL "bias_gelu_tanh_amax")
      set(fusion "epilogue::fusion::LinCombBiasGeluAmaxFp8<bfloat16_t, bfloat16_t, ${tc}, epilogue::fusion::GeluTanh>")
    else()
      message(FATAL_ERROR "tessel-prof catalogue: unknown epilogue '${epilogue}' in ${spec}")
    endif()
    set(${out}
"// ${name}
using Kernel${index} = Sm90UniversalTn<${ta}, ${tc}, ${tile}, ${stages}, ${sched},
                                      ${fusion}>::Gemm;
const Registrar kRegister${index}{make_sm90u_operation<Kernel${index}>()};
" PARENT_SCOPE)
    return()
  endif()
  list(GET f 7 layout)
  string(REPLACE "x" ", " warp "${warp}")
  string(SUBSTRING "${layout}" 0 1 la)
  string(SUBSTRING "${layout}" 1 1 lb)
  if(la STREQUAL "t")
    set(la gemm::RowMajor)
  else()
    set(la gemm::ColumnMajor)
  endif()
  if(lb STREQUAL "n")
    set(lb gemm::ColumnMajor)
  else()
    set(lb gemm::RowMajor)
  endif()
  if(family STREQUAL "sm75")
    set(arch arch::Sm75)
    set(inst "16, 8, 8")
  else()
    set(arch arch::Sm80)
    set(inst "16, 8, 16")
  endif()
  set(${out}
"// ${name}
using Kernel${index} = Sm80Gemm<${ta}, ${la}, ${tb}, ${lb}, ${tc}, gemm::ColumnMajor, ${arch},
                              ${tile}, ${warp}, ${inst}, ${stages}>;
const Registrar kRegister${index}{make_sm80_operation<Kernel${index}>()};
" PARENT_SCOPE)
endfunction()

# A whole-name glob (* and ?) as an anchored regular expression.
function(tessel_prof_glob_regex glob out)
  string(REGEX REPLACE "([][.+^$(){}|\\\\])" "\\\\\\1" re "${glob}")
  string(REPLACE "*" ".*" re "${re}")
  string(REPLACE "?" "." re "${re}")
  set(${out} "^${re}$" PARENT_SCOPE)
endfunction()

# tessel_prof_select(<out specs> <out names> GLOBS <glob...> [IGNORE <glob...>] [WHAT <name for messages>])
# The catalogue's specs whose names match a glob of GLOBS and none of IGNORE. A glob that matches
# nothing is a configuration error: a typo would otherwise build a profiler without the kernel.
function(tessel_prof_select out_specs out_names)
  cmake_parse_arguments(S "" "WHAT" "GLOBS;IGNORE" ${ARGN})
  if(NOT S_WHAT)
    set(S_WHAT TESSEL_PROF_KERNELS)
  endif()
  tessel_prof_catalogue(catalogue)
  set(names)
  foreach(spec IN LISTS catalogue)
    tessel_prof_spec_name("${spec}" n)
    list(APPEND names "${n}")
  endforeach()
  foreach(kind GLOBS IGNORE)
    foreach(glob IN LISTS S_${kind})
      tessel_prof_glob_regex("${glob}" re)
      set(found FALSE)
      foreach(n IN LISTS names)
        if(n MATCHES "${re}")
          set(found TRUE)
          break()
        endif()
      endforeach()
      if(NOT found)
        message(FATAL_ERROR "${S_WHAT}: '${glob}' matches no kernel of the catalogue; expected a whole "
                "kernel name or glob such as tessel_sm80_gemm_bf16_bf16_bf16_*_tn (the catalogue is "
                "defined in tools/prof/kernels/catalogue.cmake)")
      endif()
    endforeach()
  endforeach()
  set(specs_sel)
  set(names_sel)
  foreach(spec IN LISTS catalogue)
    tessel_prof_spec_name("${spec}" n)
    set(keep FALSE)
    foreach(glob IN LISTS S_GLOBS)
      tessel_prof_glob_regex("${glob}" re)
      if(n MATCHES "${re}")
        set(keep TRUE)
      endif()
    endforeach()
    foreach(glob IN LISTS S_IGNORE)
      tessel_prof_glob_regex("${glob}" re)
      if(n MATCHES "${re}")
        set(keep FALSE)
      endif()
    endforeach()
    if(keep)
      list(APPEND specs_sel "${spec}")
      list(APPEND names_sel "${n}")
    endif()
  endforeach()
  set(${out_specs} ${specs_sel} PARENT_SCOPE)
  set(${out_names} ${names_sel} PARENT_SCOPE)
endfunction()

# Writes <dir>/kernels_<family>_<i>.cu, `per_file` kernels of one family each (a family's template
# includes only its own adaptor), so that a parallel build compiles them side by side, plus the
# name lists registry.cpp includes. Returns the sources in <out>.
function(tessel_prof_generate dir per_file out)
  cmake_parse_arguments(G "" "" "SPECS" ${ARGN})
  set(sources)
  foreach(family IN LISTS TESSEL_PROF_FAMILIES)
    set(specs ${G_SPECS})
    list(FILTER specs INCLUDE REGEX "^${family}:")
    list(LENGTH specs count)
    set(i 0)
    set(file_index 0)
    while(i LESS count)
      set(TESSEL_PROF_INSTANCES "")
      set(j 0)
      while(j LESS per_file AND i LESS count)
        list(GET specs ${i} spec)
        tessel_prof_spec_instance("${spec}" ${j} text)
        string(APPEND TESSEL_PROF_INSTANCES "${text}\n")
        math(EXPR i "${i} + 1")
        math(EXPR j "${j} + 1")
      endwhile()
      # configure_file leaves an unchanged file alone, so reconfiguring rebuilds nothing.
      # Turing's kernels share the Sm80 handle and its adaptor.
      set(template ${family})
      if(family STREQUAL "sm75")
        set(template sm80)
      endif()
      configure_file(${_TESSEL_PROF_KERNELS_DIR}/instances_${template}.cu.in ${dir}/kernels_${family}_${file_index}.cu @ONLY)
      list(APPEND sources ${dir}/kernels_${family}_${file_index}.cu)
      math(EXPR file_index "${file_index} + 1")
    endwhile()
  endforeach()

  tessel_prof_catalogue(catalogue)
  set(TESSEL_PROF_NAMES "")
  foreach(spec IN LISTS catalogue)
    tessel_prof_spec_name("${spec}" n)
    string(APPEND TESSEL_PROF_NAMES "\"${n}\",\n")
  endforeach()
  configure_file(${_TESSEL_PROF_KERNELS_DIR}/names.inc.in ${dir}/tessel_prof_catalogue_names.inc @ONLY)
  set(TESSEL_PROF_NAMES "")
  foreach(spec IN LISTS G_SPECS)
    tessel_prof_spec_name("${spec}" n)
    string(APPEND TESSEL_PROF_NAMES "\"${n}\",\n")
  endforeach()
  configure_file(${_TESSEL_PROF_KERNELS_DIR}/names.inc.in ${dir}/tessel_prof_selected_names.inc @ONLY)
  set(${out} ${sources} PARENT_SCOPE)
endfunction()
