// Running the stand-in from a test: natively when the kernel executes i386 programs, else under
// standin_run (Unicorn). A pause (--pause-at) gives a whole-process snapshot either way: taken live
// with lockstep's snapshot_live while the program is stopped, or written by standin_run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/harness/snapshot.hpp"

namespace standin_test {

struct Run {
  int exit_status = -1;   ///< the program's exit status (or 128 + signal)
  std::string out;        ///< its stdout
  std::string err;        ///< its stderr
  bool emulated = false;  ///< run under standin_run
  std::optional<lockstep::harness::Snapshot> snapshot;  ///< taken at the pause, when asked
};

/// True when this kernel executes the (i386) stand-in directly.
bool native_i386();

/// Runs the stand-in with `args`. With `pause_at`, passes --pause-at and takes the snapshot there.
lockstep::Result<Run> run_standin(const std::vector<std::string>& args, std::optional<int> pause_at,
                                  const std::filesystem::path& scratch);

}  // namespace standin_test
