// Status names, StatusInfo, and the alignment messages every kernel's can_implement uses.

#include "tessel/status.hpp"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

namespace {

using tessel::Status;
using tessel::StatusInfo;

TEST(Status, EveryCodeHasItsOwnName) {
  const Status all[] = {Status::kSuccess,
                        Status::kErrorMisalignedOperand,
                        Status::kErrorInvalidDataType,
                        Status::kErrorInvalidLayout,
                        Status::kErrorInvalidProblem,
                        Status::kErrorNotSupported,
                        Status::kErrorWorkspaceNull,
                        Status::kErrorInternal,
                        Status::kErrorArchMismatch,
                        Status::kErrorInsufficientDriver,
                        Status::kErrorMemoryAllocation,
                        Status::kInvalid};
  std::set<std::string_view> names;
  for (Status s : all) names.insert(tessel::to_string(s));
  EXPECT_EQ(names.size(), std::size(all));
  EXPECT_EQ(tessel::to_string(Status::kErrorArchMismatch), "Error Architecture Mismatch");
  EXPECT_EQ(tessel::to_string(Status::kErrorMisalignedOperand), "Error Misaligned Operand");
  std::ostringstream os;
  os << Status::kSuccess;
  EXPECT_EQ(os.str(), "Success");
}

TEST(StatusInfo, ConvertsToAndComparesWithStatus) {
  StatusInfo ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_TRUE(ok == Status::kSuccess);
  EXPECT_EQ(ok.what(), "Success");

  StatusInfo bad{Status::kErrorInvalidProblem, "M is negative"};
  EXPECT_FALSE(bad.ok());
  EXPECT_TRUE(bad != Status::kSuccess);
  EXPECT_TRUE(Status::kErrorInvalidProblem == bad);
  const Status plain = bad;  // code written against plain Status keeps working
  EXPECT_EQ(plain, Status::kErrorInvalidProblem);
  EXPECT_EQ(bad.what(), "Error Invalid Problem: M is negative");
  std::ostringstream os;
  os << bad;
  EXPECT_EQ(os.str(), bad.what());
}

TEST(AlignmentMessage, SaysWhatIsWrongAndHowToFixIt) {
  // The case from the issue: half precision, 128-bit vector loads = 8 elements.
  EXPECT_EQ(tessel::misaligned_extent_message("leading dimension of A", 4095, 8, 16),
            "leading dimension of A is 4095, not a multiple of the 8 elements (16 bytes) the "
            "vector loads need: pad it to 4096, or use a lower alignment");
  // f32 with 4-element alignment; a value one past a multiple pads up, not down.
  EXPECT_EQ(tessel::misaligned_extent_message("K", 17, 4, 32),
            "K is 17, not a multiple of the 4 elements (16 bytes) the vector loads need: pad it "
            "to 20, or use a lower alignment");
  // Sub-byte elements are stated in bits.
  EXPECT_NE(tessel::misaligned_extent_message("N", 3, 1, 4).find("1 element (4 bits)"),
            std::string::npos);
}

TEST(AlignmentCheck, AcceptsMultiplesAndRejectsTheRest) {
  EXPECT_TRUE(tessel::check_extent_alignment("leading dimension of B", 4096, 8, 16).ok());
  EXPECT_TRUE(tessel::check_extent_alignment("leading dimension of B", 0, 8, 16).ok());
  const StatusInfo bad = tessel::check_extent_alignment("leading dimension of B", 4100, 8, 16);
  EXPECT_EQ(bad.status, Status::kErrorMisalignedOperand);
  EXPECT_NE(bad.message.find("4100"), std::string::npos);
  EXPECT_NE(bad.message.find("pad it to 4104"), std::string::npos);
  EXPECT_EQ(tessel::check_extent_alignment("x", 8, 0, 16).status, Status::kErrorInternal);
}

TEST(AlignmentCheck, Pointers) {
  alignas(16) static unsigned char buffer[64];
  EXPECT_TRUE(tessel::check_pointer_alignment("base address of A", buffer, 16).ok());
  EXPECT_TRUE(tessel::check_pointer_alignment("base address of A", buffer + 16, 16).ok());
  const StatusInfo bad = tessel::check_pointer_alignment("base address of A", buffer + 2, 16);
  EXPECT_EQ(bad.status, Status::kErrorMisalignedOperand);
  EXPECT_NE(bad.message.find("base address of A is 0x"), std::string::npos);
  EXPECT_NE(bad.message.find("not aligned to the 16 bytes"), std::string::npos);
  EXPECT_TRUE(tessel::check_pointer_alignment("x", buffer + 2, 2).ok());
}

}  // namespace
