#pragma once
// JSON rendering of calculator results.
#include <cstdint>
#include <string>

#include "value.hpp"

namespace tessel::calc {

// --json lists every index; beyond this many elements it refuses instead.
inline constexpr std::int64_t kMaxJsonIndices = std::int64_t{1} << 24;

// One JSON object. For a layout:
//   {"layout":"(2,3):(1,2)","shape":[2,3],"stride":[1,2],"size":6,"cosize":6,
//    "indices":[0,1,2,3,4,5]}
// shape and stride are nested arrays (a leaf is a bare integer); indices[i]
// is the layout at 1-D coordinate i. Other values give {"value": ...}.
// @throws rt::Error when a layout has more than kMaxJsonIndices elements.
std::string to_json(Value const& v);

// A nested IntTuple as JSON: 8 -> 8, ((2,2),8) -> [[2,2],8].
std::string to_json(rt::IntTuple const& t);

}  // namespace tessel::calc
