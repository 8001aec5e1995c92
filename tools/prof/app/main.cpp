// tessel-prof: tessel's GEMM kernels against cuBLAS on the user's shapes.
#include <iostream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "cli_main.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return tessel::tools::guarded_main("tessel-prof", [&] { return tessel::prof::run_cli(args, std::cout, std::cerr); });
}
