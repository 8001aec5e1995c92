// The calculator's evaluator and JSON output, through the library API.
#include <gtest/gtest.h>

#include <string>

#include "calc/expression.hpp"
#include "runtime_testing.hpp"

using tessel::calc::evaluate;
using tessel::calc::to_json;
using tessel::calc::to_text;
using tessel::calc::UsageError;
using tessel::calc::Value;
namespace rt = tessel::rt;

namespace {

std::string eval(std::string const& e) { return to_text(evaluate(e)); }

template <class E>
std::string error_of(std::string const& e) {
  try {
    evaluate(e);
  } catch (E const& x) {
    return x.what();
  }
  ADD_FAILURE() << "no error for: " << e;
  return {};
}

}  // namespace

TEST(CalcEval, SeedExamples) {
  EXPECT_EQ(eval("composition((6,2):(8,2), (4,3):(3,1))"), "((2,2),3):((24,2),8)");
  EXPECT_EQ(eval("zipped_divide((256,128):(128,1), (16,16))"), "((16,16),(16,8)):((128,1),(2048,16))");
  EXPECT_EQ(eval("zipped_divide((256,128):(128,1), [16:1, 16:1])"), "((16,16),(16,8)):((128,1),(2048,16))");
  EXPECT_EQ(eval("zipped_divide((256,128):(128,1), [16, 16])"), "((16,16),(16,8)):((128,1),(2048,16))");
  EXPECT_EQ(eval("tiled_divide((256,128):(128,1), (16,16))"), "((16,16),16,8):((128,1),2048,16)");
  EXPECT_EQ(eval("flat_divide((256,128):(128,1), (16,16))"), "(16,16,16,8):(128,1,2048,16)");
}

TEST(CalcEval, DocumentExamples) {
  EXPECT_EQ(eval("coalesce((2,(1,6)):(1,(6,2)))"), "12:1");
  EXPECT_EQ(eval("coalesce((2,(1,6)):(1,(6,2)), (1,1))"), "(2,6):(1,2)");
  EXPECT_EQ(eval("composition(20:2, (5,4):(4,1))"), "(5,4):(8,2)");
  EXPECT_EQ(eval("composition((12,(4,8)):(59,(13,1)), [3:4, 8:2])"), "(3,(2,4)):(236,(26,1))");
  EXPECT_EQ(eval("composition((12,(4,8)):(59,(13,1)), (3,8))"), "(3,(4,2)):(59,(13,1))");
  EXPECT_EQ(eval("complement(4:2, 24)"), "(2,3):(1,8)");
  EXPECT_EQ(eval("complement((2,2):(1,6), 24)"), "(3,2):(2,12)");
  EXPECT_EQ(eval("complement((2,2):(1,6), (4,6))"), "(3,2):(2,12)");
  EXPECT_EQ(eval("logical_divide((4,2,3):(2,1,8), 4:2)"), "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(eval("logical_product((2,2):(4,1), 6)"), "((2,2),(2,3)):((4,1),(2,8))");
  // CuTe 4.7 pairs the modes without coalescing them (3.7 gave (6,(5,4)):(5,(1,30))).
  EXPECT_EQ(eval("blocked_product((2,5):(5,1), (3,4):(1,3))"), "((2,3),(5,4)):((5,10),(1,30))");
  EXPECT_EQ(eval("raked_product((2,5):(5,1), (3,4):(1,3))"), "((3,2),(4,5)):((10,5),(30,1))");
  // Nested calls: the tile of the seed's divide, composed again.
  EXPECT_EQ(eval("layout(zipped_divide((256,128):(128,1), (16,16)), 0)"), "(16,16):(128,1)");
  EXPECT_EQ(eval("composition(zipped_divide((256,128):(128,1),(16,16)), [(16,16):(1,16), (16,8):(1,16)])"),
            "((16,16),(16,8)):((128,1),(2048,16))");
}

TEST(CalcEval, OtherFunctions) {
  EXPECT_EQ(eval("make_layout(4:1, (2,3):(4,8))"), "(4,(2,3)):(1,(4,8))");
  EXPECT_EQ(eval("make_layout((4,(2,3)))"), "(4,(2,3)):(1,(4,8))");
  EXPECT_EQ(eval("make_layout((4,(2,3)), LayoutRight)"), "(4,(2,3)):(6,(3,1))");
  EXPECT_EQ(eval("make_layout((4,8), (8,1))"), "(4,8):(8,1)");
  EXPECT_EQ(eval("right_inverse((4,2):(2,1))"), "(2,4):(4,1)");
  // CuTe 4.7: odd offsets are outside the image and map to 0 (3.7 gave (2,4):(4,1)).
  EXPECT_EQ(eval("left_inverse(4:2)"), "(2,4):(0,1)");
  EXPECT_EQ(eval("max_common_vector((4,8):(1,4), (4,8):(1,16))"), "4");
  EXPECT_EQ(eval("upcast((4,8):(1,4), 2)"), "(2,8):(1,2)");
  EXPECT_EQ(eval("downcast((2,8):(1,2), 2)"), "(4,8):(1,4)");
  EXPECT_EQ(eval("tile_to_shape((2,2):(1,2), (4,6))"), "((2,2),(2,3)):((1,4),(2,8))");
  EXPECT_EQ(eval("size(((2,2),8):((1,16),2))"), "32");
  EXPECT_EQ(eval("cosize((2,3):(3,1))"), "6");
  EXPECT_EQ(eval("filter((2,3,4):(0,1,3))"), "12:1");
  EXPECT_EQ(eval("slice((4,8):(1,4), (_,2))"), "(4):(1)");
  EXPECT_EQ(eval("crd2idx((1,3), ((2,2),8):((1,16),2))"), "7");
  EXPECT_EQ(eval("idx2crd(5, ((2,2),3):((1,2),4))"), "((1,0),1)");
  EXPECT_EQ(eval("[16:1, 4]"), "[16:1,4]");
}

TEST(CalcEval, BareIntegersInTilers) {
  // composition reads n as n:1; divides read it as make_layout(n), which is
  // n:1 except that make_layout(1) = 1:0. So with n = 1:
  //   composition(8:2, 1) = 1:(1*2) = 1:2
  //   logical_divide(8:2, 1) = 8:2 o (1:0, complement(1:0, 8) = 8:1) = (1,8):(0,2)
  //   logical_divide(8:2, 1:1) = 8:2 o (1:1, 8:1) = (1,8):(2,2)
  EXPECT_EQ(eval("composition(8:2, 1)"), "1:2");
  EXPECT_EQ(eval("logical_divide(8:2, 1)"), "(1,8):(0,2)");
  EXPECT_EQ(eval("logical_divide(8:2, 1:1)"), "(1,8):(2,2)");
  // For n > 1 both readings agree.
  EXPECT_EQ(eval("logical_divide(8:2, 4)"), eval("logical_divide(8:2, 4:1)"));
  EXPECT_EQ(eval("composition(8:2, 4)"), "4:2");
}

TEST(CalcEval, JsonObject) {
  // cosize = 1 + 1*24 + 1*2 + 2*8 = 43; the indices are the document's table.
  EXPECT_EQ(to_json(evaluate("composition((6,2):(8,2), (4,3):(3,1))")),
            "{\"layout\":\"((2,2),3):((24,2),8)\",\"shape\":[[2,2],3],\"stride\":[[24,2],8],\"size\":12,"
            "\"cosize\":43,\"indices\":[0,24,2,26,8,32,10,34,16,40,18,42]}");
  EXPECT_EQ(to_json(evaluate("8:1")),
            "{\"layout\":\"8:1\",\"shape\":8,\"stride\":1,\"size\":8,\"cosize\":8,\"indices\":[0,1,2,3,4,5,6,7]}");
  EXPECT_EQ(to_json(evaluate("size(8:1)")), "{\"value\":8}");
  EXPECT_EQ(to_json(evaluate("idx2crd(5, ((2,2),3):((1,2),4))")), "{\"value\":[[1,0],1]}");
}

TEST(CalcEval, JsonIndicesAgreeWithEvaluation) {
  rt_testing::Gen g(21);
  for (int n = 0; n < 500; ++n) {
    rt::Layout l = g.any(5);
    std::string j = to_json(Value::of_layout(l));
    std::string want = "\"indices\":[";
    for (std::int64_t i = 0; i < rt::size(l); ++i) want += (i ? "," : "") + std::to_string(l(i));
    ASSERT_NE(j.find(want + "]}"), std::string::npos) << rt::to_string(l) << " " << j;
  }
}

TEST(CalcEval, JsonRefusesHugeLayouts) {
  std::string msg;
  try {
    to_json(evaluate("(8192,4096):(1,8192)"));
  } catch (rt::Error const& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("33554432 elements, more than the limit of 16777216"), std::string::npos) << msg;
}

TEST(CalcEval, UsageErrors) {
  EXPECT_NE(error_of<UsageError>("foo(8:1)").find("unknown function 'foo'"), std::string::npos);
  EXPECT_NE(error_of<UsageError>("composition(8:1)").find("takes 2 arguments, got 1"), std::string::npos);
  EXPECT_NE(error_of<UsageError>("complement(8:1, 2, 3)").find("takes 1 to 2 arguments, got 3"), std::string::npos);
  EXPECT_NE(error_of<UsageError>("upcast(8:1, (2,2))").find("argument 2 must be an integer, not a shape (2,2)"),
            std::string::npos);
  EXPECT_NE(error_of<UsageError>("composition((4,4), 2:1)").find("argument 1 must be a layout, not a shape (4,4)"),
            std::string::npos);
  EXPECT_NE(error_of<UsageError>("logical_divide((4,4):(1,4), ((2,2),2))").find("nested"), std::string::npos);
  EXPECT_NE(error_of<UsageError>("logical_divide((4,4):(1,4), [(2,2), 2])").find("tiler element"), std::string::npos);
  EXPECT_NE(error_of<UsageError>("logical_divide((4,4):(1,4), [0, 2])").find("must be positive"), std::string::npos);
  EXPECT_NE(error_of<UsageError>("coalesce").find("unknown name 'coalesce'"), std::string::npos);
  EXPECT_NE(error_of<UsageError>("make_layout((4,8), Sideways)").find("unknown name 'Sideways'"), std::string::npos);
  EXPECT_NE(error_of<UsageError>("  composition(8:1)").find("column 3"), std::string::npos);
}

TEST(CalcEval, AlgebraErrorsPassThrough) {
  std::string m = error_of<rt::Error>("composition((6,2):(8,2), 5:3)");
  EXPECT_NE(m.find("composition((6,2):(8,2), 5:3): shape divisibility fails"), std::string::npos) << m;
  m = error_of<rt::Error>("complement((2,2):(1,1))");
  EXPECT_NE(m.find("not injective"), std::string::npos) << m;
  m = error_of<rt::Error>("logical_divide((4,8):(1,4), [2,2,2])");
  EXPECT_NE(m.find("the tiler has 3 modes but the layout has rank 2"), std::string::npos) << m;
  m = error_of<rt::Error>("crd2idx((1,8), (2,4):(1,2))");
  EXPECT_NE(m.find("coordinate 8 is out of range [0,4)"), std::string::npos) << m;
  m = error_of<rt::Error>("size((1099511627776,1099511627776):(1,1))");
  EXPECT_NE(m.find("integer overflow"), std::string::npos) << m;
  m = error_of<rt::Error>("downcast(4:2, 2)");
  EXPECT_NE(m.find("no stride-1 mode"), std::string::npos) << m;
}
