// The kernels compiled into tessel-prof: exactly the build's selection, each described as its
// name says, and each refusing what it cannot compute with a Status and a sentence (no GPU needed:
// the argument checks come before the device query).
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

#include "core/types.hpp"
#include "kernels/registry.hpp"
#include "tessel/verify/device_buffer.cuh"

namespace tessel::prof {
namespace {

TEST(ProfRegistry, HoldsExactlyTheSelectedKernelsSortedByName) {
  const auto ops = registry().operations();
  std::vector<std::string> names;
  for (const GemmOperation* op : ops) names.push_back(op->description().name);
  ASSERT_FALSE(names.empty());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  std::vector<std::string> selected = selected_names();
  std::sort(selected.begin(), selected.end());
  // The names CMake computed from the catalogue are the names the handles give themselves.
  EXPECT_EQ(names, selected);
  for (const auto& n : names) {
    EXPECT_NE(std::find(catalogue_names().begin(), catalogue_names().end(), n), catalogue_names().end()) << n;
  }
}

TEST(ProfRegistry, DescriptionsAgreeWithNames) {
  const std::regex sm8x(
      "tessel_(sm75|sm80)_gemm_(f16|bf16)_(f16|bf16)_(f16|bf16|f32)_(\\d+)x(\\d+)x(\\d+)_(\\d+)x(\\d+)x(\\d+)_(\\d+)stage_"
      "([tn])([tn])");
  const std::regex sm90(
      "tessel_sm90_gemm_(f16|bf16|e4m3)_(f16|bf16|e4m3)_(f16|bf16|f32|e4m3)_(\\d+)x(\\d+)x(\\d+)_c(\\d+)x(\\d+)_(\\d+)stage_(coop|"
      "pingpong)(_streamk)?(_bias_gelu_amax|_bias_gelu_tanh_amax)?_tn");
  for (const GemmOperation* op : registry().operations()) {
    const KernelDescription& d = op->description();
    SCOPED_TRACE(d.name);
    EXPECT_EQ(d.c.layout, d.d.layout);
    EXPECT_EQ(d.c.layout, Layout::kColumn);  // as BLAS writes D; a row-major D would be named "_drow"
    // C has D's type, except beside an FP8 D, which only the fused epilogue writes (from bf16 C).
    if (is_fp8(d.d.element)) {
      EXPECT_EQ(d.c.element, Element::kBF16);
      EXPECT_NE(d.epilogue, Epilogue::kLinearCombination);
    } else {
      EXPECT_EQ(d.c.element, d.d.element);
    }
    EXPECT_GT(d.smem_bytes, 0);
    EXPECT_LE(d.smem_bytes, 227 * 1024);  // the most a CTA can have on any target GPU
    EXPECT_FALSE(d.supports_batch);
    std::smatch m;
    if (std::regex_match(d.name, m, sm90)) {
      EXPECT_EQ(d.arch, "sm90a");
      EXPECT_EQ(d.min_compute_capability, 90);
      EXPECT_EQ(to_string(d.a.element), m[1].str());
      EXPECT_EQ(to_string(d.b.element), m[2].str());
      EXPECT_EQ(to_string(d.d.element), m[3].str());
      EXPECT_EQ(d.tile, (Extent3{std::stoi(m[4]), std::stoi(m[5]), std::stoi(m[6])}));
      EXPECT_EQ(d.cluster, (Extent3{std::stoi(m[7]), std::stoi(m[8]), 1}));
      EXPECT_EQ(d.stages, std::stoi(m[9]));
      EXPECT_EQ(d.a.layout, Layout::kRow);
      EXPECT_EQ(d.b.layout, Layout::kColumn);
      EXPECT_EQ(d.schedule, m[10].str());
      std::string suffix;  // the name's epilogue part: none for the linear combination
      if (d.epilogue != Epilogue::kLinearCombination) (suffix = "_") += to_string(d.epilogue);
      EXPECT_EQ(m[12].str(), suffix);
      EXPECT_EQ(d.a.element, d.b.element);
      EXPECT_TRUE(d.persistent);
      // One producer and two consumer warpgroups; the stages' A and B tiles fit the shared memory,
      // each K tile one 128-byte swizzle row.
      EXPECT_EQ(d.threads, 384);
      EXPECT_EQ(d.tile.k * size_bytes(d.a.element), 128);
      EXPECT_GE(d.smem_bytes, d.stages * (d.tile.m + d.tile.n) * d.tile.k * size_bytes(d.a.element));
      EXPECT_EQ(d.alignment * size_bytes(d.a.element), 16);
      continue;
    }
    ASSERT_TRUE(std::regex_match(d.name, m, sm8x));
    EXPECT_EQ(d.epilogue, Epilogue::kLinearCombination);
    EXPECT_EQ(d.arch, m[1].str());
    EXPECT_EQ(d.min_compute_capability, m[1] == "sm75" ? 75 : 80);
    EXPECT_EQ(to_string(d.a.element), m[2].str());
    EXPECT_EQ(to_string(d.b.element), m[3].str());
    EXPECT_EQ(to_string(d.c.element), m[4].str());
    EXPECT_EQ(d.tile, (Extent3{std::stoi(m[5]), std::stoi(m[6]), std::stoi(m[7])}));
    EXPECT_EQ(d.warp, (Extent3{std::stoi(m[8]), std::stoi(m[9]), std::stoi(m[10])}));
    EXPECT_EQ(d.stages, std::stoi(m[11]));
    EXPECT_EQ(d.a.layout, m[12] == "t" ? Layout::kRow : Layout::kColumn);
    EXPECT_EQ(d.b.layout, m[13] == "n" ? Layout::kColumn : Layout::kRow);
    EXPECT_EQ(d.instruction.k, m[1] == "sm75" ? 8 : 16);
    EXPECT_EQ(d.threads, 32 * (d.tile.m / d.warp.m) * (d.tile.n / d.warp.n));
    EXPECT_EQ(d.cluster, (Extent3{1, 1, 1}));
  }
}

// Aligned, never dereferenced: can_implement only looks at the addresses.
GemmArguments args_for(const KernelDescription& d, std::int64_t m, std::int64_t n, std::int64_t k) {
  alignas(256) static char storage[256];
  alignas(256) static float scalars[2];
  GemmArguments a;
  a.shape = {m, n, k, 1};
  a.A = a.B = a.C = storage;
  a.D = storage;
  a.lda = d.a.layout == Layout::kRow ? k : m;
  a.ldb = d.b.layout == Layout::kRow ? n : k;
  a.ldc = a.ldd = m;
  if (d.epilogue != Epilogue::kLinearCombination) {
    a.bias = storage;
    a.scale_d = &scalars[0];
    a.amax = &scalars[1];
  }
  return a;
}

TEST(ProfRegistry, RefusalsCarryStatusAndSentence) {
  for (const GemmOperation* op : registry().operations()) {
    const KernelDescription& d = op->description();
    SCOPED_TRACE(d.name);
    // The contiguous extent of A, not a multiple of the vector width.
    const bool a_k_contiguous = d.a.layout == Layout::kRow;
    GemmArguments a = a_k_contiguous ? args_for(d, 256, 256, 4095) : args_for(d, 4095, 256, 256);
    StatusInfo s = op->can_implement(a);
    EXPECT_EQ(s.status, Status::kErrorMisalignedOperand);
    EXPECT_NE(s.message.find("4095"), std::string::npos) << s.message;

    a = args_for(d, 256, 256, 256);
    a.shape.batch = 2;
    s = op->can_implement(a);
    EXPECT_EQ(s.status, Status::kErrorNotSupported);
    EXPECT_NE(s.message.find("--batch=1"), std::string::npos) << s.message;

    // Each family walks its tiles one way and refuses the other order.
    a = args_for(d, 256, 256, 256);
    a.raster = d.supports_raster_along_n ? Raster::kAlongM : Raster::kAlongN;
    s = op->can_implement(a);
    EXPECT_EQ(s.status, Status::kErrorNotSupported);
    EXPECT_NE(s.message.find("--raster="), std::string::npos) << s.message;

    // 16 bytes of K: 8 of a 16-bit type, but half of TMA's 16 for an 8-bit one.
    a = args_for(d, 256, 256, 72);
    s = op->can_implement(a);
    if (size_bytes(d.a.element) == 1) {
      EXPECT_EQ(s.status, Status::kErrorMisalignedOperand);
      EXPECT_NE(s.message.find("72"), std::string::npos) << s.message;
    } else {
      EXPECT_NE(s.status, Status::kErrorMisalignedOperand) << s.message;
    }

    // The fused epilogue's inputs, each missing in turn: named, not dereferenced.
    if (d.epilogue != Epilogue::kLinearCombination) {
      for (const char* input : {"bias", "scale_d", "amax"}) {
        a = args_for(d, 256, 256, 256);
        if (input == std::string("bias")) a.bias = nullptr;
        if (input == std::string("scale_d")) a.scale_d = nullptr;
        if (input == std::string("amax")) a.amax = nullptr;
        s = op->can_implement(a);
        EXPECT_EQ(s.status, Status::kErrorInvalidProblem) << input;
        EXPECT_NE(s.message.find(std::string("the ") + input + " pointer is null"), std::string::npos) << s.message;
      }
    }

    // A valid problem: accepted on a GPU that runs the kernel; without one, refused with a reason.
    s = op->can_implement(args_for(d, 256, 256, 256));
    if (verify::cuda_device_count() == 0) {
      EXPECT_FALSE(s.ok());
      EXPECT_FALSE(s.message.empty());
    } else if (s.status != Status::kErrorArchMismatch) {
      EXPECT_TRUE(s.ok()) << s.what();
    }
  }
}

}  // namespace
}  // namespace tessel::prof
