// The replay gate as a library (lockstep::gate): a corpus becomes one GoogleTest test per function,
// and a failing test's message is the replay report a porter reads (the differing bytes named by the
// profile's labels, the original's disassembly).
//
// What a function's test asserts:
// - every case of it matches: the port's writes, return registers and reads equal the original's,
//   byte for byte (a read of a byte the original never read fails too);
// - except the differences a known-differences file lists, byte by byte, each with its reason; a
//   difference not listed fails, and so does a listed one that went away (the list must stay true);
// - a function whose cases all read and write nothing fails (a capture that ran a stub records a
//   bare `ret`: no evidence), unless its cases were poked on purpose (a search or an analyst chose
//   the state);
// - a function without a binding, or without cases, fails (nothing of it was checked), unless the
//   exclusions file lists it with the reason it is left unchecked: then it is skipped, with that reason
//   (harness/docs/verdict.md); a gate, or a shard of one, in which no function has both a binding and
//   cases registers one test, SUITE.nothing_checked, that fails. The run ends by printing "lockstep
//   gate: N of M cases checked".
//
// The known-differences file, one line per stretch of bytes (# starts a comment):
//   FUNCTION_ADDRESS:CASE_ID  KIND ADDRESS[+COUNT]  why
// KIND: outside-read (the port read bytes the original never read), different (both wrote, other
// values), not-written (the original wrote, the port did not), extra-write (the port wrote a byte the
// original left alone), register (ADDRESS is the register's name: eax, edx, st0) or port-error (no
// ADDRESS). A failing test prints its unlisted differences already spelled as such lines.
//
// Most games need no C++ for it: the package's CMake function makes the executable and its tests,
//   lockstep_add_gate(mygame_gate CORPUS cases/mygame PROFILE mygame.toml
//                     BINDINGS mygame_bindings src/gate_bindings.cpp
//                     [KNOWN_DIFFERENCES known.txt] [EXCLUSIONS excluded.txt] [TEST_PREFIX p.] [LABELS l...])
// where one of the BINDINGS sources or libraries defines lockstep::testing::gate_bindings() (below).
// The executable takes --corpus DIR, --profile FILE, --known FILE, --exclusions FILE (overriding the
// defaults it was made with) and --shard K/N, besides GoogleTest's own flags.
#pragma once

#include <string>

#include "lockstep/base/parallel.hpp"
#include "lockstep/base/result.hpp"
#include "lockstep/cases/binding.hpp"

namespace lockstep::testing {

struct GateOptions {
  std::string corpus;             ///< the corpus folder (manifest.json + case files)
  std::string profile;            ///< the original's profile: its labels name differing bytes ("" = the one the
                                  ///< corpus was captured with, when it can still be read)
  std::string known_differences;  ///< the known-differences file ("" = none: every difference fails)
  std::string exclusions;         ///< functions left unchecked on purpose, with reasons (harness/exclusions.hpp;
                                  ///< "" = none: every function without a binding or cases fails)
  /// Only shard K of N: the corpus's functions dealt out in address order, the n-th to shard n % N + 1
  /// (as `lockstep replay --shard` deals them), so N jobs together run the whole gate.
  Shard shard;
  std::string suite = "Gate";  ///< the GoogleTest suite; tests are SUITE.fn_<address>_<name>
};

/// Reads the corpus, the profile and the known differences and registers one test per function of
/// the shard. Call it after testing::InitGoogleTest and before RUN_ALL_TESTS; the tests keep what
/// they need. Errors (nothing registered): the corpus's or the profile's read errors, a malformed
/// known-differences line (kBadInput, naming file and line), a listed case the corpus does not hold,
/// an exclusion without a reason or naming no function of the corpus.
Status register_gate(const GateOptions& options, cases::BindingSet bindings);

/// A gate's whole main(): takes --corpus, --profile, --known, --exclusions and --shard K/N out of argv (each
/// overriding `defaults`), initializes GoogleTest, registers the gate and runs every test. Returns
/// RUN_ALL_TESTS()'s result, or after printing the error the exit code of a bad input (2: usage, a
/// malformed file) or of a file it cannot read (lockstep::exit_code_for).
int gate_main(int argc, char** argv, GateOptions defaults, cases::BindingSet bindings);

/// The game's bindings, for the main() lockstep_add_gate generates: defined by one of the sources or
/// libraries given as its BINDINGS, e.g.
///   lockstep::cases::BindingSet lockstep::testing::gate_bindings() { return mygame::bindings(); }
cases::BindingSet gate_bindings();

}  // namespace lockstep::testing
