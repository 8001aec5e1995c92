// Split in two translation units so the sweep compiles on two cores at once.
#include "layout_properties.hpp"

TEST(LayoutProperties, RandomStaticLayoutsSeeds24To47) {
  tessel::test::check_seeds<24>(std::make_integer_sequence<unsigned, 24>{});
}
