#include "core/types.hpp"

namespace tessel::prof {

std::string_view to_string(Element e) {
  switch (e) {
    case Element::kF16: return "f16";
    case Element::kBF16: return "bf16";
    case Element::kF32: return "f32";
    case Element::kE4M3: return "e4m3";
    case Element::kE5M2: return "e5m2";
  }
  return "?";
}

std::string_view to_string(Epilogue e) {
  switch (e) {
    case Epilogue::kLinearCombination: return "linear_combination";
    case Epilogue::kBiasGeluAmax: return "bias_gelu_amax";
    case Epilogue::kBiasGeluTanhAmax: return "bias_gelu_tanh_amax";
  }
  return "?";
}

std::string_view to_string(Layout l) { return l == Layout::kRow ? "row" : "column"; }

int size_bytes(Element e) { return e == Element::kF32 ? 4 : is_fp8(e) ? 1 : 2; }

bool is_fp8(Element e) { return e == Element::kE4M3 || e == Element::kE5M2; }

std::optional<Element> parse_element(std::string_view t) {
  if (t == "f16" || t == "fp16" || t == "half") return Element::kF16;
  if (t == "bf16" || t == "bfloat16") return Element::kBF16;
  if (t == "f32" || t == "fp32" || t == "float") return Element::kF32;
  if (t == "e4m3" || t == "fe4m3" || t == "float_e4m3") return Element::kE4M3;
  if (t == "e5m2" || t == "fe5m2" || t == "float_e5m2") return Element::kE5M2;
  return std::nullopt;
}

std::optional<Layout> parse_layout(std::string_view t) {
  if (t == "row") return Layout::kRow;
  if (t == "column" || t == "col") return Layout::kColumn;
  return std::nullopt;
}

std::string to_string(const Operand& op) {
  return std::string(to_string(op.element)) + ":" + std::string(to_string(op.layout));
}

std::string to_string(const OperandFilter& f) {
  if (!f.element && !f.layout) return "*";
  std::string out = f.element ? std::string(to_string(*f.element)) : "*";
  out += ":";
  out += f.layout ? std::string(to_string(*f.layout)) : "*";
  return out;
}

std::string to_string(const Extent3& e) {
  return std::to_string(e.m) + "x" + std::to_string(e.n) + "x" + std::to_string(e.k);
}

}  // namespace tessel::prof
