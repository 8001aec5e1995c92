// The front door's f16 Hopper kernels: every tile of hopper_tiles.def, plain and with each activation, and the cluster twins.
#include "sm90_ops.cuh"

namespace tessel::gemm::front_door {
std::vector<Sm90Op> sm90_ops_f16(Activation act) { return make_sm90_ops<half_t>(act); }
std::vector<Sm90Op> sm90_twin_ops_f16(Activation act) { return make_sm90_ops<half_t, true>(act); }
}  // namespace tessel::gemm::front_door
