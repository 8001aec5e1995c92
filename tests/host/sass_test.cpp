// tessel-sass on hand-written snippets in the three text forms it reads.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "disassemble.hpp"
#include "gate.hpp"
#include "input.hpp"
#include "listing.hpp"
#include "report.hpp"

namespace {

using namespace tessel::sass;

// Shaped like `cuobjdump -sass` output: a fatbin header, two kernels, encoding lines, a
// predicated instruction, a label.
constexpr const char* kSass = R"text(
Fatbin elf code:
================
arch = sm_75
code version = [1,8]
host = linux
compile_size = 64bit

	code for sm_75
	.target	sm_75

		Function : _Z6gemm75PKjS0_Pf
	.headerflags	@"EF_CUDA_SM75 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM75)"
        /*0000*/                   MOV R1, c[0x0][0x28] ;                      /* 0x00000a0000017a02 */
                                                                               /* 0x000fe40000000f00 */
        /*0010*/                   LDSM.16.M88.4 R4, [R0] ;                    /* 0x000000000004783b */
                                                                               /* 0x000e220000000200 */
        /*0020*/                   LDSM.16.MT88.2 R8, [R0+0x100] ;             /* 0x000100000008783b */
                                                                               /* 0x000e220000000200 */
        /*0030*/                   HMMA.1688.F32 R12, R4, R8, RZ ;             /* 0x000000080c0c723c */
                                                                               /* 0x001fe200000010ff */
        /*0040*/                   HMMA.1688.F32 R12, R6, R9, R12 ;            /* 0x000000090c0c723c */
                                                                               /* 0x001fe200000010ff */
.L_x_0:
        /*0050*/              @!P0 BRA `(.L_x_0) ;                             /* 0xfffffff000008947 */
                                                                               /* 0x000fea000383ffff */
        /*0060*/                   EXIT ;                                      /* 0x000000000000794d */
                                                                               /* 0x000fea0003800000 */
		..........

		Function : _Z5otherPf
	.headerflags	@"EF_CUDA_SM75 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM75)"
        /*0000*/                   STL [R1+0x4], R2 ;                          /* 0x0000040201007387 */
                                                                               /* 0x000fe80000100800 */
        /*0010*/                   LDL R3, [R1+0x4] ;                          /* 0x0000040001037983 */
                                                                               /* 0x000e280000100800 */
        /*0020*/                   EXIT ;                                      /* 0x000000000000794d */
                                                                               /* 0x000fea0003800000 */

Fatbin elf code:
================
arch = sm_80
code version = [1,8]

	code for sm_80
		Function : _Z6gemm75PKjS0_Pf
        /*0000*/                   HMMA.16816.F32.BF16 R12, R4, R8, RZ ;       /* 0x000000080c0c723c */
        /*0010*/                   LDGSTS.E.BYPASS.128 [R9], [R2.64] ;         /* 0x0000000002097fae */
        /*0020*/                   LDGSTS.E.BYPASS.128.ZFILL [R9+0x200], [R6.64], P0 ; /* 0x0 */
        /*0030*/                   HMMA.16816.F32 R12, R4, R8, RZ ;            /* 0x000000080c0c723c */
)text";

// Shaped like `cuobjdump -res-usage`.
constexpr const char* kResUsage = R"text(
Fatbin elf code:
================
arch = sm_75
code version = [1,8]

Resource usage:
 Common:
  GLOBAL:0
 Function _Z6gemm75PKjS0_Pf:
  REG:25 STACK:0 SHARED:512 LOCAL:0 CONSTANT[0]:376 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _Z5otherPf:
  REG:8 STACK:16 SHARED:0 LOCAL:16 CONSTANT[0]:360 TEXTURE:0 SURFACE:0 SAMPLER:0
)text";

// Shaped like `nvcc -Xptxas -v`: an entry with spills, and a device function whose properties
// must not be charged to the entry before it.
constexpr const char* kPtxas = R"text(
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z7spillerPf' for 'sm_90a'
ptxas info    : Function properties for _Z7spillerPf
    736 bytes stack frame, 488 bytes spill stores, 568 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 736 bytes cumulative stack size
ptxas info    : Compiling entry function '_Z5cleanPf' for 'sm_90a'
ptxas info    : Function properties for _Z5cleanPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Function properties for _Z6helperv
    32 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 368 bytes cmem[0]
)text";

const Kernel* find(const Listing& l, const std::string& name, const std::string& arch) {
  for (const Kernel& k : l.kernels) {
    if (k.name == name && k.arch == arch) return &k;
  }
  return nullptr;
}

TEST(SassParse, OpcodesPerKernelAndArchitecture) {
  Listing l;
  EXPECT_GT(parse_text(kSass, l), 0u);
  ASSERT_EQ(l.kernels.size(), 3u);
  const Kernel* g75 = find(l, "_Z6gemm75PKjS0_Pf", "sm_75");
  const Kernel* g80 = find(l, "_Z6gemm75PKjS0_Pf", "sm_80");
  const Kernel* other = find(l, "_Z5otherPf", "sm_75");
  ASSERT_TRUE(g75 && g80 && other);
  EXPECT_EQ(g75->demangled, "gemm75(unsigned int const*, unsigned int const*, float*)");
  EXPECT_EQ(g75->instructions, 7);
  EXPECT_EQ(g75->count("HMMA"), 2);
  EXPECT_EQ(g75->count("HMMA.1688.F32"), 2);
  EXPECT_EQ(g75->count("HMMA.16816"), 0);
  EXPECT_EQ(g75->count("LDSM"), 2);
  EXPECT_EQ(g75->count("LDSM.16.M88"), 1);  // a prefix ends at a dot: M88 is not MT88
  EXPECT_EQ(g75->count("LDSM.16.MT88.2"), 1);
  EXPECT_EQ(g75->count("BRA"), 1);  // behind a predicate
  EXPECT_EQ(g75->count("HMM"), 0);  // not a prefix at a dot boundary
  EXPECT_EQ(g80->count("HMMA.16816.F32"), 2);
  EXPECT_EQ(g80->count("HMMA.16816.F32.BF16"), 1);
  EXPECT_EQ(g80->count("LDGSTS"), 2);
  EXPECT_EQ(g80->breakdown("HMMA"), "HMMA.16816.F32 x1, HMMA.16816.F32.BF16 x1");
  EXPECT_FALSE(g75->spills());
  EXPECT_TRUE(other->spills());
  EXPECT_EQ(other->spill_evidence(), "1 STL, 1 LDL");
}

TEST(SassParse, InstructionLines) {
  EXPECT_EQ(opcode_of_line("        /*0030*/   HMMA.1688.F32 R12, R4, R8, RZ ;  /* 0x0 */"),
            "HMMA.1688.F32");
  EXPECT_EQ(opcode_of_line("/*0050*/ @!P0 BRA `(.L_x_0) ;"), "BRA");
  EXPECT_EQ(opcode_of_line("/*0050*/ @UP1 LDGDEPBAR ;"), "LDGDEPBAR");
  EXPECT_EQ(opcode_of_line("/*0060*/ EXIT ;"), "EXIT");
  EXPECT_EQ(opcode_of_line("/*0070*/ { FADD R0, R1, R2 ;"), "FADD");
  EXPECT_EQ(opcode_of_line("                      /* 0x000fe40000000f00 */"), "");
  EXPECT_EQ(opcode_of_line(".L_x_0:"), "");
  EXPECT_EQ(opcode_of_line("/*0080*/"), "");
}

TEST(SassParse, ResUsageMergesWithSass) {
  Listing l;
  parse_text(kSass, l);
  EXPECT_GT(parse_text(kResUsage, l), 0u);
  ASSERT_EQ(l.kernels.size(), 3u);  // same kernels, now with resource figures
  const Kernel* g75 = find(l, "_Z6gemm75PKjS0_Pf", "sm_75");
  const Kernel* other = find(l, "_Z5otherPf", "sm_75");
  EXPECT_EQ(g75->registers, 25);
  EXPECT_EQ(g75->local_bytes, 0);
  EXPECT_EQ(other->local_bytes, 16);
  EXPECT_EQ(other->spill_evidence(), "1 STL, 1 LDL, 16 bytes of local memory (res-usage)");
  EXPECT_EQ(find(l, "_Z6gemm75PKjS0_Pf", "sm_80")->registers, -1);  // not reported for sm_80
}

TEST(SassParse, PtxasLog) {
  Listing l;
  EXPECT_GT(parse_text(kPtxas, l), 0u);
  ASSERT_EQ(l.kernels.size(), 2u);
  const Kernel* spiller = find(l, "_Z7spillerPf", "sm_90a");
  const Kernel* clean = find(l, "_Z5cleanPf", "sm_90a");
  ASSERT_TRUE(spiller && clean);
  EXPECT_EQ(spiller->spill_stores, 488);
  EXPECT_EQ(spiller->spill_loads, 568);
  EXPECT_EQ(spiller->stack_bytes, 736);
  EXPECT_EQ(spiller->registers, 24);
  EXPECT_TRUE(spiller->spills());
  EXPECT_EQ(clean->spill_stores, 0);  // the helper's spills are not the kernel's
  EXPECT_FALSE(clean->spills());
}

TEST(SassParse, UnrelatedTextHoldsNoFacts) {
  Listing l;
  EXPECT_EQ(parse_text("hello\nworld\n/* 0x00 */\n", l), 0u);
  EXPECT_TRUE(l.kernels.empty());
}

// Issue 16: register counts past 2^31 were cast to int. Counts that fit in 64 bits are kept
// whole; larger ones are refused with the line they are on, never wrapped.
TEST(SassParse, HugeFiguresAreKeptOrRefused) {
  Listing l;
  parse_text("Function _Z1fv:\n REG:4294967297 STACK:0 LOCAL:8589934592\n", l);
  ASSERT_EQ(l.kernels.size(), 1u);
  EXPECT_EQ(l.kernels[0].registers, 4294967297);
  EXPECT_EQ(l.kernels[0].local_bytes, 8589934592);
  try {
    Listing m;
    parse_text("Function _Z1fv:\n REG:99999999999999999999 STACK:0 LOCAL:0\n", m);
    ADD_FAILURE() << "no error for a register count past 2^63";
  } catch (const ListingError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("line 2: the figure 99999999999999999999 does not fit", 0), 0u)
        << e.what();
  }
  Listing p;
  EXPECT_THROW(parse_text("ptxas info : Compiling entry function '_Z1fv' for 'sm_80'\n"
                          "    99999999999999999999 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n",
                          p),
               ListingError);
}

// Issue 16: a listing of 100,000 kernels took 22 s, one linear search per kernel.
TEST(SassParse, ManyKernelsInLinearTime) {
  std::string text = "code for sm_80\n";
  constexpr int kKernels = 100000;
  for (int i = 0; i < kKernels; ++i) {
    text += "Function : k" + std::to_string(i) + "\n/*0000*/ HMMA.16816.F32 R12, R4, R8, RZ ;\n";
  }
  const auto start = std::chrono::steady_clock::now();
  Listing l;
  EXPECT_EQ(parse_text(text, l), static_cast<std::size_t>(kKernels));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(l.kernels.size(), static_cast<std::size_t>(kKernels));
  EXPECT_EQ(l.kernels[kKernels - 1].name, "k99999");
  EXPECT_EQ(l.get("k12345", "sm_80").count("HMMA"), 1);
  EXPECT_EQ(l.kernels.size(), static_cast<std::size_t>(kKernels));  // found, not added
  EXPECT_LT(seconds, 5.0);  // about 0.1 s; the linear search took 22 s
}

TEST(Gate, Parse) {
  std::string error;
  auto g = parse_gate("HMMA>=1", error);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->key, "HMMA");
  EXPECT_EQ(g->op, Comparison::kGe);
  EXPECT_EQ(g->value, 1);
  g = parse_gate(" hmma.16816.f32 == 64 ", error);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->key, "HMMA.16816.F32");
  EXPECT_EQ(g->op, Comparison::kEq);
  EXPECT_EQ(g->value, 64);
  for (const char* op : {"!=", "<=", "<", ">"}) {
    EXPECT_TRUE(parse_gate(std::string("LDL") + op + "0", error)) << op;
  }

  EXPECT_FALSE(parse_gate(">=1", error));
  EXPECT_NE(error.find("does not start with an opcode"), std::string::npos);
  EXPECT_FALSE(parse_gate("HMMA", error));
  EXPECT_NE(error.find("needs a comparison"), std::string::npos);
  EXPECT_FALSE(parse_gate("HMMA>=", error));
  EXPECT_NE(error.find("whole number"), std::string::npos);
  EXPECT_FALSE(parse_gate("HMMA>=1x", error));
  EXPECT_NE(error.find("trailing text 'x'"), std::string::npos);
  EXPECT_FALSE(parse_gate("HMMA.>=1", error));
}

TEST(Gate, FailureSentencesNameKernelRuleAndFinding) {
  Listing l;
  parse_text(kSass, l);
  std::string error;
  const Kernel* g75 = find(l, "_Z6gemm75PKjS0_Pf", "sm_75");
  EXPECT_FALSE(check_gate(*parse_gate("HMMA>=1", error), *g75));
  EXPECT_FALSE(check_gate(*parse_gate("LDGSTS==0", error), *g75));
  const auto miss = check_gate(*parse_gate("HMMA.16816>=1", error), *g75);
  ASSERT_TRUE(miss);
  EXPECT_EQ(*miss,
            "kernel gemm75(unsigned int const*, unsigned int const*, float*) [sm_75]: expected "
            "HMMA.16816>=1, found 0 HMMA.16816 (HMMA: HMMA.1688.F32 x2)");
  const auto none = check_gate(*parse_gate("LDGSTS>0", error), *g75);
  ASSERT_TRUE(none);
  EXPECT_NE(none->find("(no LDGSTS at all)"), std::string::npos);

  const Kernel* other = find(l, "_Z5otherPf", "sm_75");
  EXPECT_FALSE(check_no_spills(*g75));
  const auto spill = check_no_spills(*other);
  ASSERT_TRUE(spill);
  EXPECT_NE(spill->find("other(float*) [sm_75] uses local memory: 1 STL, 1 LDL"), std::string::npos);
}

// Two sm_90a kernels: one waits after each wgmma (what ptxas emits when it serializes them),
// one keeps four in flight behind one wait.
constexpr const char* kWgmma = R"text(
	code for sm_90a
		Function : serialized
        /*0000*/                   WARPGROUP.ARRIVE ;
        /*0010*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR20], R24, gsb0 ;
        /*0020*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;
        /*0030*/                   WARPGROUP.ARRIVE ;
        /*0040*/                   HGMMA.64x128x16.F32.BF16 R88, gdesc[UR20], R88, gsb0 ;
        /*0050*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;
		..........
		Function : pipelined
        /*0000*/                   WARPGROUP.ARRIVE ;
        /*0010*/                   QGMMA.64x256x32.F32.E4M3.E4M3 R24, gdesc[UR4], R24 ;
        /*0020*/                   QGMMA.64x256x32.F32.E4M3.E4M3 R24, gdesc[UR8], R24 ;
        /*0030*/                   QGMMA.64x256x32.F32.E4M3.E4M3 R24, gdesc[UR12], R24 ;
        /*0040*/                   QGMMA.64x256x32.F32.E4M3.E4M3 R24, gdesc[UR16], R24, gsb0 ;
        /*0050*/                   WARPGROUP.DEPBAR.LE gsb0, 0x1 ;
		..........
		Function : no_wgmma
        /*0000*/                   EXIT ;
)text";

TEST(Gate, WgmmaWaitedForOneByOneFails) {
  Listing l;
  parse_text(kWgmma, l);
  const Kernel* serialized = find(l, "serialized", "sm_90a");
  const Kernel* pipelined = find(l, "pipelined", "sm_90a");
  const Kernel* none = find(l, "no_wgmma", "sm_90a");
  ASSERT_TRUE(serialized && pipelined && none);
  EXPECT_FALSE(check_wgmma_pipelined(*pipelined));
  EXPECT_FALSE(check_wgmma_pipelined(*none));
  const auto f = check_wgmma_pipelined(*serialized);
  ASSERT_TRUE(f);
  EXPECT_NE(f->find("serialized [sm_90a] waits for each wgmma alone: 2 WARPGROUP.DEPBAR for 2 wgmma"), std::string::npos) << *f;
}

TEST(Report, TableAndJson) {
  Listing l;
  parse_text(kSass, l);
  parse_text(kResUsage, l);
  std::vector<const Kernel*> all;
  for (const Kernel& k : l.kernels) all.push_back(&k);
  const std::string table = format_table(all);
  EXPECT_NE(table.find("HMMA.1688.F32 x2, LDSM.16.M88.4 x1, LDSM.16.MT88.2 x1"), std::string::npos)
      << table;
  EXPECT_NE(table.find("sm_80"), std::string::npos);
  const std::string json = format_json(all);
  EXPECT_NE(json.find("\"name\": \"_Z6gemm75PKjS0_Pf\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"arch\": \"sm_80\""), std::string::npos);
  EXPECT_NE(json.find("\"HMMA.16816.F32\": 1"), std::string::npos);
  EXPECT_NE(json.find("\"families\": {\"HMMA\": 2, \"LDGSTS\": 2}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"registers\": null"), std::string::npos);
}

TEST(Disassemble, BinaryDetectionAndMissingTool) {
  EXPECT_TRUE(looks_binary(std::string("\x7f" "ELF\x02\x01", 6)));
  EXPECT_TRUE(looks_binary(std::string("abc\0def", 7)));
  EXPECT_FALSE(looks_binary(kSass));
  std::vector<std::string> tried;
  EXPECT_FALSE(find_cuobjdump("/nonexistent/cuobjdump", tried));
  ASSERT_EQ(tried.size(), 1u);  // an explicit path is not second-guessed
  const std::string msg = missing_cuobjdump_message(tried);
  EXPECT_NE(msg.find("/nonexistent/cuobjdump"), std::string::npos);
  EXPECT_NE(msg.find("pip install nvidia-cuda-cuobjdump"), std::string::npos);
}

// Issue 16: a directory or /dev/zero as input aborted (an uncaught exception, unbounded read).
TEST(Input, DirectoriesDevicesAndMissingFilesAreRefused) {
  std::string error;
  EXPECT_FALSE(read_input(::testing::TempDir(), error));
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
  EXPECT_FALSE(read_input("/dev/zero", error));
  EXPECT_NE(error.find("'/dev/zero' is a device, not a file"), std::string::npos) << error;
  EXPECT_FALSE(read_input("/nonexistent/listing.txt", error));
  EXPECT_NE(error.find("cannot read '/nonexistent/listing.txt': No such file"), std::string::npos) << error;

  const std::string path = ::testing::TempDir() + "sass_input_test.txt";
  std::ofstream(path) << "code for sm_80\n";
  const auto content = read_input(path, error);
  ASSERT_TRUE(content) << error;
  EXPECT_EQ(*content, "code for sm_80\n");
  std::remove(path.c_str());
}

}  // namespace
