#include <iostream>

#include <unistd.h>

#include "sim/cli/cli.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  return collsim::runCli(argc, argv, {std::cout, std::cerr, isatty(STDERR_FILENO) == 1});
}
