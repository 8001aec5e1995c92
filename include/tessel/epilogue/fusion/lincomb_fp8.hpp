#pragma once
// The FP8 training epilogue: bias, GELU, the activation's amax, and the scaled cast to FP8, in
// one pass over the accumulators (the delayed-scaling recipe).
//
//   Z = alpha * acc + beta * C + bias[col]
//   Y = gelu(Z)
//   *ptr_amax = max(*ptr_amax, max |Y|)            over the whole output, before the scale
//   D = cast_fp8(scale_d * Y)                       saturating: |D| <= 448 for e4m3
//
// The amax is of Y, not of scale_d * Y: the next step's scale is derived from it
// (scale = 448 / amax for e4m3, with a margin), so it must not depend on the scale it replaces.
// *ptr_amax must be 0 before the launch; the kernel only raises it (exactly: see reduce_ops.hpp).
// scale_d, like alpha and beta, may be read from device memory (ptr_scale_d), where the
// training loop updates it without a host round trip.
//
// Example, e4m3: alpha = 1, beta = 0, bias = 0.5 at the column, scale_d = 100, acc = 1.5:
//   Z = 2, Y = gelu(2) = 1.95450, D = cast(195.450) = 192 (e4m3 spacing is 16 there),
//   and the amax becomes at least 1.95450.

#include <cstdint>
#include <string>

#include "tessel/epilogue/fusion/lincomb.hpp"
#include "tessel/epilogue/fusion/scalar_reduction.hpp"

namespace tessel::epilogue::fusion {

#if TESSEL_HAS_CUDA_FP8 && TESSEL_HAS_CUDA_FP16
template <class ElementC = bfloat16_t, class ElementBias = ElementC, class ElementD = float_e4m3_t, class Gelu = GeluErf>
struct LinCombBiasGeluAmaxFp8 {
  static_assert(std::is_same_v<ElementD, float_e4m3_t> || std::is_same_v<ElementD, float_e5m2_t>,
                "LinCombBiasGeluAmaxFp8 writes FP8: ElementD is float_e4m3_t or float_e5m2_t");
  using ElementOutput = ElementD;
  using GeluForm = Gelu;  // GeluErf or GeluTanh
  using PreActivation = Add<detail::LinComb<ElementC>, RowBroadcast<ElementBias>>;
  using Tree = Convert<ElementD, Multiply<Scalar, Amax<Activation<Gelu, PreActivation>>>>;
  struct Arguments {
    float alpha = 1.f;
    float const* ptr_alpha = nullptr;
    float beta = 0.f;
    float const* ptr_beta = nullptr;
    ElementC const* ptr_C = nullptr;
    std::int64_t ldc = 0;
    std::int64_t batch_stride_C = 0;
    ElementBias const* ptr_bias = nullptr;
    std::int64_t batch_stride_bias = 0;
    float scale_d = 1.f;
    float const* ptr_scale_d = nullptr;  // overrides scale_d when set
    float* ptr_amax = nullptr;           // one float, 0 before the launch
  };
  using Params = typename Tree::Params;
  using Callbacks = typename Tree::Callbacks;

  static typename Tree::Arguments tree_arguments(Arguments const& a) {
    typename PreActivation::Arguments z{
        .first = detail::lincomb_arguments<ElementC>(a), .second = detail::bias_arguments<ElementBias>(a), .fn = {}};
    return {.first = {.value = a.scale_d, .ptr = a.ptr_scale_d}, .second = {.child = {.first = z, .fn = {}}, .ptr = a.ptr_amax}, .fn = {}};
  }
  static Params to_params(Arguments const& a) { return Tree::to_params(tree_arguments(a)); }
  static StatusInfo can_implement(Arguments const& a, int m, int n, int l) {
    if (auto s = detail::check_bias(a, name()); !s.ok()) return s;
    if (a.ptr_amax == nullptr) {
      return {Status::kErrorInvalidProblem,
              "amax pointer is null: " + name() +
                  " writes the absolute maximum of gelu(...) before scale_d to one float; pass ptr_amax, set to 0 before the launch"};
    }
    return Tree::can_implement(tree_arguments(a), m, n, l);
  }
  static std::string name() {
    return "lincomb_bias_" + detail::functor_name<Gelu>() + "_amax_" + detail::element_tag<ElementD>();
  }
};
#endif

}  // namespace tessel::epilogue::fusion
