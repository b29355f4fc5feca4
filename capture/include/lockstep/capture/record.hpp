// Recording a running original (`lockstep record`, capture/docs/record.md): breakpoints at the
// profile's recording points (`[[record]]`), a state-log record of the named blocks at each hit
// (capture/docs/state-log.md, as check-steps and capture read it), the whole-process snapshot at a
// chosen step, and a detach that leaves the program running.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/live/live.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::capture {

struct RecordOptions {
  int pid = 0;                        ///< attach to this running process ...
  std::vector<std::string> command;   ///< ... or start this one (exactly one of the two)
  bool no_aslr = false;               ///< start it with address-space randomisation off (setarch -R)
  std::filesystem::path log;          ///< the state log, written whole (a temporary file renamed at the end)
  std::string producer = "lockstep-record";  ///< the log header's producer (16 ASCII characters at most)
  /// Take the whole-process snapshot at the first hit whose step is at least this, before its record.
  std::optional<std::uint32_t> snapshot_at;
  std::filesystem::path snapshot;     ///< where it goes (with snapshot_at)
  harness::LiveSnapshotOptions snapshot_options;
  /// Stop at the first hit whose step is the first step seen + steps (that hit is not recorded).
  std::optional<std::uint32_t> steps;
  std::optional<std::chrono::duration<double>> duration;  ///< stop after this long
  bool allow_64bit = false;           ///< record a 64-bit process too (its blocks must lie below 4 GiB)
  /// Only the points with these tags (all when empty): a profile may list more points than a
  /// thread's four debug registers hold, and a recording takes the ones it needs.
  std::vector<std::string> tags;
};

/// How often one recording point was hit, recorded and skipped.
struct PointCount {
  std::string tag;
  harness::GuestAddr address = 0;
  harness::RecordWhere where = harness::RecordWhere::kAddress;
  std::uint64_t hits = 0, records = 0, skipped = 0;  ///< records: taken (a step left unfinished is not written)
};

struct RecordReport {
  enum class End {
    kSteps,        ///< --steps reached
    kTime,         ///< the duration passed
    kExited,       ///< the program exited with status 0 (no --steps asked, or before it)
    kFailed,       ///< the program exited with another status or was killed by a signal
    kInterrupted,  ///< SIGINT, SIGTERM or SIGHUP reached lockstep: it detached
  };
  End end = End::kExited;
  int exit_status = 0, signal = 0;    ///< kExited/kFailed: the program's; kInterrupted: the signal
  int pid = 0;
  std::uint64_t records = 0;   ///< written to the log
  std::uint64_t skipped = 0;   ///< not taken: a block or value unreadable at the hit
  std::uint64_t dropped = 0;   ///< taken but left out: an attached recording's first step, the unfinished last one
  std::uint64_t log_bytes = 0;
  std::optional<std::uint32_t> first_step, last_step;
  std::size_t threads = 0;            ///< threads seen (attached or created while recording)
  bool snapshot_taken = false;
  std::optional<std::uint32_t> snapshot_step;
  double seconds = 0;                 ///< from the first breakpoint set to the detach
  std::vector<PointCount> points;     ///< per [[record]], in profile order
  std::vector<std::string> skip_reasons;  ///< the first few skipped records, why
  bool steps_asked = false;           ///< RecordOptions::steps was given
  /// The program ended before the recording did (exit code kExitProgramEnded).
  bool ended_early() const noexcept;
};

const char* record_end_name(RecordReport::End e) noexcept;

/// Records `profile.record_points` in the process `options` names. Before anything is attached, the
/// points are checked (at most four debug-register slots; with --pid, every point in an executable
/// mapping of the process). Errors: kUsage (bad points or options), kPermission (ptrace refused,
/// naming ptrace_scope), kNotFound (no such process or program), kUnsupported (a 64-bit process
/// without allow_64bit, no debug registers), kIo (the log or the snapshot could not be written).
Result<RecordReport> record(const harness::Profile& profile, const RecordOptions& options);

}  // namespace lockstep::capture
