// The compile-time algebra against published answers: CuTe's layout-algebra document and the
// seed lesson. Expected strings are copied from those documents, not from this code's output.

#include <gtest/gtest.h>

#include "tessel/layout.hpp"

using namespace tessel;

namespace {
template <int... N> constexpr auto S() { return make_shape(Int<N>{}...); }
}  // namespace

TEST(LayoutBasics, StaticLayoutIsEmptyAndEvaluatesEveryCoordinateForm) {
  auto L = make_layout(make_shape(_4{}, make_shape(_2{}, _3{})), make_stride(_2{}, make_stride(_1{}, _8{})));
  static_assert(std::is_empty_v<decltype(L)>);
  static_assert(decltype(L(_5{}))::value == 3);  // static coordinate in, static index out
  EXPECT_EQ(L(5), 3);
  EXPECT_EQ(L(1, 1), 3);
  EXPECT_EQ(L(make_coord(1, make_coord(1, 0))), 3);
  EXPECT_EQ(int(size(L)), 24);
  EXPECT_EQ(int(cosize(L)), 3 * 2 + 1 + 2 * 8 + 1);
  EXPECT_EQ(int(rank(L)), 2);
  EXPECT_EQ(int(depth(L)), 2);
  EXPECT_EQ(to_string(layout<1>(L)), "(_2,_3):(_1,_8)");
  EXPECT_EQ(to_string(layout<1, 1>(L)), "_3:_8");
  EXPECT_EQ(to_string(shape<1>(L)), "(_2,_3)");
  EXPECT_EQ(to_string(stride<1, 0>(L)), "_1");
  EXPECT_EQ(to_string(flatten(L)), "(_4,_2,_3):(_2,_1,_8)");
  EXPECT_EQ(to_string(select<1, 0>(L)), "((_2,_3),_4):((_1,_8),_2)");
  EXPECT_EQ(to_string(append(make_layout(_4{}, _1{}), make_layout(_2{}, _4{}))), "(_4,_2):(_1,_4)");
  EXPECT_EQ(to_string(prepend(make_layout(_4{}, _1{}), make_layout(_2{}, _4{}))), "(_2,_4):(_4,_1)");
  EXPECT_EQ(to_string(group<0, 2>(make_layout(S<2, 3, 4>()))), "((_2,_3),_4):((_1,_2),_6)");
  EXPECT_EQ(to_string(get<1>(L)), "(_2,_3):(_1,_8)");
}

TEST(LayoutBasics, MakeLayoutOrdersAndDynamicIntegersPrintWithoutUnderscore) {
  EXPECT_EQ(to_string(make_layout(S<4, 8>())), "(_4,_8):(_1,_4)");
  EXPECT_EQ(to_string(make_layout(S<4, 8>(), LayoutRight{})), "(_4,_8):(_8,_1)");
  EXPECT_EQ(to_string(make_layout(make_shape(4, 8))), "(4,8):(_1,4)");
  EXPECT_EQ(to_string(make_layout(make_shape(_1{}, 4))), "(_1,4):(_0,_1)");
  auto d = make_layout(make_shape(4, 8), make_stride(8, 1));
  EXPECT_EQ(d(3, 5), 29);
}

TEST(LayoutBasics, Crd2IdxAndIdx2CrdRoundTrip) {
  auto s = make_shape(_4{}, make_shape(_2{}, _3{}));
  auto d = compact_col_major(s);
  for (int i = 0; i < 24; ++i) {
    auto c = idx2crd(i, s);
    EXPECT_EQ(crd2idx(c, s, d), i);
  }
  EXPECT_EQ(to_string(idx2crd(_5{}, make_shape(_2{}, _3{}))), "(_1,_2)");
}

TEST(LayoutBasics, SlicingWithUnderscore) {
  auto L = make_layout(make_shape(_4{}, _8{}), make_stride(_1{}, _4{}));
  EXPECT_EQ(to_string(L(_, 2)), "(_4):(_1)");
  EXPECT_EQ(to_string(L(2, _)), "(_8):(_4)");
  auto [sub, off] = slice_and_offset(make_coord(_, 2), L);
  EXPECT_EQ(off, 8);
  EXPECT_EQ(to_string(sub), "(_4):(_1)");
  auto N = make_layout(make_shape(_2{}, make_shape(_3{}, _4{})));
  EXPECT_EQ(to_string(N(1, make_coord(_, 2))), "(_3):(_2)");
}

// --- CuTe's layout-algebra document -------------------------------------------------------------

TEST(PublishedExamples, Coalesce) {
  auto l = make_layout(make_shape(_2{}, make_shape(_1{}, _6{})), make_stride(_1{}, make_stride(_6{}, _2{})));
  EXPECT_EQ(to_string(coalesce(l)), "_12:_1");
  EXPECT_EQ(to_string(coalesce(l, make_tuple(_1{}, _1{}))), "(_2,_6):(_1,_2)");
  EXPECT_EQ(to_string(coalesce(l, make_tuple(_1{}))), "(_2,(_1,_6)):(_1,(_6,_2))");  // modes past the profile stay
}

TEST(PublishedExamples, Composition) {
  auto a = make_layout(S<6, 2>(), make_stride(_8{}, _2{}));
  auto b = make_layout(S<4, 3>(), make_stride(_3{}, _1{}));
  auto r = composition(a, b);
  EXPECT_EQ(to_string(r), "((_2,_2),_3):((_24,_2),_8)");
  const int published[12] = {0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(r(i), published[i]) << "index " << i;

  EXPECT_EQ(to_string(composition(make_layout(Int<20>{}, _2{}), make_layout(S<5, 4>(), make_stride(_4{}, _1{})))), "(_5,_4):(_8,_2)");
  EXPECT_EQ(to_string(composition(make_layout(S<10, 2>(), make_stride(_16{}, _4{})), make_layout(S<5, 4>(), make_stride(_1{}, _5{})))),
            "(_5,(_2,_2)):(_16,(_80,_4))");
}

TEST(PublishedExamples, ByModeComposition) {
  auto a = make_layout(make_shape(_12{}, make_shape(_4{}, _8{})), make_stride(Int<59>{}, make_stride(Int<13>{}, _1{})));
  auto tiler = make_tuple(make_layout(_3{}, _4{}), make_layout(_8{}, _2{}));
  EXPECT_EQ(to_string(composition(a, tiler)), "(_3,(_2,_4)):(_236,(_26,_1))");
  EXPECT_EQ(to_string(composition(a, make_shape(_3{}, _8{}))), "(_3,(_4,_2)):(_59,(_13,_1))");
}

TEST(PublishedExamples, Complement) {
  EXPECT_EQ(to_string(complement(make_layout(_4{}, _1{}), _24{})), "_6:_4");
  EXPECT_EQ(to_string(complement(make_layout(_6{}, _4{}), _24{})), "_4:_1");
  EXPECT_EQ(to_string(complement(make_layout(S<4, 6>(), make_stride(_1{}, _4{})), _24{})), "_1:_0");
  EXPECT_EQ(to_string(complement(make_layout(_4{}, _2{}), _24{})), "(_2,_3):(_1,_8)");
  EXPECT_EQ(to_string(complement(make_layout(S<2, 4>(), make_stride(_1{}, _6{})), _24{})), "_3:_2");
  EXPECT_EQ(to_string(complement(make_layout(S<2, 2>(), make_stride(_1{}, _6{})), _24{})), "(_3,_2):(_2,_12)");
}

TEST(PublishedExamples, Divide) {
  auto a = make_layout(S<4, 2, 3>(), make_stride(_2{}, _1{}, _8{}));
  EXPECT_EQ(to_string(logical_divide(a, make_layout(_4{}, _2{}))), "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))");

  auto b = make_layout(make_shape(_9{}, make_shape(_4{}, _8{})), make_stride(Int<59>{}, make_stride(Int<13>{}, _1{})));
  auto tiler = make_tuple(make_layout(_3{}, _3{}), make_layout(S<2, 4>(), make_stride(_1{}, _8{})));
  EXPECT_EQ(to_string(logical_divide(b, tiler)), "((_3,_3),((_2,_4),(_2,_2))):((_177,_59),((_13,_2),(_26,_1)))");
  EXPECT_EQ(to_string(zipped_divide(b, tiler)), "((_3,(_2,_4)),(_3,(_2,_2))):((_177,(_13,_2)),(_59,(_26,_1)))");
  EXPECT_EQ(to_string(tiled_divide(b, tiler)), "((_3,(_2,_4)),_3,(_2,_2)):((_177,(_13,_2)),_59,(_26,_1))");
  EXPECT_EQ(to_string(flat_divide(b, tiler)), "(_3,(_2,_4),_3,(_2,_2)):(_177,(_13,_2),_59,(_26,_1))");
}

// Divides whose tiler does not divide A, where (B, B*) does not compose with A: CuTe 4.7's padded
// answers (tests/host/data/cute_answers.txt), which the padded-divide rule of admissibility.hpp
// accepts. The run-time algebra gives the same (layout_cute_answers).
TEST(PublishedExamples, PaddedDivide) {
  auto a = make_layout(S<5, 2>(), make_stride(_2{}, _1{}));
  EXPECT_EQ(to_string(zipped_divide(a, make_layout(_4{}, _1{}))), "(_4,(_2,_2)):(_2,(_8,_1))");
  EXPECT_EQ(to_string(logical_divide(a, _4{})), "(_4,(_2,_2)):(_2,(_8,_1))");
  EXPECT_EQ(to_string(logical_divide(make_layout(S<5, 5>(), make_stride(_5{}, _1{})), make_layout(_4{}, _1{}))),
            "(_4,(_2,_5)):(_5,(_20,_1))");
  EXPECT_EQ(to_string(logical_divide(make_layout(S<4, 2>(), make_stride(_3{}, _4{})), make_layout(_3{}, _1{}))),
            "(_3,(_2,_2)):(_3,(_9,_4))");
  EXPECT_EQ(to_string(logical_divide(make_layout(S<2, 8, 2>(), make_stride(_2{}, _4{}, _1{})), make_layout(_2{}, _3{}))),
            "(_2,(_3,(_3,_2))):(_6,(_2,(_12,_1)))");
  auto b = make_layout(make_shape(_6{}, S<2, 2>(), _3{}), make_stride(_4{}, make_stride(Int<24>{}, Int<24>{}), Int<12>{}));
  EXPECT_EQ(to_string(logical_divide(b, make_layout(_2{}, _4{}))), "(_2,(_4,(_2,_2,_3))):(_16,(_4,(_32,_24,_12)))");
  // A's last mode 1:2 is its extension past its size (coalesce_x keeps it): 128 and 160 are A's.
  EXPECT_EQ(to_string(zipped_divide(make_layout(S<4, 1>(), make_stride(Int<32>{}, _2{})), make_layout(_3{}, _1{}))),
            "(_3,_2):(_32,_96)");
  // tiled and flat divides regroup the same answer; a by-mode tiler pads the mode it divides.
  EXPECT_EQ(to_string(flat_divide(a, make_layout(_4{}, _1{}))), "(_4,_2,_2):(_2,_8,_1)");
  auto c = make_layout(make_shape(S<5, 2>(), _3{}), make_stride(make_stride(_2{}, _1{}), Int<10>{}));
  EXPECT_EQ(to_string(logical_divide(c, make_tuple(_4{}, Underscore{}))), "((_4,(_2,_2)),_3):((_2,(_8,_1)),_10)");
}

TEST(PublishedExamples, Product) {
  auto a = make_layout(S<2, 2>(), make_stride(_4{}, _1{}));
  EXPECT_EQ(to_string(logical_product(a, make_layout(_6{}, _1{}))), "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))");
  auto block = make_layout(S<2, 5>(), make_stride(_5{}, _1{}));
  auto tile = make_layout(S<3, 4>(), make_stride(_1{}, _3{}));
  // The document prints ((_2,_3),(_5,_4)):((_5,_10),(_1,_30)), as CuTe 4.7 does (3.7 coalesced
  // each mode to (_6,(_5,_4)):(_5,(_1,_30))). Mode i pairs the block's mode i with the tiler's:
  auto bp = blocked_product(block, tile);
  EXPECT_EQ(to_string(bp), "((_2,_3),(_5,_4)):((_5,_10),(_1,_30))");
  auto lp = logical_product(block, tile);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 20; ++j) EXPECT_EQ(bp(i, j), lp(make_coord(make_coord(i % 2, j % 5), make_coord(i / 2, j / 5))));
  EXPECT_EQ(to_string(raked_product(block, tile)), "((_3,_2),(_4,_5)):((_10,_5),(_30,_1))");
}

TEST(PublishedExamples, Inverses) {
  auto l = make_layout(S<4, 8>(), make_stride(_8{}, _1{}));
  EXPECT_EQ(to_string(right_inverse(l)), "(_8,_4):(_4,_1)");
  // CuTe 4.7: the odd offsets, outside the image, map to 0.
  EXPECT_EQ(to_string(left_inverse(make_layout(_4{}, _2{}))), "(_2,_4):(_0,_1)");
  EXPECT_EQ(to_string(left_inverse(make_layout(_16{}, _2{}))), "(_2,_16):(_0,_1)");
  EXPECT_EQ(to_string(left_inverse(make_layout(make_shape(_2{}, _2{}), make_stride(_1{}, _3{})))), "(_3,_2):(_1,_2)");
  EXPECT_EQ(to_string(left_inverse(make_layout(make_shape(_2{}, _8{}), make_stride(_2{}, _32{})))), "(_2,_16,_8):(_0,_1,_2)");
  EXPECT_EQ(int(max_common_vector(make_layout(S<4, 8>()), make_layout(S<4, 8>()))), 32);
  EXPECT_EQ(int(max_common_vector(make_layout(S<4, 8>()), make_layout(S<4, 8>(), LayoutRight{}))), 1);
}

TEST(PublishedExamples, TileToShapeAndRecast) {
  EXPECT_EQ(to_string(tile_to_shape(make_layout(S<2, 2>()), S<4, 6>())), "((_2,_2),(_2,_3)):((_1,_4),(_2,_8))");
  EXPECT_EQ(to_string(upcast<2>(make_layout(S<4, 8>()))), "(_2,_8):(_1,_2)");
  EXPECT_EQ(to_string(downcast<2>(make_layout(S<4, 8>()))), "(_8,_8):(_1,_8)");
  EXPECT_EQ(to_string(upcast<8>(make_layout(S<8, 64>(), LayoutRight{}))), "(_8,_8):(_8,_1)");
}

// --- The seed lesson ----------------------------------------------------------------------------

TEST(SeedExamples, ZippedDivideOfRowMajorMatrix) {
  auto mA = make_layout(S<256, 128>(), make_stride(_128{}, _1{}));
  auto zd = zipped_divide(mA, S<16, 16>());
  static_assert(std::is_empty_v<decltype(zd)>);
  EXPECT_EQ(to_string(zd), "((_16,_16),(_16,_8)):((_128,_1),(_2048,_16))");
  EXPECT_EQ(to_string(layout<0>(zd)), "(_16,_16):(_128,_1)");
  EXPECT_EQ(to_string(layout<1>(zd)), "(_16,_8):(_2048,_16)");
  EXPECT_EQ(mA(37, 44), 4780);
  EXPECT_EQ(zd(make_coord(make_coord(5, 12), make_coord(2, 2))), 4780);
}
