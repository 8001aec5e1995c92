#pragma once
// One sweep, two algebras: every operation runs through the compile-time algebra (on static
// layouts) and through the run-time algebra (on the same layouts read from their printed form),
// and the two must agree on shape, stride and every index.

#include <gtest/gtest.h>

#include <string>

#include "static_layout_gen.hpp"
#include "tessel/layout/runtime.hpp"

namespace tessel::test {

/// The static layout's CuTe notation without the static markers: what rt prints and parses.
template <class L>
std::string plain(L const& l) {
  std::string s = to_string(l), out;
  for (char c : s)
    if (c != '_') out += c;
  return out;
}

template <class L>
rt::Layout to_rt(L const& l) {
  return rt::layout_from_string(plain(l));
}

template <class S>
void expect_same(char const* op, S const& stat, rt::Layout const& dyn) {
  ASSERT_EQ(plain(stat), rt::to_string(dyn)) << op;
  for (long long i = 0; i < (long long)size(stat); ++i)
    ASSERT_EQ((long long)stat(i), (long long)dyn(i)) << op << " at " << i;
}

/// Whether the shared admissibility rule accepts A o B on the static layouts; when it refuses,
/// the static composition would not compile, and the run-time one must throw.
template <class A, class B>
constexpr bool composable() {
  using F = decltype(tessel::detail::coalesce_x(A{}));
  return tessel::detail::static_composition_verdict<std::remove_cvref_t<decltype(F{}.shape())>, typename B::shape_type,
                                            typename B::stride_type>()
      .ok();
}

template <class A, class B>
void expect_composition(char const* op, A const& a, B const& b, rt::Layout const& ra, rt::Layout const& rb) {
  if constexpr (composable<A, B>()) {
    expect_same(op, composition(a, b), rt::composition(ra, rb));
  } else {
    EXPECT_THROW(rt::composition(ra, rb), rt::Error) << op << ": the static rule refuses it";
  }
}

template <unsigned Seed>
void crosscheck_seed() {
  using Inj = RandomLayout<Seed, true>;
  using Any = RandomLayout<Seed, false>;
  using T = RandomLayout<Seed * 7 + 3, true, 2>;
  Inj inj{};
  Any any{};
  T t{};
  SCOPED_TRACE("seed " + std::to_string(Seed) + ": A=" + plain(inj) + " B=" + plain(any) + " T=" + plain(t));
  auto ri = to_rt(inj), ra = to_rt(any), rtl = to_rt(t);
  constexpr int M = 4 * decltype(cosize(inj))::value;

  expect_same("coalesce", coalesce(any), rt::coalesce(ra));
  expect_same("filter", filter(any), rt::filter(ra));
  expect_composition("composition(A,B)", inj, any, ri, ra);
  expect_composition("composition(B,A)", any, inj, ra, ri);
  expect_same("complement(A)", complement(inj), rt::complement(ri));
  expect_same("complement(A,M)", complement(inj, Int<M>{}), rt::complement(ri, rt::IntTuple(M)));
  expect_same("right_inverse(B)", right_inverse(any), rt::right_inverse(ra));
  expect_same("left_inverse(A)", left_inverse(inj), rt::left_inverse(ri));
  expect_same("logical_divide", logical_divide(inj, t), rt::logical_divide(ri, rtl));
  expect_same("zipped_divide", zipped_divide(inj, t), rt::zipped_divide(ri, rtl));
  expect_same("tiled_divide", tiled_divide(inj, t), rt::tiled_divide(ri, rtl));
  expect_same("flat_divide", flat_divide(inj, t), rt::flat_divide(ri, rtl));
  expect_same("logical_product", logical_product(inj, t), rt::logical_product(ri, rtl));
  expect_same("zipped_product", zipped_product(inj, t), rt::zipped_product(ri, rtl));
  expect_same("tiled_product", tiled_product(inj, t), rt::tiled_product(ri, rtl));
  expect_same("flat_product", flat_product(inj, t), rt::flat_product(ri, rtl));
  expect_same("blocked_product", blocked_product(inj, t), rt::blocked_product(ri, rtl));
  expect_same("raked_product", raked_product(inj, t), rt::raked_product(ri, rtl));
  if constexpr (Inj::rank >= 2) {
    // A by-mode tiler, as the calculator's (2,2) or [2:1, 2:1].
    auto two = make_layout(_2{}, _1{});
    rt::Tiler rt_two{rt::layout_from_string("2:1"), rt::layout_from_string("2:1")};
    expect_same("logical_divide by mode", logical_divide(inj, make_tuple(two, two)), rt::logical_divide(ri, rt_two));
    expect_same("zipped_divide by mode", zipped_divide(inj, make_tuple(two, two)), rt::zipped_divide(ri, rt_two));
    expect_same("logical_product by mode", logical_product(inj, make_tuple(two, two)), rt::logical_product(ri, rt_two));
    expect_same("composition by mode", composition(inj, make_tuple(two, two)), rt::composition(ri, rt_two));
  }
}

template <unsigned Offset, unsigned... Seeds>
void crosscheck_seeds(std::integer_sequence<unsigned, Seeds...>) {
  (crosscheck_seed<Offset + Seeds>(), ...);
}

}  // namespace tessel::test
