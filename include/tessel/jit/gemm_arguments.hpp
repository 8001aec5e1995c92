#pragma once
// Host-side argument checks for the Sm75/Sm80 GEMM kernel when it is launched without the
// device::Gemm handle: a kernel compiled at run time (NVRTC) or loaded from a cubin has no
// handle, since the handle is a template that exists only in code nvcc compiled.
//
// The checks, their order and their sentences are device::Gemm::can_implement's, with the
// element type, the layouts and the tile as run-time values; everything except the last step
// of can_implement (the arch gate, which asks the CUDA runtime about a kernel symbol). A host test
// (tests/host/jit_gemm_arguments_test.cu) holds both to the same answers, case by case.
//
// Plain C++ with no CUDA headers, so that a host-only build (the Python extension) can use it.

#include <cstdint>
#include <string>

#include "tessel/epilogue/linear_combination.hpp"
#include "tessel/status.hpp"

namespace tessel::jit {

struct GemmArguments {
  std::int64_t m = 0, n = 0, k = 0;
  void const* a = nullptr;  // A (M,K)
  std::int64_t lda = 0;
  bool a_row_major = true;  // K contiguous
  void const* b = nullptr;  // B (K,N)
  std::int64_t ldb = 0;
  bool b_row_major = false;  // N contiguous
  void const* c = nullptr;   // C (M,N), read when beta != 0
  std::int64_t ldc = 0;
  void const* d = nullptr;  // D (M,N)
  std::int64_t ldd = 0;
  bool c_row_major = true;  // the layout of both C and D
  float beta = 0.f;
  int split_k_slices = 1;
  int element_bits = 16;  // of A and B
  int tile_m = 128, tile_n = 128;
  // The Hopper kernel reads A and B with TMA, which fills what lies beyond an extent with zeros:
  // only the leading dimensions and the base addresses must be aligned, not M, N and K.
  bool tma_operands = false;
};

namespace detail {

inline std::string problem_dims(GemmArguments const& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

// Elements per 16-byte vector: the unit A and B are read in.
inline int vector_elements(GemmArguments const& p) { return 128 / p.element_bits; }

inline StatusInfo check_ld(GemmArguments const& p, char const* which, std::int64_t ld, std::int64_t contiguous_extent,
                           char const* extent_name) {
  if (ld < contiguous_extent)
    return {Status::kErrorInvalidProblem, std::string("leading dimension of ") + which + " is " + std::to_string(ld) +
                                              ", smaller than " + extent_name + " = " + std::to_string(contiguous_extent) +
                                              ": rows would overlap"};
  return check_extent_alignment(std::string("leading dimension of ") + which, ld, vector_elements(p), p.element_bits);
}

inline StatusInfo check_contiguous_extent(GemmArguments const& p, char const* name, std::int64_t value, bool contiguous) {
  if (!contiguous) return {};
  return check_extent_alignment(name, value, vector_elements(p), p.element_bits);
}

}  // namespace detail

/// Whether the kernel can compute the problem, and if not, why and what to do about it.
inline StatusInfo check_gemm_arguments(GemmArguments const& p) {
  using detail::check_contiguous_extent;
  using detail::check_ld;
  if (p.m < 0 || p.n < 0 || p.k < 0)
    return {Status::kErrorInvalidProblem, "problem size " + detail::problem_dims(p) + " has a negative extent"};
  if (p.m == 0 || p.n == 0 || p.k == 0)
    return {Status::kErrorInvalidProblem,
            "problem size " + detail::problem_dims(p) + " is empty: M, N and K must all be positive"};
  // The handle keeps M, N and K in int; a larger extent is not a problem it can be given at all.
  constexpr std::int64_t kIntMax = 2147483647;
  if (p.m > kIntMax || p.n > kIntMax || p.k > kIntMax)
    return {Status::kErrorInvalidProblem,
            "problem size " + detail::problem_dims(p) + " has an extent above 2^31 - 1, the largest the kernel indexes"};
  if (p.split_k_slices != 1)
    return {Status::kErrorNotSupported,
            "split_k_slices = " + std::to_string(p.split_k_slices) + ": this kernel computes K in one slice; pass 1"};
  if (!p.a || !p.b || !p.d)
    return {Status::kErrorInvalidProblem, std::string("a null pointer for ") + (!p.a ? "A" : !p.b ? "B" : "D") +
                                              ": pass device pointers to the matrices"};
  if (auto s = epilogue::check_source_present(p.beta, p.c); !s.ok()) return s;
  // A(M,K) and B(K,N) are read in 16-byte vectors along their contiguous mode.
  bool const a_rows = p.a_row_major, b_cols = !p.b_row_major;
  if (auto s = check_ld(p, "A", p.lda, a_rows ? p.k : p.m, a_rows ? "K" : "M"); !s.ok()) return s;
  if (auto s = check_ld(p, "B", p.ldb, b_cols ? p.k : p.n, b_cols ? "K" : "N"); !s.ok()) return s;
  bool const c_rows = p.c_row_major;
  std::int64_t const c_min = c_rows ? p.n : p.m;
  if (p.ldd < c_min)
    return {Status::kErrorInvalidProblem, "leading dimension of D is " + std::to_string(p.ldd) + ", smaller than " +
                                              (c_rows ? "N = " : "M = ") + std::to_string(c_min) + ": rows would overlap"};
  // ldc 0 repeats C's first row (or column) over the other mode: a bias.
  if (p.beta != 0 && p.ldc != 0 && p.ldc < c_min)
    return {Status::kErrorInvalidProblem, "leading dimension of C is " + std::to_string(p.ldc) + ", smaller than " +
                                              (c_rows ? "N = " : "M = ") + std::to_string(c_min) + ": rows would overlap"};
  if (!p.tma_operands) {
    if (auto s = check_contiguous_extent(p, "K", p.k, a_rows || b_cols); !s.ok()) return s;
    if (auto s = check_contiguous_extent(p, "M", p.m, !a_rows); !s.ok()) return s;
    if (auto s = check_contiguous_extent(p, "N", p.n, !b_cols); !s.ok()) return s;
  }
  if (auto s = check_pointer_alignment("base address of A", p.a, 16); !s.ok()) return s;
  if (auto s = check_pointer_alignment("base address of B", p.b, 16); !s.ok()) return s;
  if ((p.m + p.tile_m - 1) / p.tile_m * ((p.n + p.tile_n - 1) / p.tile_n) > kIntMax)
    return {Status::kErrorInvalidProblem, "problem size " + detail::problem_dims(p) + " needs more thread blocks than a grid holds"};
  return {};
}

}  // namespace tessel::jit
