#pragma once
// One compiled GEMM kernel (a cubin, from NVRTC or from nvcc at build time) and its launch.
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_driver.hpp"
#include "gemm_types.hpp"
#include "sm90_launch.hpp"

namespace tessel::py {

// What a kernel computes and how it is launched. Everything here comes from the configuration
// that generated it (python/tessel/jit); the generated source asserts threads and smem.
struct KernelTraits {
  Element ab = Element::f16, c = Element::f32;
  bool a_row = true, b_row = false, c_row = true;
  Epilogue epilogue = Epilogue::linear;
  int tile_m = 128, tile_n = 128;
  int threads = 128;
  int smem = 0;         // dynamic shared memory, bytes
  bool hopper = false;  // kernel::sm90_gemm_tma_warpspecialized rather than kernel::gemm_kernel
  int cluster_m = 1;    // Hopper: CTAs per cluster along M
  int cluster_n = 1;    // and along N
  int box_a[2] = {0, 0}, box_b[2] = {0, 0};  // Hopper: (inner, outer) of A's and B's TMA boxes
  int fixup_slot_floats = 0;  // Hopper stream-K kernels: floats per partial-tile slot; 0: data-parallel
  bool promoted = false;      // Hopper FP8: accumulation promoted to f32 registers every K tile
  bool grouped = false;       // the tiles of G problems (Hopper: GroupedScheduler; Sm80: gemm_grouped_kernel); run_grouped only
  bool block_scaled = false;  // Hopper FP8 with per-block scales of A and B; launched by run_block_scaled only
  bool rowwise = false;       // Hopper FP8 with a scale per row of A and per column of D (Problem::rowwise)
  std::string target;   // the SASS architecture of the cubin: "sm_80", "sm_90a"
  std::string name;     // tessel_sm80_gemm_f16_f16_f32_128x128x32_64x64x32_3stage_tn
  std::string symbol;   // the kernel's (mangled) name in the cubin
  // The small-N TMA ring (kernel/sm90_gemm_small_n_tma.hpp) rather than a GEMM kernel: its N
  // blocks, boxes and stages (n8 0: not one). bf16 in and out, A row-major, B column-major.
  SmallNShape small_n{0};
};

// Can SASS compiled for `target` run on a device of compute capability `cc` (major*10+minor)?
// sm_XY runs on X.Y and later minors of X; an arch-specific sm_XYa on X.Y only.
bool target_runs_on(std::string const& target, int cc);

class Kernel {
 public:
  Kernel(std::string cubin, KernelTraits traits);

  KernelTraits const& traits() const { return t_; }

  // Checks the problem's arguments (tessel/jit/gemm_arguments.hpp) and launches on `stream`
  // of the problem's device. @throws StatusError
  // `workspace`: where a stream-K kernel's fixup workspace comes from (sm90_launch.hpp).
  void launch(Problem const& p, float alpha, float beta, std::uintptr_t stream, int swizzle = 8,
              WorkspaceSource const* workspace = nullptr);

  // The kernel loaded on a device (on first use). @throws StatusError
  cuda::CUfunction function(int device) { return loaded(device).fn; }

 private:
  struct Loaded {
    cuda::CUfunction fn = nullptr;
    int max_clusters = 0;  // Hopper with clusters: how many fit at once (0: the SM count decides)
    int blocks_per_sm = 1;  // Sm80 grouped kernels: CTAs resident per SM (their persistent grid)
  };
  Loaded const& loaded(int device);
  void launch_sm80_grouped(Problem const& p, Loaded const& l, float alpha, float beta, std::uintptr_t stream);
  Sm90Shape sm90_shape() const;

  std::string cubin_;
  KernelTraits t_;
  std::mutex mutex_;
  std::vector<Loaded> functions_;  // by device ordinal; fn is nullptr until loaded
  Sm90Launcher sm90_;
};

}  // namespace tessel::py
