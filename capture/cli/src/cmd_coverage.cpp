// lockstep coverage CORPUS --snapshot SNAP [--profile P] [--fn F ...] [--html DIR] [--json FILE]
// lockstep coverage --run SNAPSHOT STEPLOG --profile P --fn F ... [--html DIR] [--json FILE]
// Branch coverage of the original: instructions and conditional-branch edges each run took, over
// every case of a corpus re-run from its own state, or over the driver's whole runs.
// Exit codes: 0 ok, 1 some re-run case did not reproduce its recording, 2 bad input.
#include <unistd.h>

#include <fmt/ostream.h>

#include "lockstep/base/io.hpp"
#include "lockstep/base/parallel.hpp"
#include "lockstep/capture/coverage_run.hpp"
#include "lockstep/coverage/coverage_report.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/load/load.hpp"
#include "lockstep/profile/profile.hpp"

#include "command.hpp"
#include "corpus_args.hpp"
#include "corpus_profile.hpp"
#include "numeric_option.hpp"

namespace lockstep::cli {
namespace {

struct CoverageArgs {
  std::string corpus, snapshot, profile, driver, html, json;
  std::vector<std::string> run;  // SNAPSHOT STEPLOG
  std::vector<std::string> functions;
  bool any_snapshot = false, quiet = false;
  unsigned jobs = 1;
  harness::MachineConfig limits;  ///< --budget, --timeout
};

Result<int> run_coverage(const CoverageArgs& a, Io& io) {
  // A corpus remembers its profile; driver runs need one named.
  if (a.run.empty() && a.corpus.empty())
    return Error::make(Errc::kUsage, "give a corpus, or --run SNAPSHOT STEPLOG");
  std::optional<cases::Corpus> corpus;
  if (a.run.empty() && !a.corpus.empty()) {
    auto read = cases::read_corpus(a.corpus);
    if (!read.ok()) return read.error();
    corpus = std::move(*read);
  }
  if (!corpus && a.profile.empty())
    return Error::make(Errc::kUsage, "coverage of driver runs needs the profile (--profile FILE)");
  auto loaded = corpus_profile(corpus ? corpus->manifest : cases::Manifest{}, a.corpus, a.profile,
                               harness::ProfileNeed::kRequired, io);
  if (!loaded.ok()) return loaded.error();
  const auto& profile = *loaded;  // kRequired: always holds one
  const harness::Labeler labels(*profile);
  capture::CoverageOptions opt;
  opt.jobs = a.jobs;
  apply_run_limits(a.limits, opt.machine);
  const bool tty = !a.quiet && ::isatty(2);
  if (tty)
    opt.progress = [&io](std::uint64_t done, std::uint64_t total) {
      if (done == total || done % 256 == 0)
        fmt::print(io.err, "\rcoverage: {} / {} runs{}", done, total, done == total ? "\n" : "");
      io.err.flush();
    };
  Result<harness::CoverageReport> rep = Error::make(Errc::kUsage, "unreachable");
  std::optional<harness::Snapshot> snapshot;
  if (!a.run.empty()) {
    if (!a.corpus.empty())
      return Error::make(Errc::kUsage, "give a corpus or --run SNAPSHOT STEPLOG, not both");
    auto snap = harness::load_snapshot(a.run[0]);
    if (!snap.ok()) return snap.error();
    snapshot = std::move(*snap);
    auto log = capture::read_state_log(a.run[1]);
    if (!log.ok()) return log.error();
    for (const auto& f : a.functions) {
      auto spec = profile->find_function(f);
      if (!spec.ok()) return spec.error();
      opt.functions.push_back((*spec)->address);
    }
    opt.driver = a.driver;
    rep = capture::coverage_over_runs(*snapshot, *log, *profile, &labels, opt);
  } else {
    if (a.corpus.empty()) return Error::make(Errc::kUsage, "give a corpus, or --run SNAPSHOT STEPLOG");
    if (a.snapshot.empty())
      return Error::make(Errc::kUsage,
                                    "re-running a corpus needs the snapshot it was captured on (--snapshot FILE)");
    auto snap = harness::load_snapshot(a.snapshot);
    if (!snap.ok()) return snap.error();
    snapshot = std::move(*snap);
    if (auto s = check_corpus_snapshot(*corpus, *snapshot, a.any_snapshot); !s.ok()) return s.error();
    auto fns = resolve_functions(a.functions, *corpus);
    if (!fns.ok()) return fns.error();
    opt.functions = *fns;
    opt.driver = a.driver.empty() ? corpus->manifest.driver : a.driver;
    rep = capture::coverage_over_corpus(*snapshot, *profile, *corpus, &labels, opt);
  }
  if (!rep.ok()) return rep.error();
  io.out << harness::format_coverage(*rep, &*profile);
  if (rep->diverged)
    fmt::print(io.out,
               "warning: {} re-run cases did not reproduce their recording (different writes or registers): the "
               "snapshot is not the state they were captured on, or the original depends on something a case "
               "does not hold\n",
               rep->diverged);
  if (!a.json.empty())
    if (auto s = write_file_atomic(a.json, harness::coverage_json(*rep)); !s.ok()) return s.error();
  if (!a.html.empty()) {
    if (auto s = harness::write_coverage_html(*rep, &*profile, a.html); !s.ok()) return s.error();
    fmt::print(io.out, "HTML report: {}/index.html\n", a.html);
  }
  // A case that does not reproduce is a recording and a snapshot that disagree: not a clean run.
  return rep->diverged ? kExitMismatch : kExitOk;
}

Action setup_coverage(CLI::App& app, const cases::BindingSet& /*bindings: runs no port*/) {
  auto a = std::make_shared<CoverageArgs>();
  app.add_option("corpus", a->corpus, "Corpus folder whose cases are re-run (or use --run)");
  app.add_option("--run", a->run, "SNAPSHOT STEPLOG: cover the driver's runs instead of a corpus")->expected(2);
  app.add_option("--snapshot", a->snapshot, "The snapshot the corpus was captured on (checked by content hash)");
  app.add_option("--profile", a->profile,
                 "Profile (TOML) of the original: functions, stubs and labels (default for a corpus: the one it "
                 "was captured with)");
  app.add_option("--fn", a->functions, "Only these functions (name or address); repeatable");
  app.add_option("--driver", a->driver, "The [[driver]] whose stubs are on (default: the corpus's, or the CTRL one)");
  app.add_option("--html", a->html, "Write a static HTML report (index.html + a page per function) here");
  app.add_option("--json", a->json, "Write the coverage as JSON here");
  app.add_flag("--any-snapshot", a->any_snapshot, "Re-run on a snapshot other than the corpus's");
  add_jobs_option(app, a->jobs,
                   "Threads over the corpus's functions, each with its own machine (default 1); the report is the "
                   "same for any N");
  app.add_flag("--quiet", a->quiet, "No progress line");
  add_run_limits(app, a->limits, "one re-run");
  return [a](Io& io) -> Result<int> { return run_coverage(*a, io); };
}

}  // namespace

Command coverage_command() {
  return {"coverage",
          "Branch coverage of the original over a corpus or the driver's runs; untaken edges",
          setup_coverage};
}

}  // namespace lockstep::cli
