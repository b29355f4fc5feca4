#include <iostream>

#include "lockstep/cli/cli.hpp"

int main(int argc, char** argv) { return lockstep::cli::run(argc, argv, {std::cout, std::cerr}); }
