#pragma once
// The outer frame every tessel command-line tool runs in, written once for all of them.
//
// A tool's `run` returns its exit status; `guarded_main` turns what would otherwise end the
// process badly into one line on stderr and a nonzero status:
//   - an exception that escaped (std::bad_alloc on an input too large, anything else): exit 2;
//   - standard output that could not be written (a full disk, `> /dev/full`, a closed pipe):
//     exit 2 instead of 0, since the result the caller asked for was lost.
// Output files a tool opens itself are checked where they are written; this covers stdout.

#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>

namespace tessel::tools {

/// The status a tool exits with when it could not finish its work for a reason outside its
/// input's meaning (no memory, an unwritable output).
inline constexpr int kExitEnvironment = 2;

/// Flushes std::cout and reports whether everything written to it reached the file.
inline bool stdout_written() {
  std::cout.flush();
  return !std::cout.fail() && std::fflush(stdout) == 0 && !std::ferror(stdout);
}

template <class Run>
int guarded_main(char const* tool, Run&& run) {
  int status = 0;
  try {
    status = run();
  } catch (std::bad_alloc const&) {
    std::cerr << tool << ": out of memory: the input asks for more than this machine can hold; "
                          "pass a smaller problem\n";
    return kExitEnvironment;
  } catch (std::exception const& e) {
    std::cerr << tool << ": internal error: " << e.what() << "\n";
    return kExitEnvironment;
  }
  if (!stdout_written()) {
    std::cerr << tool << ": cannot write the output (standard output is full or closed)\n";
    return status != 0 ? status : kExitEnvironment;
  }
  return status;
}

}  // namespace tessel::tools
