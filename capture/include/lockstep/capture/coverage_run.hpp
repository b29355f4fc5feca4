// Coverage of the original over a corpus (every case re-run from its own state) or over the driver's
// whole runs of a state log. The collector and the reports live in the harness
// (lockstep/coverage/coverage.hpp, coverage_report.hpp); this layer supplies the runs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/capture/rerun.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/coverage/coverage.hpp"
#include "lockstep/profile/labels.hpp"

namespace lockstep::capture {

/// A machine that re-runs cases with a coverage collector watching chosen functions.
class CaseRunner {
 public:
  /// `driver`: whose stubs are on (as during the capture; empty = the profile's first driver).
  /// `labels` (may be null) must outlive the runner, and so must `snapshot` and `profile`.
  static Result<std::unique_ptr<CaseRunner>> create(const harness::Snapshot& snapshot, const harness::Profile& profile,
                                                    const std::string& driver,
                                                    const std::vector<harness::CoverageCollector::Target>& targets,
                                                    const harness::Labeler* labels, harness::MachineConfig cfg = {});
  /// Re-runs the case (rerun_case), its blocks counted.
  Result<Rerun> run(const cases::Case& c, std::span<const cases::Poke> pokes = {});
  harness::CoverageCollector& collector() noexcept { return *collector_; }
  harness::Machine& machine() noexcept { return *machine_; }

 private:
  CaseRunner() = default;
  std::unique_ptr<harness::CoverageCollector> collector_;
  std::unique_ptr<harness::Machine> machine_;
};

/// `lockstep probe` of one case: the case re-run as recorded, then from `start` (the case, perhaps with
/// entry registers set) with `pokes`, on a runner watching the case's function; each run's branch
/// edges counted apart (the collector's counts add up over runs).
struct Probe {
  Rerun plain;                                      ///< the case with its own pokes, as recorded
  Rerun poked;                                      ///< from `start` with `pokes`
  std::vector<harness::BranchSite> plain_branches;  ///< the edges the plain run took
  std::vector<harness::BranchSite> poked_branches;  ///< the edges the poked run took, alone
};
/// Errors: as rerun_case's; a runner watching no function (kUsage).
Result<Probe> probe_case(CaseRunner& runner, const cases::Case& c, const cases::Case& start,
                         std::span<const cases::Poke> pokes);

struct CoverageOptions {
  /// The functions to cover (empty: every function of the corpus; for driver runs, required).
  std::vector<harness::GuestAddr> functions;
  /// The [[driver]] whose stubs were on during capture / whose runs to cover (empty: the first on CTRL).
  std::string driver;
  harness::MachineConfig machine;
  /// Called with (runs done, total); with several threads, from any of them, one call at a time.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  /// Threads over a corpus's functions, each with its own machine (the report is the same for any
  /// number). The driver's runs are covered on one thread.
  unsigned jobs = 1;
};

/// Each function's coverage over its own cases in the corpus (a function's coverage counts the
/// re-runs of its cases only, not the calls other functions' cases make of it). A case whose re-run
/// differs from its recording counts in CoverageReport::diverged.
Result<harness::CoverageReport> coverage_over_corpus(const harness::Snapshot& snapshot, const harness::Profile& profile,
                                                     const cases::Corpus& corpus, const harness::Labeler* labels,
                                                     const CoverageOptions& options);

/// The chosen functions' coverage over the driver's run on every record of its kind (every call,
/// nested ones included).
Result<harness::CoverageReport> coverage_over_runs(const harness::Snapshot& snapshot, const StateLog& log,
                                                   const harness::Profile& profile, const harness::Labeler* labels,
                                                   const CoverageOptions& options);

}  // namespace lockstep::capture
