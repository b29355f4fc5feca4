// Capture: run the profile's driver over the recorded states and record every call of chosen
// original functions — nested calls included — as cases (README.md, "The pipeline").
//
// Sampling follows the physics document's capture (`--every 3 --max 3`): `every` N takes the driver
// runs (state-log records) whose index is a multiple of N; `max` M keeps at most M calls of each
// function per driver run (the first M), so a helper called a hundred times a step gives M cases a
// step and the top-level step gives one.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/capture/conventions_check.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/cases/case.hpp"
#include "lockstep/cases/case_file.hpp"
#include "lockstep/machine/machine.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/calls/recorder.hpp"

namespace lockstep::capture {

struct Sampling {
  std::uint32_t every = 1;  ///< driver runs taken: index % every == 0 (1 = all)
  std::uint32_t max = 0;    ///< cases per function per driver run (0 = no limit)
};

/// Where the calls being recorded come from (filled in per driver run).
struct RunOrigin {
  std::string snapshot_sha256;
  std::string record;            ///< "CTRL"
  std::uint32_t record_index = 0;
  std::uint32_t step = 0;
  std::uint32_t instance = 0;  ///< the record's instance; a FRAM record's pass number; 0 for a STEP record
};

/// A recorded call as a case (ids are assigned by the collector).
cases::Case to_case(const harness::CallRecord& rec, const harness::FunctionSpec* spec, const RunOrigin& origin);

/// Collects the calls of the watched functions into per-function case files, sampling per run.
class CaseCollector final : public harness::CallObserver {
 public:
  CaseCollector(const harness::Profile& profile, std::vector<harness::GuestAddr> functions, Sampling sampling);

  /// Starts a driver run; returns false when sampling skips it (the run need not be executed for
  /// capture then).
  bool begin_run(const RunOrigin& origin);

  bool on_enter(harness::GuestAddr function, std::uint64_t call_index, const harness::Registers& in) override;
  void on_leave(const harness::CallRecord& record) override;

  /// Calls that did not complete (the run faulted inside them): not turned into cases, counted.
  std::uint32_t incomplete() const noexcept { return incomplete_; }
  std::uint64_t cases() const noexcept;
  /// The case files, ascending by address (functions with no case included, empty).
  std::vector<cases::CaseFile> files() const;
  /// The same, moved out (the collector is empty afterwards): a capture's cases are not copied.
  std::vector<cases::CaseFile> take_files();

 private:
  const harness::Profile& profile_;
  Sampling sampling_;
  RunOrigin origin_;
  std::map<harness::GuestAddr, cases::CaseFile> files_;
  std::map<harness::GuestAddr, std::uint32_t> taken_this_run_;
  std::map<harness::GuestAddr, std::uint32_t> calls_this_run_;
  std::uint32_t incomplete_ = 0;
};

struct CaptureOptions {
  /// Functions whose every call (nested ones included) becomes a case.
  std::vector<harness::GuestAddr> functions;
  Sampling sampling;
  /// Bytes laid over each recorded state before the run (an analyst's "what if"); cases made with
  /// pokes are marked poked and list them.
  std::vector<cases::Poke> pokes;
  /// The [[driver]] to run; empty: the profile's first driver on CTRL records.
  std::string driver;
  /// Thread, block budget, timeout; the FPU default and the stubs come from the profile.
  harness::MachineConfig machine;
  /// Identity of the snapshot, written into every case's origin.
  std::string snapshot_sha256;
  /// Called after each driver run with (runs done, total runs, cases so far); with several threads,
  /// from any of them, one call at a time.
  std::function<void(std::uint64_t, std::uint64_t, std::uint64_t)> progress;
  /// Threads, each with its own machine (one Unicorn engine each). The corpus is the same for any
  /// number.
  unsigned jobs = 1;
  /// Check each function's cases against its declared convention (conventions_check.hpp).
  bool check_conventions = true;
};

struct CaptureReport {
  std::string driver;
  std::uint64_t runs = 0;           ///< records of the driver's kind in the log
  std::uint64_t runs_captured = 0;  ///< of those, run (sampling took them)
  std::uint64_t faulted = 0;        ///< runs that stopped on a guest fault
  std::uint32_t incomplete = 0;     ///< calls cut short by a fault (no case made)
  std::vector<cases::CaseFile> files;  ///< one per function, ascending by address, code bytes included
  /// Functions whose calls contradict their declared convention (when checked).
  std::vector<ConventionDisagreement> conventions;
  std::uint64_t cases() const noexcept;
};

/// Gives each case file the original function's code bytes (entry to the last instruction its jumps
/// reach, at most 64 KiB) and those of its private helpers (calls to where `profile` names no
/// function: the stand-in's C body behind its thunk), for the replay report's disassembly and the
/// instructions that wrote each byte.
void attach_function_code(std::vector<cases::CaseFile>& files, const harness::Snapshot& snapshot,
                          const harness::Profile& profile);

/// Runs the profile's driver over the log's records and records every call of the chosen functions.
Result<CaptureReport> capture(const harness::Snapshot& snapshot, const StateLog& log, const harness::Profile& profile,
                              const CaptureOptions& options);

}  // namespace lockstep::capture
