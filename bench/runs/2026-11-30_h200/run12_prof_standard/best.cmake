# Written by tessel-prof --emit-best: the fastest verified tessel kernel for each profiled
# problem. Build only these into tessel-prof:
#   cmake -DTESSEL_PROF_KERNEL_LIST=<this file> <build directory>
#
# 4096x4096x4096 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x128x64_c1x1_6stage_pingpong_tn 707.7 TFLOP/s, 0.91x cuBLAS
# 4096x4096x4096 f16/f16->f16 tn: tessel_sm90_gemm_f16_f16_f16_128x256x64_c1x1_4stage_coop_tn 653.6 TFLOP/s, 0.91x cuBLAS
# 8192x8192x8192 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x192x64_c1x1_4stage_coop_tn 669.7 TFLOP/s, 0.97x cuBLAS
# 8192x8192x8192 f16/f16->f16 tn: tessel_sm90_gemm_f16_f16_f16_128x256x64_c1x1_4stage_coop_streamk_tn 653.6 TFLOP/s, 0.97x cuBLAS
# 8192x28672x8192 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_streamk_tn 670.8 TFLOP/s, 1.00x cuBLAS
# 8192x28672x8192 f16/f16->f16 tn: tessel_sm90_gemm_f16_f16_f16_128x192x64_c1x1_4stage_coop_tn 634.8 TFLOP/s, 0.97x cuBLAS
# 6144x3000x4096 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x192x64_c1x1_4stage_coop_tn 666.6 TFLOP/s, 1.13x cuBLAS
# 6144x3000x4096 f16/f16->f16 tn: tessel_sm90_gemm_f16_f16_f16_128x128x64_c1x1_6stage_pingpong_tn 660.9 TFLOP/s, 0.92x cuBLAS
# 8192x8192x256 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x128x64_c1x1_6stage_pingpong_tn 496.4 TFLOP/s, 1.12x cuBLAS
# 8192x8192x256 f16/f16->f16 tn: tessel_sm90_gemm_f16_f16_f16_128x128x64_c1x1_6stage_pingpong_tn 487.0 TFLOP/s, 0.97x cuBLAS
# 4096x16x4096 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x64x64_c1x1_8stage_coop_streamk_tn 19.4 TFLOP/s, 0.55x cuBLAS
# 4096x16x4096 f16/f16->f16 tn: tessel_sm90_gemm_f16_f16_f16_128x64x64_c1x1_8stage_coop_streamk_tn 19.4 TFLOP/s, 0.57x cuBLAS
# 28672x16x8192 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_streamk_tn 51.3 TFLOP/s, 0.76x cuBLAS
# 28672x16x8192 f16/f16->f16 tn: tessel_sm90_gemm_f16_f16_f16_128x256x64_c1x1_4stage_coop_tn 51.1 TFLOP/s, 0.81x cuBLAS
# 1024x1024x32768 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_streamk_tn 692.6 TFLOP/s, 0.96x cuBLAS
# 1024x1024x32768 f16/f16->f16 tn: tessel_sm90_gemm_f16_f16_f16_128x256x64_c1x1_4stage_coop_streamk_tn 670.8 TFLOP/s, 0.97x cuBLAS
set(TESSEL_PROF_BEST_KERNELS
  tessel_sm90_gemm_bf16_bf16_bf16_128x128x64_c1x1_6stage_pingpong_tn
  tessel_sm90_gemm_bf16_bf16_bf16_128x192x64_c1x1_4stage_coop_tn
  tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_streamk_tn
  tessel_sm90_gemm_bf16_bf16_bf16_128x64x64_c1x1_8stage_coop_streamk_tn
  tessel_sm90_gemm_f16_f16_f16_128x128x64_c1x1_6stage_pingpong_tn
  tessel_sm90_gemm_f16_f16_f16_128x192x64_c1x1_4stage_coop_tn
  tessel_sm90_gemm_f16_f16_f16_128x256x64_c1x1_4stage_coop_streamk_tn
  tessel_sm90_gemm_f16_f16_f16_128x256x64_c1x1_4stage_coop_tn
  tessel_sm90_gemm_f16_f16_f16_128x64x64_c1x1_8stage_coop_streamk_tn
)
