// The lockstep command line as a library: main() calls run(); tests call run() with their own streams.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "lockstep/base/result.hpp"

namespace lockstep::cli {

/// Streams a command prints to.
struct Io {
  std::ostream& out;
  std::ostream& err;
};

/// A subcommand: `setup` adds its options to `app` and returns the action run when it is chosen.
/// The action returns a process exit code (see lockstep::ExitCode).
struct Command {
  std::string name;
  std::string help;
  std::function<std::function<int(Io&)>(CLI::App& app)> setup;
};

/// The registry every cmd_*.cpp adds itself to.
std::vector<Command>& commands();
struct Registrar {
  explicit Registrar(Command c) { commands().push_back(std::move(c)); }
};

/// Prints an Error as "lockstep: error (kind): message" and returns its exit code.
int report(Io& io, const Error& e);

/// "lockstep X.Y.Z (unicorn A.B, capstone C.D)": `lockstep --version` and `lockstep version`.
std::string version_line();

/// Runs the command line; returns the exit code.
int run(int argc, const char* const* argv, Io io);
int run(const std::vector<std::string>& args, Io io);  ///< args without the program name

}  // namespace lockstep::cli

#define LOCKSTEP_REGISTER_COMMAND(var, ...) \
  static const ::lockstep::cli::Registrar var { ::lockstep::cli::Command{__VA_ARGS__} }
