#pragma once
// Sm80 mainloop: Stages >= 3 shared-memory buffers filled by cp.async, read by ldmatrix, fed to
// mma.sync. While the warps compute on stage s, the copies of the next Stages-1 tiles are in
// flight.
//
// NOTES: the order inside one K iteration matters. We wait until the oldest copy group has
// landed, then __syncthreads(), and only then issue the copy into the buffer computed on in the
// previous iteration: the barrier is what proves every warp has finished reading it.

#include "tessel/arch/cp_async_sm80.hpp"
#include "tessel/gemm/collective/mainloop_types.hpp"

namespace tessel::gemm::collective {

template <class Config>
struct MainloopSm80CpAsync : MainloopTypes<Config, Config::Stages> {
  using Base = MainloopTypes<Config, Config::Stages>;
  using typename Base::TiledMma, typename Base::Element, typename Base::SmemLayoutA, typename Base::SmemLayoutB,
      typename Base::CopyA, typename Base::CopyB, typename Base::LdsmA, typename Base::LdsmB;
  using Base::kSmemElementsA;
  static constexpr int BM = Config::BM, BN = Config::BN, BK = Config::BK, Stages = Config::Stages;
  static_assert(Stages >= 3, "MainloopSm80CpAsync: the cp.async mainloop needs at least 3 stages (use the Sm70 two-stage form for 2)");

  /// acc += A(BM,BK,k) * B(BN,BK,k) over all k tiles. residue_* are the extents of the problem
  /// left from this tile's origin (M - m0, N - n0, K).
  template <class GA, class GB, class Acc>
  __device__ static void run(GA const& gA, GB const& gB, Acc& acc, int residue_m, int residue_n, int K, char* smem, int thread) {
    auto sA = make_tensor(make_smem_ptr(reinterpret_cast<Element*>(smem)), SmemLayoutA{});                        // (BM,BK,S)
    auto sB = make_tensor(make_smem_ptr(reinterpret_cast<Element*>(smem) + kSmemElementsA), SmemLayoutB{});  // (BN,BK,S)
    auto crdA = CopyA::partition_coords(thread);
    auto crdB = CopyB::partition_coords(thread);
    int k_tiles = (K + BK - 1) / BK;

    // Partition once; a K tile and a stage are then a pointer offset away. The stage offset is a
    // multiple of the swizzle's period (a whole number of 8-row atoms), so it commutes with the
    // swizzle.
    auto gA0 = CopyA::partition(gA(Underscore{}, Underscore{}, 0), thread);
    auto sA0 = CopyA::partition(sA(Underscore{}, Underscore{}, 0), thread);
    auto gB0 = CopyB::partition(gB(Underscore{}, Underscore{}, 0), thread);
    auto sB0 = CopyB::partition(sB(Underscore{}, Underscore{}, 0), thread);
    auto const k_step_a = stride<2>(gA.layout());  // elements from one K tile to the next
    auto const k_step_b = stride<2>(gB.layout());
    constexpr int kStageA = int(decltype(cosize(SmemLayoutA{}))::value) / Stages;
    constexpr int kStageB = int(decltype(cosize(SmemLayoutB{}))::value) / Stages;
    std::uint32_t const mask_a = CopyA::mn_predicates(crdA, residue_m);
    std::uint32_t const mask_b = CopyB::mn_predicates(crdB, residue_n);
    auto issue = [&](int k_tile, int stage) {
      auto g_a = make_tensor(gA0.data() + k_tile * k_step_a, gA0.layout());
      auto s_a = make_tensor(sA0.data() + stage * kStageA, sA0.layout());
      auto g_b = make_tensor(gB0.data() + k_tile * k_step_b, gB0.layout());
      auto s_b = make_tensor(sB0.data() + stage * kStageB, sB0.layout());
      CopyA::copy_async(g_a, s_a, crdA, mask_a, K - k_tile * BK);
      CopyB::copy_async(g_b, s_b, crdB, mask_b, K - k_tile * BK);
    };

    // Prologue: fill Stages-1 buffers. A tile past the end of K still commits an (empty) group,
    // so the wait counts below stay right.
#pragma unroll
    for (int s = 0; s < Stages - 1; ++s) {
      if (s < k_tiles) issue(s, s);
      arch::cp_async_commit_group();
    }
    arch::cp_async_wait_group<Stages - 2>();
    __syncthreads();

    // Registers hold two k-blocks: block kb+1 is read from shared memory while the tensor cores
    // work on block kb. At the last block of a tile the next tile's stage must have landed, so
    // the wait and the barrier sit there; the copy into the stage just freed goes out at block 0.
    constexpr int KB = BK / 16;
    typename TiledMma::FragmentA fa[2];
    typename TiledMma::FragmentB fb[2];
    int read_stage = 0;
    auto srcA = LdsmA::partition_S(sA(Underscore{}, Underscore{}, 0), thread);  // (IBm,IBk)
    auto srcB = LdsmB::partition_S(sB(Underscore{}, Underscore{}, 0), thread);  // (IBn,IBk)
    auto load_block = [&](int stage, int kb, int buf) {
      LdsmA::copy(make_tensor(srcA.data() + stage * kStageA, srcA.layout()), kb, fa[buf]);
      LdsmB::copy(make_tensor(srcB.data() + stage * kStageB, srcB.layout()), kb, fb[buf]);
    };
    load_block(0, 0, 0);

    for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
#pragma unroll
      for (int kb = 0; kb < KB; ++kb) {
        if (kb == 0) {
          int next = k_tile + Stages - 1;
          if (next < k_tiles) issue(next, next % Stages);
          arch::cp_async_commit_group();
        }
        if (kb == KB - 1) {
          arch::cp_async_wait_group<Stages - 2>();
          __syncthreads();
          read_stage = (read_stage + 1 == Stages) ? 0 : read_stage + 1;
        }
        if (kb + 1 < KB || k_tile + 1 < k_tiles) load_block(read_stage, (kb + 1) % KB, (kb + 1) % 2);
        TiledMma::gemm(acc, fa[kb % 2], fb[kb % 2]);
      }
    }
    arch::cp_async_wait_group<0>();
  }
};

}  // namespace tessel::gemm::collective
