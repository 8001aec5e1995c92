// Split in two translation units so the sweep compiles on two cores at once.
#include "layout_crosscheck.hpp"

TEST(LayoutCrossCheck, StaticAndRuntimeAgreeSeeds100To119) {
  tessel::test::crosscheck_seeds<100>(std::make_integer_sequence<unsigned, 20>{});
}
