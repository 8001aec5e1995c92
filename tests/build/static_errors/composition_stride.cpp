// Must not compile: stride 4 of B neither divides nor is divided by size 6 of A's first mode.
#include "tessel/layout.hpp"
using namespace tessel;
int main() {
  auto a = make_layout(make_shape(_6{}, _2{}), make_stride(_2{}, _1{}));
  auto b = make_layout(_2{}, _4{});
  return int(size(composition(a, b)));
}
