// Every inadmissible case the run-time algebra refuses, with a message that
// names the operation, its operands and the failed condition.
#include <gtest/gtest.h>

#include <tessel/layout/runtime.hpp>

#include <functional>
#include <string>
#include <vector>

using namespace tessel::rt;

namespace {

Layout L(char const* s) { return layout_from_string(s); }

// Runs f, which must throw Error; returns its message.
std::string error_of(std::function<void()> const& f) {
  try {
    f();
  } catch (Error const& e) {
    return e.what();
  }
  ADD_FAILURE() << "no Error thrown";
  return {};
}

void expect_all(std::string const& msg, std::vector<std::string> const& parts) {
  for (auto const& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' missing from: " << msg;
}

}  // namespace

TEST(RuntimeErrors, CompositionDivisibility) {
  // 4:4 steps over 6 by 4: neither divides the other.
  expect_all(error_of([] { composition(L("(6,2):(8,2)"), L("4:4")); }),
             {"composition((6,2):(8,2), 4:4)", "stride divisibility fails", "extent 6", "stride 4"});
  // 5:3: the stride divides (6/3 = 2), but 5 elements do not fit 2 per mode.
  expect_all(error_of([] { composition(L("(6,2):(8,2)"), L("5:3")); }),
             {"composition((6,2):(8,2), 5:3)", "shape divisibility fails", "the 5 elements", "the 2 elements"});
  // Negative strides of B through a multi-mode A.
  expect_all(error_of([] { composition(L("(6,2):(8,2)"), L("3:-1")); }), {"negative stride -1"});
}

TEST(RuntimeErrors, ComplementRefusals) {
  expect_all(error_of([] { complement(L("(2,2):(1,1)"), 8); }),
             {"complement((2,2):(1,1), 8)", "not injective", "stride 1", "extent 2"});
  expect_all(error_of([] { complement(L("(3,2):(2,3)")); }), {"complement((3,2):(2,3))", "not injective"});
  expect_all(error_of([] { complement(L("4:-1"), 8); }), {"complement(4:-1, 8)", "negative stride"});
  expect_all(error_of([] { complement(L("4:1"), 0); }), {"complement(4:1, 0)", "cotarget 0 must be positive"});
  expect_all(error_of([] { complement(L("4:1"), tuple(4, -2)); }), {"cotarget (4,-2) must be positive"});
}

TEST(RuntimeErrors, DividesAndProductsNameTheFailingStep) {
  // complement(4:1, (6,2)) = 4:4; 4:1 fits inside A's mode of 6 (CuTe 4.7's weaker check), but
  // the next leaf's stride 4 and the extent 6 divide neither way.
  expect_all(error_of([] { logical_divide(L("(6,2):(1,7)"), L("4:1")); }),
             {"logical_divide((6,2):(1,7), 4:1)", "composition((6,2):(1,7), (4,4):(1,4))", "stride divisibility", "leaf 1"});
  expect_all(error_of([] { zipped_divide(L("(6,2):(1,7)"), L("4:1")); }),
             {"zipped_divide((6,2):(1,7), 4:1)", "stride divisibility"});
  // 4 does not divide 6: CuTe 4.7 pads mode 0 to 8, reaching 6 and 7, which no y0 + 7 y1 with
  // y0 < 6 is: the padding is not A's last mode extended.
  expect_all(error_of([] { logical_divide(L("(6,2):(1,7)"), L("4:1")); }),
             {"the tiler does not divide A", "widens mode 0 of coalesced A (extent 6) to 8",
              "A's extended last mode never does", "the last stride 7 is 7, past 6"});
  // (4,4):(3,4) reaches 16 offsets once; widened to (6,4):(3,4) it reaches 12 twice (4*3 = 3*4).
  expect_all(error_of([] { logical_divide(L("(4,4):(3,4)"), L("3:1")); }),
             {"logical_divide((4,4):(3,4), 3:1)", "widens mode 0 of coalesced A (extent 4) to 6", "the widened A repeats an offset"});
  // Where CuTe's padded answer is a divide, it is the answer (A's 10 offsets and 10..15 past them).
  EXPECT_EQ(to_string(zipped_divide(L("(5,2):(2,1)"), L("4:1"))), "(4,(2,2)):(2,(8,1))");
  // By mode the same tiler is fine: 6:1 / 4:1 reads 6:1 past its end.
  EXPECT_EQ(to_string(zipped_divide(L("(6,2):(1,7)"), make_tile(L("4:1")))), "((4),(2,2)):((1),(4,7))");
  expect_all(error_of([] { logical_product(L("(3,2):(2,18)"), L("(2,5):(5,1)")); }),
             {"logical_product((3,2):(2,18), (2,5):(5,1))", "stride divisibility"});
  expect_all(error_of([] { logical_product(L("(2,2):(1,1)"), L("2:1")); }), {"logical_product", "not injective"});
  expect_all(error_of([] { blocked_product(L("(2,2):(1,1)"), L("(2,2):(1,2)")); }),
             {"blocked_product", "not injective"});
  expect_all(error_of([] { tile_to_shape(L("(2,2):(1,2)"), tuple(3, 4)); }),
             {"tile_to_shape((2,2):(1,2), (3,4))", "block size 2 of mode 0 does not divide the target size 3"});
  expect_all(error_of([] { tile_to_shape(L("(2,2,2):(1,2,4)"), tuple(4, 4)); }), {"rank 3", "rank 2"});
}

TEST(RuntimeErrors, TilerLongerThanLayout) {
  Tiler three = make_tile(L("2:1"), L("2:1"), L("2:1"));
  expect_all(error_of([&] { composition(L("(4,8):(1,4)"), three); }),
             {"composition((4,8):(1,4), [2:1,2:1,2:1])", "the tiler has 3 modes but the layout has rank 2"});
  expect_all(error_of([&] { logical_divide(L("(4,8):(1,4)"), three); }), {"logical_divide", "3 modes", "rank 2"});
  expect_all(error_of([&] { flat_product(L("(4,8):(1,4)"), three); }), {"flat_product", "3 modes"});
  expect_all(error_of([] { coalesce(L("(4,8):(1,4)"), tuple(1, 1, 1)); }), {"coalesce", "3 modes"});
  expect_all(error_of([] { tiler_from_shape(tuple(tuple(2, 2), 4)); }), {"nested"});
}

TEST(RuntimeErrors, EvaluationOutOfRangeOrWrongRank) {
  Layout l = L("(2,4):(1,2)");
  expect_all(error_of([&] { l(8); }), {"coordinate 8 is out of range [0,8)"});
  expect_all(error_of([&] { l(-1); }), {"out of range"});
  expect_all(error_of([&] { l(2, 0); }), {"coordinate 2 is out of range [0,2)"});
  expect_all(error_of([&] { l(1, 2, 3); }), {"coordinate (1,2,3) has rank 3", "rank 2"});
  expect_all(error_of([&] { l(make_coord(make_coord(0, 1), 1)); }), {"no modes"});
  expect_all(error_of([&] { l(make_coord(_, 1)); }), {"holds `_`"});
  expect_all(error_of([&] { slice(make_coord(1, 1), l); }), {"holds no `_`"});
  expect_all(error_of([&] { idx2crd(8, l.shape); }), {"out of range"});
}

TEST(RuntimeErrors, CastsNeedDivisibility) {
  expect_all(error_of([] { upcast(L("6:3"), 2); }), {"upcast(6:3, 2)", "stride 3 and factor 2"});
  expect_all(error_of([] { upcast(L("(3,4):(1,3)"), 2); }), {"upcast((3,4):(1,3), 2)", "shape 3"});
  expect_all(error_of([] { downcast(L("4:2"), 2); }), {"downcast(4:2, 2)", "no stride-1 mode"});
  expect_all(error_of([] { upcast(L("4:1"), 0); }), {"factor 0 must be positive"});
}

TEST(RuntimeErrors, MalformedLayouts) {
  expect_all(error_of([] { Layout(tuple(0, 2), tuple(1, 1)); }), {"non-positive extent 0"});
  expect_all(error_of([] { L("(2,-3):(1,2)"); }), {"non-positive extent -3"});
  expect_all(error_of([] { Layout(tuple(2, 3), 1); }), {"not congruent"});
  expect_all(error_of([] { L("(2,3"); }), {"column 5", "expected ')'"});
  expect_all(error_of([] { L("(2,3):(1,2) x"); }), {"column 13", "trailing"});
  expect_all(error_of([] { L("99999999999999999999:1"); }), {"overflow"});
  expect_all(error_of([] { print_layout(L("(2,2,2):(1,2,4)")); }), {"rank 1 or 2"});
}

TEST(RuntimeErrors, IntegerOverflowIsRefused) {
  // 2^40 * 2^40 elements do not fit in 64 bits.
  expect_all(error_of([] { size(L("(1099511627776,1099511627776):(1,1)")); }), {"integer overflow"});
  // 4:(2^62) o 4:4: the stride 2^64 does not fit.
  expect_all(error_of([] { composition(L("4:4611686018427387904"), L("4:4")); }),
             {"composition(4:4611686018427387904, 4:4)", "integer overflow"});
}

TEST(RuntimeErrors, InversesAndVectors) {
  expect_all(error_of([] { left_inverse(L("(2,2):(1,1)")); }), {"left_inverse((2,2):(1,1))", "not injective"});
  // right_inverse((3,3,2):(1,6,3)) = (3,2,3):(1,9,3)... whose composition with A fails.
  expect_all(error_of([] { max_common_vector(L("(3,3,2):(3,1,9)"), L("(3,2,3):(1,9,3)")); }),
             {"max_common_vector((3,3,2):(3,1,9), (3,2,3):(1,9,3))", "divisibility"});
}
