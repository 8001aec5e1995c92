// Reports: CSV quoting and its round trip through report mode's reader, JSON escaping, tables.
#include <gtest/gtest.h>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/report.hpp"
#include "core/table.hpp"

namespace tessel::prof {
namespace {

const OperandSet kBf16Tn{{Element::kBF16, Layout::kRow}, {Element::kBF16, Layout::kColumn},
                         {Element::kBF16, Layout::kColumn}, {Element::kBF16, Layout::kColumn}};

std::vector<ProfileRow> sample_rows() {
  ProfileRow cublas;
  cublas.provider = cublas.kernel = "cublas";
  cublas.problem = {{4096, 4096, 4096, 1}, 1.0, 0.0, Raster::kHeuristic, 8};
  cublas.operands = kBf16Tn;
  cublas.ran = true;
  cublas.runtime_ms = 0.19;
  cublas.tflops = 723.4;
  cublas.gbps = 530.25;
  cublas.cublas_tflops = 723.4;
  cublas.ratio = 1.0;
  cublas.iterations = 100;
  cublas.buffer_sets = 3;

  ProfileRow ok = cublas;
  ok.provider = "tessel";
  ok.kernel = "tessel_sm80_gemm_bf16_bf16_bf16_128x256x32_64x64x32_3stage_tn";
  ok.tflops = 402.125;
  ok.ratio = 402.125 / 723.4;
  ok.verification = kPassed;
  ok.cublas_rel_error = 0.0012;
  ok.cublas_tolerance = 0.0081;
  ok.device_failed = 0;
  ok.device_worst = 0.25;

  ProfileRow refused = cublas;
  refused.provider = "tessel";
  refused.kernel = "tessel_sm80_gemm_bf16_bf16_bf16_128x128x32_64x64x32_3stage_tn";
  refused.problem.shape.k = 4095;
  refused.ran = false;
  refused.runtime_ms = refused.tflops = refused.gbps = 0;
  refused.cublas_tflops.reset();
  refused.ratio.reset();
  refused.status = "Error Misaligned Operand";
  refused.reason = "K is 4095, not a multiple of the 8 elements (16 bytes) the vector loads need: pad it to 4096, \"or\" use a lower alignment";
  refused.verification = kNotRun;
  refused.iterations = refused.buffer_sets = 0;
  return {cublas, ok, refused};
}

TEST(ProfCsv, QuotingAndParsing) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_line({"a", "b,c", ""}), "a,\"b,c\",\n");
  const auto recs = parse_csv("x,y\r\n\"1,2\",\"multi\nline\"\n\n3,\n", "t.csv");
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[1], (std::vector<std::string>{"1,2", "multi\nline"}));
  EXPECT_EQ(recs[2], (std::vector<std::string>{"3", ""}));
  EXPECT_THROW(parse_csv("a,\"open\n", "t.csv"), ProfError);
}

TEST(ProfCsv, ProfileRowsRoundTrip) {
  const auto rows = sample_rows();
  const std::string csv = profile_csv(rows);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "provider,kernel,m,n,k,batch,A,B,C,D,alpha,beta,raster,swizzle,status,runtime_ms,tflops,gbps,"
            "cublas_tflops,ratio_to_cublas,verification,cublas_rel_error,cublas_tolerance,device_failed,"
            "device_worst_ratio,iterations,buffer_sets,reason");
  const auto back = parse_profile_csv(csv, "rows.csv");
  ASSERT_EQ(back.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(rows[i].kernel);
    EXPECT_EQ(back[i].provider, rows[i].provider);
    EXPECT_EQ(back[i].kernel, rows[i].kernel);
    EXPECT_EQ(back[i].problem.shape, rows[i].problem.shape);
    EXPECT_EQ(back[i].operands, rows[i].operands);
    EXPECT_EQ(back[i].status, rows[i].status);
    EXPECT_EQ(back[i].reason, rows[i].reason);
    EXPECT_EQ(back[i].ran, rows[i].ran);
    EXPECT_EQ(back[i].verification, rows[i].verification);
    EXPECT_NEAR(back[i].tflops, rows[i].tflops, 1e-5 * rows[i].tflops);
    EXPECT_EQ(back[i].cublas_tflops.has_value(), rows[i].cublas_tflops.has_value());
    EXPECT_EQ(back[i].device_worst.has_value(), rows[i].device_worst.has_value());
    EXPECT_EQ(back[i].iterations, rows[i].iterations);
  }
  // Written again, the rows give the same text: nothing is lost or reformatted.
  EXPECT_EQ(profile_csv(back), csv);
}

TEST(ProfCsv, Fp8AndFusedRowsRoundTrip) {
  ProfileRow fused = sample_rows()[1];
  fused.kernel = "tessel_sm90_gemm_bf16_bf16_e4m3_128x256x64_c1x1_4stage_coop_bias_gelu_amax_tn";
  fused.operands.d.element = Element::kE4M3;
  fused.reason = "against the unfused chain on cuBLAS's f32 accumulators: 12 of 65536 elements 1 e4m3 ulp apart";
  ProfileRow fp8 = sample_rows()[1];
  fp8.kernel = "tessel_sm90_gemm_e4m3_e4m3_bf16_128x256x128_c1x1_4stage_coop_tn";
  fp8.operands.a.element = fp8.operands.b.element = Element::kE4M3;
  const std::string csv = profile_csv({fused, fp8});
  EXPECT_NE(csv.find(",bf16:row,bf16:column,bf16:column,e4m3:column,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",e4m3:row,e4m3:column,bf16:column,bf16:column,"), std::string::npos) << csv;
  const auto back = parse_profile_csv(csv, "fp8.csv");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].operands, fused.operands);
  EXPECT_EQ(back[1].operands, fp8.operands);
  EXPECT_EQ(profile_csv(back), csv);
  const std::string table = profile_table(back);
  EXPECT_NE(table.find("bf16/bf16->e4m3 tn"), std::string::npos) << table;
  EXPECT_NE(table.find("e4m3/e4m3->bf16 tn"), std::string::npos) << table;
}

TEST(ProfCsv, ReaderNamesWhatIsWrong) {
  try {
    parse_profile_csv("provider,kernel\ncublas,cublas\n", "old.csv");
    FAIL() << "no error";
  } catch (const ProfError& e) {
    EXPECT_EQ(std::string(e.what()),
              "old.csv: no column 'm'; expected a CSV written by tessel-prof --mode=profile --output");
  }
  std::string csv = profile_csv(sample_rows());
  csv.replace(csv.find("bf16:row"), 8, "bf16:diag");
  EXPECT_THROW(parse_profile_csv(csv, "bad.csv"), ProfError);
}

// Issue 16: zero and negative runtimes were read and ranked; profile mode never writes them.
TEST(ProfCsv, ReaderRefusesNumbersProfileModeNeverWrites) {
  const std::string csv = profile_csv(sample_rows());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string bad = csv;
    bad.replace(bad.find(from), from.size(), to);
    try {
      parse_profile_csv(bad, "bad.csv");
    } catch (const ProfError& e) {
      EXPECT_EQ(e.exit_code(), kExitUsage);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(with(",0.19,723.4,", ",0,723.4,"),
            "bad.csv:2: runtime_ms is '0'; expected a positive number, as --mode=profile --output writes");
  EXPECT_NE(with(",0.19,723.4,", ",-0.19,723.4,").find("runtime_ms is '-0.19'"), std::string::npos);
  EXPECT_NE(with(",0.19,723.4,", ",0.19,-723.4,").find("tflops is '-723.4'"), std::string::npos);
  EXPECT_NE(with(",0.19,723.4,530.25,", ",0.19,,530.25,").find("no tflops or gbps"), std::string::npos);
  EXPECT_NE(with(",0.0012,", ",-0.0012,").find("cublas_rel_error is '-0.0012'; expected a nonnegative number"),
            std::string::npos);
  EXPECT_NE(with(",4096,4096,4096,1,", ",4096,4096,9223372036854775807,1,").find("must be at most 2147483647"),
            std::string::npos);
  EXPECT_NE(with(",100,3,", ",-100,3,").find("iterations=-100: the value must be at least 0"), std::string::npos);
  EXPECT_EQ(with(",0.0012,", ",0,"), "no error");  // an exact match has no error at all
}

TEST(ProfJson, EscapingNumbersAndStructure) {
  EXPECT_EQ(json_string("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_EQ(json_number(7.76), "7.76");
  EXPECT_EQ(json_number(0.1), "0.1");
  EXPECT_EQ(json_number(1.0 / 0.0), "null");
  EXPECT_EQ(json_number(std::optional<double>{}), "null");
  RunInfo info;
  info.fields = {{"device", "NVIDIA \"H200\""}};
  const std::string j = profile_json(sample_rows(), info);
  EXPECT_NE(j.find("\"run\": {\"device\": \"NVIDIA \\\"H200\\\"\"}"), std::string::npos);
  EXPECT_NE(j.find("\"status\": \"Error Misaligned Operand\", \"ran\": false, \"runtime_ms\": null"),
            std::string::npos);
  EXPECT_NE(j.find("\"verification\": \"passed\", \"cublas_rel_error\": 0.0012"), std::string::npos);
  // Balanced braces and brackets outside strings.
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (in_string) {
      if (j[i] == '\\') ++i;
      else if (j[i] == '"') in_string = false;
    } else if (j[i] == '"') {
      in_string = true;
    } else if (j[i] == '{' || j[i] == '[') {
      ++depth;
    } else if (j[i] == '}' || j[i] == ']') {
      ASSERT_GT(depth, 0);
      --depth;
    }
  }
  EXPECT_EQ(depth, 0);
  EXPECT_FALSE(in_string);
}

TEST(ProfTable, AlignsColumns) {
  TextTable t({"kernel", "tiles", "waves"});
  t.add({"tile 128x128", "1024", "7.76"});
  t.add({"k", "32", "0.24"});
  EXPECT_EQ(t.render(),
            "kernel        tiles  waves\n"
            "tile 128x128   1024   7.76\n"
            "k                32   0.24\n");
}

TEST(ProfReport, ProfileTableShowsReasonsForRowsThatDidNotRun) {
  const std::string t = profile_table(sample_rows());
  EXPECT_NE(t.find("Error Misaligned Operand: K is 4095"), std::string::npos);
  EXPECT_NE(t.find("0.56x"), std::string::npos);  // 402.125 / 723.4
  EXPECT_NE(t.find("bf16/bf16->bf16 tn"), std::string::npos);
}

}  // namespace
}  // namespace tessel::prof
