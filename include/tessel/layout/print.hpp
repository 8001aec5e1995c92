#pragma once
// Printing in CuTe notation: static integers carry a leading underscore, dynamic ones do not.
//   ((_16,_16),(_16,_8)):((_128,_1),(_2048,_16))     (4,8):(_1,4)
// print() works in host and device code (through printf); to_string() and operator<< are host only.

#include <cstdio>
#if !defined(__CUDACC_RTC__)
#include <ostream>
#include <string>
#endif

#include "layout.hpp"

namespace tessel {

namespace detail {
// Sinks decouple the formatting from where the characters go.
struct PrintfSink {
  TESSEL_HD void text(char const* s) { printf("%s", s); }
  TESSEL_HD void number(long long v) { printf("%lld", v); }
};
#if !defined(__CUDACC_RTC__)
struct StringSink {
  std::string out;
  void text(char const* s) { out += s; }
  void number(long long v) { out += std::to_string(v); }
};
#endif

TESSEL_NO_HD_CHECK
template <class Sink, class T>
TESSEL_HD void format(Sink& sink, T const& t);

TESSEL_NO_HD_CHECK
template <class Sink, class T, std::size_t... I>
TESSEL_HD void format_elements(Sink& sink, T const& t, std::index_sequence<I...>) {
  ((I == 0 ? void() : sink.text(","), format(sink, get<I>(t))), ...);
}

TESSEL_NO_HD_CHECK
template <class Sink, class T>
TESSEL_HD void format(Sink& sink, T const& t) {
  if constexpr (LayoutType<T>) {
    format(sink, t.shape());
    sink.text(":");
    format(sink, t.stride());
  } else if constexpr (Tuple<T>) {
    sink.text("(");
    format_elements(sink, t, make_seq<tuple_size_v<T>>{});
    sink.text(")");
  } else if constexpr (std::is_same_v<T, Underscore>) {
    sink.text("_");
  } else if constexpr (StaticIntegral<T>) {
    sink.text("_");
    sink.number((long long)T::value);
  } else {
    sink.number((long long)t);
  }
}
}  // namespace detail

/// Print an integer, IntTuple or layout in CuTe notation.
template <class T>
  requires(Integral<T> || Tuple<T> || LayoutType<T> || std::is_same_v<T, Underscore>)
TESSEL_HD void print(T const& t) {
  detail::PrintfSink sink;
  detail::format(sink, t);
}

#if !defined(__CUDACC_RTC__)
template <class T>
  requires(Integral<T> || Tuple<T> || LayoutType<T> || std::is_same_v<T, Underscore>)
std::string to_string(T const& t) {
  detail::StringSink sink;
  detail::format(sink, t);
  return sink.out;
}

template <class S, class D>
std::ostream& operator<<(std::ostream& os, Layout<S, D> const& l) {
  return os << to_string(l);
}

/// A rank-2 layout as a table: row m, column n holds L(m, n).
template <class S, class D>
std::string layout_table(Layout<S, D> const& l) {
  static_assert(rank_v<S> == 2, "print_layout: the layout must have rank 2");
  long long rows = size<0>(l), cols = size<1>(l);
  long long widest = 1;
  for (long long m = 0; m < rows; ++m)
    for (long long n = 0; n < cols; ++n) widest = std::max<long long>(widest, (long long)std::to_string((long long)l(m, n)).size());
  int w = int(std::max<long long>(widest, (long long)std::to_string(cols - 1).size()));
  std::string out = to_string(l) + "\n";
  auto pad = [&](std::string v, int width) { return std::string(std::size_t(width) - std::min<std::size_t>(v.size(), width), ' ') + v; };
  int rw = int(std::to_string(rows - 1).size());
  std::string rule = std::string(std::size_t(rw) + 2, ' ');
  for (long long n = 0; n < cols; ++n) rule += "+" + std::string(std::size_t(w) + 2, '-');
  rule += "+\n";
  out += std::string(std::size_t(rw) + 2, ' ');
  for (long long n = 0; n < cols; ++n) out += "  " + pad(std::to_string(n), w) + " ";
  out += "\n";
  for (long long m = 0; m < rows; ++m) {
    out += rule + pad(std::to_string(m), rw) + "  ";
    for (long long n = 0; n < cols; ++n) out += "| " + pad(std::to_string((long long)l(m, n)), w) + " ";
    out += "|\n";
  }
  return out + rule;
}

/// Draw a rank-2 layout as a table of indices on stdout.
template <class S, class D>
void print_layout(Layout<S, D> const& l) {
  std::fputs(layout_table(l).c_str(), stdout);
}
#endif

}  // namespace tessel
