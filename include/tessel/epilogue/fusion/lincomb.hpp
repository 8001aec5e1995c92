#pragma once
// Prebuilt fusions around the linear combination alpha * acc + beta * C, with flat Arguments
// whose fields have names, for the common cases. Each is a tree of the nodes (`Tree`) with the
// same Params and Callbacks; only Arguments, name() and the wording of can_implement are its own.
// The plain linear combination itself, with an optional stateless activation, is not a tree:
// it is epilogue::LinearCombination<D, C, Act> (epilogue/linear_combination.hpp), which meets
// the same contract.
//
//   LinCombBias<D, C, Bias>                  D = alpha * acc + beta * C + bias[col]
//   LinCombActivation<Act, D, C>             D = act(alpha * acc + beta * C)
//   LinCombBiasActivation<Act, D, C, Bias>   D = act(alpha * acc + beta * C + bias[col])
//
// alpha * acc + beta * C is one fused multiply-add; the result is rounded to D once, at the end.
// alpha and beta are values or device pointers (read once per thread); with beta == 0 C is not
// read and ptr_C may be null. The bias runs along N (one value per column of D, the bias of a
// linear layer with features along N), batch_stride_bias = 0 sharing it among batches.
//
// Example: LinCombBiasActivation<ReLU, half_t> with alpha = 2, beta = 0, bias = [1, -9]: an
// accumulator row [3, 4] becomes [relu(6 + 1), relu(8 - 9)] = [7, 0].

#include <cstdint>
#include <string>

#include "tessel/epilogue/fusion/accumulator.hpp"
#include "tessel/epilogue/fusion/activation.hpp"
#include "tessel/epilogue/fusion/broadcast.hpp"
#include "tessel/epilogue/fusion/compute.hpp"
#include "tessel/epilogue/fusion/convert.hpp"
#include "tessel/epilogue/fusion/scalar.hpp"
#include "tessel/epilogue/fusion/source.hpp"

namespace tessel::epilogue::fusion {

namespace detail {
// alpha * acc + beta * C
template <class ElementC>
using LinComb = MultiplyAdd<Scalar, Accumulator, SourceC<ElementC>>;

// The tree arguments of LinComb from any prebuilt's flat Arguments (they share the field names).
template <class ElementC, class A>
typename LinComb<ElementC>::Arguments lincomb_arguments(A const& a) {
  return {.first = {.value = a.alpha, .ptr = a.ptr_alpha},
          .second = {},
          .third = {.beta = a.beta, .ptr_beta = a.ptr_beta, .ptr_C = a.ptr_C, .ldc = a.ldc, .batch_stride_C = a.batch_stride_C},
          .fn = {}};
}

template <class ElementBias, class A>
typename RowBroadcast<ElementBias>::Arguments bias_arguments(A const& a) {
  return {.ptr = a.ptr_bias, .batch_stride = a.batch_stride_bias};
}

// Said before the tree's own checks, which would call the bias a "row broadcast vector".
template <class A>
StatusInfo check_bias(A const& a, std::string_view fusion) {
  if (a.ptr_bias == nullptr) {
    return {Status::kErrorInvalidProblem,
            "bias pointer is null: " + std::string(fusion) +
                " adds a bias of N elements, one per column of D; pass ptr_bias, or use a fusion without bias"};
  }
  return check_vector("bias", a.batch_stride_bias, 0, "N", 1, /*written=*/false);
}
}  // namespace detail

template <class ElementD, class ElementC = ElementD, class ElementBias = ElementD>
struct LinCombBias {
  using ElementOutput = ElementD;
  using Tree = Convert<ElementD, Add<detail::LinComb<ElementC>, RowBroadcast<ElementBias>>>;
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
  };
  using Params = typename Tree::Params;
  using Callbacks = typename Tree::Callbacks;

  static typename Tree::Arguments tree_arguments(Arguments const& a) {
    return {.first = detail::lincomb_arguments<ElementC>(a), .second = detail::bias_arguments<ElementBias>(a), .fn = {}};
  }
  static Params to_params(Arguments const& a) { return Tree::to_params(tree_arguments(a)); }
  static StatusInfo can_implement(Arguments const& a, int m, int n, int l) {
    if (auto s = detail::check_bias(a, name()); !s.ok()) return s;
    return Tree::can_implement(tree_arguments(a), m, n, l);
  }
  static std::string name() { return "lincomb_bias"; }
};

template <class Act, class ElementD, class ElementC = ElementD>
struct LinCombActivation {
  using ElementOutput = ElementD;
  using Tree = Convert<ElementD, Activation<Act, detail::LinComb<ElementC>>>;
  struct Arguments {
    float alpha = 1.f;
    float const* ptr_alpha = nullptr;
    float beta = 0.f;
    float const* ptr_beta = nullptr;
    ElementC const* ptr_C = nullptr;
    std::int64_t ldc = 0;
    std::int64_t batch_stride_C = 0;
    Act act{};  // run-time state of the activation (Clamp's bounds); nothing for the others
  };
  using Params = typename Tree::Params;
  using Callbacks = typename Tree::Callbacks;

  static typename Tree::Arguments tree_arguments(Arguments const& a) {
    return {.first = detail::lincomb_arguments<ElementC>(a), .fn = a.act};
  }
  static Params to_params(Arguments const& a) { return Tree::to_params(tree_arguments(a)); }
  static StatusInfo can_implement(Arguments const& a, int m, int n, int l) { return Tree::can_implement(tree_arguments(a), m, n, l); }
  static std::string name() { return "lincomb_" + detail::functor_name<Act>(); }
};

template <class Act, class ElementD, class ElementC = ElementD, class ElementBias = ElementD>
struct LinCombBiasActivation {
  using ElementOutput = ElementD;
  using Tree = Convert<ElementD, Activation<Act, Add<detail::LinComb<ElementC>, RowBroadcast<ElementBias>>>>;
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
    Act act{};
  };
  using Params = typename Tree::Params;
  using Callbacks = typename Tree::Callbacks;

  static typename Tree::Arguments tree_arguments(Arguments const& a) {
    return {.first = {.first = detail::lincomb_arguments<ElementC>(a), .second = detail::bias_arguments<ElementBias>(a), .fn = {}},
            .fn = a.act};
  }
  static Params to_params(Arguments const& a) { return Tree::to_params(tree_arguments(a)); }
  static StatusInfo can_implement(Arguments const& a, int m, int n, int l) {
    if (auto s = detail::check_bias(a, name()); !s.ok()) return s;
    return Tree::can_implement(tree_arguments(a), m, n, l);
  }
  static std::string name() { return "lincomb_bias_" + detail::functor_name<Act>(); }
};

}  // namespace tessel::epilogue::fusion
