// lockstep capture SNAPSHOT STEPLOG --profile P --fn F ... [--every N] [--max M] [--poke ADDR=VALUE ...]
//   -o CORPUS
// lockstep capture SNAPSHOT --calls CALLS.toml --profile P [--fn F ...] -o CORPUS (no step log:
//   capture/docs/call-list.md)
// Every captured function's calls are checked against its declared convention
// (capture/docs/conventions.md): a disagreement is exit 8 unless --no-convention-check.
// Runs the profile's driver over the recorded states and writes every call of the chosen functions
// (nested calls included) as cases into a corpus folder, whose manifest records the profile's file
// (corpus_profile.hpp).
#include <unistd.h>

#include <fmt/ostream.h>

#include "lockstep/base/io.hpp"
#include "lockstep/base/parallel.hpp"
#include "lockstep/capture/call_list.hpp"
#include "lockstep/capture/capture.hpp"
#include "lockstep/capture/captured_corpus.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/load/load.hpp"
#include "lockstep/profile/profile.hpp"

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
  bool no_convention_check = false;
  harness::MachineConfig limits;  ///< --budget, --timeout
};

/// One line per captured function; a function no call reached says so.
void print_functions(const std::vector<cases::CaseFile>& files, Io& io) {
  for (const auto& f : files)
    fmt::print(io.out, "  0x{:08x} {:<28} {} cases{}\n", f.function, f.name, f.cases.size(),
               f.cases.empty() ? " (no call reached it)" : "");
}

/// The declared conventions the calls contradict: an error (exit 8, nothing written) unless
/// --no-convention-check, which prints them as warnings.
int convention_verdict(const std::vector<capture::ConventionDisagreement>& found, const CaptureArgs& a,
                       const std::string& profile_path, Io& io) {
  if (found.empty()) return kExitOk;
  const char* kind = a.no_convention_check ? "warning" : "error";
  for (const auto& d : found) fmt::print(io.err, "lockstep capture: {}: {}: {}\n", kind, profile_path, capture::format_disagreement(d));
  if (a.no_convention_check) return kExitOk;
  fmt::print(io.err, "lockstep capture: {} function(s) disagree with their declared convention: fix `convention` (and "
                     "`args`) in {}, or pass --no-convention-check to capture anyway; no corpus was written\n",
             found.size(), profile_path);
  return kExitProfileDisagrees;
}

/// What both kinds of capture read first: the profile (and the hash of the bytes parsed, for the
/// manifest) and the snapshot (with --image laid over it).
struct CaptureInputs {
  std::string profile_sha256;
  harness::Profile profile;
  harness::Snapshot snapshot;
};

Result<CaptureInputs> load_inputs(const CaptureArgs& a, const ImageOption& image, Io& io) {
  CaptureInputs in;
  LOCKSTEP_TRY(const std::vector<std::uint8_t> profile_bytes,
               read_file(a.profile, harness::ProfileLimits{}.max_file_bytes));
  LOCKSTEP_TRY(in.profile,
               harness::parse_profile(std::string_view(reinterpret_cast<const char*>(profile_bytes.data()),
                                                       profile_bytes.size()),
                                      a.profile));
  in.profile_sha256 = to_hex(sha256(profile_bytes));
  LOCKSTEP_TRY(in.snapshot, load_snapshot_with_image(a.snapshot, image, io));
  return in;
}

/// A capture that kept no case writes nothing (an empty corpus would replace a good one, and every
/// reader refuses it): its error is kGuestFault (exit 3) when runs faulted, else kUsage (exit 2: the
/// functions chosen are never called there).
Error no_cases_error(const std::string& out, std::uint64_t runs, std::uint64_t faulted) {
  const std::string why = faulted ? fmt::format("{} of {} runs faulted and the others called none of the functions", faulted, runs)
                                  : fmt::format("none of {} runs called the chosen functions", runs);
  return Error::make(faulted ? Errc::kGuestFault : Errc::kUsage,
                                "no case was captured ({}); {} was not written", why, out);
}

/// Cases from a call list instead of a step log (--calls).
Result<int> run_capture_calls(const CaptureArgs& a, const ImageOption& image, Io& io) {
  if (!a.steplog.empty() || !a.pokes.empty() || !a.driver.empty())
    return Error::make(Errc::kUsage, "--calls replaces the step log, --poke and --driver: the call "
                                                "list names the calls, arguments and pokes");
  auto in = load_inputs(a, image, io);
  if (!in.ok()) return in.error();
  auto& [profile_sha256, profile, snapshot] = *in;
  LOCKSTEP_TRY(const int symbols_agree, check_profile_symbols(a.snapshot, snapshot, image, profile, io));
  if (symbols_agree != kExitOk) return symbols_agree;
  auto list = capture::read_call_list(a.calls);
  if (!list.ok()) return list.error();
  capture::CallsCaptureOptions opt;
  apply_run_limits(a.limits, opt.machine);  // a call list's calls are limited like a driver's runs
  opt.snapshot_sha256 = snapshot.content_sha256();
  opt.check_conventions = true;  // always checked; --no-convention-check only turns the error into a warning
  for (const auto& f : a.functions) {
    auto spec = profile.find_function(f);
    if (!spec.ok()) return spec.error();
    opt.functions.push_back((*spec)->address);
  }
  auto rep = capture::capture_calls(snapshot, profile, *list, opt);
  if (!rep.ok()) return rep.error();
  if (int rc = convention_verdict(rep->capture.conventions, a, a.profile, io); rc != kExitOk) return rc;

  capture::CorpusProvenance from{profile.name, a.profile, profile_sha256, opt.snapshot_sha256, {}, {}, {}};
  from.command = fmt::format("lockstep capture SNAPSHOT --calls {} --profile {} (call list sha256 {})",
                             std::filesystem::path(a.calls).filename().string(),
                             std::filesystem::path(a.profile).filename().string(), list->sha256);
  for (const auto& f : a.functions) from.command += " --fn " + f;
  for (const auto& f : rep->faults) {
    fmt::print(io.err, "lockstep: {}:{}: [[call]] #{} faulted: {}\n", a.calls, f.line, f.index + 1, f.message);
    // An access near address 0 by a function declared to take no register arguments: the likeliest
    // cause is a pointer it reads from a register the harness left unset (a fastcall declared cdecl).
    const auto fn = profile.find_function(list->calls[f.index].function);
    const bool low = f.message.find("unmapped") != std::string::npos && f.message.find(" 0x0000") != std::string::npos;
    if (fn.ok() && low &&
        ((*fn)->convention.kind == cases::Convention::kCdecl || (*fn)->convention.kind == cases::Convention::kStdcall))
      fmt::print(io.err, "lockstep:   {} is declared {}, so the harness passed every argument on the stack: if it "
                         "takes one in a register (fastcall's ecx, edx; watcom's eax, edx, ebx, ecx), that register "
                         "held no argument (capture/docs/conventions.md)\n",
                 (*fn)->name, cases::convention_name((*fn)->convention.kind));
  }
  if (rep->capture.cases() == 0) return no_cases_error(a.out, rep->capture.runs, rep->faults.size());
  LOCKSTEP_TRY_STATUS(capture::write_captured_corpus(a.out, from, rep->capture.files));
  fmt::print(io.out, "{} of {} calls returned\n", rep->capture.runs - rep->faults.size(), rep->capture.runs);
  print_functions(rep->capture.files, io);
  if (a.functions.empty())  // the whole profile watched: the functions without cases have no file, only a line
    for (auto fn : rep->uncalled)
      if (const auto* spec = profile.function_at(fn))
        fmt::print(io.out, "  0x{:08x} {:<28} 0 cases (no call reached it)\n", fn, spec->name);
  fmt::print(io.out, "{} cases written to {}\n", rep->capture.cases(), a.out);
  return rep->faults.empty() ? kExitOk : kExitGuestFault;
}

Result<int> run_capture(const CaptureArgs& a, const ImageOption& image, Io& io) {
  if (!a.calls.empty()) return run_capture_calls(a, image, io);
  if (a.steplog.empty() || a.functions.empty())
    return Error::make(Errc::kUsage, "capture needs a step log and --fn, or --calls FILE");
  auto in = load_inputs(a, image, io);
  if (!in.ok()) return in.error();
  auto& [profile_sha256, profile, snapshot] = *in;
  LOCKSTEP_TRY(const int symbols_agree, check_profile_symbols(a.snapshot, snapshot, image, profile, io));
  if (symbols_agree != kExitOk) return symbols_agree;
  auto log = capture::read_state_log(a.steplog);
  if (!log.ok()) return log.error();

  capture::CaptureOptions opt;
  opt.sampling = {a.every, a.max};
  opt.driver = a.driver;
  opt.jobs = a.jobs;
  apply_run_limits(a.limits, opt.machine);
  opt.snapshot_sha256 = snapshot.content_sha256();  // by content: the same state, the same corpus
  for (const auto& f : a.functions) {
    auto spec = profile.find_function(f);
    if (!spec.ok()) return spec.error();
    opt.functions.push_back((*spec)->address);
  }
  const harness::Labeler labels(profile);
  for (const auto& p : a.pokes) {
    auto poke = harness::parse_poke(p, labels);
    if (!poke.ok()) return poke.error().wrap("--poke {}", p);
    opt.pokes.push_back(std::move(*poke));
  }
  const bool tty = !a.quiet && ::isatty(2);
  if (tty)
    opt.progress = [&io](std::uint64_t done, std::uint64_t total, std::uint64_t cases) {
      if (done == total || done % 16 == 0)
        fmt::print(io.err, "\rcapture: {} / {} steps, {} cases{}", done, total, cases, done == total ? "\n" : "");
      io.err.flush();
    };
  auto rep = capture::capture(snapshot, *log, profile, opt);
  if (!rep.ok()) return rep.error();
  if (int rc = convention_verdict(rep->conventions, a, a.profile, io); rc != kExitOk) return rc;

  capture::CorpusProvenance from{profile.name, a.profile, profile_sha256, opt.snapshot_sha256, log->sha256,
                                 rep->driver, {}};
  from.command = "lockstep capture SNAPSHOT STEPLOG --profile " + std::filesystem::path(a.profile).filename().string();
  if (!a.driver.empty()) from.command += " --driver " + a.driver;
  for (const auto& f : a.functions) from.command += " --fn " + f;
  from.command += fmt::format(" --every {} --max {}", a.every, a.max);
  for (const auto& p : a.pokes) from.command += " --poke " + p;
  if (rep->cases() == 0) return no_cases_error(a.out, rep->runs_captured, rep->faulted);
  LOCKSTEP_TRY_STATUS(capture::write_captured_corpus(a.out, from, rep->files, a.jobs));

  fmt::print(io.out, "driver {}: {} of {} runs captured{}\n", rep->driver, rep->runs_captured, rep->runs,
             rep->faulted ? fmt::format(", {} faulted", rep->faulted) : std::string());
  print_functions(rep->files, io);
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
  app.add_option("--fn", a->functions,
                 "Function to capture, by name or address; repeatable (with --calls: only these, instead of every "
                 "function of the profile)");
  add_unsigned_option(app, "--every", a->every, "Take every Nth driver run (state-log record); default 1", 1);
  add_unsigned_option(app, "--max", a->max, "At most M cases of each function per driver run; default 0 = all");
  add_run_limits(app, a->limits, "one driver run");
  app.add_option("--poke", a->pokes, "ADDR=VALUE (hex bytes or typed: u32:7 f32:0.01 fx:-200.0) laid over every state before its run; repeatable");
  app.add_option("--driver", a->driver, "The profile's [[driver]] to run (default: the one on CTRL records)");
  app.add_option("-o,--out", a->out, "Corpus folder to write")->required();
  add_jobs_option(app, a->jobs, "Threads, each with its own machine (default 1); the corpus is the same for any N");
  app.add_flag("--quiet", a->quiet, "No progress line");
  app.add_flag("--no-convention-check", a->no_convention_check,
               "Write the corpus even when captured calls contradict a function's declared convention (the "
               "disagreements are printed as warnings; by default they are an error, exit 8)");
  auto image = add_image_option(app);
  return [a, image](Io& io) -> Result<int> { return run_capture(*a, *image, io); };
}

}  // namespace

Command capture_command() {
  return {"capture", "Capture every call of chosen original functions into a corpus", setup_capture};
}

}  // namespace lockstep::cli
