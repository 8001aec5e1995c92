#pragma once
// Tensor = an iterator (a pointer into global, shared or register memory) + a layout.
//
//   auto gA = make_tensor(make_gmem_ptr(A), make_layout(make_shape(M, K), LayoutRight{}));  // (M,K)
//   auto tile = local_tile(gA, make_shape(_128{}, _32{}), make_coord(blockIdx.x, _));      // (128,32,k)
//   auto mine = local_partition(tile, make_layout(make_shape(_32{}, _4{})), threadIdx.x);  // (4,8,k)
//
// Indexing with a full coordinate returns a reference; a coordinate holding `_` returns the
// sub-tensor (a view), with the fixed part folded into the iterator.

#include "swizzle.hpp"

namespace tessel {

// ---- Iterators tagged with their memory space -------------------------------------------------

struct gmem_tag {};
struct smem_tag {};
struct rmem_tag {};

template <class T, class Space>
struct tagged_ptr {
  using value_type = std::remove_cv_t<T>;
  using space = Space;
  T* ptr;
  TESSEL_HD constexpr T& operator[](long long i) const { return ptr[i]; }
  TESSEL_HD constexpr T& operator*() const { return *ptr; }
  TESSEL_HD constexpr tagged_ptr operator+(long long i) const { return {ptr + i}; }
  TESSEL_HD constexpr T* get() const { return ptr; }
};

template <class T> TESSEL_HD constexpr auto make_gmem_ptr(T* p) { return tagged_ptr<T, gmem_tag>{p}; }
template <class T> TESSEL_HD constexpr auto make_smem_ptr(T* p) { return tagged_ptr<T, smem_tag>{p}; }
template <class T> TESSEL_HD constexpr auto make_rmem_ptr(T* p) { return tagged_ptr<T, rmem_tag>{p}; }

template <class It> struct iterator_value { using type = std::remove_cv_t<std::remove_reference_t<decltype(*std::declval<It>())>>; };

/// Owning storage for register tensors: N elements held by value.
template <class T, std::size_t N>
struct ArrayEngine {
  T storage[N];
  TESSEL_HD constexpr auto begin() { return make_rmem_ptr(storage); }
  TESSEL_HD constexpr auto begin() const { return make_rmem_ptr(static_cast<T const*>(storage)); }
};

template <class Engine, class L>
struct Tensor;

template <class T> struct is_tensor : std::false_type {};
template <class E, class L> struct is_tensor<Tensor<E, L>> : std::true_type {};

template <class It, class L>
TESSEL_HD constexpr auto make_tensor(It const& it, L const& l);

template <class Engine, class L>
struct Tensor {
  [[no_unique_address]] Engine engine_;
  [[no_unique_address]] L layout_;

  TESSEL_HD constexpr auto data() const {
    if constexpr (requires(Engine const& e) { e.begin(); }) return engine_.begin();
    else return engine_;
  }
  TESSEL_HD constexpr auto data() {
    if constexpr (requires(Engine& e) { e.begin(); }) return engine_.begin();
    else return engine_;
  }
  TESSEL_HD constexpr L const& layout() const { return layout_; }
  TESSEL_HD constexpr auto shape() const { return layout_.shape(); }
  TESSEL_HD constexpr auto size() const { return tessel::size(layout_); }

  template <class Coord>
  TESSEL_HD constexpr decltype(auto) operator()(Coord const& c) {
    if constexpr (has_underscore<Coord>()) {
      auto [sub, off] = slice_and_offset(c, layout_);
      return make_tensor(data() + off, sub);
    } else {
      return data()[layout_(c)];
    }
  }
  template <class Coord>
  TESSEL_HD constexpr decltype(auto) operator()(Coord const& c) const {
    if constexpr (has_underscore<Coord>()) {
      auto [sub, off] = slice_and_offset(c, layout_);
      return make_tensor(data() + off, sub);
    } else {
      return data()[layout_(c)];
    }
  }
  template <class C0, class C1, class... Cs>
  TESSEL_HD constexpr decltype(auto) operator()(C0 const& c0, C1 const& c1, Cs const&... cs) {
    return operator()(make_tuple(c0, c1, cs...));
  }
  template <class C0, class C1, class... Cs>
  TESSEL_HD constexpr decltype(auto) operator()(C0 const& c0, C1 const& c1, Cs const&... cs) const {
    return operator()(make_tuple(c0, c1, cs...));
  }
  template <Integral I>
  TESSEL_HD constexpr decltype(auto) operator[](I const& i) { return data()[layout_(i)]; }
  template <Integral I>
  TESSEL_HD constexpr decltype(auto) operator[](I const& i) const { return data()[layout_(i)]; }
};

/// A view: iterator + layout. A raw pointer is taken as it is.
template <class It, class L>
TESSEL_HD constexpr auto make_tensor(It const& it, L const& l) {
  return Tensor<It, L>{it, l};
}
template <class It, IntTuple S, IntTuple D>
TESSEL_HD constexpr auto make_tensor(It const& it, S const& s, D const& d) {
  return make_tensor(it, make_layout(s, d));
}
/// An owning register tensor of static layout l.
template <class T, class L>
TESSEL_HD constexpr auto make_tensor(L const& l) {
  static_assert(is_static_v<L>, "make_tensor<T>(layout): an owning tensor needs a static layout");
  constexpr std::size_t n = std::size_t(decltype(cosize(l))::value);
  return Tensor<ArrayEngine<T, n>, L>{{}, l};
}
/// A compact owning tensor with the shape of t's layout.
template <class T, class E, class L>
TESSEL_HD constexpr auto make_fragment_like(Tensor<E, L> const& t) {
  return make_tensor<T>(make_layout(t.shape()));
}

template <class E, class L> TESSEL_HD constexpr auto size(Tensor<E, L> const& t) { return size(t.layout()); }
template <int... I, class E, class L> TESSEL_HD constexpr auto shape(Tensor<E, L> const& t) { return shape<I...>(t.layout()); }
template <int... I, class E, class L> TESSEL_HD constexpr auto layout(Tensor<E, L> const& t) { return layout<I...>(t.layout()); }

template <class T>
concept TensorType = is_tensor<std::remove_cvref_t<T>>::value;

/// Tensor versions of the divides keep the tensor's iterator (and its constness) and divide its layout.
template <TensorType T, class Tiler>
TESSEL_HD constexpr auto zipped_divide(T&& t, Tiler const& tiler) {
  return make_tensor(t.data(), zipped_divide(t.layout(), tiler));
}

/// The tile of `tensor` at tile-grid coordinate `coord` (which may hold `_` to keep a mode of
/// tiles): zipped_divide(tensor, tiler)((_,_,...), coord).
///   gA (M,K), tiler (BM,BK), coord (m,_)  ->  (BM,BK,k)
template <TensorType T, class Tiler, class Coord>
TESSEL_HD constexpr auto local_tile(T&& t, Tiler const& tiler, Coord const& coord) {
  auto z = zipped_divide(t, tiler);
  constexpr std::size_t R0 = std::size_t(rank_v<decltype(shape<0>(z.layout()))>);
  constexpr std::size_t R1 = std::size_t(rank_v<decltype(shape<1>(z.layout()))>);
  if constexpr (Tuple<Coord>) return z(repeat<R0>(Underscore{}), append<R1>(coord, Underscore{}));
  else return z(repeat<R0>(Underscore{}), coord);
}

/// Take coordinate `coord` inside every tile: the elements one thread owns when threads are
/// laid out as the tiler. zipped_divide(tensor, tiler)(coord, (_,_,...)).
template <TensorType T, class Tiler, class Coord>
TESSEL_HD constexpr auto outer_partition(T&& t, Tiler const& tiler, Coord const& coord) {
  auto z = zipped_divide(t, tiler);
  constexpr std::size_t R1 = std::size_t(rank_v<decltype(shape<1>(z.layout()))>);
  return z(coord, repeat<R1>(Underscore{}));
}

/// The part of `tensor` owned by thread `idx` of the thread layout: thread idx sits at the
/// coordinate whose image under thr_layout is idx, and takes that coordinate in every tile.
///   tile (128,32), threads (32,4):(4,1), idx 5  ->  (4,8) elements starting at (1,1)
template <TensorType T, class TS, class TD, Integral Idx>
TESSEL_HD constexpr auto local_partition(T&& t, Layout<TS, TD> const& thr, Idx const& idx) {
  return outer_partition(t, product_each(thr.shape()), idx2crd(idx, thr.shape(), thr.stride()));
}

}  // namespace tessel
