// tessel-prof's element types and epilogues as run-time values, and what the cuBLAS column runs
// for each operand set.
#include <gtest/gtest.h>

#include "core/counterpart.hpp"
#include "core/options.hpp"
#include "core/selection.hpp"
#include "core/types.hpp"

namespace tessel::prof {
namespace {

Operand op(Element e, Layout l = Layout::kColumn) { return {e, l}; }

TEST(ProfTypes, Fp8ElementsParsePrintAndSize) {
  EXPECT_EQ(parse_element("e4m3"), Element::kE4M3);
  EXPECT_EQ(parse_element("fe4m3"), Element::kE4M3);  // the CUTLASS profiler's spelling
  EXPECT_EQ(parse_element("e5m2"), Element::kE5M2);
  EXPECT_EQ(parse_element("fe5m2"), Element::kE5M2);
  EXPECT_FALSE(parse_element("e4m2").has_value());
  EXPECT_FALSE(parse_element("fp8").has_value());  // which of the two would it be?
  EXPECT_EQ(to_string(Element::kE4M3), "e4m3");
  EXPECT_EQ(to_string(Element::kE5M2), "e5m2");
  EXPECT_EQ(size_bytes(Element::kE4M3), 1);
  EXPECT_EQ(size_bytes(Element::kE5M2), 1);
  EXPECT_EQ(size_bytes(Element::kBF16), 2);
  EXPECT_EQ(size_bytes(Element::kF32), 4);
  EXPECT_TRUE(is_fp8(Element::kE4M3));
  EXPECT_FALSE(is_fp8(Element::kBF16));
}

TEST(ProfTypes, OperandFlagsTakeFp8) {
  const Options o = parse_options({"--A=e4m3:row", "--B=e4m3", "--D=bf16:column", "--C=fe4m3:col"});
  EXPECT_EQ(o.a, (OperandFilter{Element::kE4M3, Layout::kRow}));
  EXPECT_EQ(o.b, (OperandFilter{Element::kE4M3, std::nullopt}));
  EXPECT_EQ(o.c, (OperandFilter{Element::kE4M3, Layout::kColumn}));
  EXPECT_EQ(to_string(o.a), "e4m3:row");
  // The filters' gaps filled for cuBLAS alone: an FP8 GEMM writes bf16.
  const OperandSet s = operands_from_filters(parse_options({"--A=e4m3"}));
  EXPECT_EQ(s.b, op(Element::kE4M3));
  EXPECT_EQ(s.c, op(Element::kBF16));
  EXPECT_EQ(s.d, op(Element::kBF16));
}

TEST(ProfTypes, EpilogueNamesAreTheKernelNameSuffixes) {
  EXPECT_EQ(to_string(Epilogue::kLinearCombination), "linear_combination");
  EXPECT_EQ(to_string(Epilogue::kBiasGeluAmax), "bias_gelu_amax");
  EXPECT_EQ(to_string(Epilogue::kBiasGeluTanhAmax), "bias_gelu_tanh_amax");
}

TEST(ProfCounterpart, CublasRunsThePlainGemmBesideTheFusedEpilogue) {
  const OperandSet plain{op(Element::kBF16, Layout::kRow), op(Element::kBF16), op(Element::kBF16), op(Element::kBF16)};
  const OperandSet fused{op(Element::kBF16, Layout::kRow), op(Element::kBF16), op(Element::kBF16), op(Element::kE4M3)};
  const OperandSet fp8{op(Element::kE4M3, Layout::kRow), op(Element::kE4M3), op(Element::kBF16), op(Element::kBF16)};
  EXPECT_EQ(cublas_counterpart(plain), plain);
  EXPECT_EQ(cublas_counterpart(fused), plain);
  EXPECT_EQ(cublas_counterpart(fp8), fp8);  // cuBLASLt's FP8 matmul is the same operation
  EXPECT_EQ(cublas_counterpart_note(plain), "");
  EXPECT_NE(cublas_counterpart_note(fused).find("bf16 GEMM, bf16 D"), std::string::npos);
  EXPECT_NE(cublas_counterpart_note(fp8).find("cuBLASLt FP8"), std::string::npos);
}

}  // namespace
}  // namespace tessel::prof
