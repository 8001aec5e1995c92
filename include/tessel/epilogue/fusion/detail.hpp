#pragma once
// Plumbing shared by the fusion nodes: the aggregate that holds a node's children, element-type
// tags for names, addressing, and the argument checks whose sentences every node words the same.

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "tessel/config.hpp"
#include "tessel/element_tag.hpp"
#include "tessel/numeric.hpp"
#include "tessel/status.hpp"

namespace tessel::epilogue::fusion::detail {

// The children of an elementwise node (their Arguments, Params or Callbacks) followed by the
// functor. A plain aggregate with named members rather than a tuple: it stays trivially
// copyable, needs nothing from the standard library on the device, and a user can fill it with
// designated initializers (`{.first = ..., .second = ...}`). Up to three children: enough for
// add, multiply and multiply-add; deeper expressions nest.
template <class Fn, class... Ts>
struct Pack;
template <class Fn, class A>
struct Pack<Fn, A> {
  A first;
  Fn fn;
};
template <class Fn, class A, class B>
struct Pack<Fn, A, B> {
  A first;
  B second;
  Fn fn;
};
template <class Fn, class A, class B, class C>
struct Pack<Fn, A, B, C> {
  A first;
  B second;
  C third;
  Fn fn;
};

// Whether a node's visit() may read the source matrix C: SourceC says so from its beta, a node
// with children asks them, and a node without the query (the other leaves) does not read it.
// The kernel runs a copy of its store loop for `false`, in which the C loads drop out.
template <class Callbacks>
TESSEL_HD bool reads_source(Callbacks const& cb) {
  if constexpr (requires { cb.reads_source(); }) return cb.reads_source();
  else return false;
}

template <int I, class P>
TESSEL_HD constexpr auto& child(P& p) {
  static_assert(I >= 0 && I < 3, "a fusion node has at most three children");
  if constexpr (I == 0) {
    return p.first;
  } else if constexpr (I == 1) {
    return p.second;
  } else {
    return p.third;
  }
}

// Short element tags for names: "f32", "bf16", "e4m3", ... (tessel/element_tag.hpp).
using tessel::element_tag;

// Name of a functor: its own `name()` where it has one (all of tessel's do), else "fn".
template <class Fn>
std::string functor_name() {
  if constexpr (requires { Fn::name(); }) {
    return std::string(Fn::name());
  } else {
    return "fn";
  }
}

// The shortest decimal that reads back as `x`: "0.5", not "0.500000".
inline std::string format_float(float x) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, r.ptr);
}

// Offsets in 64 bits: a batch stride times a batch index passes 2^31 on large problems.
TESSEL_HD inline std::int64_t matrix_offset(int row, int col, int batch, std::int64_t ld,
                                            std::int64_t batch_stride) {
  return static_cast<std::int64_t>(batch) * batch_stride + static_cast<std::int64_t>(row) * ld + col;
}
TESSEL_HD inline std::int64_t vector_offset(int index, int batch, std::int64_t batch_stride) {
  return static_cast<std::int64_t>(batch) * batch_stride + index;
}

// ---- Argument checks ----------------------------------------------------------------------------
// `what` names the operand as the user knows it ("source C", "bias", "aux store"); `hint` says
// what to do about a null pointer.

inline StatusInfo check_not_null(const void* ptr, std::string_view what, std::string_view hint) {
  if (ptr != nullptr) return {};
  return {Status::kErrorInvalidProblem, std::string(what) + " pointer is null: " + std::string(hint)};
}

// A row-major M x N matrix per batch, `ld` elements between rows and `batch_stride` between
// batches. A matrix that is only read may be shared by every batch (batch stride 0); one that is
// written must give each batch its own elements, or the batches race.
inline StatusInfo check_matrix(std::string_view what, std::int64_t ld, std::int64_t batch_stride,
                               int m, int n, int l, bool written) {
  const std::string w(what);
  // A matrix that is only read may repeat one row over M (ld 0: a bias).
  if (ld < n && !(ld == 0 && !written)) {
    return {Status::kErrorInvalidLayout,
            "leading dimension of " + w + " is " + std::to_string(ld) + ", less than N = " +
                std::to_string(n) + ": rows would overlap; pass the row pitch in elements (at least N)"};
  }
  if (batch_stride < 0) {
    return {Status::kErrorInvalidLayout,
            "batch stride of " + w + " is " + std::to_string(batch_stride) + ", negative"};
  }
  const std::int64_t extent = m > 0 ? static_cast<std::int64_t>(m - 1) * ld + n : 0;
  if (written && l > 1 && batch_stride < extent) {
    return {Status::kErrorInvalidLayout,
            "batch stride of " + w + " is " + std::to_string(batch_stride) + " with L = " + std::to_string(l) +
                " batches, less than the " + std::to_string(extent) +
                " elements one batch writes: the batches would write over each other"};
  }
  return {};
}

// A vector of `length` elements per batch (a bias, a reduction's output).
inline StatusInfo check_vector(std::string_view what, std::int64_t batch_stride, std::int64_t length,
                               std::string_view length_name, int l, bool written) {
  const std::string w(what);
  if (batch_stride < 0) {
    return {Status::kErrorInvalidLayout,
            "batch stride of " + w + " is " + std::to_string(batch_stride) + ", negative"};
  }
  if (written && l > 1 && batch_stride != 0 && batch_stride < length) {
    return {Status::kErrorInvalidLayout,
            "batch stride of " + w + " is " + std::to_string(batch_stride) + ", between 0 and " +
                std::string(length_name) + " = " + std::to_string(length) +
                ": batches would share part of their outputs; use 0 (one result over all batches) "
                "or at least " +
                std::string(length_name)};
  }
  return {};
}

}  // namespace tessel::epilogue::fusion::detail
