// IntTuple, Layout construction, evaluation, slicing and printing.
#include <gtest/gtest.h>

#include <tessel/layout/runtime.hpp>

using namespace tessel::rt;

namespace {
Layout L(char const* s) { return layout_from_string(s); }
}  // namespace

TEST(RuntimeBasics, IntTupleShapeQueries) {
  IntTuple t = tuple(tuple(2, 2), 8);
  EXPECT_EQ(to_string(t), "((2,2),8)");
  EXPECT_EQ(rank(t), 2);
  EXPECT_EQ(depth(t), 2);
  EXPECT_EQ(size(t), 32);
  EXPECT_EQ(to_string(flatten(t)), "(2,2,8)");
  EXPECT_EQ(rank(IntTuple(8)), 1);
  EXPECT_EQ(depth(IntTuple(8)), 0);
  // A leaf and a rank-1 tuple are different values.
  EXPECT_NE(IntTuple(8), tuple(8));
  EXPECT_EQ(to_string(tuple(8)), "(8)");
  EXPECT_EQ(int_tuple_from_string(" ( (2 ,2), 8 ) "), t);
  EXPECT_TRUE(congruent(t, tuple(tuple(1, 16), 2)));
  EXPECT_FALSE(congruent(t, tuple(4, 8)));
  EXPECT_TRUE(compatible(tuple(4, 8), t));
  EXPECT_FALSE(compatible(t, tuple(4, 8)));
}

TEST(RuntimeBasics, MakeLayout) {
  EXPECT_EQ(to_string(make_layout(tuple(4, tuple(2, 3)))), "(4,(2,3)):(1,(4,8))");
  EXPECT_EQ(to_string(make_layout(tuple(4, tuple(2, 3)), LayoutRight{})), "(4,(2,3)):(6,(3,1))");
  // Extent-1 modes never move: stride 0.
  EXPECT_EQ(to_string(make_layout(tuple(2, 1, 3))), "(2,1,3):(1,0,2)");
  EXPECT_EQ(to_string(make_layout(8)), "8:1");
  EXPECT_EQ(to_string(make_layout(L("4:1"), L("(2,3):(4,8)"))), "(4,(2,3)):(1,(4,8))");
  EXPECT_EQ(to_string(make_layout(L("4:1"))), "(4):(1)");
  EXPECT_EQ(to_string(L("(2,3)")), "(2,3):(1,2)");
}

TEST(RuntimeBasics, Accessors) {
  Layout l = L("((2,2),8):((1,16),2)");
  EXPECT_EQ(to_string(l), "((2,2),8):((1,16),2)");
  EXPECT_EQ(size(l), 32);
  EXPECT_EQ(cosize(l), 1 + 16 + 14 + 1);
  EXPECT_EQ(rank(l), 2);
  EXPECT_EQ(depth(l), 2);
  EXPECT_EQ(to_string(shape(l, 0)), "(2,2)");
  EXPECT_EQ(to_string(stride(l, 1)), "2");
  EXPECT_EQ(to_string(layout(l, 0)), "(2,2):(1,16)");
  EXPECT_EQ(to_string(layout(l, {0, 1})), "2:16");
  EXPECT_EQ(to_string(layout(L("8:1"), 0)), "8:1");  // mode 0 of a leaf layout is itself
  EXPECT_EQ(to_string(select(l, {1, 0})), "(8,(2,2)):(2,(1,16))");
  EXPECT_EQ(to_string(flatten(l)), "(2,2,8):(1,16,2)");
  EXPECT_EQ(to_string(append(l)), "((2,2),8,1):((1,16),2,0)");
  EXPECT_EQ(to_string(prepend(l, L("3:64"))), "(3,(2,2),8):(64,(1,16),2)");
  EXPECT_EQ(to_string(group(L("(2,3,4,5):(1,2,6,24)"), 1, 3)), "(2,(3,4),5):(1,(2,6),24)");
  EXPECT_EQ(to_string(take(L("(2,3,4):(1,2,6)"), 1, 3)), "(3,4):(2,6)");
  EXPECT_EQ(to_string(append_to_rank(L("8:1"), 3)), "(8,1,1):(1,0,0)");
}

TEST(RuntimeBasics, EvaluationWithEveryKindOfCoordinate) {
  Layout l = L("((2,2),8):((1,16),2)");
  // Hierarchical: ((1,0),3) -> 1*1 + 0*16 + 3*2 = 7.
  EXPECT_EQ(l(make_coord(make_coord(1, 0), 3)), 7);
  // 2-D with a 1-D coordinate into the nested mode: mode 0 index 1 is (1,0).
  EXPECT_EQ(l(1, 3), 7);
  // 1-D: 5 = 1 + 4*1 -> mode 0 index 1, mode 1 index 1 -> 1 + 2 = 3.
  EXPECT_EQ(l(5), 3);
  // Every 1-D coordinate agrees with its natural coordinate.
  for (std::int64_t i = 0; i < size(l); ++i) EXPECT_EQ(l(idx2crd(i, l.shape)), l(i));
  EXPECT_EQ(to_string(idx2crd(5, l.shape)), "((1,0),1)");
  EXPECT_EQ(crd2idx(make_coord(make_coord(1, 0), 1), l.shape), 5);
  EXPECT_EQ(crd2idx(make_coord(make_coord(1, 0), 3), l.shape, l.stride), 7);
}

TEST(RuntimeBasics, Slicing) {
  Layout l = L("(4,8):(1,4)");
  EXPECT_EQ(to_string(slice(make_coord(_, 2), l)), "(4):(1)");
  EXPECT_EQ(to_string(slice(make_coord(1, _), l)), "(8):(4)");
  auto [sub, offset] = slice_and_offset(make_coord(_, 2), l);
  EXPECT_EQ(to_string(sub), "(4):(1)");
  EXPECT_EQ(offset, 8);
  Layout h = L("(4,(2,8)):(16,(1,2))");
  // `_` keeps whole modes; integers drop theirs; the kept modes are spliced.
  EXPECT_EQ(to_string(slice(make_coord(_, make_coord(1, _)), h)), "(4,8):(16,2)");
  EXPECT_EQ(slice_and_offset(make_coord(_, make_coord(1, _)), h).second, 1);
  EXPECT_EQ(to_string(slice(make_coord(_, _), h)), "(4,(2,8)):(16,(1,2))");
  EXPECT_EQ(to_string(slice(_, h)), to_string(h));
}

TEST(RuntimeBasics, PrintLayoutTable) {
  std::string want =
      "(2,3):(3,1)\n"
      "     0   1   2\n"
      "   +---+---+---+\n"
      "0  | 0 | 1 | 2 |\n"
      "   +---+---+---+\n"
      "1  | 3 | 4 | 5 |\n"
      "   +---+---+---+\n";
  EXPECT_EQ(print_layout(L("(2,3):(3,1)")), want);
  // Wider numbers widen every cell; a rank-1 layout is one column.
  std::string col =
      "3:10\n"
      "      0\n"
      "   +----+\n"
      "0  |  0 |\n"
      "   +----+\n"
      "1  | 10 |\n"
      "   +----+\n"
      "2  | 20 |\n"
      "   +----+\n";
  EXPECT_EQ(print_layout(L("3:10")), col);
}
