// Must not compile for sm_75: cp.async is an sm_80 instruction.
#include "tessel/arch/cp_async_sm80.hpp"

__global__ void uses_cp_async(const int4* src) {
  __shared__ int4 tile[32];
  tessel::arch::cp_async_cg_16(&tile[threadIdx.x], &src[threadIdx.x]);
}
