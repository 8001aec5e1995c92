// Split in two translation units so the sweep compiles on two cores at once.
#include "layout_crosscheck.hpp"

TEST(LayoutCrossCheck, StaticAndRuntimeAgreeSeeds120To139) {
  tessel::test::crosscheck_seeds<120>(std::make_integer_sequence<unsigned, 20>{});
}
