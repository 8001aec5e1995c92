// The fusion nodes in device code: nvcc compiles these kernels for sm_90a (the FP8 cast, the
// atomics and the warp shuffles of the reductions), so a build without a GPU still proves the
// device path compiles. Nothing is launched; the test itself runs the same trees on the host,
// compiled by nvcc's host pass.

#include <gtest/gtest.h>

#include "tessel/epilogue/fusion.hpp"

namespace {

using namespace tessel;
using namespace tessel::epilogue::fusion;

using Fp8 = LinCombBiasGeluAmaxFp8<bfloat16_t>;
using Everything =
    ColumnReduction<ReduceMax,
                    RowReduction<ReduceSum,
                                 AuxStore<half_t, Activation<SiLU, MultiplyAdd<ColumnBroadcast<float>, Accumulator, AuxLoad<float>>>>>>;

// One thread per output element of a small tile, as an epilogue visits them.
template <class F>
__global__ void epilogue_kernel(typename F::Params params, typename F::ElementOutput* d, int m, int n, int ldd) {
  typename F::Callbacks cb(params);
  const int row = blockIdx.x, col = threadIdx.x, batch = blockIdx.y;
  if (row < m && col < n) d[batch * m * ldd + row * ldd + col] = cb.visit(row, col, batch, float(row - col));
  cb.finish();
}

template __global__ void epilogue_kernel<Fp8>(Fp8::Params, float_e4m3_t*, int, int, int);
template __global__ void epilogue_kernel<Everything>(Everything::Params, float*, int, int, int);
template __global__ void epilogue_kernel<LinCombBiasActivation<GeluTanh, half_t>>(LinCombBiasActivation<GeluTanh, half_t>::Params,
                                                                                  half_t*, int, int, int);
template __global__ void epilogue_kernel<Convert<float_e5m2_t, Amax<Accumulator>>>(Convert<float_e5m2_t, Amax<Accumulator>>::Params,
                                                                                  float_e5m2_t*, int, int, int);

TEST(FusionDeviceCompile, KernelsExistAndTheHostPassAgrees) {
  EXPECT_NE(reinterpret_cast<const void*>(&epilogue_kernel<Fp8>), nullptr);
  EXPECT_NE(reinterpret_cast<const void*>(&epilogue_kernel<Everything>), nullptr);
  // The worked example of lincomb_fp8.hpp, through nvcc's host compilation of the same headers.
  const bfloat16_t bias[1] = {bfloat16_t(0.5f)};
  float amax = 0.f;
  Fp8::Callbacks cb(Fp8::to_params({.ptr_bias = bias, .scale_d = 100.f, .ptr_amax = &amax}));
  EXPECT_EQ(float(cb.visit(0, 0, 0, 1.5f)), 192.f);
  cb.finish();
  EXPECT_NEAR(amax, 1.9545f, 1e-4f);
}

}  // namespace
