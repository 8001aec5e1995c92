// Hostile operands of the run-time algebra that used to crash it or leave it inconsistent with
// its own readers: each now has an answer or an Error that says what is wrong.
#include <gtest/gtest.h>

#include <tessel/layout/runtime.hpp>

#include <string>

using namespace tessel::rt;

namespace {

Layout L(char const* s) { return layout_from_string(s); }

}  // namespace

// One element of B touches only A(0) = 0, whatever its stride. Against a multi-mode A, a
// negative stride on such a mode used to reach the stride walk of compose_mode, which divided by
// zero (SIGFPE: logical_divide((1,5,1):(1,1,8), 1:-3)) or built the shape (-2,0) and refused it.
TEST(RuntimeHostile, OneElementWithANegativeStrideComposes) {
  EXPECT_EQ(to_string(composition(L("(2,5):(1,3)"), L("1:-1"))), "1:0");
  EXPECT_EQ(to_string(composition(L("(2,5):(1,3)"), L("1:-3"))), "1:0");
  EXPECT_EQ(to_string(composition(L("(2,5):(1,3)"), L("(4,1):(1,-3)"))), "((2,2),1):((1,3),0)");
  EXPECT_EQ(to_string(logical_divide(L("(1,5,1):(1,1,8)"), L("1:-3"))), "(1,5):(0,1)");
  for (std::int64_t d = -9; d <= 9; ++d) {
    Layout r = composition(L("(3,4,5):(1,7,40)"), Layout(1, d));
    EXPECT_EQ(size(r), 1);
    EXPECT_EQ(r(0), 0) << d;
  }
}

// Every reader of layouts stops at kMaxNesting levels, so a layout may not be deeper: one that
// was (make_layout(L) applied 65 times) printed as text its own reader refused.
TEST(RuntimeHostile, NoLayoutIsDeeperThanItsTextCanBeRead) {
  Layout l(1, 0);
  for (int k = 0; k < kMaxNesting; ++k) l = make_layout(l);
  EXPECT_EQ(depth(l), kMaxNesting);
  EXPECT_EQ(layout_from_string(to_string(l)), l);  // the deepest layout reads back
  try {
    make_layout(l);
    ADD_FAILURE() << "a layout " << kMaxNesting + 1 << " levels deep was made";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("nested 65 levels deep, more than the 64 levels a layout may have"), std::string::npos)
        << e.what();
  }
}

// A divide has at least size(A) elements (A padded otherwise). The complement's covering check
// rounds size(M) / size(filter(B)) down, and with a stride of B that is no multiple of the extent
// below it that let through a divide of 2095104 elements for an A of 2097151: 2047 of A left out.
TEST(RuntimeHostile, ADivideNeverLeavesElementsOfAOut) {
  try {
    Layout r = logical_divide(L("2097151:4294967296"), L("(256,(12)):(2,(16383))"));
    ADD_FAILURE() << "a divide of " << size(r) << " elements for an A of 2097151: " << to_string(r);
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("has 2095104 elements, fewer than the 2097151 of A"), std::string::npos) << e.what();
  }
}
