#pragma once
// Sm70/Sm75 mainloop: two stages, one in shared memory and one in registers. While the warps
// compute on the tile in shared memory, the next tile travels from global memory into registers;
// after a barrier it is written to shared memory. No cp.async, so it runs on Turing.

#include "tessel/gemm/collective/mainloop_types.hpp"

namespace tessel::gemm::collective {

template <class Config>
struct MainloopSm70TwoStage : MainloopTypes<Config, 1> {
  using Base = MainloopTypes<Config, 1>;
  using typename Base::TiledMma, typename Base::Element, typename Base::SmemLayoutA, typename Base::SmemLayoutB,
      typename Base::CopyA, typename Base::CopyB, typename Base::LdsmA, typename Base::LdsmB;
  using Base::kSmemElementsA;
  static constexpr int BM = Config::BM, BN = Config::BN, BK = Config::BK;
  static_assert(Config::Stages == 2, "MainloopSm70TwoStage: this mainloop has exactly 2 stages (shared memory + registers)");

  template <class GA, class GB, class Acc>
  __device__ static void run(GA const& gA, GB const& gB, Acc& acc, int residue_m, int residue_n, int K, char* smem, int thread) {
    auto sA = make_tensor(make_smem_ptr(reinterpret_cast<Element*>(smem)), SmemLayoutA{});                        // (BM,BK,1)
    auto sB = make_tensor(make_smem_ptr(reinterpret_cast<Element*>(smem) + kSmemElementsA), SmemLayoutB{});  // (BN,BK,1)
    auto sA0 = CopyA::partition(sA(Underscore{}, Underscore{}, 0), thread);
    auto sB0 = CopyB::partition(sB(Underscore{}, Underscore{}, 0), thread);
    auto crdA = CopyA::partition_coords(thread);
    auto crdB = CopyB::partition_coords(thread);
    auto srcA = LdsmA::partition_S(sA(Underscore{}, Underscore{}, 0), thread);
    auto srcB = LdsmB::partition_S(sB(Underscore{}, Underscore{}, 0), thread);
    int k_tiles = (K + BK - 1) / BK;

    uint4 ra[CopyA::kVectors];
    uint4 rb[CopyB::kVectors];
    auto gA0 = CopyA::partition(gA(Underscore{}, Underscore{}, 0), thread);
    auto gB0 = CopyB::partition(gB(Underscore{}, Underscore{}, 0), thread);
    auto const k_step_a = stride<2>(gA.layout());  // elements from one K tile to the next
    auto const k_step_b = stride<2>(gB.layout());
    std::uint32_t const mask_a = CopyA::mn_predicates(crdA, residue_m);
    std::uint32_t const mask_b = CopyB::mn_predicates(crdB, residue_n);
    auto fetch = [&](int k_tile) {
      CopyA::load(make_tensor(gA0.data() + k_tile * k_step_a, gA0.layout()), crdA, ra, mask_a, K - k_tile * BK);
      CopyB::load(make_tensor(gB0.data() + k_tile * k_step_b, gB0.layout()), crdB, rb, mask_b, K - k_tile * BK);
    };

    fetch(0);
    CopyA::store(sA0, ra);
    CopyB::store(sB0, rb);
    __syncthreads();

    // Registers hold two k-blocks: block kb+1 is read from shared memory while the tensor cores
    // work on block kb.
    constexpr int KB = BK / 16;
    typename TiledMma::FragmentA fa[2];
    typename TiledMma::FragmentB fb[2];
    for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
      if (k_tile + 1 < k_tiles) fetch(k_tile + 1);  // in flight while we compute
      LdsmA::copy(srcA, 0, fa[0]);
      LdsmB::copy(srcB, 0, fb[0]);
#pragma unroll
      for (int kb = 0; kb < KB; ++kb) {
        if (kb + 1 < KB) {
          LdsmA::copy(srcA, kb + 1, fa[(kb + 1) % 2]);
          LdsmB::copy(srcB, kb + 1, fb[(kb + 1) % 2]);
        }
        TiledMma::gemm(acc, fa[kb % 2], fb[kb % 2]);
      }
      __syncthreads();
      if (k_tile + 1 < k_tiles) {
        CopyA::store(sA0, ra);
        CopyB::store(sB0, rb);
      }
      __syncthreads();
    }
  }
};

}  // namespace tessel::gemm::collective
