#pragma once
// Host model of the warp-level fragment layouts, written from the PTX ISA's formulas ("Matrix
// Fragments for mma.m16n8k8", "... for mma.m16n8k16 with floating point type", and the ldmatrix
// fragment figure). Each function maps (lane, element index) to the (row, col) that element holds.
//
// It is the oracle the device tests check the instruction wrappers against, bit for bit, and an
// independent statement of the same facts the thread-value layouts of the MMA atoms encode.
//
// Conventions: for 16-bit elements, element i sits in 32-bit register i / 2, in the low half when
// i is even. A is M x K (row = m, col = k), B is K x N (row = k, col = n), C and D are M x N.

namespace tessel::verify {

struct FragmentCoord {
  int row = 0;
  int col = 0;
  friend constexpr bool operator==(FragmentCoord, FragmentCoord) = default;
};

namespace detail {
constexpr int group_id(int lane) { return lane >> 2; }           // PTX's groupID
constexpr int thread_in_group(int lane) { return lane % 4; }     // PTX's threadID_in_group
}  // namespace detail

// ---- mma.m16n8k8, .f16 / .bf16 A and B, .f32 C/D ---------------------------------------------
// A: 4 elements (2 registers) per lane.
constexpr FragmentCoord mma_m16n8k8_a(int lane, int i) {
  return {detail::group_id(lane) + (i >= 2 ? 8 : 0), detail::thread_in_group(lane) * 2 + (i & 1)};
}
// B: 2 elements (1 register) per lane.
constexpr FragmentCoord mma_m16n8k8_b(int lane, int i) {
  return {detail::thread_in_group(lane) * 2 + i, detail::group_id(lane)};
}
// C and D: 4 f32 per lane.
constexpr FragmentCoord mma_m16n8k8_c(int lane, int i) {
  return {detail::group_id(lane) + (i >= 2 ? 8 : 0), detail::thread_in_group(lane) * 2 + (i & 1)};
}

// ---- mma.m16n8k16, .f16 / .bf16 A and B, .f32 C/D --------------------------------------------
// A: 8 elements (4 registers) per lane: registers 0..3 cover (rows 0-7, k 0-7), (rows 8-15,
// k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15).
constexpr FragmentCoord mma_m16n8k16_a(int lane, int i) {
  const bool lower_rows = i < 2 || (i >= 4 && i < 6);
  return {detail::group_id(lane) + (lower_rows ? 0 : 8),
          detail::thread_in_group(lane) * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
}
// B: 4 elements (2 registers) per lane: register 0 covers k 0-7, register 1 k 8-15.
constexpr FragmentCoord mma_m16n8k16_b(int lane, int i) {
  return {detail::thread_in_group(lane) * 2 + (i & 1) + (i >= 2 ? 8 : 0), detail::group_id(lane)};
}
// C and D: same as for m16n8k8.
constexpr FragmentCoord mma_m16n8k16_c(int lane, int i) { return mma_m16n8k8_c(lane, i); }

// ---- ldmatrix .m8n8 .b16 ----------------------------------------------------------------------
// Within one 8x8 matrix, element i (0 or 1) of `lane`'s register. `row` is the index of the row
// address (the lane 8*matrix + row supplied it), `col` the 16-bit element within that row.
constexpr FragmentCoord ldmatrix_m8n8(int lane, int i, bool transpose) {
  if (!transpose) return {lane / 4, (lane % 4) * 2 + i};
  return {(lane % 4) * 2 + i, lane / 4};
}

}  // namespace tessel::verify
