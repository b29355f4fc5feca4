// Running the stand-in from a test, in a mode the caller names: natively (the kernel executes the i386
// program; a pause is snapshotted live with lockstep's snapshot_live while the program is stopped) or
// emulated (under standin_run, the project's i386 runner on Unicorn, which writes the snapshot at the
// pause itself). The two give the same step log; their snapshots differ (stack placement, pid, vdso),
// so a test that compares anything with checked-in bytes must ask for Mode::kEmulated.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace standin_test {

enum class Mode {
  kNative,    ///< the kernel runs it; an error where the kernel cannot execute i386 programs
  kEmulated,  ///< under standin_run, on every machine: the canonical mode
  kAuto,      ///< native where the kernel can, else emulated (for checks that hold in both modes)
};

struct Run {
  int exit_status = -1;   ///< the program's exit status (or 128 + signal)
  std::string out;        ///< its stdout
  std::string err;        ///< its stderr
  bool emulated = false;  ///< run under standin_run
  std::optional<lockstep::harness::Snapshot> snapshot;  ///< taken at the pause, when asked
};

/// True when this kernel executes the (i386) stand-in directly.
bool native_i386();

/// Why the native mode cannot run here (empty when it can): for a test's skip message.
std::string native_unavailable_reason();

/// Runs the stand-in with `args` in `mode`. With `pause_at`, passes `pause_flag` (--pause-at: at a
/// step; --pause-at-pass: at the start of a pass) with it and takes the snapshot there. Mode::kNative
/// on a kernel that cannot execute i386 programs is an error (Errc::kUnsupported).
lockstep::Result<Run> run_standin(Mode mode, const std::vector<std::string>& args, std::optional<int> pause_at,
                                  const std::filesystem::path& scratch,
                                  const std::string& pause_flag = "--pause-at");

}  // namespace standin_test
