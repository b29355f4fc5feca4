// lockstep capture SNAPSHOT STEPLOG --profile P --fn F ... [--every N] [--max M] [--poke ADDR=HEX ...]
//   -o CORPUS
// lockstep capture SNAPSHOT --calls CALLS.toml --profile P -o CORPUS (no step log: capture/docs/call-list.md)
// Runs the profile's driver over the recorded states and writes every call of the chosen functions
// (nested calls included) as cases into a corpus folder, whose manifest records the profile's file
// (corpus_profile.hpp).
#include <unistd.h>

#include <fmt/ostream.h>

#include "lockstep/base/io.hpp"
#include "lockstep/base/parallel.hpp"
#include "lockstep/capture/call_list.hpp"
#include "lockstep/capture/capture.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/harness/labels.hpp"
#include "lockstep/harness/load.hpp"
#include "lockstep/harness/profile.hpp"

#include "command.hpp"
#include "corpus_profile.hpp"
#include "image_option.hpp"
#include "numeric_option.hpp"

namespace lockstep::cli {
namespace {

struct CaptureArgs {
  std::string snapshot, steplog, calls, profile, out;
  std::vector<std::string> functions, pokes;
  std::uint32_t every = 1, max = 0;
  std::string driver;
  unsigned jobs = 1;
  bool quiet = false;
  harness::MachineConfig limits;  ///< --budget, --timeout
};

/// What both kinds of capture read first: the profile (its bytes too, hashed into the manifest: the
/// same bytes that were parsed) and the snapshot (with --image laid over it).
struct CaptureInputs {
  std::vector<std::uint8_t> profile_bytes;
  harness::Profile profile;
  harness::Snapshot snapshot;
};

Result<CaptureInputs> load_inputs(const CaptureArgs& a, const ImageOption& image, Io& io) {
  CaptureInputs in;
  LOCKSTEP_TRY(in.profile_bytes, read_file(a.profile, std::uint64_t{16} << 20));
  LOCKSTEP_TRY(in.profile,
               harness::parse_profile(std::string_view(reinterpret_cast<const char*>(in.profile_bytes.data()),
                                                       in.profile_bytes.size()),
                                      a.profile));
  LOCKSTEP_TRY(in.snapshot, load_snapshot_with_image(a.snapshot, image, io));
  return in;
}

/// A capture that kept no case writes nothing (an empty corpus would replace a good one, and every
/// reader refuses it): 3 when runs faulted, else 2 (the functions chosen are never called there).
int report_no_cases(const std::string& out, std::uint64_t runs, std::uint64_t faulted, Io& io) {
  const std::string why = faulted ? fmt::format("{} of {} runs faulted and the others called none of the functions", faulted, runs)
                                  : fmt::format("none of {} runs called the chosen functions", runs);
  return report(io, Error::make(faulted ? Errc::kGuestFault : Errc::kUsage,
                                "no case was captured ({}); {} was not written", why, out));
}

/// Cases from a call list instead of a step log (--calls).
int run_capture_calls(const CaptureArgs& a, const ImageOption& image, Io& io) {
  if (!a.steplog.empty() || !a.functions.empty() || !a.pokes.empty() || !a.driver.empty())
    return report(io, Error::make(Errc::kUsage, "--calls replaces the step log, --fn, --poke and --driver: the call "
                                                "list names the functions, arguments and pokes"));
  auto in = load_inputs(a, image, io);
  if (!in.ok()) return report(io, in.error());
  auto& [profile_bytes, profile, snapshot] = *in;
  auto list = capture::read_call_list(a.calls);
  if (!list.ok()) return report(io, list.error());
  auto list_bytes = read_file(a.calls);
  if (!list_bytes.ok()) return report(io, list_bytes.error());
  capture::CallsCaptureOptions opt;
  apply_run_limits(a.limits, opt.machine);  // a call list's calls are limited like a driver's runs
  opt.snapshot_sha256 = snapshot.content_sha256();
  auto rep = capture::capture_calls(snapshot, profile, *list, opt);
  if (!rep.ok()) return report(io, rep.error());

  cases::Manifest m;
  m.profile = profile.name;
  record_profile(m, a.profile, profile_bytes, a.out);
  m.snapshot_sha256 = opt.snapshot_sha256;
  m.command = fmt::format("lockstep capture SNAPSHOT --calls {} --profile {} (call list sha256 {})",
                          std::filesystem::path(a.calls).filename().string(),
                          std::filesystem::path(a.profile).filename().string(), to_hex(sha256(*list_bytes)));
  for (const auto& f : rep->faults)
    fmt::print(io.err, "lockstep: {}:{}: [[call]] #{} faulted: {}\n", a.calls, f.line, f.index + 1, f.message);
  if (rep->capture.cases() == 0) return report_no_cases(a.out, rep->capture.runs, rep->faults.size(), io);
  if (auto s = cases::write_corpus(a.out, m, rep->capture.files); !s.ok()) return report(io, s.error());
  fmt::print(io.out, "{} of {} calls returned\n", rep->capture.runs - rep->faults.size(), rep->capture.runs);
  for (const auto& f : rep->capture.files)
    fmt::print(io.out, "  0x{:08x} {:<28} {} cases\n", f.function, f.name, f.cases.size());
  fmt::print(io.out, "{} cases written to {}\n", rep->capture.cases(), a.out);
  return rep->faults.empty() ? kExitOk : kExitGuestFault;
}

int run_capture(const CaptureArgs& a, const ImageOption& image, Io& io) {
  if (!a.calls.empty()) return run_capture_calls(a, image, io);
  if (a.steplog.empty() || a.functions.empty())
    return report(io, Error::make(Errc::kUsage, "capture needs a step log and --fn, or --calls FILE"));
  auto in = load_inputs(a, image, io);
  if (!in.ok()) return report(io, in.error());
  auto& [profile_bytes, profile, snapshot] = *in;
  auto log = capture::read_state_log(a.steplog);
  if (!log.ok()) return report(io, log.error());
  auto log_bytes = read_file(a.steplog);
  if (!log_bytes.ok()) return report(io, log_bytes.error());

  capture::CaptureOptions opt;
  opt.sampling = {a.every, a.max};
  opt.driver = a.driver;
  opt.jobs = a.jobs;
  apply_run_limits(a.limits, opt.machine);
  opt.snapshot_sha256 = snapshot.content_sha256();  // by content: the same state, the same corpus
  for (const auto& f : a.functions) {
    auto spec = profile.find_function(f);
    if (!spec.ok()) return report(io, spec.error());
    opt.functions.push_back((*spec)->address);
  }
  const harness::Labeler labels(profile);
  for (const auto& p : a.pokes) {
    auto poke = harness::parse_poke(p, labels);
    if (!poke.ok()) return report(io, poke.error().wrap("--poke {}", p));
    opt.pokes.push_back({poke->address, poke->bytes});
  }
  const bool tty = !a.quiet && ::isatty(2);
  if (tty)
    opt.progress = [&io](std::uint64_t done, std::uint64_t total, std::uint64_t cases) {
      if (done == total || done % 16 == 0)
        fmt::print(io.err, "\rcapture: {} / {} steps, {} cases{}", done, total, cases, done == total ? "\n" : "");
      io.err.flush();
    };
  auto rep = capture::capture(snapshot, *log, profile, opt);
  if (!rep.ok()) return report(io, rep.error());

  cases::Manifest m;
  m.profile = profile.name;
  record_profile(m, a.profile, profile_bytes, a.out);
  m.snapshot_sha256 = opt.snapshot_sha256;
  m.steplog_sha256 = to_hex(sha256(*log_bytes));
  m.driver = rep->driver;
  m.command = "lockstep capture SNAPSHOT STEPLOG --profile " + std::filesystem::path(a.profile).filename().string();
  if (!a.driver.empty()) m.command += " --driver " + a.driver;
  for (const auto& f : a.functions) m.command += " --fn " + f;
  m.command += fmt::format(" --every {} --max {}", a.every, a.max);
  for (const auto& p : a.pokes) m.command += " --poke " + p;
  if (rep->cases() == 0) return report_no_cases(a.out, rep->runs_captured, rep->faulted, io);
  if (auto s = cases::write_corpus(a.out, m, rep->files, a.jobs); !s.ok()) return report(io, s.error());

  fmt::print(io.out, "driver {}: {} of {} runs captured{}\n", rep->driver, rep->runs_captured, rep->runs,
             rep->faulted ? fmt::format(", {} faulted", rep->faulted) : std::string());
  for (const auto& f : rep->files) fmt::print(io.out, "  0x{:08x} {:<28} {} cases\n", f.function, f.name, f.cases.size());
  fmt::print(io.out, "{} cases written to {}\n", rep->cases(), a.out);
  if (rep->incomplete) fmt::print(io.out, "{} calls cut short by a fault were not kept\n", rep->incomplete);
  return rep->faulted ? kExitGuestFault : kExitOk;
}

Action setup_capture(CLI::App& app, const cases::BindingSet& /*bindings: runs no port*/) {
  auto a = std::make_shared<CaptureArgs>();
  app.add_option("snapshot", a->snapshot, "Whole-process snapshot (lockstep, minidump or ELF core), or a PE32 or ELF32 executable alone")->required();
  app.add_option("steplog", a->steplog, "State log (STEP/CTRL/PHYS records); not with --calls");
  app.add_option("--calls", a->calls, "Call list (TOML: [[call]] function, args, pokes) instead of a step log");
  app.add_option("--profile", a->profile,
                 "Profile (TOML) of the original: functions, stubs and labels; the manifest records its path and "
                 "SHA-256, and replay, probe and coverage use it by default")
      ->required();
  app.add_option("--fn", a->functions, "Function to capture, by name or address; repeatable");
  add_unsigned_option(app, "--every", a->every, "Take every Nth driver run (state-log record); default 1", 1);
  add_unsigned_option(app, "--max", a->max, "At most M cases of each function per driver run; default 0 = all");
  add_run_limits(app, a->limits, "one driver run");
  app.add_option("--poke", a->pokes, "ADDR=HEX bytes laid over every state before its run; repeatable");
  app.add_option("--driver", a->driver, "The profile's [[driver]] to run (default: the one on CTRL records)");
  app.add_option("-o,--out", a->out, "Corpus folder to write")->required();
  add_jobs_option(app, a->jobs, "Threads, each with its own machine (default 1); the corpus is the same for any N");
  app.add_flag("--quiet", a->quiet, "No progress line");
  auto image = add_image_option(app);
  return [a, image](Io& io) { return run_capture(*a, *image, io); };
}

}  // namespace

Command capture_command() {
  return {"capture", "Capture every call of chosen original functions into a corpus", setup_capture};
}

}  // namespace lockstep::cli
