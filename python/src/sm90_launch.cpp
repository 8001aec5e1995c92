#include "sm90_launch.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <tessel/arch/tma_encode.hpp>
#include <tessel/gemm/kernel/sm90_launch_plan.hpp>
#include <tessel/gemm/kernel/small_n_rules.hpp>

namespace tessel::py {

namespace {

// The Hopper kernels' K per stage: one 128-byte swizzle row of A's and B's elements.
constexpr int sm90_tile_k(Element ab) { return 128 / element_bytes(ab); }

cuda::CUlaunchConfig launch_config(Sm90Shape const& s, unsigned grid, cuda::CUstream stream, cuda::CUlaunchAttribute* cluster) {
  cuda::CUlaunchConfig c{};
  c.grid_x = grid;
  c.grid_y = c.grid_z = 1;
  c.block_x = static_cast<unsigned>(s.threads);
  c.block_y = c.block_z = 1;
  c.shared_mem_bytes = static_cast<unsigned>(s.smem);
  c.stream = stream;
  if (s.cluster_size() > 1) {
    *cluster = {};
    cluster->id = cuda::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    // One-dimensional: the kernel places its CTAs from their rank (kernel::Sm90ClusterRank).
    cluster->value.cluster_dim = {static_cast<unsigned>(s.cluster_size()), 1, 1};
    c.attrs = cluster;
    c.num_attrs = 1;
  }
  return c;
}

[[noreturn]] void missing(char const* entry) {
  throw StatusError{{Status::kErrorInsufficientDriver,
                     std::string("the CUDA driver lacks ") + entry + ", which the Hopper kernels need: update the driver (CUDA 12 or newer)"}};
}

}  // namespace

int Sm90Launcher::max_active_clusters(cuda::Driver const& d, cuda::CUfunction fn, Sm90Shape const& s, int sm_count) {
  if (s.cluster_size() == 1) return 0;
  if (!d.cuOccupancyMaxActiveClusters) missing("cuOccupancyMaxActiveClusters");
  cuda::CUlaunchAttribute attr;
  cuda::CUlaunchConfig c = launch_config(s, static_cast<unsigned>(sm_count / s.cluster_size() * s.cluster_size()), nullptr, &attr);
  int active = 0;
  // A refusal leaves the SM count as the only limit, as the adapter does.
  if (d.cuOccupancyMaxActiveClusters(&active, fn, &c) != cuda::CUDA_SUCCESS) active = 0;
  return std::max(active, 0);
}

Sm90Launcher::Map const& Sm90Launcher::map(cuda::Driver const& d, Map& slot, char const* name, void const* base, int bytes,
                                           std::int64_t inner, std::int64_t outer, std::int64_t ld, int const (&box)[2],
                                           int batches, std::int64_t batch_stride, int l2_promotion) {
  if (slot.base == base && slot.inner == inner && slot.outer == outer && slot.ld == ld && slot.batches == batches &&
      slot.batch_stride == batch_stride)
    return slot;
  if (!d.cuTensorMapEncodeTiled) missing("cuTensorMapEncodeTiled");
  arch::TmaView const v{base,
                        std::uint64_t(inner),
                        std::uint64_t(outer),
                        std::uint64_t(batches),
                        std::uint64_t(ld),
                        std::uint64_t(batches > 1 ? batch_stride : 0),
                        std::uint32_t(box[0]),
                        std::uint32_t(box[1])};
  slot.base = nullptr;  // invalid until the encoding succeeded
  if (StatusInfo s = arch::encode_tma_map(d.cuTensorMapEncodeTiled, slot.bytes, arch::tma_data_type_code(bytes), bytes, v,
                                          arch::kTmaSwizzle128B, name, l2_promotion);
      !s.ok())
    throw StatusError{s};
  slot.base = base;
  slot.inner = inner;
  slot.outer = outer;
  slot.ld = ld;
  slot.batches = batches;
  slot.batch_stride = batch_stride;
  return slot;
}

void Sm90Launcher::fill_block_scales(cuda::Driver const& d, Sm90KernelParams& params, Problem const& p, int tile_m) {
  if (!d.cuTensorMapEncodeTiled) missing("cuTensorMapEncodeTiled");
  auto& sc = params.scales;
  sc.a = p.sfa;
  sc.b = p.sfb;
  // Dense block-scaled launches are one matrix of A, B and D; grouped ones (contiguous layout)
  // batch B and its scales by group, A and D not. Where TMA can carry the scales,
  // kernel::prepare_block_scales encodes their maps (as the C++ adapter does); else the kernel's
  // scale warp copies them with any strides.
  int const batches_b = p.group_m ? p.l : 1, batches_a = p.group_m && p.group_masked ? p.l : 1;
  if (StatusInfo s = gemm::kernel::prepare_block_scales(d.cuTensorMapEncodeTiled, sc, p.m, p.n, p.k, batches_a, batches_b, tile_m);
      !s.ok())
    throw StatusError{s};
}

Sm90Launcher::~Sm90Launcher() {
  cuda::Driver const* d = cuda::driver();
  if (!d || !d->cuMemFree) return;
  for (auto& [stream, buffer] : workspaces_)
    if (buffer.ptr) d->cuMemFree(buffer.ptr);  // in the context current at unload: best effort
}

void* Sm90Launcher::workspace(cuda::Driver const& d, cuda::CUstream stream, std::size_t bytes) {
  Buffer& b = workspaces_[stream];
  if (b.bytes >= bytes) return reinterpret_cast<void*>(b.ptr);
  if (!d.cuMemAlloc || !d.cuMemFree || !d.cuMemsetD8Async || !d.cuStreamIsCapturing || !d.cuStreamSynchronize)
    missing("cuMemAlloc, cuMemsetD8Async or cuStreamIsCapturing");
  int capturing = 0;
  if (d.cuStreamIsCapturing(stream, &capturing) == cuda::CUDA_SUCCESS && capturing != 0)
    throw StatusError{{Status::kErrorWorkspaceNull, "this stream-K kernel needs a workspace of " + std::to_string(bytes) +
                                                        " bytes, which cannot be allocated while the stream is being captured: "
                                                        "run the call once on this stream before capturing it"}};
  auto check = [](cuda::CUresult r) {
    if (r != cuda::CUDA_SUCCESS) throw cuda::CudaFailure{r, cuda::error_text(r) + " (the stream-K workspace)"};
  };
  if (b.ptr) {
    check(d.cuStreamSynchronize(stream));  // launches still running may use the old buffer
    check(d.cuMemFree(b.ptr));
    b = {};
  }
  std::size_t const grown = std::max<std::size_t>(bytes, std::size_t(1) << 20);
  check(d.cuMemAlloc(&b.ptr, grown));
  b.bytes = grown;
  return reinterpret_cast<void*>(b.ptr);
}

void Sm90Launcher::launch(cuda::Driver const& d, cuda::CUfunction fn, Sm90Shape const& s, int sm_count, int max_clusters,
                          Problem const& p, float alpha, float beta, cuda::CUstream stream, WorkspaceSource const* source) {
  alignas(128) unsigned char block[kSm90ParamsCapacity] = {};
  auto& params = *new (block) Sm90KernelParams{};  // trivially destructible: nothing to end
  int const m = static_cast<int>(p.m), n = static_cast<int>(p.n);
  params.m = m;
  params.n = n;
  params.k = static_cast<int>(p.k);
  params.D = static_cast<bfloat16_t*>(p.d);  // whatever D's type: a pointer in the same place
  params.ldd = p.ldd;
  params.batch_stride_D = p.batch_d;
  // A column-major D (D^T's problem) is stored element by element from registers.
  params.d_column_major = p.d_column_major;
  params.epi = {alpha, beta, static_cast<bfloat16_t const*>(p.c_ptr), p.ldc, p.batch_c, p.scale_a, p.scale_b};
  // A and D hold one matrix for contiguous groups; B is batched by group in every grouped launch.
  int const l_ad = s.grouped && !p.group_masked ? 1 : p.l;
  // The scheduler, the persistent grid and (stream-K) the decomposition, as the C++ adapter plans
  // them with its default arguments: the heuristic raster in groups of 8, the heuristic decomposition.
  using gemm::kernel::GroupedLayout;
  gemm::kernel::Sm90LaunchPlan const plan = gemm::kernel::make_sm90_launch_plan(
      {s.tile_m, s.tile_n, sm90_tile_k(p.ab), s.cluster_m, s.cluster_n, s.stream_k, s.grouped}, m, n, static_cast<int>(p.k), p.l,
      gemm::kernel::Groups{p.group_m, p.l, int(p.group_masked ? GroupedLayout::kMasked : GroupedLayout::kContiguous), m, 0},
      gemm::kernel::RasterOrder::Heuristic, 8, gemm::kernel::DecompositionOptions{}, sm_count, max_clusters);
  params.sched = plan.sched;
  unsigned const grid = static_cast<unsigned>(plan.grid);

  std::lock_guard<std::mutex> lock(mutex_);
  std::uintptr_t borrowed = 0;  // a workspace from `source`, given back once the launch is enqueued
  struct GiveBack {
    WorkspaceSource const* source;
    std::uintptr_t& ptr;
    ~GiveBack() {
      try {
        if (ptr) source->release(ptr);
      } catch (...) {  // a failed release leaks a block of the allocator's pool; never a second exception
      }
    }
  } give_back{source, borrowed};
  if (s.stream_k) {
    // The fixup's counters start at zero.
    params.dec = plan.dec;
    if (std::size_t const bytes = gemm::kernel::workspace_bytes(params.dec, s.slot_floats); bytes > 0) {
      if (!d.cuMemsetD8Async) missing("cuMemsetD8Async");
      if (source && *source) borrowed = source->acquire(bytes);  // 0: the source has none to give
      void* const ws = borrowed ? reinterpret_cast<void*>(borrowed) : workspace(d, stream, bytes);
      params.ws = gemm::kernel::make_fixup_workspace(ws, params.dec, s.slot_floats);
      if (auto r = d.cuMemsetD8Async(reinterpret_cast<cuda::CUdeviceptr>(ws), 0, gemm::kernel::fixup_counter_bytes(params.dec), stream);
          r != cuda::CUDA_SUCCESS)
        throw cuda::CudaFailure{r, cuda::error_text(r) + " (clearing the fixup counters)"};
    }
  }
  // K-major operands are K elements wide, MN-major ones M (or N).
  int const ab = element_bytes(p.ab);
  Map const& ma = p.a_row ? map(d, a_, "A", p.a, ab, p.k, p.m, p.lda, s.box_a, l_ad, p.batch_a)
                          : map(d, a_, "A", p.a, ab, p.m, p.k, p.lda, s.box_a, l_ad, p.batch_a);
  Map const& mb = p.b_row ? map(d, b_, "B", p.b, ab, p.n, p.k, p.ldb, s.box_b, p.l, p.batch_b)
                          : map(d, b_, "B", p.b, ab, p.k, p.n, p.ldb, s.box_b, p.l, p.batch_b);
  // The TMA-store epilogue writes D (row-major) in boxes of 64 rows x 128 bytes where TMA can
  // store it (the rule the C++ adapter applies); elsewhere the kernel stores from registers.
  // Every generated configuration has the TMA-store epilogue (codegen_sm90 asserts it).
  gemm::kernel::Sm90DStores const stores = gemm::kernel::sm90_d_stores(true, p.d, p.n, p.ldd, l_ad, p.batch_d, s.d_bytes, p.d_column_major);
  params.pairs_aligned = stores.pairs;
  params.tma_store_d = stores.tma;
  if (params.tma_store_d) {
    int const box_d[2] = {128 / s.d_bytes, 64};
    std::memcpy(&params.tma_d, map(d, d_, "D", p.d, s.d_bytes, p.n, p.m, p.ldd, box_d, l_ad, p.batch_d).bytes, sizeof(params.tma_d));
  }
  if (s.block_scaled) fill_block_scales(d, params, p, s.tile_m);
  if (s.rowwise) {  // read by the epilogue with plain loads: no maps
    params.scales.a = p.sfa;
    params.scales.b = p.sfb;
  }
  void* args[] = {const_cast<unsigned char*>(ma.bytes), const_cast<unsigned char*>(mb.bytes), block};
  cuda::CUresult r;
  if (s.cluster_size() == 1) {
    r = d.cuLaunchKernel(fn, grid, 1, 1, static_cast<unsigned>(s.threads), 1, 1, static_cast<unsigned>(s.smem), stream, args, nullptr);
  } else {
    if (!d.cuLaunchKernelEx) missing("cuLaunchKernelEx");
    cuda::CUlaunchAttribute attr;
    cuda::CUlaunchConfig const c = launch_config(s, grid, stream, &attr);
    r = d.cuLaunchKernelEx(&c, fn, args, nullptr);
  }
  if (r != cuda::CUDA_SUCCESS) throw cuda::CudaFailure{r, cuda::error_text(r)};
}

namespace {

template <int N8, int Boxes, int Stages, int Rows = 32>
SmallNShape shape_of(int element_bytes) {
  // Threads, shared memory and rows are the same for every element width; the k counts are not.
  using Tile = gemm::kernel::SmallNTmaTile<N8, Boxes, Stages, 2, Rows>;
  using Fp8Tile = gemm::kernel::SmallNTmaTile<N8, Boxes, Stages, 1, Rows>;
  static_assert(Tile::kSmemBytes == Fp8Tile::kSmemBytes && Tile::kThreads == Fp8Tile::kThreads);
  bool const fp8 = element_bytes == 1;
  return {N8, Boxes, Stages, Tile::kThreads, Tile::kSmemBytes, Tile::kRows, fp8 ? Fp8Tile::kBoxK : Tile::kBoxK,
          fp8 ? Fp8Tile::kChunk : Tile::kChunk};
}

}  // namespace

SmallNShape small_n_shape(int n8, int boxes, int stages, int element_bytes, int rows) {
  if (element_bytes != 1 && element_bytes != 2)
    throw StatusError{{Status::kErrorNotSupported, "a small-N TMA ring of " + std::to_string(element_bytes) +
                                                       "-byte elements does not exist: bf16 or f16 (2 bytes), e4m3 or e5m2 (1)"}};
  if (rows == 16) {
    if (n8 == 1 && boxes == 8 && stages == 0) return shape_of<1, 8, 0, 16>(element_bytes);
    if (n8 == 2 && boxes == 8 && stages == 0) return shape_of<2, 8, 0, 16>(element_bytes);
    throw StatusError{{Status::kErrorNotSupported, "a small-N TMA ring of 16-row blocks with " + std::to_string(8 * n8) + " columns, " +
                                                       std::to_string(boxes) + " boxes and " + std::to_string(stages) +
                                                       " stages does not exist: 8 or 16 columns, 8 boxes, stages as fit (0)"}};
  }
  if (rows != 32)
    throw StatusError{{Status::kErrorNotSupported, "a small-N TMA ring of " + std::to_string(rows) + "-row blocks does not exist: 32 or 16"}};
  if (n8 == 1 && boxes == 4 && stages == 0) return shape_of<1, 4, 0>(element_bytes);
  if (n8 == 2 && boxes == 4 && stages == 0) return shape_of<2, 4, 0>(element_bytes);
  if (n8 == 1 && boxes == 8 && stages == 3) return shape_of<1, 8, 3>(element_bytes);
  if (n8 == 2 && boxes == 8 && stages == 3) return shape_of<2, 8, 3>(element_bytes);
  if (n8 == 4 && boxes == 4 && stages == 0) return shape_of<4, 4, 0>(element_bytes);
  if (n8 == 8 && boxes == 4 && stages == 0) return shape_of<8, 4, 0>(element_bytes);
  throw StatusError{{Status::kErrorNotSupported, "a small-N TMA ring of " + std::to_string(8 * n8) + " columns, " + std::to_string(boxes) +
                                                     " boxes and " + std::to_string(stages) +
                                                     " stages does not exist: 8 or 16 columns with 4 boxes (stages as fit) or 8 boxes "
                                                     "and 3 stages; 32 or 64 columns with 4 boxes (kernel/small_n_rules.hpp)"}};
}

void Sm90Launcher::launch_small_n(cuda::Driver const& d, cuda::CUfunction fn, SmallNShape const& s, int sm_count, Problem const& p,
                                  float alpha, cuda::CUstream stream) {
  bool const fp8 = p.ab == Element::e4m3 || p.ab == Element::e5m2;
  bool const kind_ok = fp8 ? p.c == Element::bf16 : (p.ab == Element::bf16 || p.ab == Element::f16) && p.c == p.ab;
  if (p.n > 8 * s.n8 || p.l != 1 || p.c_ptr || !p.a_row || p.b_row || !kind_ok || p.block_scaled || p.group_m)
    throw StatusError{{Status::kErrorInternal, "the small-N TMA ring computes one D = A B, bf16 or f16 in and out or FP8 in and bf16 "
                                               "out, with A row-major, B column-major, no C and N <= " + std::to_string(8 * s.n8) +
                                               "; this problem is not one"}};
  // bf16's block for every type: SmallNParams<half_t> lays out alike.
  gemm::kernel::SmallNParams<bfloat16_t> params;
  // FP8: torch._scaled_mm's factors, per tensor (stride 0) or per row (row-wise scales).
  if (p.rowwise) {
    params.scale_a = p.sfa.ptr;
    params.scale_a_stride = p.sfa.row;
    params.scale_b = p.sfb.ptr;
    params.scale_b_stride = p.sfb.row;
  } else {
    params.scale_a = p.scale_a;
    params.scale_b = p.scale_b;
  }
  params.m = static_cast<int>(p.m);
  params.n = static_cast<int>(p.n);
  params.k = static_cast<int>(p.k);
  params.D = static_cast<bfloat16_t*>(p.d);
  // D(r, c) at r * ldd + c * d_col_stride: column-major for D^T's problem.
  params.ldd = p.d_column_major ? 1 : p.ldd;
  params.d_col_stride = p.d_column_major ? p.ldd : 1;
  params.alpha = alpha;
  params.beta = 0.f;
  int row_blocks = static_cast<int>((p.m + s.rows - 1) / s.rows);
  int chunks = static_cast<int>((p.k + s.chunk - 1) / s.chunk);
  unsigned const grid = static_cast<unsigned>(std::max(1, std::min(row_blocks, sm_count)));
  std::lock_guard<std::mutex> lock(mutex_);
  // A as (K, M) in boxes of 128 bytes of k x 32 rows, B as (K, N) in boxes of 128 bytes x 8 n8 columns.
  // NOTES: L2 fetches 128 bytes around each box row of A, not 256, as device::GemmSmallN's maps.
  int const box_a[2] = {s.box_k, s.rows}, box_b[2] = {s.box_k, 8 * s.n8};
  int const bytes = element_bytes(p.ab);
  Map const& ma = map(d, a_, "A", p.a, bytes, p.k, p.m, p.lda, box_a, 1, 0, arch::kTmaL2Promotion128B);
  Map const& mb = map(d, b_, "B", p.b, bytes, p.k, p.n, p.ldb, box_b, 1, 0);
  void* args[] = {const_cast<unsigned char*>(ma.bytes), const_cast<unsigned char*>(mb.bytes), &params, &row_blocks, &chunks};
  auto r = d.cuLaunchKernel(fn, grid, 1, 1, static_cast<unsigned>(s.threads), 1, 1, static_cast<unsigned>(s.smem), stream, args, nullptr);
  if (r != cuda::CUDA_SUCCESS) throw cuda::CudaFailure{r, cuda::error_text(r)};
}

}  // namespace tessel::py
