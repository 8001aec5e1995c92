// The calculator's grammar: what parses to what, and where malformed input is refused.
#include <gtest/gtest.h>

#include <string>

#include "calc/expression.hpp"

using tessel::calc::Node;
using tessel::calc::parse;
using tessel::calc::ParseError;

namespace {

// The column and message of the ParseError text raises.
std::pair<int, std::string> parse_error(std::string const& text) {
  try {
    parse(text);
  } catch (ParseError const& e) {
    return {e.column(), e.what()};
  }
  ADD_FAILURE() << "no ParseError for: " << text;
  return {0, ""};
}

}  // namespace

TEST(CalcParser, LiteralKinds) {
  EXPECT_EQ(parse("8").kind, Node::Kind::Int);
  EXPECT_EQ(parse("-3").value, -3);
  Node shape = parse("(16,16)");
  ASSERT_EQ(shape.kind, Node::Kind::Shape);
  EXPECT_EQ(tessel::rt::to_string(shape.tuple), "(16,16)");
  Node leaf = parse("8:1");
  ASSERT_EQ(leaf.kind, Node::Kind::Layout);
  EXPECT_EQ(tessel::rt::to_string(leaf.layout), "8:1");
  Node nested = parse("((2,2),8):((1,16),2)");
  EXPECT_EQ(tessel::rt::to_string(nested.layout), "((2,2),8):((1,16),2)");
  Node neg = parse("(4,2):(-1,4)");
  EXPECT_EQ(tessel::rt::to_string(neg.layout), "(4,2):(-1,4)");
  Node coord = parse("(_,(3,_))");
  ASSERT_EQ(coord.kind, Node::Kind::Coord);
  EXPECT_EQ(tessel::rt::to_string(coord.coord), "(_,(3,_))");
  EXPECT_EQ(parse("LayoutRight").kind, Node::Kind::Word);
}

TEST(CalcParser, CallsTilersAndWhitespace) {
  Node n = parse(" zipped_divide ( ( 256 , 128 ) : ( 128 , 1 ) ,\t[ 16:1 , 16 ] ) ");
  ASSERT_EQ(n.kind, Node::Kind::Call);
  EXPECT_EQ(n.name, "zipped_divide");
  ASSERT_EQ(n.args.size(), 2u);
  EXPECT_EQ(tessel::rt::to_string(n.args[0].layout), "(256,128):(128,1)");
  ASSERT_EQ(n.args[1].kind, Node::Kind::Tiler);
  ASSERT_EQ(n.args[1].args.size(), 2u);
  EXPECT_EQ(n.args[1].args[0].kind, Node::Kind::Layout);
  EXPECT_EQ(n.args[1].args[1].kind, Node::Kind::Int);
  // Source spans let the tools quote an argument back.
  std::string text = " zipped_divide ( ( 256 , 128 ) : ( 128 , 1 ) ,\t[ 16:1 , 16 ] ) ";
  EXPECT_EQ(n.args[1].begin, text.find('['));
  EXPECT_EQ(n.args[1].end, text.find(']') + 1);
  Node nested = parse("composition(zipped_divide((8,8):(8,1), (2,2)), make_layout(4:1, 2:4))");
  ASSERT_EQ(nested.args.size(), 2u);
  EXPECT_EQ(nested.args[0].name, "zipped_divide");
  EXPECT_EQ(nested.args[1].args.size(), 2u);
  EXPECT_EQ(parse("complement()").args.size(), 0u);
}

TEST(CalcParser, MalformedInputNamesColumnAndExpectation) {
  auto [c1, m1] = parse_error("(2,3");
  EXPECT_EQ(c1, 5);
  EXPECT_NE(m1.find("expected ',' or ')'"), std::string::npos) << m1;
  EXPECT_NE(m1.find("the end of the expression"), std::string::npos) << m1;

  auto [c2, m2] = parse_error("zipped_divide((256,128):(128,1),(16,16]");
  EXPECT_EQ(c2, 39);
  EXPECT_NE(m2.find("found ']'"), std::string::npos) << m2;

  auto [c3, m3] = parse_error("(2,3):(1,(2,3))");
  EXPECT_EQ(c3, 7);
  EXPECT_NE(m3.find("does not have the nesting of the shape"), std::string::npos) << m3;

  auto [c4, m4] = parse_error("8:");
  EXPECT_EQ(c4, 3);
  EXPECT_NE(m4.find("expected an integer"), std::string::npos) << m4;

  auto [c5, m5] = parse_error("");
  EXPECT_EQ(c5, 1);

  auto [c6, m6] = parse_error("8:1 4:1");
  EXPECT_EQ(c6, 5);
  EXPECT_NE(m6.find("expected the end of the expression"), std::string::npos) << m6;

  auto [c7, m7] = parse_error("(2,0):(1,1)");
  EXPECT_EQ(c7, 1);
  EXPECT_NE(m7.find("non-positive extent 0"), std::string::npos) << m7;

  auto [c8, m8] = parse_error("99999999999999999999");
  EXPECT_NE(m8.find("does not fit in 64 bits"), std::string::npos) << m8;

  auto [c9, m9] = parse_error("(2,_):(1,1)");
  EXPECT_NE(m9.find("'_' cannot appear in a layout"), std::string::npos) << m9;

  auto [c10, m10] = parse_error("[]");
  EXPECT_EQ(c10, 2);

  auto [c11, m11] = parse_error("coalesce(8:1,)");
  EXPECT_EQ(c11, 14);

  auto [c12, m12] = parse_error("8x");
  EXPECT_EQ(c12, 2);
}

TEST(CalcParser, DeepNestingIsRefusedNotRecursed) {
  std::string deep(100000, '(');
  auto [c1, m1] = parse_error(deep + "1");
  EXPECT_NE(m1.find("nesting deeper than"), std::string::npos) << m1;
  std::string calls;
  for (int i = 0; i < 100000; ++i) calls += "coalesce(";
  auto [c2, m2] = parse_error(calls + "1");
  EXPECT_NE(m2.find("nesting deeper than"), std::string::npos) << m2;
  std::string brackets(100000, '[');
  auto [c3, m3] = parse_error(brackets);
  EXPECT_NE(m3.find("nesting deeper than"), std::string::npos) << m3;
}
