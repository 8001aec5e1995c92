// Must not compile: a rank-3 tiler on a rank-2 layout.
#include "tessel/layout.hpp"
using namespace tessel;
int main() {
  auto a = make_layout(make_shape(_8{}, _8{}));
  return int(size(logical_divide(a, make_shape(_2{}, _2{}, _2{}))));
}
