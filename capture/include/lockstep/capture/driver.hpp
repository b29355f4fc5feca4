// Drivers: running the profile's [[driver]] function on every recorded state of a state log, and
// checking whole steps (`lockstep check-steps`): for each CTRL record, the snapshot with the record's
// blocks laid over it, the car step run under the Unicorn machine (controller and catch-up stubbed),
// every byte of the matching PHYS record compared.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/machine/machine.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::capture {

struct StepCheckOptions {
  /// The [[driver]] to run; empty: the profile's first driver whose record is CTRL.
  std::string driver;
  /// Check at most this many steps (records of the driver's kind, in log order); 0 = all.
  std::uint64_t max_steps = 0;
  /// Mismatching steps reported in detail (all are counted).
  std::size_t max_reports = 10;
  /// Differing fields listed per reported step.
  std::size_t max_fields = 12;
  /// Thread, block budget, timeout; the FPU default and the stubs come from the profile.
  harness::MachineConfig machine;
  /// Called after each step with (steps done, total).
  std::function<void(std::uint64_t, std::uint64_t)> progress;
};

/// One field that differs after a step: the compare record's bytes vs the emulator's.
struct FieldDiff {
  std::string name;           ///< "car[3]+0x440 engine_speed"
  GuestAddr start = 0;        ///< first byte shown
  std::vector<std::uint8_t> expected;  ///< the compare record (PHYS)
  std::vector<std::uint8_t> actual;    ///< memory after the emulated step
};

struct StepMismatch {
  std::uint32_t step = 0;
  std::int32_t instance = 0;
  std::optional<std::int32_t> pass;     ///< frame mode: the pass run (from FRAM record `pass` to the next)
  std::optional<harness::Fault> fault;  ///< the step faulted (nothing compared)
  std::string problem;                  ///< no compare record, a block outside memory, ...
  std::uint64_t bytes_differing = 0;
  std::vector<FieldDiff> fields;        ///< the first max_fields differing fields, in address order
};

struct StepCheckReport {
  std::string driver;
  bool frame_mode = false;       ///< passes run from one FRAM record to the next, not car steps
  std::uint64_t total = 0;       ///< steps checked
  std::uint64_t matched = 0;
  std::uint64_t faulted = 0;
  std::uint64_t blocks = 0;      ///< translated blocks executed, all steps
  std::vector<StepMismatch> mismatches;  ///< the first max_reports
  bool all_matched() const noexcept { return total > 0 && matched == total; }
};

/// A driver resolved against a profile: the function, its convention, the record kinds it runs on
/// and compares with.
struct ResolvedDriver {
  const harness::DriverSpec* spec = nullptr;
  RecordKind run_kind = RecordKind::kCtrl;
  RecordKind compare_kind = RecordKind::kPhys;
  harness::CallSpec call;  ///< function, convention, returns (arguments per record: driver_args)
};
/// The named driver (empty: the first on CTRL records), or kNotFound / kMalformed.
Result<ResolvedDriver> resolve_driver(const harness::Profile& profile, const std::string& name);
/// A machine for a driver: the profile's FPU default and stubs (the driver's own switched on), with
/// recording on (exact restores between runs).
Result<std::unique_ptr<harness::Machine>> driver_machine(const harness::Snapshot& snapshot,
                                                          const harness::Profile& profile,
                                                          const ResolvedDriver& driver, harness::MachineConfig cfg);
/// Resets the machine and lays a record's blocks over it.
Status lay_record(harness::Machine& machine, const Record& record, const std::string& kind);
/// The driver's arguments for a record's instance (the profile's instances indexed by it).
/// The indexes of the log's records the driver runs on (its `record` kind), each checked up front:
/// kMalformed when there is none (a log without them would give an empty run that passes) or when
/// a record's instance has no element for the driver's arguments (so every command refuses the log
/// the same way, before anything runs).
Result<std::vector<std::size_t>> driver_runs(const harness::Profile& profile, const ResolvedDriver& driver,
                                             const StateLog& log);
Result<std::vector<harness::Arg>> driver_args(const harness::Profile& profile, const harness::DriverSpec& driver,
                                              const Record& record);

/// Runs the driver on every record of its kind and compares with its compare record (the next
/// record of that kind for the same step and instance; in frame mode, record = compare = "FRAM", the
/// FRAM record of the next pass). Errors: no such driver, a record kind the log
/// does not hold, a driver argument naming an instance the record's instance has no element in, machine set-up.
Result<StepCheckReport> check_steps(const harness::Snapshot& snapshot, const StateLog& log,
                                    const harness::Profile& profile, const StepCheckOptions& options = {});

/// "steps matched: 2400 / 2400", then per reported mismatch the step, instance and differing fields
/// side by side with `*` under each differing byte.
std::string format_step_report(const StepCheckReport& report);

}  // namespace lockstep::capture
