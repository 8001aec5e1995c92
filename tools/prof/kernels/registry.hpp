#pragma once
// Every kernel compiled into tessel-prof, registered by a static object in its generated
// translation unit (see catalogue.cmake): linking the kernel objects is what registers them.

#include <memory>
#include <string>
#include <vector>

#include "kernels/operation.hpp"

namespace tessel::prof {

class Registry {
 public:
  void add(std::unique_ptr<GemmOperation> op);
  /// Sorted by name (names are built to sort by arch, types, tile, stages, layout).
  std::vector<const GemmOperation*> operations() const;
  const GemmOperation* find(const std::string& name) const;

 private:
  std::vector<std::unique_ptr<GemmOperation>> ops_;
};

Registry& registry();

struct Registrar {
  explicit Registrar(std::unique_ptr<GemmOperation> op) { registry().add(std::move(op)); }
};

/// Every kernel name the catalogue holds, compiled in or not (for sharper messages).
const std::vector<std::string>& catalogue_names();
/// The names the build selected; the registry must hold exactly these.
const std::vector<std::string>& selected_names();

}  // namespace tessel::prof
