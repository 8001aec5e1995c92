#include "gemm_kernel.hpp"

#include <algorithm>
#include <cctype>
#include <tessel/jit/gemm_arguments.hpp>

namespace tessel::py {

namespace {

[[noreturn]] void cuda_failed(cuda::CudaFailure const& f, std::string const& what) {
  Status s = f.code == cuda::CUDA_ERROR_NO_BINARY_FOR_GPU ? Status::kErrorArchMismatch : Status::kErrorInternal;
  throw StatusError{{s, what + ": " + f.message}};
}

cuda::DeviceInfo const& device_or_throw(int device) {
  try {
    return cuda::device_info(device);
  } catch (cuda::CudaFailure const& f) {
    throw StatusError{{Status::kErrorNotSupported, "CUDA device " + std::to_string(device) + " cannot be used: " + f.message}};
  }
}

std::string cc_text(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }

// The kernel reads its own element types at these addresses (Sm80LaunchParams' bfloat16 is the
// layout's, not the data's).
using E = bfloat16_t;

/// The Sm75/Sm80 kernels' block for a problem: its extents, leading dimensions, alpha and beta,
/// and the first matrix of each operand (the dense launch moves them per batch).
KernelParams sm80_block(Problem const& p, float alpha, float beta) {
  KernelParams params{};
  params.problem = {static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k)};
  params.A = static_cast<E const*>(p.a);
  params.lda = p.lda;
  params.B = static_cast<E const*>(p.b);
  params.ldb = p.ldb;
  params.C = static_cast<E const*>(p.c_ptr);
  params.ldc = p.ldc;
  params.D = static_cast<E*>(p.d);
  params.ldd = p.ldd;
  params.epilogue.params = {alpha, beta};
  return params;
}

}  // namespace

bool target_runs_on(std::string const& target, int cc) {
  // "sm_" digits [suffix]
  if (target.rfind("sm_", 0) != 0) return false;
  std::size_t i = 3;
  int number = 0;
  while (i < target.size() && std::isdigit(static_cast<unsigned char>(target[i]))) number = number * 10 + (target[i++] - '0');
  std::string const suffix = target.substr(i);
  if (number == 0) return false;
  if (suffix == "a") return cc == number;
  // Plain and family ("f") targets run on later minor versions of the same major version.
  return cc / 10 == number / 10 && cc % 10 >= number % 10;
}

Kernel::Kernel(std::string cubin, KernelTraits traits) : cubin_(std::move(cubin)), t_(std::move(traits)) {}

Sm90Shape Kernel::sm90_shape() const {
  Sm90Shape s;
  s.tile_m = t_.tile_m;
  s.tile_n = t_.tile_n;
  s.cluster_m = t_.cluster_m;
  s.cluster_n = t_.cluster_n;
  s.threads = t_.threads;
  s.smem = t_.smem;
  std::copy(t_.box_a, t_.box_a + 2, s.box_a);
  std::copy(t_.box_b, t_.box_b + 2, s.box_b);
  s.d_bytes = element_bytes(t_.c);
  s.stream_k = t_.fixup_slot_floats > 0;
  s.slot_floats = t_.fixup_slot_floats;
  s.grouped = t_.grouped;
  s.block_scaled = t_.block_scaled;
  s.rowwise = t_.rowwise;
  return s;
}

Kernel::Loaded const& Kernel::loaded(int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (device >= 0 && device < static_cast<int>(functions_.size()) && functions_[device].fn) return functions_[device];
  cuda::DeviceInfo const& info = device_or_throw(device);
  if (!target_runs_on(t_.target, info.compute_capability)) {
    throw StatusError{{Status::kErrorArchMismatch, "the kernel " + t_.name + " is compiled for " + t_.target + ", which CUDA device " +
                                                       std::to_string(device) + " (compute capability " + cc_text(info.compute_capability) +
                                                       ") cannot run: compile the configuration for this device"}};
  }
  std::string why;
  cuda::Driver const& d = *cuda::driver(&why);
  Loaded l;
  cuda::CUfunction& fn = l.fn;
  try {
    cuda::ScopedContext scope(d, info.context);
    cuda::CUmodule module = nullptr;
    if (auto r = d.cuModuleLoadData(&module, cubin_.data()); r != cuda::CUDA_SUCCESS) throw cuda::CudaFailure{r, cuda::error_text(r)};
    if (auto r = d.cuModuleGetFunction(&fn, module, t_.symbol.c_str()); r != cuda::CUDA_SUCCESS)
      throw cuda::CudaFailure{r, cuda::error_text(r) + " looking up " + t_.symbol};
    // Above 48 KiB of dynamic shared memory a kernel must opt in, once per function.
    if (t_.smem > 48 * 1024) {
      if (auto r = d.cuFuncSetAttribute(fn, cuda::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, t_.smem); r != cuda::CUDA_SUCCESS)
        throw cuda::CudaFailure{r, cuda::error_text(r) + " asking for " + std::to_string(t_.smem) + " bytes of shared memory"};
    }
    if (t_.hopper) l.max_clusters = Sm90Launcher::max_active_clusters(d, fn, sm90_shape(), info.sm_count);
    if (!t_.hopper && t_.grouped && d.cuOccupancyMaxActiveBlocksPerMultiprocessor) {
      int blocks = 0;
      if (d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, t_.threads, static_cast<std::size_t>(t_.smem)) == cuda::CUDA_SUCCESS)
        l.blocks_per_sm = std::max(blocks, 1);
    }
  } catch (cuda::CudaFailure const& f) {
    cuda_failed(f, "loading " + t_.name + " on CUDA device " + std::to_string(device));
  }
  if (static_cast<int>(functions_.size()) <= device) functions_.resize(device + 1);
  functions_[device] = l;
  return functions_[device];
}

void Kernel::launch(Problem const& p, float alpha, float beta, std::uintptr_t stream, int swizzle, WorkspaceSource const* workspace) {
  jit::GemmArguments args;
  args.m = p.m;
  args.n = p.n;
  args.k = p.k;
  args.a = p.a;
  args.lda = p.lda;
  args.a_row_major = p.a_row;
  args.b = p.b;
  args.ldb = p.ldb;
  args.b_row_major = p.b_row;
  args.c = p.c_ptr;
  args.ldc = p.ldc;
  args.d = p.d;
  args.ldd = p.ldd;
  args.c_row_major = p.c_row && !p.d_column_major;  // D^T's problem: D column-major, with no C
  args.beta = beta;
  args.element_bits = 8 * element_bytes(t_.ab);
  args.tile_m = t_.tile_m;
  args.tile_n = t_.tile_n;
  args.tma_operands = t_.hopper || t_.small_n.n8 > 0;
  if (StatusInfo s = jit::check_gemm_arguments(args); !s.ok()) throw StatusError{s};
  // What the kernel is built for and what the problem brings must agree: groups, block scales and
  // row-wise scales are read from the problem, and any other kernel would ignore them.
  auto agree = [&](bool kernel_has, bool problem_has, char const* has, char const* lacks) {
    if (kernel_has != problem_has) throw StatusError{{Status::kErrorNotSupported, "the kernel " + t_.name + (kernel_has ? has : lacks)}};
  };
  agree(t_.grouped, p.group_m != nullptr, " is a grouped kernel: run it with tessel.grouped_gemm",
        " computes one problem (or a batch), not groups: choose a configuration with scheduler='grouped'");
  agree(t_.block_scaled, p.block_scaled,
        " applies per-block scales of A and B: run it with tessel.scaled_mm and block scales (scale_a (M, ceil(K/128)), scale_b "
        "(ceil(K/128), ceil(N/128)))",
        " applies no block scales: block-scaled FP8 runs on a kernel with schedule='cooperative_blockscaled'");
  if (t_.small_n.n8 == 0)  // a ring takes per-tensor and row-wise scales alike (SmallNParams)
    agree(t_.rowwise, p.rowwise,
          " applies row-wise scales of A and B: run it with tessel.scaled_mm (scale_a (M, 1), scale_b (1, N)) or tessel.grouped_gemm "
          "with row-wise scales",
          " applies no row-wise scales: row-wise FP8 runs on a configuration with scaling='rowwise'");

  bool const small_n = t_.small_n.n8 > 0;
  if (p.d_column_major && !t_.hopper && !small_n)
    throw StatusError{{Status::kErrorInternal, "the kernel " + t_.name + " stores D row-major only; a column-major D runs on the Hopper kernels"}};

  Loaded const& l = loaded(p.device);
  if (small_n) {
    cuda::DeviceInfo const& info = cuda::device_info(p.device);
    try {
      cuda::ScopedContext scope(*cuda::driver(), info.context);
      sm90_.launch_small_n(*cuda::driver(), l.fn, t_.small_n, info.sm_count, p, alpha, reinterpret_cast<cuda::CUstream>(stream));
    } catch (cuda::CudaFailure const& f) {
      cuda_failed(f, "launching " + t_.name);
    }
    return;
  }
  if (t_.hopper) {
    cuda::DeviceInfo const& info = cuda::device_info(p.device);
    try {
      cuda::ScopedContext scope(*cuda::driver(), info.context);
      sm90_.launch(*cuda::driver(), l.fn, sm90_shape(), info.sm_count, l.max_clusters, p, alpha, beta,
                   reinterpret_cast<cuda::CUstream>(stream), workspace);
    } catch (cuda::CudaFailure const& f) {
      cuda_failed(f, "launching " + t_.name);
    }
    return;
  }
  if (t_.grouped) {
    launch_sm80_grouped(p, l, alpha, beta, stream);
    return;
  }
  cuda::CUfunction fn = l.fn;
  int const tiles_m = static_cast<int>((p.m + t_.tile_m - 1) / t_.tile_m);
  int const tiles_n = static_cast<int>((p.n + t_.tile_n - 1) / t_.tile_n);
  KernelParams params = sm80_block(p, alpha, beta);
  // As device::Gemm::initialize builds it: a group is at most the whole M.
  params.raster = gemm::kernel::GroupedRaster{tiles_m, tiles_n, swizzle > 0 ? std::min(swizzle, tiles_m) : tiles_m};
  void* arg_ptrs[] = {&params};
  cuda::Driver const& d = *cuda::driver();
  cuda::DeviceInfo const& info = cuda::device_info(p.device);
  // The Sm75/Sm80 kernels compute one matrix: a batch is one launch per matrix.
  auto at = [](void const* base, std::int64_t batch, std::int64_t stride, int bytes) {
    return static_cast<void const*>(static_cast<char const*>(base) + batch * stride * bytes);
  };
  int const cd_bytes = element_bytes(p.c);
  try {
    cuda::ScopedContext scope(d, info.context);
    for (int batch = 0; batch < p.l; ++batch) {
      params.A = static_cast<E const*>(at(p.a, batch, p.batch_a, element_bytes(p.ab)));
      params.B = static_cast<E const*>(at(p.b, batch, p.batch_b, element_bytes(p.ab)));
      params.C = p.c_ptr ? static_cast<E const*>(at(p.c_ptr, batch, p.batch_c, cd_bytes)) : nullptr;
      params.D = const_cast<E*>(static_cast<E const*>(at(p.d, batch, p.batch_d, cd_bytes)));
      auto r = d.cuLaunchKernel(fn, static_cast<unsigned>(params.raster.tile_count()), 1, 1, static_cast<unsigned>(t_.threads), 1, 1,
                                static_cast<unsigned>(t_.smem), reinterpret_cast<cuda::CUstream>(stream), arg_ptrs, nullptr);
      if (r != cuda::CUDA_SUCCESS) throw cuda::CudaFailure{r, cuda::error_text(r)};
    }
  } catch (cuda::CudaFailure const& f) {
    cuda_failed(f, "launching " + t_.name);
  }
}

void Kernel::launch_sm80_grouped(Problem const& p, Loaded const& l, float alpha, float beta, std::uintptr_t stream) {
  using gemm::kernel::GroupedLayout;
  GroupedKernelParams params{};
  params.gemm = sm80_block(p, alpha, beta);
  int const tiles_n = static_cast<int>((p.n + t_.tile_n - 1) / t_.tile_n);
  params.groups = {p.group_m, p.l, int(p.group_masked ? GroupedLayout::kMasked : GroupedLayout::kContiguous), static_cast<int>(p.m), tiles_n};
  params.batch_a = p.batch_a;
  params.batch_b = p.batch_b;
  params.batch_d = p.batch_d;
  params.batch_c = p.batch_c;
  cuda::DeviceInfo const& info = cuda::device_info(p.device);
  // Persistent: as many CTAs as are resident at once, never more than there can be tiles.
  int const grid = std::max(1, std::min(params.groups.tile_bound(t_.tile_m), info.sm_count * l.blocks_per_sm));
  void* arg_ptrs[] = {&params};
  cuda::Driver const& d = *cuda::driver();
  try {
    cuda::ScopedContext scope(d, info.context);
    auto r = d.cuLaunchKernel(l.fn, static_cast<unsigned>(grid), 1, 1, static_cast<unsigned>(t_.threads), 1, 1, static_cast<unsigned>(t_.smem),
                              reinterpret_cast<cuda::CUstream>(stream), arg_ptrs, nullptr);
    if (r != cuda::CUDA_SUCCESS) throw cuda::CudaFailure{r, cuda::error_text(r)};
  } catch (cuda::CudaFailure const& f) {
    cuda_failed(f, "launching " + t_.name);
  }
}

}  // namespace tessel::py
