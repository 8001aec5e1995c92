// Split in two translation units so the sweep compiles on two cores at once.
#include "layout_properties.hpp"

TEST(LayoutProperties, RandomStaticLayoutsSeeds0To23) {
  tessel::test::check_seeds<0>(std::make_integer_sequence<unsigned, 24>{});
}
