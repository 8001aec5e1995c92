// Must not compile: B takes 6 elements from A's first mode of size 4, and 4 does not divide 6.
#include "tessel/layout.hpp"
using namespace tessel;
int main() {
  auto a = make_layout(make_shape(_4{}, _3{}), make_stride(_2{}, _16{}));
  auto b = make_layout(_6{}, _1{});
  return int(size(composition(a, b)));
}
