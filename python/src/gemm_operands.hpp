#pragma once
// Reading GEMM operands from DLPack (any object with __dlpack__: PyTorch tensors, CuPy arrays,
// JAX arrays) and fitting them to a kernel's layouts.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <optional>

#include "gemm_types.hpp"
#include "torch_tensor.hpp"

namespace tessel::py {

namespace nb = nanobind;

// A 2-D operand as its producer describes it, and which of the two matrix layouts its strides
// allow (both, for a single row or column).
struct Matrix {
  char const* name = "A";
  void* data = nullptr;
  std::optional<Element> element;  // empty: not a type the kernels take
  std::string dtype;               // "float16", "int8", ...
  std::int64_t rows = 0, cols = 0;
  int device_type = 0, device_id = 0;  // DLPack's device type (0: none of DLPack's, see device_name)
  std::string device_name;             // PyTorch's name for the device ("mps") where DLPack has no type
  std::int64_t strides[2] = {0, 0};    // in elements, as given
  bool row_ok = false, col_ok = false;
  std::int64_t ld_row = 0, ld_col = 0;
  bool prefers_row = true;  // when both are allowed, the one its strides spell out
};

// A PyTorch tensor is read directly (torch_tensor.hpp), anything else through DLPack.
// @throws StatusError when the object is not a 2-D array, or its strides are no matrix layout.
Matrix read_matrix(nb::handle obj, char const* name);

// A 2-D operand described by the caller (an output it allocated itself).
Matrix make_matrix(char const* name, void* data, std::string dtype, std::int64_t rows, std::int64_t cols, std::int64_t s0,
                   std::int64_t s1, int device_type, int device_id);

// The description of an operand by one path: "torch" (a tensor read directly) or "dlpack";
// false when that path cannot read the object.
bool describe(nb::handle obj, bool via_torch, TensorView& out);

// The operands after the checks every kernel shares: dimensions, devices, shapes, element types.
// `tf32`: float32 A and B are taken, as Element::tf32 (the TF32 tensor cores); else refused.
struct Operands {
  Matrix a, b, d;
  std::optional<Matrix> c;
  int device = 0;
};
// @throws StatusError
Operands read_operands(nb::handle a, nb::handle b, nb::handle c, nb::handle d, bool tf32 = false);
// The same checks on operands already read. @throws StatusError
Operands check_operands(Matrix a, Matrix b, std::optional<Matrix> c, Matrix d, bool tf32 = false);

// The problem in the layouts (a_row, b_row, c_row) of a kernel: as given, or transposed
// (D^T = B^T A^T), whichever the operands' strides allow; nullopt when neither does.
std::optional<Problem> fit(Operands const& ops, bool a_row, bool b_row, bool c_row);

// The problem in the operands' own layouts with D row-major (transposed when D is not): what
// the automatic kernel choice looks up.
Problem natural(Operands const& ops);

// Whether `p` (D row-major) may run as D^T = B^T A^T with D^T stored column-major
// (Problem::d_column_major): one matrix, no C (its layout would flip too; the Hopper epilogue
// reads C row-major only), not block-scaled (A's and B's scales have different blocks).
bool d_transposable(Problem const& p);
// `p` as D^T = B^T A^T with D^T stored column-major: A and B (pointers, leading dimensions,
// layouts, scales, batch strides) exchanged, M and N too; D's memory and leading dimension stay.
// @pre d_transposable(p)
Problem transpose_d(Problem p);

// "A row-major, B column-major, D row-major" of a problem, for messages.
std::string describe_layouts(bool a_row, bool b_row, bool c_row);

}  // namespace tessel::py
