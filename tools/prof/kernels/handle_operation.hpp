#pragma once
// The GemmOperation around one device handle, shared by every kernel family. A family supplies an
// adaptor with three static functions:
//   describe()  the KernelDescription read off the handle's types;
//   check(a)    what the family refuses before the handle sees the arguments (a Status that says
//               why, so the profiler lists the kernel with its reason instead of dropping it);
//   convert(a)  the untyped arguments as the handle's typed Arguments.

#include <climits>
#include <memory>
#include <string>
#include <utility>

#include "kernels/registry.hpp"

namespace tessel::prof::kernels {

template <class Gemm, class Adaptor>
class HandleOperation final : public GemmOperation {
 public:
  HandleOperation() : desc_(Adaptor::describe()) {}

  const KernelDescription& description() const override { return desc_; }

  StatusInfo can_implement(const GemmArguments& args) const override {
    if (auto s = Adaptor::check(args); !s.ok()) return s;
    return Gemm::can_implement(Adaptor::convert(args));
  }

  std::size_t workspace_size(const GemmArguments& args) const override {
    if constexpr (requires { Gemm::get_workspace_size(Adaptor::convert(args)); }) {
      return Gemm::get_workspace_size(Adaptor::convert(args));
    } else {
      return 0;
    }
  }

  StatusInfo initialize(const GemmArguments& args, void* workspace, cudaStream_t stream,
                        std::unique_ptr<GemmLaunch>& launch) const override {
    launch.reset();
    if (StatusInfo s = Adaptor::check(args); !s.ok()) return s;
    auto prepared = std::make_unique<Launch>();
    auto const typed = Adaptor::convert(args);
    auto init = [&]() -> StatusInfo {
      if constexpr (requires { prepared->gemm.initialize(typed, workspace, stream); })
        return prepared->gemm.initialize(typed, workspace, stream);
      else
        return prepared->gemm.initialize(typed);
    };
    if (StatusInfo s = init(); !s.ok()) return s;
    launch = std::move(prepared);
    return {};
  }

 private:
  struct Launch final : GemmLaunch {
    Gemm gemm;
    StatusInfo run(cudaStream_t stream) override { return gemm.run(stream); }
  };

  KernelDescription desc_;
};

/// The refusals the 2.x-style handles share: one matrix per launch, int extents, and one raster
/// order (`refused`, explained by `why`). `handle` names the handle in the batch sentence.
inline StatusInfo check_single_matrix_launch(const GemmArguments& a, const char* handle, Raster refused, const char* why) {
  if (a.shape.batch != 1) {
    return {Status::kErrorNotSupported,
            "batch " + std::to_string(a.shape.batch) + ": " + handle + " computes one matrix per launch; pass --batch=1"};
  }
  if (a.raster == refused) return {Status::kErrorNotSupported, why};
  if (a.shape.m > INT_MAX || a.shape.n > INT_MAX || a.shape.k > INT_MAX || a.swizzle > INT_MAX) {
    return {Status::kErrorInvalidProblem, "an extent above 2^31 - 1: the handle takes int problem sizes"};
  }
  return {};
}

}  // namespace tessel::prof::kernels
