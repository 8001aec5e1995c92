// The published examples: CuTe's layout-algebra document and the seed's
// composition and zipped_divide. Expected strings come from those documents
// (or, where a document states only part of an answer, from working its
// definition by hand; the working is in the comment).
#include <gtest/gtest.h>

#include <tessel/layout/runtime.hpp>

#include <vector>

using namespace tessel::rt;

namespace {

Layout L(char const* s) { return layout_from_string(s); }
std::string S(Layout const& l) { return to_string(l); }

}  // namespace

TEST(RuntimeExamples, CoalesceDocument) {
  Layout a = L("(2,(1,6)):(1,(6,2))");
  EXPECT_EQ(S(coalesce(a)), "12:1");
  EXPECT_EQ(S(coalesce(a, tuple(1, 1))), "(2,6):(1,2)");
  EXPECT_EQ(coalesce(a, tuple(1, 1)), make_layout(coalesce(layout(a, 0)), coalesce(layout(a, 1))));
}

TEST(RuntimeExamples, SeedCompositionTwelveIndices) {
  Layout a = L("(6,2):(8,2)");
  Layout b = L("(4,3):(3,1)");
  Layout r = composition(a, b);
  EXPECT_EQ(S(r), "((2,2),3):((24,2),8)");
  // The document's table R(0..11).
  std::vector<std::int64_t> doc = {0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42};
  ASSERT_EQ(size(r), 12);
  for (std::int64_t i = 0; i < 12; ++i) {
    EXPECT_EQ(r(i), doc[static_cast<std::size_t>(i)]) << "i=" << i;
    EXPECT_EQ(r(i), a(b(i))) << "i=" << i;  // the definition, independently
  }
}

TEST(RuntimeExamples, CompositionDocumentExamples) {
  // Example 2: 20:2 o (5,4):(4,1).
  EXPECT_EQ(S(composition(L("20:2"), L("(5,4):(4,1)"))), "(5,4):(8,2)");
  // Example 3, the result CuTe prints with every integer known.
  EXPECT_EQ(S(composition(L("(10,2):(16,4)"), L("(5,4):(1,5)"))), "(5,(2,2)):(16,(80,4))");
  // (3,6,2,8):(w,x,y,z) o 16:9 = (1,2,2,4):(9w,3x,y,z) in the document; the
  // extent-1 mode is coalesced away. Strides chosen so nothing else fuses.
  EXPECT_EQ(S(composition(L("(3,6,2,8):(1,100,1000,10000)"), L("16:9"))), "(2,2,4):(300,1000,10000)");
}

TEST(RuntimeExamples, ByModeComposition) {
  Layout a = L("(12,(4,8)):(59,(13,1))");
  Layout r = composition(a, make_tile(L("3:4"), L("8:2")));
  EXPECT_EQ(S(r), "(3,(2,4)):(236,(26,1))");
  EXPECT_EQ(r, make_layout(composition(layout(a, 0), L("3:4")), composition(layout(a, 1), L("8:2"))));
  // A shape is a tiler of stride-1 layouts.
  EXPECT_EQ(S(composition(a, tiler_from_shape(tuple(3, 8)))), "(3,(4,2)):(59,(13,1))");
}

TEST(RuntimeExamples, ComplementDocument) {
  EXPECT_EQ(S(complement(L("4:1"), 24)), "6:4");
  EXPECT_EQ(S(complement(L("6:4"), 24)), "4:1");
  EXPECT_EQ(S(complement(L("(4,6):(1,4)"), 24)), "1:0");
  EXPECT_EQ(S(complement(L("4:2"), 24)), "(2,3):(1,8)");
  EXPECT_EQ(S(complement(L("(2,4):(1,6)"), 24)), "3:2");
  EXPECT_EQ(S(complement(L("(2,2):(1,6)"), 24)), "(3,2):(2,12)");
  // A shape cotarget (4,6) has size 24: same answer.
  EXPECT_EQ(S(complement(L("(2,2):(1,6)"), tuple(4, 6))), "(3,2):(2,12)");
}

TEST(RuntimeExamples, ComplementShapeCotargetFoldsTheCeiling) {
  // CuTe divides a shape cotarget by the covered extent mode by mode:
  // ceil_div((135,2), 90) = (ceil(135/90), ceil(2/ceil(90/135))) = (2,2),
  // so the repetition count is 4, where ceil(270/90) would give 3.
  // Holes of (3,5):(2,18): 2:1, then 18/6 = 3 at stride 6; extent 90.
  EXPECT_EQ(S(complement(L("(3,5):(2,18)"), tuple(135, 2))), "(2,3,4):(1,6,90)");
  EXPECT_EQ(S(complement(L("(3,5):(2,18)"), 270)), "(2,3,3):(1,6,90)");
}

TEST(RuntimeExamples, LogicalDivideOneD) {
  // B* = complement(4:2, 24) = (2,3):(1,8); (B,B*) = (4,(2,3)):(2,(1,8)).
  EXPECT_EQ(S(complement(L("4:2"), tuple(4, 2, 3))), "(2,3):(1,8)");
  EXPECT_EQ(S(logical_divide(L("(4,2,3):(2,1,8)"), L("4:2"))), "((2,2),(2,3)):((4,1),(2,8))");
}

TEST(RuntimeExamples, LogicalDivideTwoD) {
  Layout a = L("(9,(4,8)):(59,(13,1))");
  Tiler t = make_tile(L("3:3"), L("(2,4):(1,8)"));
  // Mode 0: 9:59 / 3:3, B* = complement(3:3, 9) = 3:1 -> (3,3):(177,59).
  // Mode 1: (4,8):(13,1) / (2,4):(1,8), B* = 4:2 -> ((2,4),(2,2)):((13,2),(26,1)).
  Layout ld = logical_divide(a, t);
  EXPECT_EQ(S(ld), "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  // "the first mode of each mode is the sublayout (3,(2,4)):(177,(13,2))".
  Layout zd = zipped_divide(a, t);
  EXPECT_EQ(S(layout(zd, 0)), "(3,(2,4)):(177,(13,2))");
  EXPECT_EQ(layout(zd, 0), composition(a, t));
  // "((TileM,TileN), (RestM,RestN)) with shape ((3,8), (3,4))".
  EXPECT_EQ(size(layout(zd, {0, 0})), 3);
  EXPECT_EQ(size(layout(zd, {0, 1})), 8);
  EXPECT_EQ(size(layout(zd, {1, 0})), 3);
  EXPECT_EQ(size(layout(zd, {1, 1})), 4);
}

TEST(RuntimeExamples, SeedZippedDivide) {
  Layout ma = L("(256,128):(128,1)");
  Tiler tile = tiler_from_shape(tuple(16, 16));
  Layout zd = zipped_divide(ma, tile);
  EXPECT_EQ(S(zd), "((16,16),(16,8)):((128,1),(2048,16))");
  EXPECT_EQ(S(logical_divide(ma, tile)), "((16,16),(16,8)):((128,2048),(1,16))");
  EXPECT_EQ(S(tiled_divide(ma, tile)), "((16,16),16,8):((128,1),2048,16)");
  EXPECT_EQ(S(flat_divide(ma, tile)), "(16,16,16,8):(128,1,2048,16)");
  EXPECT_EQ(S(zipped_divide(ma, make_tile(L("16:1"), L("16:1")))), S(zd));

  // Tiled index gate: all 32768 elements against the hand formula.
  int ok = 0;
  for (int tr = 0; tr < 16; ++tr)
    for (int tc = 0; tc < 8; ++tc)
      for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) {
          auto idx = zd(make_coord(make_coord(r, c), make_coord(tr, tc)));
          ok += idx == tr * 2048 + r * 128 + tc * 16 + c;
        }
  EXPECT_EQ(ok, 32768);
  // Divide identity gate: the tile mode is the composition with the tiler.
  Layout tile0 = layout(zd, 0), comp = composition(ma, tile);
  int same = 0;
  for (int i = 0; i < 256; ++i) same += tile0(i) == comp(i);
  EXPECT_EQ(same, 256);
  // The seed's element (37,44): tile (2,2), in-tile (5,12), index 4780.
  EXPECT_EQ(ma(37, 44), 4780);
  EXPECT_EQ(zd(make_coord(make_coord(5, 12), make_coord(2, 2))), 4780);
}

TEST(RuntimeExamples, LogicalProductOneD) {
  // A* = complement((2,2):(4,1), 24) = (2,3):(2,8); A* o 6:1 = (2,3):(2,8).
  EXPECT_EQ(S(logical_product(L("(2,2):(4,1)"), L("6:1"))), "((2,2),(2,3)):((4,1),(2,8))");
  // B = (4,2):(2,1): cosize 8, A* = complement(A, 32) = (2,4):(2,8);
  // A* o 4:2 = 4:8 and A* o 2:1 = 2:2.
  EXPECT_EQ(S(logical_product(L("(2,2):(4,1)"), L("(4,2):(2,1)"))), "((2,2),(4,2)):((4,1),(8,2))");
}

TEST(RuntimeExamples, BlockedAndRakedProducts) {
  // A 2x5 row-major block tiled 3x4 column-major. Element (r,c) sits at
  // (r%2)*5 + (c%5) + 10*((r/2) + 3*(c/5)): rows step 5, columns 1 then 30.
  Layout blocked = blocked_product(L("(2,5):(5,1)"), L("(3,4):(1,3)"));
  // CuTe 4.7 pairs the modes without coalescing (3.7: (6,(5,4)):(5,(1,30)), the same function).
  EXPECT_EQ(S(blocked), "((2,3),(5,4)):((5,10),(1,30))");
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 20; ++c) EXPECT_EQ(blocked(r, c), (r % 2) * 5 + (c % 5) + 10 * ((r / 2) + 3 * (c / 5)));
  // Raked: the tile coordinate varies fastest.
  Layout raked = raked_product(L("(2,5):(5,1)"), L("(3,4):(1,3)"));
  EXPECT_EQ(S(raked), "((3,2),(4,5)):((10,5),(30,1))");
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 20; ++c) EXPECT_EQ(raked(r, c), (r / 3) * 5 + (c / 4) + 10 * ((r % 3) + 3 * (c % 4)));
}

TEST(RuntimeExamples, ZippedTiledFlatProducts) {
  // logical_product by mode: ((M,TileM),(N,TileN)) -> zipped ((M,N),(TileM,TileN)).
  Layout a = L("(2,5):(5,1)");
  Tiler t = make_tile(L("3:1"), L("4:1"));
  Layout lp = logical_product(a, t);
  // complement(2:5, 2*3=6): hole 5:1, covered 10, rest ceil(6/10)=1 -> 5:1; 5:1 o 3:1 = 3:1.
  // Mode 1: 5:1 x 4:1: complement(5:1, 20) = 4:5; 4:5 o 4:1 = 4:5.
  EXPECT_EQ(S(lp), "((2,3),(5,4)):((5,1),(1,5))");
  EXPECT_EQ(S(zipped_product(a, t)), "((2,5),(3,4)):((5,1),(1,5))");
  EXPECT_EQ(S(tiled_product(a, t)), "((2,5),3,4):((5,1),1,5)");
  EXPECT_EQ(S(flat_product(a, t)), "(2,5,3,4):(5,1,1,5)");
}

TEST(RuntimeExamples, InversesAndVectors) {
  // (4,2):(2,1): index 1 is coordinate (0,1), 1-D position 4; index 2 is (1,0), position 1.
  EXPECT_EQ(S(right_inverse(L("(4,2):(2,1)"))), "(2,4):(4,1)");
  // left_inverse(4:2): the hole 2:1 of complement(4:2) maps to 0 (CuTe 4.7), then 4 at 1.
  EXPECT_EQ(S(left_inverse(L("4:2"))), "(2,4):(0,1)");
  EXPECT_EQ(S(left_inverse(L("16:2"))), "(2,16):(0,1)");
  // CuTe 4.7's construction: a hole between modes is read as the previous mode's coordinate.
  EXPECT_EQ(S(left_inverse(L("(2,2):(1,3)"))), "(3,2):(1,2)");   // L reaches 0,1,3,4
  EXPECT_EQ(S(left_inverse(L("(2,8):(2,32)"))), "(2,16,8):(0,1,2)");
  EXPECT_EQ(S(left_inverse(L("(8,8):(32,1)"))), "(32,8):(8,1)");
  EXPECT_EQ(S(right_inverse(L("4:2"))), "1:0");  // no stride-1 mode
  EXPECT_EQ(max_common_vector(L("(4,8):(1,4)"), L("(4,8):(1,16)")), 4);
  EXPECT_EQ(max_common_vector(L("(4,8):(1,4)"), L("(4,8):(1,4)")), 32);
  EXPECT_EQ(max_common_vector(L("(4,8):(8,1)"), L("(4,8):(1,4)")), 1);
  EXPECT_EQ(S(max_common_layout(L("(4,8):(1,4)"), L("(4,8):(1,16)"))), "4:1");
}

TEST(RuntimeExamples, CastsAndTileToShape) {
  // Two narrow elements per wide one: the stride-1 mode halves, strides halve.
  EXPECT_EQ(S(upcast(L("(4,8):(1,4)"), 2)), "(2,8):(1,2)");
  EXPECT_EQ(S(downcast(L("(2,8):(1,2)"), 2)), "(4,8):(1,4)");
  EXPECT_EQ(S(upcast(L("(4,8):(0,4)"), 4)), "(4,8):(0,1)");
  // 2x2 blocks, repeated 2x3 column-major: block (i,j) starts at 4*(i + 2j).
  EXPECT_EQ(S(tile_to_shape(L("(2,2):(1,2)"), tuple(4, 6))), "((2,2),(2,3)):((1,4),(2,8))");
  // Repeated row-major: block (i,j) starts at 4*(3i + j); columns fuse to 6:2.
  EXPECT_EQ(S(tile_to_shape(L("(2,2):(1,2)"), tuple(4, 6), LayoutRight{})), "((2,2),6):((1,12),2)");
}
