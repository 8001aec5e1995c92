#include "device/fused_reference.hpp"

#include <algorithm>
#include <cmath>

#include "device/gpu_ops.hpp"
#include "tessel/epilogue/fusion/activation.hpp"
#include "tessel/numeric.hpp"
#include "tessel/verify/fp8_epilogue_chain.cuh"
#include "tessel/verify/ulp_compare.cuh"

namespace tessel::prof {

namespace {

__global__ void widen_kernel(const bfloat16_t* in, float* out, std::int64_t count) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = float(in[i]);
}

}  // namespace

bool FusedCheck::passed() const {
  // A NaN amax compares false, and fails.
  return checked > 0 && beyond_one == 0 && amax > 0 && amax_relative <= amax_tolerance;
}

FusedReference::FusedReference(Cublas& cublas, const GemmArguments& a, const OperandSet& ops, Epilogue e,
                               cudaStream_t stream) {
  const GemmShape& s = a.shape;
  if (s.batch != 1 || a.ldd != s.m || ops.d.layout != Layout::kColumn) {
    throw ProfError(kExitFailed, "the fused epilogue's reference takes one dense column-major D");
  }
  if (a.beta != 0 && ops.c.element != Element::kBF16) {
    throw ProfError(kExitFailed, "the fused epilogue's reference reads a bf16 C, not " + std::string(to_string(ops.c.element)));
  }
  count_ = s.m * s.n;
  k_ = s.k;
  DeviceAllocation r(std::size_t(count_) * sizeof(float), "the reference's f32 accumulators");
  if (a.beta != 0) {
    widen_kernel<<<2048, 256, 0, stream>>>(static_cast<const bfloat16_t*>(a.C), static_cast<float*>(r.get()), count_);
    check_cuda(cudaGetLastError(), "widening C to f32");
  }
  GemmArguments f32 = a;
  f32.D = r.get();
  OperandSet ops32 = ops;
  ops32.c.element = ops32.d.element = Element::kF32;
  if (const std::string st = cublas.gemm(f32, ops32, stream); st != "Success") {
    throw ProfError(kExitFailed, "cuBLAS returned " + st + " for the f32 GEMM of the fused epilogue's reference");
  }
  q_ = DeviceAllocation(std::size_t(count_), "the reference's e4m3 D");
  amax_ = DeviceAllocation(sizeof(float), "the reference's amax");
  check_cuda(cudaMemsetAsync(amax_.get(), 0, sizeof(float), stream), "zeroing the reference's amax");
  int device = 0, sms = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  // Column-major D is the row-major N x M matrix D^T, whose rows run along M with the bias.
  auto chain = [&](auto gelu) {
    verify::bias_gelu_amax_e4m3<decltype(gelu)>(static_cast<const float*>(r.get()), static_cast<const bfloat16_t*>(a.bias),
                                               a.scale_d, static_cast<float*>(amax_.get()),
                                               static_cast<float_e4m3_t*>(q_.get()), s.n, int(s.m), sms, stream);
  };
  if (e == Epilogue::kBiasGeluAmax) chain(epilogue::fusion::GeluErf{});
  else if (e == Epilogue::kBiasGeluTanhAmax) chain(epilogue::fusion::GeluTanh{});
  else throw ProfError(kExitFailed, "the fused epilogue's reference has no chain for " + std::string(to_string(e)));
  check_cuda(cudaStreamSynchronize(stream), "the fused epilogue's reference");
}

FusedCheck FusedReference::check(const void* d, const float* amax, cudaStream_t stream) const {
  FusedCheck c;
  const verify::UlpReport u = verify::ulp_compare(static_cast<const float_e4m3_t*>(d),
                                                  static_cast<const float_e4m3_t*>(q_.get()), count_, stream);
  c.checked = count_;
  c.differ = u.differ;
  c.beyond_one = u.beyond_one;
  c.worst_ulps = u.worst;
  float got = 0, want = 0;
  check_cuda(cudaMemcpyAsync(&got, amax, sizeof got, cudaMemcpyDeviceToHost, stream), "reading amax");
  check_cuda(cudaMemcpyAsync(&want, amax_.get(), sizeof want, cudaMemcpyDeviceToHost, stream), "reading amax");
  check_cuda(cudaStreamSynchronize(stream), "reading amax");
  c.amax = got;
  c.amax_reference = want;
  c.amax_relative = std::fabs(double(got) - double(want)) / std::max(double(want), 1e-30);
  c.amax_tolerance = cublas_tolerance(k_, Element::kF32, Element::kBF16);
  return c;
}

}  // namespace tessel::prof
