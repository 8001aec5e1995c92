#pragma once
// RowReduction / ColumnReduction: reduce the child's value along one dimension of the output,
// one result per row (length M) or per column (length N) of each batch, and pass the value on
// unchanged.
//
//   RowReduction<Op, Child>:    ptr[b * batch_stride + r] = Op over c of Child(r, c, b)
//   ColumnReduction<Op, Child>: ptr[b * batch_stride + c] = Op over r of Child(r, c, b)
//
// batch_stride = 0 reduces over the batches too. A thread keeps one partial result, for the row
// (column) it visited last, and joins it to memory when it moves to another row (column) and in
// finish(): an atomic on the device (exact for max, order-dependent rounding for sum, see
// reduce_ops.hpp), a plain update on the host. A kernel that visits a thread's elements row by
// row therefore issues one atomic per row it touches. The output must hold the identity before
// the kernel (0 for sum, -inf for max).
//
// Example: RowReduction<ReduceSum, Accumulator> over a 2 x 3 accumulator [[1, 2, 3], [4, 5, 6]]
// leaves ptr = [6, 15]; ColumnReduction<ReduceMax, Accumulator> leaves ptr = [4, 5, 6].

#include <cstdint>
#include <string>

#include "tessel/epilogue/fusion/detail.hpp"
#include "tessel/epilogue/fusion/reduce_ops.hpp"

namespace tessel::epilogue::fusion {

namespace detail {
template <class Op, class Child, bool kPerRow>
struct VectorReduction {
  using ElementOutput = typename Child::ElementOutput;
  struct Arguments {
    typename Child::Arguments child{};
    float* ptr = nullptr;
    std::int64_t batch_stride = 0;
  };
  struct Params {
    typename Child::Params child;
    float* ptr;
    std::int64_t batch_stride;
  };
  static_assert(std::is_trivially_copyable_v<Params>, "a kernel takes Params by value: they must be trivially copyable");

  static Params to_params(Arguments const& a) { return {Child::to_params(a.child), a.ptr, a.batch_stride}; }
  static StatusInfo can_implement(Arguments const& a, int m, int n, int l) {
    const std::string what = std::string(kPerRow ? "row " : "column ") + Op::name() + " output";
    if (auto s = check_not_null(a.ptr, what, kPerRow ? "pass M floats per batch" : "pass N floats per batch"); !s.ok()) {
      return s;
    }
    if (auto s = check_vector(what, a.batch_stride, kPerRow ? m : n, kPerRow ? "M" : "N", l, /*written=*/true); !s.ok()) {
      return s;
    }
    return Child::can_implement(a.child, m, n, l);
  }
  static std::string name() { return (kPerRow ? "row" : "col") + std::string(Op::name()) + "_" + Child::name(); }

  struct Callbacks {
    typename Child::Callbacks child;
    TESSEL_HD bool reads_source() const { return detail::reads_source(child); }
    float* ptr;
    std::int64_t batch_stride;
    std::int64_t key;  // offset of the output the partial result belongs to; -1: none yet
    float partial;

    TESSEL_HD explicit Callbacks(Params const& p)
        : child(p.child), ptr(p.ptr), batch_stride(p.batch_stride), key(-1), partial(Op::identity()) {}
    TESSEL_HD ElementOutput visit(int row, int col, int batch, float acc) {
      auto v = child.visit(row, col, batch, acc);
      const std::int64_t k = vector_offset(kPerRow ? row : col, batch, batch_stride);
      if (k != key) {
        flush();
        key = k;
      }
      partial = Op::combine(partial, Op::input(numeric_cast<float>(v)));
      return v;
    }
    TESSEL_HD void finish() {
      child.finish();
      flush();
    }

   private:
    TESSEL_HD void flush() {
      if (key >= 0) Op::join(ptr + key, partial);
      key = -1;
      partial = Op::identity();
    }
  };
};
}  // namespace detail

/// One result per row of each batch: M floats, indexed by the row.
template <class Op, class Child>
struct RowReduction : detail::VectorReduction<Op, Child, true> {};

/// One result per column of each batch: N floats, indexed by the column.
template <class Op, class Child>
struct ColumnReduction : detail::VectorReduction<Op, Child, false> {};

}  // namespace tessel::epilogue::fusion
