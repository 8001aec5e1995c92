// The reduction that ends GEMM + ReduceScatter: this rank's own partial plus the partials the
// other ranks sent, summed in f32 and rounded once (NCCL's ring reduce-scatter rounds to the
// element type at every hop).

#include <cuda_bf16.h>
#include <cuda_fp16.h>


#include "tessel/arch/runtime.hpp"
#include "tessel/distributed/tp_gemm.hpp"

namespace tessel::distributed {

namespace {

template <class T>
__global__ void reduce_partials_kernel(T const* own, T const* partials, int count, std::int64_t slice, T* out, std::int64_t n) {
  std::int64_t const stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float s = float(own[i]);
    for (int p = 0; p < count; ++p) s += float(partials[p * slice + i]);
    out[i] = T(s);
  }
}

}  // namespace

StatusInfo reduce_partials(gemm::DataType type, void const* own, void const* partials, int count, std::int64_t slice, void* out,
                           std::int64_t n_elements, cudaStream_t stream) {
  if (n_elements <= 0) return {};
  int const threads = 256;
  // A few waves of blocks on any GPU; the loop strides over the rest.
  int const blocks = int(std::min<std::int64_t>((n_elements + threads - 1) / threads, 132 * 16));
  if (type == gemm::DataType::kF16)
    reduce_partials_kernel<<<blocks, threads, 0, stream>>>(static_cast<__half const*>(own), static_cast<__half const*>(partials), count,
                                                           slice, static_cast<__half*>(out), n_elements);
  else
    reduce_partials_kernel<<<blocks, threads, 0, stream>>>(static_cast<__nv_bfloat16 const*>(own),
                                                           static_cast<__nv_bfloat16 const*>(partials), count, slice,
                                                           static_cast<__nv_bfloat16*>(out), n_elements);
  return arch::status_from_cuda(cudaGetLastError(), "launching the reduction of the partials");
}

}  // namespace tessel::distributed
