#include "core/selection.hpp"

#include <algorithm>
#include <set>

#include "core/glob.hpp"

namespace tessel::prof {

OperandSet operands_of(const KernelDescription& k) { return {k.a, k.b, k.c, k.d}; }

std::vector<KernelDescription> select_kernels(const std::vector<KernelDescription>& all, const Options& o,
                                              const std::vector<std::string>& catalogue) {
  std::vector<std::string> names;
  for (const auto& k : all) names.push_back(k.name);
  const auto chosen = select_names(names, o.kernels, o.ignore_kernels, catalogue);
  std::vector<KernelDescription> out;
  for (const auto& k : all) {
    if (std::find(chosen.begin(), chosen.end(), k.name) == chosen.end()) continue;
    if (o.a.matches(k.a) && o.b.matches(k.b) && o.c.matches(k.c) && o.d.matches(k.d)) out.push_back(k);
  }
  return out;
}

std::vector<OperandSet> operand_sets(const std::vector<KernelDescription>& kernels) {
  std::vector<OperandSet> out;
  for (const auto& k : kernels) {
    const OperandSet s = operands_of(k);
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

OperandSet operands_from_filters(const Options& o) {
  OperandSet s;
  s.a = {o.a.element.value_or(Element::kF16), o.a.layout.value_or(Layout::kRow)};
  s.b = {o.b.element.value_or(s.a.element), o.b.layout.value_or(Layout::kColumn)};
  // An FP8 GEMM writes a wider type: bf16, as cuBLASLt's FP8 matmul and tessel's FP8 kernels do.
  s.c = {o.c.element.value_or(is_fp8(s.a.element) ? Element::kBF16 : s.a.element), o.c.layout.value_or(Layout::kColumn)};
  s.d = {o.d.element.value_or(s.c.element), o.d.layout.value_or(s.c.layout)};
  return s;
}

std::string no_operand_match_sentence(const std::vector<KernelDescription>& by_name, const Options& o) {
  std::string s = "no selected kernel takes --A=" + to_string(o.a) + " --B=" + to_string(o.b) + " --C=" +
                  to_string(o.c) + " --D=" + to_string(o.d);
  std::set<std::string> offered;
  for (const auto& k : by_name) offered.insert(to_string(k.a) + " " + to_string(k.b) + " " + to_string(k.c));
  if (offered.empty()) return s;
  s += "; the selected kernels take (A B C):";
  int shown = 0;
  for (const auto& x : offered) {
    if (shown++ == 6) {
      s += " ...";
      break;
    }
    s += " [" + x + "]";
  }
  return s;
}

}  // namespace tessel::prof
