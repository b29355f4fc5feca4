// gliders_lockstep: every lockstep command, with Gliders' port as the bindings replay and probe run.
#include <iostream>

#include "bindings/bindings.hpp"
#include "lockstep/cli/cli.hpp"

int main(int argc, char** argv) { return lockstep::cli::run(argc, argv, {std::cout, std::cerr}, gliders::bindings()); }
