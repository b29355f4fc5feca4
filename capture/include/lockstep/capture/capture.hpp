// Capture: run the profile's driver over the recorded states and record every call of chosen
// original functions — nested calls included — as cases (design.md, "The pipeline").
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

#include "lockstep/cases/case.hpp"
#include "lockstep/cases/case_file.hpp"
#include "lockstep/harness/profile.hpp"
#include "lockstep/harness/recorder.hpp"

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
  std::uint32_t racer = 0;
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

 private:
  const harness::Profile& profile_;
  Sampling sampling_;
  RunOrigin origin_;
  std::map<harness::GuestAddr, cases::CaseFile> files_;
  std::map<harness::GuestAddr, std::uint32_t> taken_this_run_;
  std::map<harness::GuestAddr, std::uint32_t> calls_this_run_;
  std::uint32_t incomplete_ = 0;
};

}  // namespace lockstep::capture
