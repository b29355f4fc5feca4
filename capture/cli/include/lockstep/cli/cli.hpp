// The lockstep command line as a library (lockstep::cli): every command (snapshot, info, call,
// check-steps, capture, replay, merge-reports, coverage, probe, version) behind one entry point.
//
// The commands are the same for every game; what is a game's own is its bindings (the port's
// functions, one per original address, lockstep/cases/binding.hpp), which `run`'s caller passes in.
// A game's executable is therefore a few lines:
//
//   #include <iostream>
//   #include "lockstep/cli/cli.hpp"
//   #include "mygame/bindings.hpp"
//
//   int main(int argc, char** argv) {
//     return lockstep::cli::run(argc, argv, {std::cout, std::cerr}, mygame::bindings());
//   }
//
// and in CMake: `target_link_libraries(mygame_lockstep PRIVATE lockstep::cli mygame_bindings)`.
// The shipped `lockstep` executable is exactly that with POD's bindings (port/lockstep/main.cpp).
#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/cases/binding.hpp"

namespace lockstep::cli {

/// The streams a command prints to: results to `out`, errors and progress to `err`.
struct Io {
  std::ostream& out;
  std::ostream& err;
  /// The executable as the user ran it (main()'s argv[0]: a game's own lockstep, "build/mygame_lockstep"):
  /// what a report tells the user to run again.
  std::string_view program = "lockstep";
};

/// Runs one command line (without the program name, e.g. {"replay", "CORPUS", "--jobs", "2"}) and
/// returns the process exit code (lockstep::ExitCode: 0 ok, 1 mismatch, 2 bad input or usage, 3 guest
/// fault, 4 environment, 5 internal, 6 a search found nothing). `bindings` are the port's functions
/// that `replay` and `probe` run; commands that run only the original ignore them. Never throws.
int run(std::span<const std::string_view> args, Io io, const cases::BindingSet& bindings);
int run(const std::vector<std::string>& args, Io io, const cases::BindingSet& bindings);
/// main()'s arguments as they come (argv[0], the program name, becomes `io.program`).
int run(int argc, const char* const* argv, Io io, const cases::BindingSet& bindings);

/// "lockstep X.Y.Z (unicorn A.B, capstone C.D)": what `--version` and `version` print.
std::string version_line();

}  // namespace lockstep::cli
