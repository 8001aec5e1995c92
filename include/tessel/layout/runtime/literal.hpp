#pragma once
// Reading CuTe notation back: "((2,2),8)" as an IntTuple, "((2,2),8):((1,16),2)"
// as a Layout. Handy for tests and for tools that take layouts as text.
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

#include "layout.hpp"

namespace tessel::rt {

namespace detail {

class LiteralReader {
 public:
  explicit LiteralReader(std::string_view s) : s_(s) {}

  IntTuple read_tuple(int depth = 0) {
    if (depth > kMaxNesting) fail("nesting deeper than " + std::to_string(kMaxNesting) + " levels");
    skip();
    if (peek() == '(') {
      ++i_;
      std::vector<IntTuple> elems{read_tuple(depth + 1)};
      skip();
      while (peek() == ',') {
        ++i_;
        elems.push_back(read_tuple(depth + 1));
        skip();
      }
      expect(')');
      return IntTuple::tuple(std::move(elems));
    }
    return read_int();
  }

  void expect(char c) {
    skip();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }

  void finish() {
    skip();
    if (i_ != s_.size()) fail("unexpected trailing text");
  }

  bool at(char c) {
    skip();
    return peek() == c;
  }

 private:
  std::int64_t read_int() {
    skip();
    bool neg = false;
    if (peek() == '-') {
      neg = true;
      ++i_;
    }
    if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected an integer or '('");
    std::int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      v = add(mul(v, 10), neg ? -(s_[i_] - '0') : (s_[i_] - '0'));
      ++i_;
    }
    return v;
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  [[noreturn]] void fail(std::string const& what) const {
    throw Error("cannot read \"" + std::string(s_) + "\" at column " + std::to_string(i_ + 1) + ": " + what);
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace detail

// Example: int_tuple_from_string("((2,2),8)") == tuple(tuple(2,2),8).
inline IntTuple int_tuple_from_string(std::string_view s) {
  detail::LiteralReader r(s);
  IntTuple t = r.read_tuple();
  r.finish();
  return t;
}

// Example: layout_from_string("(4,2):(2,1)"). A shape without ":stride" gets
// compact column-major strides, as make_layout(shape) does.
inline Layout layout_from_string(std::string_view s) {
  detail::LiteralReader r(s);
  IntTuple shape = r.read_tuple();
  if (!r.at(':')) {
    r.finish();
    return make_layout(shape);
  }
  r.expect(':');
  IntTuple stride = r.read_tuple();
  r.finish();
  return Layout(shape, stride);
}

}  // namespace tessel::rt
