// Must not compile: stride 3 of B neither divides nor is divided by extent 4 of A's first mode,
// and B's 4 elements 0,3,6,9 leave that mode (CuTe 4.7 answers (2,2):(12,1), whose indices
// 0,12,1,13 are not A(3j) = 0,12,9,6). Under CuTe 4.7's weaker rule a stride that does not
// divide is admissible only while B fits inside the mode: (6,2):(2,1) o 2:4 = 2:8 compiles.
#include "tessel/layout.hpp"
using namespace tessel;
int main() {
  auto a = make_layout(make_shape(_4{}, _4{}), make_stride(_4{}, _1{}));
  auto b = make_layout(_4{}, _3{});
  return int(size(composition(a, b)));
}
