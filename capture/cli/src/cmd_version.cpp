// lockstep version: the build's version and the library versions it runs with.
#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include <fmt/format.h>

#include "command.hpp"

namespace lockstep::cli {
namespace {

Action setup_version(CLI::App& app, const cases::BindingSet& /*bindings: runs no port*/) {
  (void)app;
  return [](Io& io) -> Result<int> {
    io.out << version_line() << "\n";
    return kExitOk;
  };
}

}  // namespace

std::string version_line() {
  unsigned umaj = 0, umin = 0;
  uc_version(&umaj, &umin);
  int cmaj = 0, cmin = 0;
  cs_version(&cmaj, &cmin);
  // LOCKSTEP_VERSION is the project's version (CMake's project(VERSION)), so it cannot drift from it.
  return fmt::format("lockstep {} (unicorn {}.{}, capstone {}.{})", LOCKSTEP_VERSION, umaj, umin, cmaj, cmin);
}

Command version_command() {
  return {"version", "Print lockstep's version and its libraries'", setup_version};
}

}  // namespace lockstep::cli
