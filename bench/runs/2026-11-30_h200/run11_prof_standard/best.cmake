# Written by tessel-prof --emit-best: the fastest verified tessel kernel for each profiled
# problem. Build only these into tessel-prof:
#   cmake -DTESSEL_PROF_KERNEL_LIST=<this file> <build directory>
#
# 4096x4096x4096 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_tn 761.3 TFLOP/s, 0.96x cuBLAS
# 4096x4096x4096 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x256x32_64x64x32_3stage_tn 398.6 TFLOP/s, 0.55x cuBLAS
# 4096x4096x4096 bf16/bf16->f32 tn: tessel_sm90_gemm_bf16_bf16_f32_128x256x64_c1x1_4stage_coop_tn 683.9 TFLOP/s, 0.90x cuBLAS
# 8192x8192x8192 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_tn 673.3 TFLOP/s, 0.96x cuBLAS
# 8192x8192x8192 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x256x32_64x64x32_3stage_tn 413.4 TFLOP/s, 0.74x cuBLAS
# 8192x8192x8192 bf16/bf16->f32 tn: tessel_sm90_gemm_bf16_bf16_f32_128x256x64_c1x1_4stage_coop_tn 687.7 TFLOP/s, 1.00x cuBLAS
# 8192x28672x8192 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_tn 686.2 TFLOP/s, 1.03x cuBLAS
# 8192x28672x8192 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x256x32_64x64x32_3stage_tn 414.9 TFLOP/s, 0.62x cuBLAS
# 8192x28672x8192 bf16/bf16->f32 tn: tessel_sm90_gemm_bf16_bf16_f32_128x256x64_c1x1_4stage_coop_tn 651.0 TFLOP/s, 0.96x cuBLAS
# 6144x3000x4096 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_tn 619.9 TFLOP/s, 1.04x cuBLAS
# 6144x3000x4096 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x256x32_64x64x32_3stage_tn 348.8 TFLOP/s, 0.48x cuBLAS
# 6144x3000x4096 bf16/bf16->f32 tn: tessel_sm90_gemm_bf16_bf16_f32_128x128x64_c1x1_5stage_coop_tn 613.4 TFLOP/s, 0.82x cuBLAS
# 8192x8192x256 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_tn 485.7 TFLOP/s, 1.06x cuBLAS
# 8192x8192x256 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x256x32_64x64x32_3stage_tn 156.5 TFLOP/s, 0.31x cuBLAS
# 8192x8192x256 bf16/bf16->f32 tn: tessel_sm90_gemm_bf16_bf16_f32_128x256x64_c1x1_4stage_coop_tn 344.3 TFLOP/s, 0.92x cuBLAS
# 4096x16x4096 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x128x64_c1x1_6stage_coop_tn 17.8 TFLOP/s, 0.51x cuBLAS
# 4096x16x4096 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x256x32_64x64x32_3stage_tn 6.1 TFLOP/s, 0.18x cuBLAS
# 4096x16x4096 bf16/bf16->f32 tn: tessel_sm90_gemm_bf16_bf16_f32_128x128x64_c1x1_6stage_coop_tn 18.1 TFLOP/s, 0.52x cuBLAS
# 28672x16x8192 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_tn 51.7 TFLOP/s, 0.77x cuBLAS
# 28672x16x8192 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x256x32_64x64x32_3stage_tn 22.7 TFLOP/s, 0.36x cuBLAS
# 28672x16x8192 bf16/bf16->f32 tn: tessel_sm90_gemm_bf16_bf16_f32_128x256x64_c1x1_4stage_coop_tn 51.4 TFLOP/s, 0.77x cuBLAS
# 1024x1024x32768 bf16/bf16->bf16 tn: tessel_sm90_gemm_bf16_bf16_bf16_128x64x64_c1x1_8stage_coop_tn 533.0 TFLOP/s, 0.73x cuBLAS
# 1024x1024x32768 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x256x32_64x64x32_3stage_tn 130.6 TFLOP/s, 0.18x cuBLAS
# 1024x1024x32768 bf16/bf16->f32 tn: tessel_sm90_gemm_bf16_bf16_f32_128x64x64_c1x1_8stage_coop_tn 512.1 TFLOP/s, 0.71x cuBLAS
set(TESSEL_PROF_BEST_KERNELS
  tessel_sm80_gemm_f16_f16_f16_128x256x32_64x64x32_3stage_tn
  tessel_sm90_gemm_bf16_bf16_bf16_128x128x64_c1x1_6stage_coop_tn
  tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_tn
  tessel_sm90_gemm_bf16_bf16_bf16_128x64x64_c1x1_8stage_coop_tn
  tessel_sm90_gemm_bf16_bf16_f32_128x128x64_c1x1_5stage_coop_tn
  tessel_sm90_gemm_bf16_bf16_f32_128x128x64_c1x1_6stage_coop_tn
  tessel_sm90_gemm_bf16_bf16_f32_128x256x64_c1x1_4stage_coop_tn
  tessel_sm90_gemm_bf16_bf16_f32_128x64x64_c1x1_8stage_coop_tn
)
