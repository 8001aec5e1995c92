#pragma once
// Sm80 mainloop, v4: the same schedule as MainloopSm80CpAsync (Stages cp.async buffers, two
// register k-blocks, one barrier per K tile), with the address arithmetic taken out of the loop.
//
// Shared memory. A swizzled shared-memory layout is Swz(offset_t + inner(c)): offset_t is this
// thread's part (computed once), c the compile-time coordinate of a vector, a 16x16 ldmatrix
// block or a k-block. The swizzle reads and writes only the bits below kLowBits, and it is
// linear over XOR. So, wherever the low bits of offset_t and of inner(c) are disjoint (no carry
// from one to the other),
//     Swz(offset_t + inner(c)) = (Swz(offset_t) ^ Swz(lo(c))) + hi(c),
// with lo/hi the bits of inner(c) below/above kLowBits: per thread one register Swz(offset_t),
// per access one XOR with a constant (none where lo(c) = 0) and an add that folds into the
// instruction's immediate. Stage offsets are multiples of 2^kLowBits, i.e. plain adds.
// Disjointness is proven at compile time by enumerating every thread (kXorSplit*); where it does
// not hold, that access falls back to evaluating the layout.
//
// Shared addresses are 32-bit (.shared window), not generic 64-bit pointers.
//
// Global memory. One 64-bit pointer per operand walks along K; vector i of a tile is a fixed
// offset from it. Interior tiles (every vector inside M/N and a whole BK left in K) issue
// unpredicated 16-byte cp.async; only edge tiles compute predicates (a uniform branch).

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "tessel/arch/cp_async_sm80.hpp"
#include "tessel/arch/ldmatrix_sm75.hpp"
#include "tessel/gemm/collective/mainloop_types.hpp"

namespace tessel::gemm::collective {

namespace detail {

/// How a swizzle of a ComposedLayout splits into a per-thread XOR and a compile-time add.
template <class SmemLayout>
struct XorSplit {
  using Swz = std::remove_cvref_t<decltype(SmemLayout{}.outer())>;
  static constexpr int kLowBits = Swz::num_base + (Swz::num_shift > 0 ? Swz::num_shift : 0) + Swz::num_bits;
  static constexpr long long kLowMask = (1LL << kLowBits) - 1;
  TESSEL_HD static constexpr long long xor_part(long long c) { return Swz::apply(c & kLowMask); }
  TESSEL_HD static constexpr long long add_part(long long c) { return c & ~kLowMask; }
};

/// OR over every thread of the low bits of its offset in a partitioned composed layout, and OR
/// over every compile-time coordinate of the low bits of the inner layout; disjoint means the
/// XOR split is exact for this partition.
template <class SmemLayout, int Threads, class PartitionFn>
TESSEL_HD constexpr bool xor_split_exact(PartitionFn partition) {
  using S = XorSplit<SmemLayout>;
  long long thread_bits = 0, const_bits = 0;
  for (int t = 0; t < Threads; ++t) {
    auto l = partition(t);
    thread_bits |= (long long)(l.offset()) & S::kLowMask;
    if (t == 0) {
      for (int i = 0; i < int(decltype(size(l.inner()))::value); ++i) const_bits |= (long long)(l.inner()(i)) & S::kLowMask;
    }
  }
  return (thread_bits & const_bits) == 0;
}

template <int N, class F>
TESSEL_HD constexpr void static_for(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) { (f(Int<I>{}), ...); }(std::make_integer_sequence<int, N>{});
}

// The partitions the XOR split is applied to (the stage-0 slice of the shared tile), as layouts.
template <class Ldsm, class SmemLayout>
TESSEL_HD constexpr auto ldsm_layout(int t) {
  return Ldsm::partition_S(make_tensor(atom::CountingIterator{}, SmemLayout{})(Underscore{}, Underscore{}, 0), t).layout();
}
template <class Copy, class SmemLayout>
TESSEL_HD constexpr auto copy_layout(int t) {
  return Copy::partition(make_tensor(atom::CountingIterator{}, SmemLayout{})(Underscore{}, Underscore{}, 0), t).layout();
}
template <class Ldsm, class SmemLayout, int Threads>
TESSEL_HD constexpr bool ldsm_split_exact() {
  return xor_split_exact<SmemLayout, Threads>([](int t) { return ldsm_layout<Ldsm, SmemLayout>(t); });
}
template <class Copy, class SmemLayout, int Threads>
TESSEL_HD constexpr bool copy_split_exact() {
  return xor_split_exact<SmemLayout, Threads>([](int t) { return copy_layout<Copy, SmemLayout>(t); });
}

}  // namespace detail

template <class Config>
struct MainloopSm80CpAsyncFast : MainloopTypes<Config, Config::Stages> {
  using Base = MainloopTypes<Config, Config::Stages>;
  using typename Base::TiledMma, typename Base::Element, typename Base::SmemLayoutA, typename Base::SmemLayoutB,
      typename Base::CopyA, typename Base::CopyB, typename Base::LdsmA, typename Base::LdsmB;
  using Base::kSmemElementsA;
  static constexpr int BM = Config::BM, BN = Config::BN, BK = Config::BK, Stages = Config::Stages;
  static constexpr int kThreads = TiledMma::kThreads;
  static_assert(Stages >= 3, "MainloopSm80CpAsyncFast: the cp.async mainloop needs at least 3 stages (use the Sm70 two-stage form for 2)");

  // Register k-blocks: two (block kb+1 loads while kb computes) unless the launch bounds cap a
  // thread below 160 registers (e.g. 256 threads and 2 CTAs per SM: 128), where the second
  // buffer would spill; there the other warps of the SM hide the ldmatrix latency instead.
  static constexpr int kMinBlocks = [] {
    if constexpr (requires { Config::kMinBlocksPerSm; }) return Config::kMinBlocksPerSm;
    else return 1;
  }();
  static constexpr int kFragmentBuffers = (65536 / (kMinBlocks * kThreads) < 160) ? 1 : 2;

  using SplitA = detail::XorSplit<SmemLayoutA>;
  using SplitB = detail::XorSplit<SmemLayoutB>;
  static constexpr int kStageA = int(decltype(cosize(SmemLayoutA{}))::value) / Stages;  // elements
  static constexpr int kStageB = int(decltype(cosize(SmemLayoutB{}))::value) / Stages;
  static_assert(kStageA % (1 << SplitA::kLowBits) == 0 && kStageB % (1 << SplitB::kLowBits) == 0,
                "MainloopSm80CpAsyncFast: a stage must be a whole number of swizzle periods");

  static constexpr bool kXorSplitLdsmA = detail::ldsm_split_exact<LdsmA, SmemLayoutA, kThreads>();
  static constexpr bool kXorSplitLdsmB = detail::ldsm_split_exact<LdsmB, SmemLayoutB, kThreads>();
  static constexpr bool kXorSplitCopyA = detail::copy_split_exact<CopyA, SmemLayoutA, kThreads>();
  static constexpr bool kXorSplitCopyB = detail::copy_split_exact<CopyB, SmemLayoutB, kThreads>();

#if defined(__CUDACC__)
  /// Element offset of compile-time coordinate c in a thread's partition `l` whose swizzled
  /// thread offset is swz_t.
  template <class Split, bool kExact, class L, class Crd>
  __device__ static std::uint32_t smem_offset(L const& l, std::uint32_t swz_t, Crd const& c) {
    if constexpr (kExact) {
      using Inner = std::remove_cvref_t<decltype(std::declval<L const&>().inner())>;
      constexpr long long inner = (long long)(Inner{}(Crd{}));
      return (swz_t ^ std::uint32_t(Split::xor_part(inner))) + std::uint32_t(Split::add_part(inner));
    } else {
      return std::uint32_t(l(c));
    }
  }

  /// acc += A(BM,BK,k) * B(BN,BK,k) over all k tiles. residue_* are the extents of the problem
  /// left from this tile's origin (M - m0, N - n0, K).
  template <class GA, class GB, class Acc>
  __device__ static void run(GA const& gA, GB const& gB, Acc& acc, int residue_m, int residue_n, int K, char* smem, int thread) {
    std::uint32_t const smem_a = arch::cvta_to_shared(smem);
    std::uint32_t const smem_b = smem_a + std::uint32_t(sizeof(Element)) * kSmemElementsA;
    int const k_tiles = (K + BK - 1) / BK;

    // ---- Global side: a pointer per operand along K, the vectors at fixed offsets from it ----
    auto gA0 = CopyA::partition(gA(Underscore{}, Underscore{}, 0), thread);  // (PMN,PK), runtime strides
    auto gB0 = CopyB::partition(gB(Underscore{}, Underscore{}, 0), thread);
    Element const* ptr_a = &gA0[0];
    Element const* ptr_b = &gB0[0];
    auto const k_step_a = stride<2>(gA.layout());
    auto const k_step_b = stride<2>(gB.layout());
    auto crdA = CopyA::partition_coords(thread);
    auto crdB = CopyB::partition_coords(thread);
    std::uint32_t const mask_a = CopyA::mn_predicates(crdA, residue_m);
    std::uint32_t const mask_b = CopyB::mn_predicates(crdB, residue_n);
    constexpr std::uint32_t kAllA = CopyA::kVectors == 32 ? ~0u : ((1u << CopyA::kVectors) - 1);
    constexpr std::uint32_t kAllB = CopyB::kVectors == 32 ? ~0u : ((1u << CopyB::kVectors) - 1);
    // NOTES: the loops below hold __syncthreads, so the choice between them must be the whole
    // CTA's: a per-thread choice split edge CTAs between the loops and hung them on the GPU
    // (ragged 520x392x264).
    bool const interior = __syncthreads_and(mask_a == kAllA && mask_b == kAllB);

    // ---- Shared side: the swizzled thread offsets ----
    auto const cpA = detail::copy_layout<CopyA, SmemLayoutA>(thread);
    auto const cpB = detail::copy_layout<CopyB, SmemLayoutB>(thread);
    std::uint32_t const cp_a_t = std::uint32_t(cpA(0));  // Swz(offset_t): inner(0) = 0
    std::uint32_t const cp_b_t = std::uint32_t(cpB(0));

    // kInterior: every vector of the tile lies inside the problem, so the copies go out
    // unpredicated. The caller guarantees it (a separate instantiation of the K loop, so that
    // ptxas cannot if-convert the predicated form into the interior loop).
    auto issue = [&](int k_tile, int stage, auto interior_c) {
      constexpr bool kInterior = decltype(interior_c)::value;
      std::uint32_t const dst_a = smem_a + std::uint32_t(stage * kStageA * int(sizeof(Element)));
      std::uint32_t const dst_b = smem_b + std::uint32_t(stage * kStageB * int(sizeof(Element)));
      if constexpr (kInterior) {
        detail::static_for<CopyA::kVectors>([&](auto i) {
          std::uint32_t off = smem_offset<SplitA, kXorSplitCopyA>(cpA, cp_a_t, i);
          arch::cp_async_cg_16(dst_a + off * std::uint32_t(sizeof(Element)), ptr_a + gA0.layout()(i));
        });
        detail::static_for<CopyB::kVectors>([&](auto i) {
          std::uint32_t off = smem_offset<SplitB, kXorSplitCopyB>(cpB, cp_b_t, i);
          arch::cp_async_cg_16(dst_b + off * std::uint32_t(sizeof(Element)), ptr_b + gB0.layout()(i));
        });
      } else {
        int const residue_k = K - k_tile * BK;
        detail::static_for<CopyA::kVectors>([&](auto i) {
          bool inside = ((mask_a >> int(i)) & 1u) && (residue_k >= BK || CopyA::k_inside(crdA, int(i), residue_k));
          std::uint32_t off = smem_offset<SplitA, kXorSplitCopyA>(cpA, cp_a_t, i);
          arch::cp_async_cg_16(dst_a + off * std::uint32_t(sizeof(Element)), inside ? ptr_a + gA0.layout()(i) : ptr_a,
                               inside ? 16u : 0u);
        });
        detail::static_for<CopyB::kVectors>([&](auto i) {
          bool inside = ((mask_b >> int(i)) & 1u) && (residue_k >= BK || CopyB::k_inside(crdB, int(i), residue_k));
          std::uint32_t off = smem_offset<SplitB, kXorSplitCopyB>(cpB, cp_b_t, i);
          arch::cp_async_cg_16(dst_b + off * std::uint32_t(sizeof(Element)), inside ? ptr_b + gB0.layout()(i) : ptr_b,
                               inside ? 16u : 0u);
        });
      }
      ptr_a += k_step_a;
      ptr_b += k_step_b;
    };

    // Prologue: fill Stages-1 buffers. A tile past the end of K still commits an (empty) group,
    // so the wait counts below stay right.
#pragma unroll
    for (int s = 0; s < Stages - 1; ++s) {
      if (s < k_tiles) issue(s, s, std::false_type{});
      arch::cp_async_commit_group();
    }
    arch::cp_async_wait_group<Stages - 2>();
    __syncthreads();

    // ---- ldmatrix: per thread the swizzled row offset of its lane, blocks and k-blocks as constants ----
    auto const ldA = detail::ldsm_layout<LdsmA, SmemLayoutA>(thread);  // (IBm,IBk)
    auto const ldB = detail::ldsm_layout<LdsmB, SmemLayoutB>(thread);  // (IBn,IBk)
    std::uint32_t const ld_a_t = std::uint32_t(ldA(make_coord(0, 0)));
    std::uint32_t const ld_b_t = std::uint32_t(ldB(make_coord(0, 0)));
    constexpr int KB = BK / 16;
    typename TiledMma::FragmentA fa[kFragmentBuffers];
    typename TiledMma::FragmentB fb[kFragmentBuffers];

    auto load_block = [&](int stage, auto kb_c, int buf) {
      constexpr int kb = decltype(kb_c)::value;
      std::uint32_t const base_a = smem_a + std::uint32_t(stage * kStageA * int(sizeof(Element)));
      std::uint32_t const base_b = smem_b + std::uint32_t(stage * kStageB * int(sizeof(Element)));
      ldsm<LdsmA, SplitA, kXorSplitLdsmA, Config::kAKMajor, kb>(ldA, ld_a_t, base_a, fa[buf]);
      ldsm<LdsmB, SplitB, kXorSplitLdsmB, Config::kBKMajor, kb>(ldB, ld_b_t, base_b, fb[buf]);
    };
    if constexpr (kFragmentBuffers == 2) load_block(0, Int<0>{}, 0);

    int read_stage = 0;
    int write_stage = Stages - 1;
    // One K tile: copy tile k_tile + Stages - 1 into the stage freed last time, compute on the
    // stage that has landed, move to the next one at the last k-block.
    auto k_iteration = [&](int k_tile, auto interior_c) {
      constexpr bool kInterior = decltype(interior_c)::value;
      detail::static_for<KB>([&](auto kb_c) {
        constexpr int kb = decltype(kb_c)::value;
        if constexpr (kb == 0) {
          if (kInterior || k_tile + Stages - 1 < k_tiles) issue(k_tile + Stages - 1, write_stage, interior_c);
          arch::cp_async_commit_group();
          write_stage = (write_stage + 1 == Stages) ? 0 : write_stage + 1;
        }
        if constexpr (kFragmentBuffers == 1) load_block(read_stage, kb_c, 0);
        if constexpr (kb == KB - 1) {
          arch::cp_async_wait_group<Stages - 2>();
          __syncthreads();
          read_stage = (read_stage + 1 == Stages) ? 0 : read_stage + 1;
        }
        if constexpr (kFragmentBuffers == 2) {
          if (kInterior || kb + 1 < KB || k_tile + 1 < k_tiles) load_block(read_stage, Int<(kb + 1) % KB>{}, (kb + 1) % 2);
        }
        TiledMma::gemm(acc, fa[kb % kFragmentBuffers], fb[kb % kFragmentBuffers]);
      });
    };
    // Interior K tiles: the tile copied lies wholly inside M, N and K. Then the edge ones.
    int const full_k_tiles = K / BK;
    int const interior_end = interior ? std::max(0, full_k_tiles - (Stages - 1)) : 0;
    int k_tile = 0;
    for (; k_tile < interior_end; ++k_tile) k_iteration(k_tile, std::true_type{});
    for (; k_tile < k_tiles; ++k_tile) k_iteration(k_tile, std::false_type{});
    arch::cp_async_wait_group<0>();
  }

 private:
  /// ldmatrix.x4 of every 16x16 block of k-block kb of the warp tile into a one-k-block fragment.
  template <class Ldsm, class Split, bool kExact, bool KMajor, int kb, class L, class Frag>
  __device__ static void ldsm(L const& l, std::uint32_t swz_t, std::uint32_t base, Frag& frag) {
    auto blocks = Ldsm::fragment_blocks(frag);
    constexpr int kBlocksMN = Ldsm::kWarpMN / 16;
    detail::static_for<kBlocksMN>([&](auto b) {
      std::uint32_t off = smem_offset<Split, kExact>(l, swz_t, make_coord(b, Int<kb>{}));
      std::uint32_t r[4];
      arch::ldmatrix<4, !KMajor>(r, base + off * std::uint32_t(sizeof(Element)));
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        auto* dst = &blocks(make_coord(2 * j, make_coord(0, b, 0)));
        *reinterpret_cast<std::uint32_t*>(dst) = r[j];
      }
    });
  }
#endif
};

}  // namespace tessel::gemm::collective
