#include "lockstep/capture/coverage_run.hpp"

#include <algorithm>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "lockstep/base/parallel.hpp"
#include "lockstep/capture/driver.hpp"
#include "lockstep/disasm/disasm.hpp"
#include "private_helpers.hpp"

namespace lockstep::capture {

// A call is part of the calling function's coverage when it leads into its private helpers.
using detail::private_helpers;

Result<std::unique_ptr<CaseRunner>> CaseRunner::create(const harness::Snapshot& snapshot,
                                                       const harness::Profile& profile, const std::string& driver,
                                                       const std::vector<harness::CoverageCollector::Target>& targets,
                                                       const harness::Labeler* labels, harness::MachineConfig cfg) {
  std::unique_ptr<CaseRunner> r(new CaseRunner());
  LOCKSTEP_TRY(r->collector_, harness::CoverageCollector::create(harness::snapshot_reader(snapshot), targets, labels,
                                                                  private_helpers(profile)));
  cfg.observed_instructions = r->collector_->observed_instructions();
  LOCKSTEP_TRY(r->machine_, rerun_machine(snapshot, profile, driver, std::move(cfg)));
  r->machine_->set_block_observer(r->collector_.get());
  r->machine_->set_instruction_observer(r->collector_.get());
  return r;
}

Result<Rerun> CaseRunner::run(const cases::Case& c, std::span<const cases::Poke> pokes) {
  auto r = rerun_case(*machine_, c, pokes);
  collector_->end_run(r.ok() && !r->outcome.returned());
  return r;
}

Result<Probe> probe_case(CaseRunner& runner, const cases::Case& c, const cases::Case& start,
                         std::span<const cases::Poke> pokes) {
  if (runner.collector().functions().empty())
    return Error::make(Errc::kUsage, "probe of case {}: the runner watches no function", c.id);
  Probe p;
  LOCKSTEP_TRY(p.plain, runner.run(c, c.pokes));
  p.plain_branches = runner.collector().functions().front().branches;
  LOCKSTEP_TRY(p.poked, runner.run(start, pokes));
  p.poked_branches = runner.collector().functions().front().branches;
  for (std::size_t i = 0; i < p.poked_branches.size() && i < p.plain_branches.size(); ++i) {
    p.poked_branches[i].taken -= p.plain_branches[i].taken;
    p.poked_branches[i].fell_through -= p.plain_branches[i].fell_through;
  }
  return p;
}

namespace {

std::vector<harness::CoverageCollector::Target> targets_for(const harness::Profile& profile,
                                                            const std::vector<harness::GuestAddr>& fns) {
  std::vector<harness::CoverageCollector::Target> out;
  for (harness::GuestAddr a : fns) {
    const auto* spec = profile.function_at(a);
    out.push_back({a, spec ? spec->name : ""});
  }
  return out;
}

}  // namespace

Result<harness::CoverageReport> coverage_over_corpus(const harness::Snapshot& snapshot,
                                                     const harness::Profile& profile, const cases::Corpus& corpus,
                                                     const harness::Labeler* labels, const CoverageOptions& options) {
  std::vector<harness::GuestAddr> fns = options.functions;
  if (fns.empty())
    for (const auto& f : corpus.files) fns.push_back(f.function);
  std::vector<const cases::CaseFile*> files;
  std::uint64_t total = 0;
  for (harness::GuestAddr fn : fns) {
    auto it = std::find_if(corpus.files.begin(), corpus.files.end(), [&](const auto& f) { return f.function == fn; });
    if (it == corpus.files.end())
      return Error::make(Errc::kNotFound, "the corpus has no cases of 0x{:08x}; its functions are listed in its manifest",
                         fn);
    files.push_back(&*it);
    total += it->cases.size();
  }
  // Each function's cases run on a machine of their own: functions are spread over the threads and
  // their reports put back in the order asked for.
  struct Outcome {
    std::optional<Error> error;
    harness::FunctionCoverage function;
    std::uint64_t runs = 0, faulted = 0, diverged = 0;
  };
  std::vector<Outcome> outcomes(files.size());
  std::mutex progress_mutex;
  std::uint64_t done = 0;
  auto cover = [&](const cases::CaseFile& file, Outcome& out) -> Status {
    LOCKSTEP_TRY(auto runner, CaseRunner::create(snapshot, profile, options.driver, targets_for(profile, {file.function}),
                                                 labels, options.machine));
    for (const cases::Case& c : file.cases) {
      LOCKSTEP_TRY(Rerun r, runner->run(c, c.pokes));
      if (!c.poked() && !r.same_as_case) ++out.diverged;
      if (options.progress) {
        std::lock_guard lock(progress_mutex);
        options.progress(++done, total);
      }
    }
    harness::CoverageReport one = runner->collector().report();
    if (one.functions.front().name.empty()) one.functions.front().name = file.name;
    out.runs = one.runs;
    out.faulted = one.faulted;
    out.function = std::move(one.functions.front());
    return {};
  };
  parallel_for(options.jobs, files.size(), [&](unsigned, std::size_t i) {
    if (Status st = cover(*files[i], outcomes[i]); !st.ok()) outcomes[i].error = std::move(st).error();
  });
  harness::CoverageReport report;
  for (Outcome& o : outcomes) {
    if (o.error) return std::move(*o.error);  // the first function's error, as one thread would stop on
    report.runs += o.runs;
    report.faulted += o.faulted;
    report.diverged += o.diverged;
    report.functions.push_back(std::move(o.function));
  }
  report.source = fmt::format("{} cases re-run from the corpus", report.runs);
  return report;
}

Result<harness::CoverageReport> coverage_over_runs(const harness::Snapshot& snapshot, const StateLog& log,
                                                   const harness::Profile& profile, const harness::Labeler* labels,
                                                   const CoverageOptions& options) {
  if (options.functions.empty()) return Error::make(Errc::kUsage, "coverage of driver runs needs the functions (--fn)");
  LOCKSTEP_TRY(ResolvedDriver resolved, resolve_driver(profile, options.driver));
  LOCKSTEP_TRY(auto collector, harness::CoverageCollector::create(harness::snapshot_reader(snapshot),
                                                                  targets_for(profile, options.functions), labels,
                                                                  private_helpers(profile)));
  harness::MachineConfig cfg = options.machine;
  cfg.observed_instructions = collector->observed_instructions();
  LOCKSTEP_TRY(auto machine, driver_machine(snapshot, profile, resolved, cfg));
  machine->set_block_observer(collector.get());
  machine->set_instruction_observer(collector.get());
  std::vector<const Record*> runs;
  for (const Record& rec : log.records)
    if (rec.kind == resolved.run_kind) runs.push_back(&rec);
  harness::CallSpec spec = resolved.call;
  for (std::size_t n = 0; n < runs.size(); ++n) {
    LOCKSTEP_TRY_STATUS(lay_record(*machine, *runs[n], resolved.spec->record));
    LOCKSTEP_TRY(spec.args, driver_args(profile, *resolved.spec, *runs[n]));
    LOCKSTEP_TRY(harness::CallOutcome out, machine->call(spec));
    collector->end_run(!out.returned());
    if (options.progress) options.progress(n + 1, runs.size());
  }
  harness::CoverageReport report = collector->report();
  report.source = fmt::format("driver {} over {} runs", resolved.spec->name, runs.size());
  return report;
}

}  // namespace lockstep::capture
