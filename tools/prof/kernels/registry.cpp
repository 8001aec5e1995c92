#include "kernels/registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace tessel::prof {

void Registry::add(std::unique_ptr<GemmOperation> op) {
  if (find(op->description().name) != nullptr) {
    // Two instantiations with one name would make --kernels and --emit-best ambiguous.
    throw std::logic_error("tessel-prof: kernel " + op->description().name + " is registered twice");
  }
  ops_.push_back(std::move(op));
}

std::vector<const GemmOperation*> Registry::operations() const {
  std::vector<const GemmOperation*> out;
  for (const auto& op : ops_) out.push_back(op.get());
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->description().name < b->description().name; });
  return out;
}

const GemmOperation* Registry::find(const std::string& name) const {
  for (const auto& op : ops_)
    if (op->description().name == name) return op.get();
  return nullptr;
}

Registry& registry() {
  static Registry r;  // built on first use, so registration order across files does not matter
  return r;
}

const std::vector<std::string>& catalogue_names() {
  static const std::vector<std::string> names = {
#include "tessel_prof_catalogue_names.inc"
  };
  return names;
}

const std::vector<std::string>& selected_names() {
  static const std::vector<std::string> names = {
#include "tessel_prof_selected_names.inc"
  };
  return names;
}

}  // namespace tessel::prof
