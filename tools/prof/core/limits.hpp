#pragma once
// Every bound tessel-prof holds its input to, in one place (README.md, "Limits", lists them). Each
// is far beyond what a real run asks for, and small enough that a typo or a hostile value ends in
// a sentence instead of hours of work, gigabytes of memory or an overflowed count.

#include <cstddef>
#include <cstdint>

namespace tessel::prof {

/// M, N, K, batch and swizzle: the kernels take them as int (kernels/handle_operation.hpp).
inline constexpr std::int64_t kMaxExtent = 2147483647;  // 2^31 - 1

/// A value list or range of one flag (--m=1:4096) expands to at most this many values: more is
/// almost certainly a typo (1:8192 instead of 1024:8192:1024).
inline constexpr std::int64_t kMaxListValues = 4096;

/// Problems of one run: the cross product of --m, --n, --k, --batch, --raster and --swizzle, or
/// the --shapes entries crossed with --raster and --swizzle.
inline constexpr std::int64_t kMaxProblems = 100000;

/// Rows of one analysis: problems times (kernels + --tile shapes).
inline constexpr std::int64_t kMaxAnalysisRows = 100000;

/// Each extent of a --tile: no GPU's shared memory holds a larger CTA tile.
inline constexpr std::int64_t kMaxTileExtent = 4096;

/// Iteration counts (--warmup-iterations, --profiling-iterations, a report's iterations column)
/// and the device index.
inline constexpr std::int64_t kMaxIterations = 1000000000;

/// --sm-count and a device profile's sm_count (an H200 has 132).
inline constexpr std::int64_t kMaxSmCount = 4096;

/// --ctas-per-sm: Hopper keeps at most 32 CTAs resident per SM.
inline constexpr std::int64_t kMaxCtasPerSm = 64;

/// Matrix rates (TFLOP/s) and bandwidths (GB/s), from the flags or a device profile: an H200
/// does about 1000 TFLOP/s and 4800 GB/s. The lower bound keeps the floors finite.
inline constexpr double kMinRate = 1e-3;
inline constexpr double kMaxRate = 1e6;

/// An input file (--shapes-file, --input, --device-profile): a profile CSV of thousands of rows
/// is a few MiB.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t(16) << 20;

}  // namespace tessel::prof
