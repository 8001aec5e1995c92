#pragma once
// AuxStore: write the child's value to an auxiliary tensor, and pass it on unchanged.
//
//   AuxStore<E, Child>(r, c, b) = v = Child(r, c, b);
//                                 ptr[b * batch_stride + r * ld + c] = numeric_cast<E>(v)
//
// The usual use is saving the pre-activation Z of Y = act(Z) in a forward pass, for the backward
// pass: Activation<GeluErf, AuxStore<bfloat16_t, Add<..., RowBroadcast<...>>>>.
//
// Example: with the child visiting to 1.5 at (1, 2, 0) and ld = 8, ptr[10] becomes 1.5 and the
// node visits to 1.5.

#include <cstdint>
#include <string>

#include "tessel/epilogue/fusion/detail.hpp"

namespace tessel::epilogue::fusion {

template <class Element, class Child>
struct AuxStore {
  using ElementOutput = typename Child::ElementOutput;
  struct Arguments {
    typename Child::Arguments child{};
    Element* ptr = nullptr;
    std::int64_t ld = 0;
    std::int64_t batch_stride = 0;
  };
  struct Params {
    typename Child::Params child;
    Element* ptr;
    std::int64_t ld;
    std::int64_t batch_stride;
  };
  static_assert(std::is_trivially_copyable_v<Params>, "a kernel takes Params by value: they must be trivially copyable");

  static Params to_params(Arguments const& a) { return {Child::to_params(a.child), a.ptr, a.ld, a.batch_stride}; }
  static StatusInfo can_implement(Arguments const& a, int m, int n, int l) {
    if (auto s = detail::check_not_null(a.ptr, "aux store", "pass an M x N tensor to write to"); !s.ok()) return s;
    if (auto s = detail::check_matrix("aux store", a.ld, a.batch_stride, m, n, l, /*written=*/true); !s.ok()) return s;
    return Child::can_implement(a.child, m, n, l);
  }
  static std::string name() { return "store_" + detail::element_tag<Element>() + "_" + Child::name(); }

  struct Callbacks {
    typename Child::Callbacks child;
    TESSEL_HD bool reads_source() const { return detail::reads_source(child); }
    Element* ptr;
    std::int64_t ld;
    std::int64_t batch_stride;

    TESSEL_HD explicit Callbacks(Params const& p) : child(p.child), ptr(p.ptr), ld(p.ld), batch_stride(p.batch_stride) {}
    TESSEL_HD ElementOutput visit(int row, int col, int batch, float acc) {
      auto v = child.visit(row, col, batch, acc);
      ptr[detail::matrix_offset(row, col, batch, ld, batch_stride)] = numeric_cast<Element>(v);
      return v;
    }
    TESSEL_HD void finish() { child.finish(); }
  };
};

}  // namespace tessel::epilogue::fusion
