// lockstep version: the build's version and the library versions it runs with.
#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include <fmt/ostream.h>

#include "lockstep/cli/cli.hpp"

namespace lockstep::cli {
namespace {

std::function<int(Io&)> setup_version(CLI::App& app) {
  (void)app;
  return [](Io& io) {
    unsigned umaj = 0, umin = 0;
    uc_version(&umaj, &umin);
    int cmaj = 0, cmin = 0;
    cs_version(&cmaj, &cmin);
    fmt::print(io.out, "lockstep 0.1.0 (unicorn {}.{}, capstone {}.{})\n", umaj, umin, cmaj, cmin);
    return kExitOk;
  };
}

}  // namespace

LOCKSTEP_REGISTER_COMMAND(kVersion, "version", "Print lockstep's version and its libraries'", setup_version);

}  // namespace lockstep::cli
