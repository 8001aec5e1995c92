// Prints the seed's divide; the test checks the text.
#include <cstdio>

#include "tessel/layout.hpp"

int main() {
  using namespace tessel;
  auto zd = zipped_divide(make_layout(make_shape(_256{}, _128{}), LayoutRight{}), make_shape(_16{}, _16{}));
  std::printf("%s\n", to_string(zd).c_str());
  return 0;
}
