#pragma once
// Which compiled kernels a command line selects: names by --kernels / --ignore-kernels, then
// operand types and layouts by --A, --B, --C and --D.

#include <string>
#include <vector>

#include "core/kernel_description.hpp"
#include "core/options.hpp"
#include "core/problem.hpp"

namespace tessel::prof {

/// The kernels of `all` the options select, in the order of `all`. Throws usage_error for a
/// pattern that matches no compiled kernel (see select_names).
std::vector<KernelDescription> select_kernels(const std::vector<KernelDescription>& all, const Options& o,
                                              const std::vector<std::string>& catalogue);

/// The operand set of a kernel.
OperandSet operands_of(const KernelDescription& k);

/// The distinct operand sets of `kernels`, in first-appearance order.
std::vector<OperandSet> operand_sets(const std::vector<KernelDescription>& kernels);

/// The operand set the --A..--D filters spell, with the gaps filled the way BLAS users expect:
/// A f16 row-major, B of A's type column-major, C of A's type (bf16 for FP8 A) column-major, D like C.
OperandSet operands_from_filters(const Options& o);

/// A sentence for "the names matched but no kernel takes these operands".
std::string no_operand_match_sentence(const std::vector<KernelDescription>& by_name, const Options& o);

}  // namespace tessel::prof
