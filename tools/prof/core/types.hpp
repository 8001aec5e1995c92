#pragma once
// Element types, matrix layouts and epilogues as run-time values: what a kernel description
// records, what `--A=bf16:row` asks for, and what the CSV and JSON spell. The spellings are
// CUTLASS's, short ("e4m3", not "fe4m3", though both parse).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessel::prof {

enum class Element { kF16, kBF16, kF32, kE4M3, kE5M2 };
enum class Layout { kRow, kColumn };

std::string_view to_string(Element e);  // "f16", "bf16", "f32", "e4m3", "e5m2"
std::string_view to_string(Layout l);   // "row", "column"
int size_bytes(Element e);
bool is_fp8(Element e);

std::optional<Element> parse_element(std::string_view text);  // also accepts "fp16", "half", "fe4m3", ...
std::optional<Layout> parse_layout(std::string_view text);    // "row", "column" or "col"

/// One matrix operand: its element type and layout, "bf16:row".
struct Operand {
  Element element = Element::kF16;
  Layout layout = Layout::kColumn;
  friend bool operator==(const Operand&, const Operand&) = default;
};
std::string to_string(const Operand& op);

/// What `--A=...` asks for: either part may be left open ("bf16", "*:row", "*").
struct OperandFilter {
  std::optional<Element> element;
  std::optional<Layout> layout;
  bool matches(const Operand& op) const {
    return (!element || *element == op.element) && (!layout || *layout == op.layout);
  }
  bool complete() const { return element && layout; }
  friend bool operator==(const OperandFilter&, const OperandFilter&) = default;
};
std::string to_string(const OperandFilter& f);  // "bf16:row", "bf16:*", "*"

/// What a kernel's epilogue computes from the accumulators (acc) of D = A B; C's type is bf16
/// where D is FP8. The bias holds one bf16 value per row of the column-major D (M values):
/// D(i, j) uses bias[i], as cuBLASLt's bias epilogue does.
enum class Epilogue {
  kLinearCombination,  // D = alpha acc + beta C
  kBiasGeluAmax,       // Y = gelu(alpha acc + beta C + bias), GELU with erf (PyTorch's default);
                       // *amax = max |Y|; D = fp8(scale_d Y), saturating
  kBiasGeluTanhAmax,   // the same with GELU's tanh form (approximate="tanh")
};
/// "linear_combination", "bias_gelu_amax", "bias_gelu_tanh_amax": kernel names end in "_" and
/// this before the layout, except for the linear combination, which adds nothing.
std::string_view to_string(Epilogue e);

/// A tile or cluster extent, M x N x K.
struct Extent3 {
  int m = 0, n = 0, k = 0;
  friend bool operator==(const Extent3&, const Extent3&) = default;
};
std::string to_string(const Extent3& e);  // "128x128x32"

}  // namespace tessel::prof
