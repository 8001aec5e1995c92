// Must not compile: the tiler 8:16 is larger than A = (2,4):(4,1), so the divide's rest mode reads
// A(0..15) with A's last mode extended, and A(8..15) = 4..11 reaches 4..7 a second time, though A
// reaches each of its offsets once (CuTe 4.7 answers (8,(2,8)):(8,(4,1)) all the same). A tiler
// no larger than A compiles: zipped_divide(a, 4:2) is (4,2):(1,4).
#include "tessel/layout.hpp"
using namespace tessel;
int main() {
  auto a = make_layout(make_shape(_2{}, _4{}), make_stride(_4{}, _1{}));
  auto b = make_layout(_8{}, C<16>{});
  return int(size(zipped_divide(a, b)));
}
