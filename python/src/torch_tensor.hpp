#pragma once
// A PyTorch tensor's description read from the tensor itself, without a DLPack export.
//
// An export (Tensor.__dlpack__) is a Python-level method that checks the tensor, allocates a
// DLManagedTensor and wraps it in a capsule: several microseconds per operand, more than the
// kernel launch, on a call whose host cost must stay below torch.matmul's. The fields read here
// are exactly those the export would carry (data pointer with the storage offset, dtype,
// device, sizes, strides in elements), so both paths describe a tensor identically; a test
// compares them (python/tests/test_gemm_gpu.py).
#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>

namespace tessel::py {

namespace nb = nanobind;

struct TensorView {
  void* data = nullptr;
  std::string dtype;         // "float16", "bfloat16", "float32", ... as DLPack's names read
  int device_type = 0;       // DLPack's: 1 CPU, 2 CUDA
  std::string device_name;   // "cpu", "cuda", "mps", ...
  int device_id = 0;
  int ndim = 0;
  std::int64_t shape[2] = {0, 0}, strides[2] = {0, 0};
};

// kRead: `out` holds the tensor. kNotTorch: not a torch.Tensor, or one this path cannot read
// (the caller falls back to DLPack). kRefused: a tensor no DLPack consumer may take (it needs
// autograd, or is a negated or conjugated view), with the reason in `why` ("requires grad").
// No Python error is left set.
enum class TorchRead { kRead, kNotTorch, kRefused };
TorchRead read_torch_tensor(nb::handle obj, TensorView& out, std::string& why);

// Is `obj` a torch.Tensor (PyTorch imported by someone, never by this)?
bool is_torch_tensor(nb::handle obj);

}  // namespace tessel::py
