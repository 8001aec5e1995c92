#pragma once
// Syntax tree of a calculator expression.
//
//   expr    := call | literal | tiler
//   call    := name '(' [expr {',' expr}] ')'
//   literal := tuple [':' tuple]          tuple := int | '_' | '(' tuple {',' tuple} ')'
//   tiler   := '[' expr {',' expr} ']'
//   name    := letter {letter | digit | '_'}     (also LayoutLeft, LayoutRight)
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tessel/layout/runtime.hpp"

namespace tessel::rt::expr {

struct Node {
  enum class Kind {
    Int,     // 8
    Shape,   // (16,16): a tuple with no stride
    Coord,   // (_,3): a tuple holding `_`
    Layout,  // (4,2):(2,1)
    Tiler,   // [L0, L1]
    Call,    // name(args)
    Word,    // a bare name such as LayoutRight
  };
  Kind kind = Kind::Int;
  std::size_t begin = 0, end = 0;  // source span [begin, end), 0-based
  std::int64_t value = 0;          // Int
  rt::IntTuple tuple;              // Shape
  rt::Coord coord;                 // Coord
  rt::Layout layout;               // Layout
  std::string name;                // Call, Word
  std::vector<Node> args;          // Call arguments, Tiler elements

  int column() const { return static_cast<int>(begin) + 1; }
};

}  // namespace tessel::rt::expr
