#pragma once
// Global -> shared memory tile copies, 16 bytes per thread per step, predicated at the edges.
//
// The tile (BMN,BK) is cut into 16-byte vectors along its contiguous mode, and the vector grid
// is dealt to the threads with local_partition: consecutive threads take consecutive vectors
// along the contiguous mode, so a warp's loads coalesce. Global and shared tiles are partitioned
// the same way, so vector i of a thread's global part lands in vector i of its shared part,
// whatever swizzle the shared layout applies (a swizzle moves whole 16-byte chunks).
// A vector is copied only when it lies inside the problem; the rest of the shared tile is
// zero-filled, so ragged M, N and K need no special case in the math.

#include <cstdint>

#include "tessel/arch/cp_async_sm80.hpp"
#include "tessel/arch/util.hpp"
#include "tessel/layout.hpp"

namespace tessel::atom {

/// An iterator whose elements are their own offsets: a tensor over it yields the column-major
/// linear coordinate of each element, which is how the copies learn where they are.
struct CountingIterator {
  int base = 0;
  TESSEL_HD constexpr int operator[](long long i) const { return base + int(i); }
  TESSEL_HD constexpr CountingIterator operator+(long long i) const { return {base + int(i)}; }
};

template <class Element, int BMN, int BK, bool KMajor, int Threads>
struct TileCopyG2S {
  static constexpr int kVec = 16 / int(sizeof(Element));
  static constexpr int kVecsAlongContig = (KMajor ? BK : BMN) / kVec;
  static_assert((KMajor ? BK : BMN) % kVec == 0, "tile copy: the contiguous extent of the tile must hold whole 16-byte vectors");
  static_assert(Threads % kVecsAlongContig == 0, "tile copy: the threads must cover the contiguous extent in whole rows");
  static constexpr int kThreadsAlongOther = Threads / kVecsAlongContig;
  static_assert((KMajor ? BMN : BK) % kThreadsAlongOther == 0, "tile copy: the tile must split evenly among the threads");

  using VecShape = std::conditional_t<KMajor, Shape<_1, Int<kVec>>, Shape<Int<kVec>, _1>>;
  // Threads over the vector grid (BMN/vm, BK/vk), the contiguous mode fastest.
  using ThreadLayout = std::conditional_t<KMajor,
      Layout<Shape<Int<kThreadsAlongOther>, Int<kVecsAlongContig>>, Stride<Int<kVecsAlongContig>, _1>>,
      Layout<Shape<Int<kVecsAlongContig>, Int<kThreadsAlongOther>>, Stride<_1, Int<kVecsAlongContig>>>>;

  /// The first element of each of this thread's vectors in a (BMN,BK) tile: (PMN,PK).
  template <class T>
  TESSEL_HD static constexpr auto partition(T const& tile, int thread) {
    auto vecs = zipped_divide(tile, VecShape{});                               // ((vm,vk),(GMN,GK))
    auto starts = vecs(make_coord(0, make_coord(Underscore{}, Underscore{})));  // (GMN,GK)
    return local_partition(starts, ThreadLayout{}, thread);                    // (PMN,PK)
  }

  /// For each of this thread's vectors, its (mn, k) coordinate inside the tile, as linear
  /// column-major indices (mn + BMN * k).
  TESSEL_HD static constexpr auto partition_coords(int thread) {
    return partition(make_tensor(CountingIterator{}, make_layout(Shape<Int<BMN>, Int<BK>>{})), thread);
  }

  static constexpr int kVectors = decltype(size(partition_coords(0).layout()))::value;
  static_assert(kVectors <= 32, "tile copy: at most 32 vectors per thread (one predicate bit each)");

  /// Which of this thread's vectors lie inside the problem along MN: fixed for a CTA, so computed
  /// once, outside the K loop.
  template <class Crd>
  __device__ static std::uint32_t mn_predicates(Crd const& crd, int residue_mn) {
    std::uint32_t mask = 0;
#pragma unroll
    for (int i = 0; i < kVectors; ++i) {
      int mn = crd[i] % BMN;
      bool inside = KMajor ? mn < residue_mn : mn + kVec <= residue_mn;
      mask |= std::uint32_t(inside) << i;
    }
    return mask;
  }
  template <class Crd>
  __device__ static bool k_inside(Crd const& crd, int i, int residue_k) {
    int k = crd[i] / BMN;
    return KMajor ? k + kVec <= residue_k : k < residue_k;
  }

  /// cp.async every vector of the tile that lies inside the problem; zero-fill the rest. Only the
  /// last K tile (residue_k < BK) looks at K.
  /// An outside vector is copied with src-size 0: no byte is read and the 16 bytes are zeroed.
  /// Its address is the thread's first vector of this tile, which at a bottom or right edge may
  /// itself lie past the matrix: harmless, since nothing is read (compute-sanitizer's memcheck
  /// of the ragged cases agrees), and keeping a separate always-valid pointer live through the
  /// K loop costs registers the mainloop does not have (-25% at 8192^3 on the H200).
  template <class G, class S, class Crd>
  __device__ static void copy_async(G const& g, S& s, Crd const& crd, std::uint32_t mn_mask, int residue_k) {
    bool const full_k = residue_k >= BK;
#pragma unroll
    for (int i = 0; i < kVectors; ++i) {
      bool inside = ((mn_mask >> i) & 1u) && (full_k || k_inside(crd, i, residue_k));
      Element const* src = inside ? &g[i] : &g[0];
      arch::cp_async_cg_16_zfill(&s[i], src, inside);
    }
  }

  /// Load this thread's vectors into registers (zero outside), for the two-stage mainloop.
  template <class G, class Crd>
  __device__ static void load(G const& g, Crd const& crd, uint4 (&regs)[kVectors], std::uint32_t mn_mask, int residue_k) {
    bool const full_k = residue_k >= BK;
#pragma unroll
    for (int i = 0; i < kVectors; ++i) {
      bool inside = ((mn_mask >> i) & 1u) && (full_k || k_inside(crd, i, residue_k));
      regs[i] = inside ? arch::load_global_128(&g[i]) : make_uint4(0, 0, 0, 0);
    }
  }
  template <class S>
  __device__ static void store(S& s, uint4 const (&regs)[kVectors]) {
#pragma unroll
    for (int i = 0; i < kVectors; ++i) *reinterpret_cast<uint4*>(&s[i]) = regs[i];
  }
};

}  // namespace tessel::atom
