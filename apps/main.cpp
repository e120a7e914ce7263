// main() of the daekit command: the logic is run_cli() (cli.cpp), here it only gets argv and
// the process's stdout and stderr.
#include <string>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return daekit::cli::run_cli(args, stdout, stderr);
}
