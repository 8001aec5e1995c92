#pragma once
// tessel::tuple: a tuple usable in device code whose static members occupy no storage.
//
// A member of empty type (a static integer, a tuple of them, a static layout) is not stored:
// it is rebuilt by default construction when read. Hence a tuple of static integers is itself
// an empty type, which is what lets a fully static Layout cost nothing to pass to a kernel.

#include <cstddef>
#include <type_traits>
#include <utility>

#include "config.hpp"

namespace tessel {

namespace detail {

template <std::size_t I, class T, bool Empty = std::is_empty_v<T>>
struct tuple_leaf {
  T value_;
  TESSEL_HD constexpr tuple_leaf() : value_() {}
  TESSEL_HD constexpr tuple_leaf(T const& v) : value_(v) {}
  TESSEL_HD constexpr T const& get() const { return value_; }
  TESSEL_HD constexpr T& get() { return value_; }
};

// Empty members are rebuilt on demand; distinct I keep the leaves distinct empty bases.
template <std::size_t I, class T>
struct tuple_leaf<I, T, true> {
  TESSEL_HD constexpr tuple_leaf() {}
  TESSEL_HD constexpr tuple_leaf(T const&) {}
  TESSEL_HD constexpr T get() const { return T{}; }
};

template <class Seq, class... T> struct tuple_base;
template <std::size_t... I, class... T>
struct tuple_base<std::index_sequence<I...>, T...> : tuple_leaf<I, T>... {
  TESSEL_HD constexpr tuple_base() {}
  template <class... U>
    requires(sizeof...(U) == sizeof...(T) && sizeof...(T) > 0)
  TESSEL_HD constexpr tuple_base(U const&... t) : tuple_leaf<I, T>(t)... {}
};

template <std::size_t I, class... T> struct type_at;
template <class H, class... T> struct type_at<0, H, T...> { using type = H; };
template <std::size_t I, class H, class... T> struct type_at<I, H, T...> : type_at<I - 1, T...> {};

}  // namespace detail

template <class... T>
struct tuple : detail::tuple_base<std::index_sequence_for<T...>, T...> {
  using base = detail::tuple_base<std::index_sequence_for<T...>, T...>;
  TESSEL_HD constexpr tuple() {}
  template <class... U>
    requires(sizeof...(U) == sizeof...(T) && sizeof...(T) > 0 && (std::is_convertible_v<U const&, T> && ...))
  TESSEL_HD constexpr tuple(U const&... u) : base(T(u)...) {}
};

template <class... T> tuple(T...) -> tuple<T...>;

// ---- Traits -------------------------------------------------------------------------------

template <class T> struct is_tuple : std::false_type {};
template <class... T> struct is_tuple<tuple<T...>> : std::true_type {};

template <class T>
concept Tuple = is_tuple<std::remove_cvref_t<T>>::value;

template <class T> struct tuple_size;
template <class... T> struct tuple_size<tuple<T...>> : std::integral_constant<std::size_t, sizeof...(T)> {};
template <class T> inline constexpr std::size_t tuple_size_v = tuple_size<std::remove_cvref_t<T>>::value;

template <std::size_t I, class T> struct tuple_element;
template <std::size_t I, class... T> struct tuple_element<I, tuple<T...>> : detail::type_at<I, T...> {};
template <std::size_t I, class T> using tuple_element_t = typename tuple_element<I, std::remove_cvref_t<T>>::type;

// ---- Access -------------------------------------------------------------------------------

template <std::size_t I, class... T>
TESSEL_HD constexpr decltype(auto) get(tuple<T...> const& t) {
  static_assert(I < sizeof...(T), "get<I>: index out of range for this tuple");
  using E = typename detail::type_at<I, T...>::type;
  return static_cast<detail::tuple_leaf<I, E> const&>(t).get();
}
template <std::size_t I, class... T>
TESSEL_HD constexpr decltype(auto) get(tuple<T...>& t) {
  static_assert(I < sizeof...(T), "get<I>: index out of range for this tuple");
  using E = typename detail::type_at<I, T...>::type;
  return static_cast<detail::tuple_leaf<I, E>&>(t).get();
}

template <std::size_t I, class... T>
TESSEL_HD constexpr decltype(auto) get(tuple<T...>&& t) {
  static_assert(I < sizeof...(T), "get<I>: index out of range for this tuple");
  using E = typename detail::type_at<I, T...>::type;
  if constexpr (std::is_empty_v<E>) return E{};
  else return static_cast<E&&>(static_cast<detail::tuple_leaf<I, E>&>(t).get());
}

template <class... T>
TESSEL_HD constexpr tuple<T...> make_tuple(T const&... t) { return tuple<T...>(t...); }

}  // namespace tessel

// Structured bindings: auto [a, b] = some_tessel_tuple;
template <class... T>
struct std::tuple_size<tessel::tuple<T...>> : std::integral_constant<std::size_t, sizeof...(T)> {};
template <std::size_t I, class... T>
struct std::tuple_element<I, tessel::tuple<T...>> : tessel::detail::type_at<I, T...> {};
