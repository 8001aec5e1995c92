#pragma once
// Parsing calculator expressions into a syntax tree.
#include <string_view>
#include "tessel/layout/runtime/int_tuple.hpp"

#include "tessel/layout/runtime/expression/ast.hpp"
#include <cctype>
#include <string>
#include "tessel/layout/runtime/expression/errors.hpp"

namespace tessel::rt::expr {

// Nesting of parentheses, brackets and calls beyond this is refused rather
// than recursed into: the limit every layout reader shares.
inline constexpr int kMaxNesting = rt::kMaxNesting;

// @throws ParseError naming the column and what was expected.
Node parse(std::string_view text);


// ---- Definitions ----------------------------------------------------------------------
namespace detail {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Node parse_all() {
    Node n = expr(0);
    skip();
    if (i_ != s_.size()) fail("expected the end of the expression but found " + found());
    return n;
  }

 private:
  Node expr(int depth) {
    if (depth > kMaxNesting) fail("nesting deeper than " + std::to_string(kMaxNesting) + " levels");
    skip();
    char c = peek();
    if (c == '[') return tiler(depth);
    if (std::isalpha(static_cast<unsigned char>(c))) return call_or_word(depth);
    if (c == '(' || c == '-' || c == '_' || std::isdigit(static_cast<unsigned char>(c))) return literal(depth);
    fail("expected a layout, a number, '[', or a function name but found " + found());
  }

  Node call_or_word(int depth) {
    Node n;
    n.begin = i_;
    while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') ++i_;
    n.name = std::string(s_.substr(n.begin, i_ - n.begin));
    skip();
    if (peek() != '(') {
      n.kind = Node::Kind::Word;
      n.end = i_;
      return n;
    }
    n.kind = Node::Kind::Call;
    ++i_;
    skip();
    if (peek() != ')') expressions(n, depth);
    expect(')', "',' or ')' to continue the arguments of " + n.name);
    n.end = i_;
    return n;
  }

  // expr {',' expr}: an argument list's or a tiler's elements, appended to n.args.
  void expressions(Node& n, int depth) {
    n.args.push_back(expr(depth + 1));
    skip();
    while (peek() == ',') {
      ++i_;
      n.args.push_back(expr(depth + 1));
      skip();
    }
  }

  Node tiler(int depth) {
    Node n;
    n.kind = Node::Kind::Tiler;
    n.begin = i_;
    ++i_;
    expressions(n, depth);
    expect(']', "',' or ']' to continue the tiler");
    n.end = i_;
    return n;
  }

  Node literal(int depth) {
    Node n;
    n.begin = i_;
    rt::Coord shape = tuple(depth);
    skip();
    if (peek() == ':') {
      std::size_t colon = i_;
      ++i_;
      skip();
      std::size_t stride_at = i_;
      rt::Coord stride = tuple(depth);
      if (shape.has_underscore() || stride.has_underscore()) fail_at(colon, "'_' cannot appear in a layout");
      rt::IntTuple sh = to_int_tuple(shape), st = to_int_tuple(stride);
      if (!rt::congruent(sh, st)) {
        fail_at(stride_at, "the stride " + rt::to_string(st) + " does not have the nesting of the shape " +
                               rt::to_string(sh));
      }
      for (auto v : rt::leaves(sh)) {
        if (v < 1) fail_at(n.begin, "the shape " + rt::to_string(sh) + " has a non-positive extent " + std::to_string(v));
      }
      n.kind = Node::Kind::Layout;
      n.layout = rt::Layout(sh, st);
    } else if (shape.has_underscore()) {
      n.kind = Node::Kind::Coord;
      n.coord = shape;
    } else if (shape.is_int()) {
      n.kind = Node::Kind::Int;
      n.value = shape.value();
    } else {
      n.kind = Node::Kind::Shape;
      n.tuple = to_int_tuple(shape);
    }
    n.end = i_;
    return n;
  }

  rt::Coord tuple(int depth) {
    if (depth > kMaxNesting) fail("nesting deeper than " + std::to_string(kMaxNesting) + " levels");
    skip();
    char c = peek();
    if (c == '(') {
      ++i_;
      std::vector<rt::Coord> elems{tuple(depth + 1)};
      skip();
      while (peek() == ',') {
        ++i_;
        elems.push_back(tuple(depth + 1));
        skip();
      }
      expect(')', "',' or ')' to continue the tuple");
      return rt::Coord::tuple(std::move(elems));
    }
    if (c == '_') {
      ++i_;
      if (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') fail("expected '_' alone");
      return rt::_;
    }
    return integer();
  }

  std::int64_t integer() {
    std::size_t start = i_;
    bool neg = peek() == '-';
    if (neg) ++i_;
    if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected an integer, '_' or '(' but found " + found());
    std::int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      int d = s_[i_] - '0';
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, neg ? -d : d, &v)) {
        fail_at(start, "the integer does not fit in 64 bits");
      }
      ++i_;
    }
    if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_') fail("expected a digit, ',' or ')' but found " + found());
    return v;
  }

  static rt::IntTuple to_int_tuple(rt::Coord const& c) {
    if (c.is_int()) return c.value();
    std::vector<rt::IntTuple> out;
    for (auto const& e : c.elems()) out.push_back(to_int_tuple(e));
    return rt::IntTuple::tuple(std::move(out));
  }

  void expect(char c, std::string const& what) {
    skip();
    if (peek() != c) fail("expected " + what + " but found " + found());
    ++i_;
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  std::string found() const {
    if (i_ >= s_.size()) return "the end of the expression";
    unsigned char c = static_cast<unsigned char>(s_[i_]);
    if (std::isprint(c)) return std::string("'") + s_[i_] + "'";
    return "a non-printing character";
  }
  [[noreturn]] void fail(std::string const& what) const { fail_at(i_, what); }
  [[noreturn]] void fail_at(std::size_t at, std::string const& what) const {
    throw ParseError(static_cast<int>(at) + 1, what);
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace detail

inline Node parse(std::string_view text) { return detail::Parser(text).parse_all(); }

}  // namespace tessel::rt::expr
