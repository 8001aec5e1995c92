// The front door's f16 grouped kernels (front_door.hpp's grouped_gemm): 128 x 128 and 128 x 256
// cooperative tiles on the grouped scheduler, B K-major and N-major.
#include "sm90_ops.cuh"

namespace tessel::gemm::front_door {
std::vector<GroupedOp> grouped_ops_f16() { return make_grouped_ops<half_t>(); }
}  // namespace tessel::gemm::front_door
