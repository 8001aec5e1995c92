// The front door's bf16 grouped kernels (front_door.hpp's grouped_gemm): 128 x 128 and 128 x 256
// cooperative tiles on the grouped scheduler, B K-major and N-major.
#include "sm90_ops.cuh"

namespace tessel::gemm::front_door {
std::vector<GroupedOp> grouped_ops_bf16() { return make_grouped_ops<bfloat16_t>(); }
}  // namespace tessel::gemm::front_door
