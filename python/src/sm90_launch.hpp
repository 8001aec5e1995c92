#pragma once
// The launch of a Hopper kernel (kernel::sm90_gemm_tma_warpspecialized) loaded from a cubin, done
// as device::GemmUniversalAdapter does it but through the driver API: the TMA descriptors of A, B
// and (for the TMA-store epilogue) D, the parameter block, the persistent grid of clusters, the
// cluster attribute.
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>

#include <tessel/arch/tma_encode.hpp>

#include "cuda_driver.hpp"
#include "gemm_types.hpp"

namespace tessel::py {

// The launch-time facts of one Hopper kernel (the configuration's, asserted by its source).
struct Sm90Shape {
  int tile_m = 128, tile_n = 128, cluster_m = 1, cluster_n = 1;
  int cluster_size() const { return cluster_m * cluster_n; }
  int threads = 384, smem = 0;
  int box_a[2] = {0, 0}, box_b[2] = {0, 0};  // (inner, outer) of one TMA box
  int d_bytes = 2;                            // sizeof(ElementD)
  // StreamKScheduler kernels: units of work from a Decomposition (split-K, stream-K), partial
  // tiles in a workspace of slot_floats floats per CTA slot (the consumers' accumulators).
  bool stream_k = false;
  int slot_floats = 0;
  bool grouped = false;  // GroupedScheduler kernels: the problem's groups fill the scheduler
  bool block_scaled = false;  // block-scaled FP8 kernels: the scales fill Sm90KernelParams::scales
  bool rowwise = false;       // row-wise scaled FP8 kernels: so do theirs (no TMA maps)
};

// The launch-time facts of one small-N TMA ring kernel (kernel/sm90_gemm_small_n_tma.hpp,
// kernel::sm90_gemm_small_n_tma<N8, Boxes, Stages, bfloat16_t>), read from its tile
// (kernel/small_n_rules.hpp): N up to 8 * n8 columns, `chunk` k per stage.
struct SmallNShape {
  int n8 = 1, boxes = 4, stages = 0;
  int threads = 0, smem = 0, rows = 0, box_k = 0, chunk = 0;
};
// The shape of a ring: 32-row blocks with n8 1, 2, 4 or 8, (boxes, stages) (4, 0) or, at n8 1 or
// 2, (8, 3); 16-row blocks with n8 1 or 2, (8, 0). Its k counts (box_k, chunk) for elements of
// `element_bytes` (2: bf16, f16; 1: FP8). @throws StatusError
SmallNShape small_n_shape(int n8, int boxes, int stages, int element_bytes = 2, int rows = 32);

// Where a stream-K launch's fixup workspace comes from: acquire(bytes) returns device memory in
// the launch's stream order (PyTorch's caching allocator, which also serves CUDA-graph capture),
// release(ptr) gives it back right after the launch is enqueued. Empty: the launcher's own buffer
// per stream.
struct WorkspaceSource {
  std::function<std::uintptr_t(std::size_t)> acquire;
  std::function<void(std::uintptr_t)> release;
  explicit operator bool() const { return bool(acquire) && bool(release); }
};

class Sm90Launcher {
 public:
  // How many clusters of the kernel can be resident at once on a device (0: ask no one, use the
  // SM count). Called once per loaded function. @throws cuda::CudaFailure
  static int max_active_clusters(cuda::Driver const& d, cuda::CUfunction fn, Sm90Shape const& s, int sm_count);

  // Encodes the tensor maps (reusing the last ones when the operands are the same memory),
  // fills the parameters and enqueues the kernel. The problem is in the kernel's layouts and has
  // passed the argument checks. @throws StatusError, cuda::CudaFailure
  void launch(cuda::Driver const& d, cuda::CUfunction fn, Sm90Shape const& s, int sm_count, int max_clusters, Problem const& p,
              float alpha, float beta, cuda::CUstream stream, WorkspaceSource const* source = nullptr);

  // The small-N TMA ring on D = alpha A B (A the weights, K-major; B K-major with at most
  // 8 * s.n8 columns; D row- or column-major, no C), as device::GemmSmallN runs its variant 11:
  // A's and B's maps, one persistent CTA per SM over 32-row blocks, no K split.
  // @throws StatusError, cuda::CudaFailure
  void launch_small_n(cuda::Driver const& d, cuda::CUfunction fn, SmallNShape const& s, int sm_count, Problem const& p, float alpha,
                      cuda::CUstream stream);

 private:
  // A CUtensorMap and what it was encoded from.
  struct Map {
    alignas(128) unsigned char bytes[128] = {};
    void const* base = nullptr;
    std::int64_t inner = -1, outer = -1, ld = -1;
    int batches = 0;
    std::int64_t batch_stride = -1;
  };
  // A map of `batches` matrices (`batch_stride` elements apart) of `inner` x `outer` elements of
  // `bytes` bytes, rows `ld` elements apart, in boxes of `box`, with the 128-byte swizzle; the
  // slot's own when it was encoded from the same.
  Map const& map(cuda::Driver const& d, Map& slot, char const* name, void const* base, int bytes, std::int64_t inner,
                 std::int64_t outer, std::int64_t ld, int const (&box)[2], int batches, std::int64_t batch_stride,
                 int l2_promotion = arch::kTmaL2Promotion256B);

  // Sm90KernelParams::scales of a block-scaled problem (tile_m rows of A's scales per box).
  void fill_block_scales(cuda::Driver const& d, Sm90KernelParams& params, Problem const& p, int tile_m);

  // The stream-K workspace of `stream`, at least `bytes`: allocated on first use and grown (after
  // the stream drains) when a larger problem needs more; refused while the stream is captured.
  void* workspace(cuda::Driver const& d, cuda::CUstream stream, std::size_t bytes);

  struct Buffer {
    cuda::CUdeviceptr ptr = 0;
    std::size_t bytes = 0;
  };
  std::mutex mutex_;
  Map a_, b_, d_;
  std::unordered_map<cuda::CUstream, Buffer> workspaces_;  // one per stream: launches on two streams may overlap

 public:
  Sm90Launcher() = default;
  Sm90Launcher(Sm90Launcher const&) = delete;
  Sm90Launcher& operator=(Sm90Launcher const&) = delete;
  ~Sm90Launcher();
};

}  // namespace tessel::py
