// crawl_lockstep: lockstep's command line with Crawl's bindings, so `crawl_lockstep replay corpus/`
// runs Crawl's port (the shipped `lockstep` runs POD's). Built when the installed lockstep provides
// lockstep::cli.
#include <iostream>

#include "crawl/bindings.hpp"
#include "lockstep/cli/cli.hpp"

int main(int argc, char** argv) {
  return lockstep::cli::run(argc, argv, {std::cout, std::cerr}, crawl::bindings::all());
}
