#include "app/device_measure.hpp"

#include <algorithm>

#include "core/problem.hpp"
#include "device/cuda_check.hpp"
#include "device/gpu_ops.hpp"
#include "device/problem_buffers.hpp"
#include "device/timing.hpp"

namespace tessel::prof {

namespace {
OperandSet uniform_operands(Element e) {
  return {{e, Layout::kRow}, {e, Layout::kColumn}, {e, Layout::kColumn}, {e, Layout::kColumn}};
}
}  // namespace

DeviceProfile measure_device(const DeviceInfo& info, Cublas& cublas, cudaStream_t stream, std::uint64_t seed) {
  DeviceProfile p;
  p.device = info.name;
  p.compute_capability = info.compute_capability();
  p.sm_count = info.sm_count;
  p.l2_bytes = info.l2_bytes;
  p.measured = utc_now();

  std::size_t free_bytes = 0, total = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
  // 16x the L2 (1 GiB on an H200) so that the copy streams from and to device memory.
  const std::size_t bytes = std::min<std::size_t>(std::max<std::size_t>(16 * std::size_t(info.l2_bytes), 256u << 20),
                                                  free_bytes / 4);
  {
    DeviceAllocation src(bytes, "the bandwidth test"), dst(bytes, "the bandwidth test");
    check_cuda(cudaMemsetAsync(src.get(), 1, bytes, stream), "cudaMemsetAsync");
    const Timing t = time_runs(
        [&](int) { copy_device(dst.get(), src.get(), bytes, stream); }, 3, 20, stream);
    p.copy_bandwidth_gbps = 2.0 * double(bytes) / (t.median_ms * 1e-3) / 1e9;
  }

  // f16 and bf16 through cublasGemmEx, e4m3 through cuBLASLt (bf16 D) where the GPU has FP8 tensor
  // cores; a GPU without them has no e4m3 rate, and analyze mode then gives FP8 kernels no floor.
  const OperandSet sets[] = {uniform_operands(Element::kF16), uniform_operands(Element::kBF16),
                             {{Element::kE4M3, Layout::kRow}, {Element::kE4M3, Layout::kColumn},
                              {Element::kBF16, Layout::kColumn}, {Element::kBF16, Layout::kColumn}}};
  for (const OperandSet& ops : sets) {
    const bool optional = is_fp8(ops.a.element);
    const GemmShape shape{8192, 8192, 8192, 1};
    const BufferPlan plan{set_bytes(shape, ops, false), 2};
    ProblemBuffers buf(shape, ops, false, plan, seed, stream);
    GemmProblem problem{shape};
    if (optional && cublas.gemm(buf.args(0, problem), ops, stream) != "Success") continue;
    const Timing t = time_runs(
        [&](int i) {
          const std::string status = cublas.gemm(buf.args(i % buf.sets(), problem), ops, stream);
          if (status != "Success") throw ProfError(kExitFailed, "cuBLAS " + status + " while measuring the matrix rate");
        },
        3, 20, stream);
    p.matrix_tflops[std::string(to_string(ops.a.element))] = gemm_flops(shape) / (t.median_ms * 1e-3) / 1e12;
  }
  return p;
}

}  // namespace tessel::prof
