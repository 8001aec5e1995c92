#include "app/device_measure.hpp"

#include <algorithm>

#include "core/problem.hpp"
#include "device/cuda_check.hpp"
#include "device/gpu_ops.hpp"
#include "device/problem_buffers.hpp"
#include "device/timing.hpp"

namespace tessel::prof {

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

  for (Element e : {Element::kF16, Element::kBF16}) {
    const GemmShape shape{8192, 8192, 8192, 1};
    const OperandSet ops{{e, Layout::kRow}, {e, Layout::kColumn}, {e, Layout::kColumn}, {e, Layout::kColumn}};
    const BufferPlan plan{set_bytes(shape, ops, false), 2};
    ProblemBuffers buf(shape, ops, false, plan, seed, stream);
    GemmProblem problem{shape};
    std::string status = "Success";
    const Timing t = time_runs(
        [&](int i) {
          status = cublas.gemm(buf.args(i % buf.sets(), problem), ops, stream);
          if (status != "Success") throw ProfError(kExitFailed, "cuBLAS " + status + " while measuring the matrix rate");
        },
        3, 20, stream);
    p.matrix_tflops[std::string(to_string(e))] = gemm_flops(shape) / (t.median_ms * 1e-3) / 1e12;
  }
  return p;
}

}  // namespace tessel::prof
