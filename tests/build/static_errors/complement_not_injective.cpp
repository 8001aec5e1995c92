// Must not compile: (2,2):(1,1) maps two coordinates to index 1.
#include "tessel/layout.hpp"
using namespace tessel;
int main() {
  auto a = make_layout(make_shape(_2{}, _2{}), make_stride(_1{}, _1{}));
  return int(size(complement(a, _16{})));
}
