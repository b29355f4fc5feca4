// The consumer's own `lockstep`: every command, with its port's bindings (capture/cli/README.md).
#include <iostream>

#include "bindings.hpp"
#include "lockstep/cli/cli.hpp"

int main(int argc, char** argv) {
  return lockstep::cli::run(argc, argv, {std::cout, std::cerr}, sum_game::bindings());
}
