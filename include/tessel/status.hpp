#pragma once
// Status codes returned by every host-side entry point (can_implement, initialize, run), and a
// StatusInfo that carries, next to the code, one sentence saying what is wrong and how to fix it.
//
// The enumerator names follow CUTLASS's where the concept is the same, so that code and habits
// carry over; the strings and the message helpers are tessel's own.

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace tessel {

enum class Status {
  kSuccess,                  // the operation succeeded
  kErrorMisalignedOperand,   // a pointer, stride or extent breaks the alignment the kernel needs
  kErrorInvalidDataType,     // an element type the kernel cannot read or write
  kErrorInvalidLayout,       // a layout (row/column-major, stride pattern) the kernel cannot take
  kErrorInvalidProblem,      // a problem size the kernel cannot compute (negative, too large, ...)
  kErrorNotSupported,        // a valid request this build or this device does not provide
  kErrorWorkspaceNull,       // the kernel needs a workspace and none was given
  kErrorInternal,            // a CUDA call failed, or an invariant of tessel's own broke
  kErrorArchMismatch,        // the device cannot run the architecture the kernel was built for
  kErrorInsufficientDriver,  // the CUDA driver is older than the runtime or the feature needs
  kErrorMemoryAllocation,    // a device or host allocation failed
  kInvalid                   // not a status: the value of a Status that was never set
};

// A short, stable name for logs and test output.
constexpr std::string_view to_string(Status status) {
  switch (status) {
    case Status::kSuccess: return "Success";
    case Status::kErrorMisalignedOperand: return "Error Misaligned Operand";
    case Status::kErrorInvalidDataType: return "Error Invalid Data Type";
    case Status::kErrorInvalidLayout: return "Error Invalid Layout";
    case Status::kErrorInvalidProblem: return "Error Invalid Problem";
    case Status::kErrorNotSupported: return "Error Not Supported";
    case Status::kErrorWorkspaceNull: return "Error Workspace Null";
    case Status::kErrorInternal: return "Error Internal";
    case Status::kErrorArchMismatch: return "Error Architecture Mismatch";
    case Status::kErrorInsufficientDriver: return "Error Insufficient Driver";
    case Status::kErrorMemoryAllocation: return "Error Memory Allocation";
    case Status::kInvalid: return "Invalid Status";
  }
  return "Invalid Status";
}

inline std::ostream& operator<<(std::ostream& os, Status status) { return os << to_string(status); }

// A Status with the sentence that explains it. It converts to Status, so code written against the
// plain code (`if (gemm.can_implement(args) != Status::kSuccess)`) keeps working, while callers
// who want to tell a user why can print `info.message` (or `info.what()`).
struct [[nodiscard]] StatusInfo {
  Status status = Status::kSuccess;
  std::string message;

  StatusInfo() = default;
  StatusInfo(Status s, std::string m = {}) : status(s), message(std::move(m)) {}  // NOLINT: implicit on purpose

  bool ok() const { return status == Status::kSuccess; }
  operator Status() const { return status; }  // NOLINT: implicit on purpose

  // "Error Misaligned Operand: leading dimension of A is 4095, ..." or "Success".
  std::string what() const {
    std::string out(to_string(status));
    if (!message.empty()) {
      out += ": ";
      out += message;
    }
    return out;
  }

  friend bool operator==(const StatusInfo& info, Status s) { return info.status == s; }
};

inline std::ostream& operator<<(std::ostream& os, const StatusInfo& info) { return os << info.what(); }

// ---- Alignment messages ---------------------------------------------------------------------
// Every kernel that loads operands with vector instructions needs some extents to be multiples of
// the vector width. The message is written once here so that all kernels say it the same way:
// what was given, what is needed in elements and in bytes, and the two ways out.

namespace detail {
inline std::string bits_as_bytes(std::int64_t bits) {
  if (bits % 8 == 0) return std::to_string(bits / 8) + (bits == 8 ? " byte" : " bytes");
  return std::to_string(bits) + " bits";
}
inline std::string hex_address(const void* p) {
  static constexpr char kDigits[] = "0123456789abcdef";
  auto v = reinterpret_cast<std::uintptr_t>(p);
  std::string out;
  do {
    out.insert(out.begin(), kDigits[v & 0xf]);
    v >>= 4;
  } while (v != 0);
  return "0x" + out;
}
}  // namespace detail

// "leading dimension of A is 4095, not a multiple of the 8 elements (16 bytes) the vector loads
//  need: pad it to 4096, or use a lower alignment"
// `what` names the quantity ("leading dimension of A", "K"); the alignment is given in elements
// of a type `element_bits` wide.
inline std::string misaligned_extent_message(std::string_view what, std::int64_t value,
                                             int alignment_elements, int element_bits) {
  const std::int64_t a = alignment_elements;
  const std::int64_t padded = value >= 0 ? (value + a - 1) / a * a : 0;
  std::string out(what);
  out += " is " + std::to_string(value) + ", not a multiple of the " + std::to_string(a) +
         (a == 1 ? " element (" : " elements (") +
         detail::bits_as_bytes(a * static_cast<std::int64_t>(element_bits)) +
         ") the vector loads need: pad it to " + std::to_string(padded) +
         ", or use a lower alignment";
  return out;
}

// kSuccess when `value` is a multiple of `alignment_elements`, else kErrorMisalignedOperand with
// the message above.
inline StatusInfo check_extent_alignment(std::string_view what, std::int64_t value,
                                         int alignment_elements, int element_bits) {
  if (alignment_elements <= 0) {
    return {Status::kErrorInternal,
            "alignment for " + std::string(what) + " must be positive, got " +
                std::to_string(alignment_elements)};
  }
  if (value % alignment_elements == 0) return {};
  return {Status::kErrorMisalignedOperand,
          misaligned_extent_message(what, value, alignment_elements, element_bits)};
}

// kSuccess when `ptr` is aligned to `alignment_bytes`, else kErrorMisalignedOperand with
// "base address of A is 0x7f0000000002, not aligned to the 16 bytes the vector loads need:
//  allocate it with cudaMalloc (256-byte aligned) or offset it by a multiple of 16 bytes, or use a
//  lower alignment".
inline StatusInfo check_pointer_alignment(std::string_view what, const void* ptr,
                                          int alignment_bytes) {
  if (alignment_bytes <= 0) {
    return {Status::kErrorInternal, "alignment for " + std::string(what) +
                                        " must be positive, got " +
                                        std::to_string(alignment_bytes)};
  }
  if (reinterpret_cast<std::uintptr_t>(ptr) % static_cast<std::uintptr_t>(alignment_bytes) == 0) {
    return {};
  }
  const std::string bytes = detail::bits_as_bytes(std::int64_t{alignment_bytes} * 8);
  return {Status::kErrorMisalignedOperand,
          std::string(what) + " is " + detail::hex_address(ptr) + ", not aligned to the " + bytes +
              " the vector loads need: allocate it with cudaMalloc (256-byte aligned) or offset "
              "it by a multiple of " +
              bytes + ", or use a lower alignment"};
}

}  // namespace tessel
