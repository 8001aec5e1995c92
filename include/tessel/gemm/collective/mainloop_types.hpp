#pragma once
// What every Sm75/Sm80 mainloop is made of, given a configuration and how many shared-memory
// stages it keeps: the swizzled shared-memory layouts, the global->shared tile copies and the
// shared->register ldmatrix copies of A and B.

#include "tessel/atom/copy_g2s.hpp"
#include "tessel/atom/copy_ldmatrix.hpp"
#include "tessel/gemm/collective/smem_layouts.hpp"

namespace tessel::gemm::collective {

template <class Config, int SmemStages>
struct MainloopTypes {
  static constexpr int BM = Config::BM, BN = Config::BN, BK = Config::BK;
  using TiledMma = typename Config::TiledMma;
  using Element = typename TiledMma::ElementA;
  using SmemLayoutA = decltype(smem_layout<BM, BK, Config::kAKMajor, SmemStages>());  // (BM,BK,stages)
  using SmemLayoutB = decltype(smem_layout<BN, BK, Config::kBKMajor, SmemStages>());  // (BN,BK,stages)
  using CopyA = atom::TileCopyG2S<Element, BM, BK, Config::kAKMajor, TiledMma::kThreads>;
  using CopyB = atom::TileCopyG2S<Element, BN, BK, Config::kBKMajor, TiledMma::kThreads>;
  using LdsmA = atom::LdmatrixCopy<TiledMma, atom::Operand::A, Config::kAKMajor>;
  using LdsmB = atom::LdmatrixCopy<TiledMma, atom::Operand::B, Config::kBKMajor>;
  static constexpr int kSmemElementsA = int(decltype(cosize(SmemLayoutA{}))::value);
  static constexpr int kSmemBytes = int(sizeof(Element)) * (kSmemElementsA + int(decltype(cosize(SmemLayoutB{}))::value));
};

}  // namespace tessel::gemm::collective
