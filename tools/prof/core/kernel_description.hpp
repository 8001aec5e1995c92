#pragma once
// What the registry knows about a kernel without running it: enough to select it by name or by
// operand types, to analyze its waves and its shared memory, and to print it.
//
// The fields cover both kernel families tessel has or plans: the CUTLASS 2.x-style Sm75/Sm80
// handle (warp tile, multistage mainloop, no cluster) and Hopper's warp-specialized kernels
// (cluster shape, cooperative or ping-pong schedule, persistent). A field a family lacks keeps its
// default (cluster 1x1x1, warp tile 0x0x0).

#include <string>

#include "core/types.hpp"

namespace tessel::prof {

struct KernelDescription {
  std::string name;              // "tessel_sm80_gemm_bf16_bf16_bf16_128x128x32_64x64x32_3stage_tn"
  std::string arch;              // the arch tag the kernel is written for: "sm75", "sm80", "sm90a"
  int min_compute_capability = 0;  // 75, 80, 90 (major * 10 + minor)
  Operand a, b, c, d;
  Element accumulator = Element::kF32;
  Extent3 tile;                  // threadblock (CTA) tile
  Extent3 warp;                  // warp tile, 0x0x0 where the family has none
  Extent3 instruction;           // tensor-core instruction shape
  Extent3 cluster{1, 1, 1};
  int stages = 0;
  std::string schedule;          // "multistage", "twostage", "coop", "pingpong", "coop_streamk"
  Epilogue epilogue = Epilogue::kLinearCombination;  // any other needs GemmArguments' bias, scale_d, amax
  int threads = 0;               // per CTA
  int smem_bytes = 0;            // dynamic shared memory per CTA
  int alignment = 0;             // elements of A and B per vector load
  bool persistent = false;       // one CTA (or cluster) per SM looping over tiles
  bool supports_batch = false;   // a batch count L > 1 in one launch
  bool supports_raster_along_n = false;
};

}  // namespace tessel::prof
