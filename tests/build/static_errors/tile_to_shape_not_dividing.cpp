// Must not compile: a block of 3 rows cannot tile 8 rows.
#include "tessel/layout.hpp"
using namespace tessel;
int main() {
  auto block = make_layout(make_shape(_3{}, _2{}));
  return int(size(tile_to_shape(block, make_shape(_8{}, _4{}))));
}
