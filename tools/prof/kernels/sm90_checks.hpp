#pragma once
// What tessel-prof's Hopper adaptors refuse before the handle sees the arguments, said about the
// problem's own operands (the handles run the transposed problem and would name them swapped).

#include <string>

#include "kernels/handle_operation.hpp"

namespace tessel::prof::kernels {

/// One matrix per launch; tiles that walk along N (the kernel's M is the problem's N, so
/// --raster=along_n or heuristic); and TMA's rules for A and B of `bits`-bit elements: leading
/// dimensions a multiple of `alignment` elements (16 bytes) and 16-byte base addresses.
inline StatusInfo check_sm90_tn(const GemmArguments& a, int alignment, int bits) {
  if (auto s = check_single_matrix_launch(a, "this Hopper kernel", Raster::kAlongM,
                                          "--raster=along_m: this kernel's tiles walk along N (in groups of --swizzle "
                                          "column tiles); use --raster=along_n or heuristic");
      !s.ok())
    return s;
  if (auto s = check_extent_alignment("leading dimension of A", a.lda, alignment, bits); !s.ok()) return s;
  if (auto s = check_extent_alignment("leading dimension of B", a.ldb, alignment, bits); !s.ok()) return s;
  if (auto s = check_pointer_alignment("base address of A", a.A, 16); !s.ok()) return s;
  if (auto s = check_pointer_alignment("base address of B", a.B, 16); !s.ok()) return s;
  return {};
}

}  // namespace tessel::prof::kernels
