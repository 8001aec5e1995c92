# Written by tessel-prof --emit-best: the fastest verified tessel kernel for each profiled
# problem. Build only these into tessel-prof:
#   cmake -DTESSEL_PROF_KERNEL_LIST=<this file> <build directory>
#
# 4096x4096x4096 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x128x32_64x64x32_3stage_tn 373.9 TFLOP/s, 0.50x cuBLAS
# 4096x4096x4096 bf16/bf16->bf16 tn: tessel_sm80_gemm_bf16_bf16_bf16_128x128x32_64x64x32_3stage_tn 377.7 TFLOP/s, 0.48x cuBLAS
# 8192x8192x8192 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x256x32_64x64x32_3stage_tn 342.2 TFLOP/s, 0.50x cuBLAS
# 8192x8192x8192 bf16/bf16->bf16 tn: tessel_sm80_gemm_bf16_bf16_bf16_128x128x32_64x64x32_3stage_tn 364.1 TFLOP/s, 0.55x cuBLAS
# 8192x28672x8192 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x128x32_64x64x32_3stage_tn 349.6 TFLOP/s, 0.55x cuBLAS
# 8192x28672x8192 bf16/bf16->bf16 tn: tessel_sm80_gemm_bf16_bf16_bf16_128x128x32_64x64x32_3stage_tn 357.2 TFLOP/s, 0.52x cuBLAS
# 6144x3000x4096 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x128x32_64x64x32_3stage_tn 326.9 TFLOP/s, 0.49x cuBLAS
# 6144x3000x4096 bf16/bf16->bf16 tn: tessel_sm80_gemm_bf16_bf16_bf16_128x128x32_64x64x32_3stage_tn 324.8 TFLOP/s, 0.42x cuBLAS
# 8192x8192x256 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x256x32_64x64x32_3stage_tn 138.5 TFLOP/s, 0.30x cuBLAS
# 8192x8192x256 bf16/bf16->bf16 tn: tessel_sm80_gemm_bf16_bf16_bf16_128x128x32_64x64x32_3stage_tn 147.1 TFLOP/s, 0.28x cuBLAS
# 4096x16x4096 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x128x32_64x64x32_3stage_tn 7.3 TFLOP/s, 0.21x cuBLAS
# 4096x16x4096 bf16/bf16->bf16 tn: tessel_sm80_gemm_bf16_bf16_bf16_64x64x32_32x32x32_5stage_tn 16.3 TFLOP/s, 0.49x cuBLAS
# 28672x16x8192 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x128x32_64x64x32_3stage_tn 42.9 TFLOP/s, 0.68x cuBLAS
# 28672x16x8192 bf16/bf16->bf16 tn: tessel_sm80_gemm_bf16_bf16_bf16_64x64x32_32x32x32_5stage_tn 55.7 TFLOP/s, 0.84x cuBLAS
# 1024x1024x32768 f16/f16->f16 tn: tessel_sm80_gemm_f16_f16_f16_128x128x64_64x64x64_4stage_tn 135.2 TFLOP/s, 0.19x cuBLAS
# 1024x1024x32768 bf16/bf16->bf16 tn: tessel_sm80_gemm_bf16_bf16_bf16_64x64x32_32x32x32_5stage_tn 271.0 TFLOP/s, 0.37x cuBLAS
set(TESSEL_PROF_BEST_KERNELS
  tessel_sm80_gemm_bf16_bf16_bf16_128x128x32_64x64x32_3stage_tn
  tessel_sm80_gemm_bf16_bf16_bf16_64x64x32_32x32x32_5stage_tn
  tessel_sm80_gemm_f16_f16_f16_128x128x32_64x64x32_3stage_tn
  tessel_sm80_gemm_f16_f16_f16_128x128x64_64x64x64_4stage_tn
  tessel_sm80_gemm_f16_f16_f16_128x256x32_64x64x32_3stage_tn
)
