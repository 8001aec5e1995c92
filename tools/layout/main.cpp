// tessel-layout: a calculator for CuTe-style layouts.
#include <iostream>
#include <string>
#include <vector>

#include "calc/cli.hpp"
#include "cli_main.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return tessel::tools::guarded_main("tessel-layout", [&] { return tessel::calc::run(args, std::cout, std::cerr); });
}
