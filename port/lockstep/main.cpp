// `lockstep`: every command of lockstep::cli, with POD's port as the bindings replay and probe run.
#include <iostream>

#include "lockstep/cli/cli.hpp"
#include "pod/bindings/bindings.hpp"

int main(int argc, char** argv) {
  return lockstep::cli::run(argc, argv, {std::cout, std::cerr}, pod::bindings::all());
}
