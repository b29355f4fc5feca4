// lockstep record --profile P -o LOG (--pid PID | -- PROGRAM ARGS) [--snapshot-at STEP --snapshot F]
//                 [--steps N] [--for SECONDS]
// Records the running original at the profile's [[record]] points into a state log
// (capture/docs/record.md); at the end, the counts per point, a warning for a point never hit.
#include <algorithm>
#include <memory>

#include <fmt/ostream.h>

#include "lockstep/capture/record.hpp"
#include "lockstep/profile/profile.hpp"

#include "command.hpp"
#include "numeric_option.hpp"

namespace lockstep::cli {
namespace {

struct RecordArgs {
  std::string profile;
  std::uint32_t pid = 0;
  std::vector<std::string> command;
  std::string log;
  std::string snapshot;
  std::uint32_t snapshot_at = 0, steps = 0, seconds = 0;
  CLI::Option *snapshot_at_opt = nullptr, *steps_opt = nullptr, *seconds_opt = nullptr;
  bool allow_64bit = false, no_ldt = false, no_aslr = false;
  std::string tags;  ///< "STEP,CTRL,PHYS": one value, so that it never takes the words after `--`
};

const char* where_name(harness::RecordWhere w) {
  switch (w) {
    case harness::RecordWhere::kAddress: return "address";
    case harness::RecordWhere::kEntry: return "entry";
    case harness::RecordWhere::kReturn: return "return";
  }
  return "?";
}

void print_report(Io& io, const capture::RecordReport& r, const std::string& log) {
  fmt::print(io.out, "{}: {} records ({} bytes) from pid {} ({} threads) in {:.2f} s", log, r.records, r.log_bytes,
             r.pid, r.threads, r.seconds);
  if (r.first_step) fmt::print(io.out, ", steps {}..{}", *r.first_step, r.last_step.value_or(*r.first_step));
  if (r.seconds > 0) fmt::print(io.out, ", {:.0f} records/s", static_cast<double>(r.records) / r.seconds);
  fmt::print(io.out, "\nended: {}", capture::record_end_name(r.end));
  if (r.end == capture::RecordReport::End::kExited || r.end == capture::RecordReport::End::kFailed)
    io.out << (r.signal ? fmt::format(" (killed by signal {})", r.signal) : fmt::format(" (exit status {})", r.exit_status));
  if (r.end == capture::RecordReport::End::kInterrupted) fmt::print(io.out, " (signal {}): detached", r.signal);
  io.out << "\n";
  if (r.dropped)
    fmt::print(io.out, "{} records left out: before the first STEP record (the game's set-up), of a step begun before "
               "attaching, or of one the end cut\n",
               r.dropped);
  if (r.snapshot_taken) fmt::print(io.out, "snapshot at step {}\n", *r.snapshot_step);
  for (const capture::PointCount& p : r.points)
    fmt::print(io.out, "  {} at 0x{:08x} ({}): {} hits, {} records, {} skipped\n", p.tag, p.address,
               where_name(p.where), p.hits, p.records, p.skipped);
  for (const capture::PointCount& p : r.points)
    if (!p.hits) fmt::print(io.err, "lockstep: warning: {} at 0x{:08x} was never hit\n", p.tag, p.address);
  if (r.skipped)
    fmt::print(io.err, "lockstep: warning: {} records skipped (a block or value unreadable at the hit; nothing of "
                       "them written):\n",
               r.skipped);
  for (const std::string& s : r.skip_reasons) fmt::print(io.err, "  {}\n", s);
}

Result<int> run_record(Io& io, const RecordArgs& a) {
  LOCKSTEP_TRY(harness::Profile profile, harness::load_profile(a.profile));
  capture::RecordOptions o;
  o.pid = static_cast<int>(a.pid);
  o.command = a.command;
  o.log = a.log;
  o.snapshot = a.snapshot;
  if (a.snapshot_at_opt->count()) o.snapshot_at = a.snapshot_at;
  if (a.steps_opt->count()) o.steps = a.steps;
  if (a.seconds_opt->count()) o.duration = std::chrono::seconds(a.seconds);
  o.allow_64bit = a.allow_64bit;
  for (std::size_t at = 0; !a.tags.empty() && at <= a.tags.size();) {
    const std::size_t comma = std::min(a.tags.find(',', at), a.tags.size());
    o.tags.push_back(a.tags.substr(at, comma - at));
    at = comma + 1;
  }
  o.no_aslr = a.no_aslr;
  o.snapshot_options.allow_64bit = a.allow_64bit;
  o.snapshot_options.read_ldt = !a.no_ldt;
  if (a.snapshot_at_opt->count() != (a.snapshot.empty() ? 0u : 1u))
    return Error::make(Errc::kUsage, "--snapshot-at STEP and --snapshot FILE go together");
  LOCKSTEP_TRY(capture::RecordReport report, capture::record(profile, o));
  print_report(io, report, a.log);
  if (report.ended_early()) {
    fmt::print(io.err, "lockstep: the program ended before the recording did; {} holds the {} whole records made "
                       "until then\n",
               a.log, report.records);
    return kExitProgramEnded;
  }
  return kExitOk;
}

Action setup_record(CLI::App& app, const cases::BindingSet& /*bindings: runs no port*/) {
  auto a = std::make_shared<RecordArgs>();
  app.add_option("--profile", a->profile, "Profile (TOML) with the [[record]] points")->required();
  app.add_option("-o,--output", a->log, "Write the state log here (whole, replaced at the end)")->required();
  add_unsigned_option(app, "--pid", a->pid, "Record this running process (every thread)", 1,
                      std::numeric_limits<int>::max());
  app.add_option("command", a->command, "-- PROGRAM ARGS: start this program and record it");
  a->snapshot_at_opt = add_unsigned_option(app, "--snapshot-at", a->snapshot_at,
                                           "Take the whole-process snapshot at the first record of this step");
  app.add_option("--snapshot", a->snapshot, "Write that snapshot here");
  a->steps_opt = add_unsigned_option(app, "--steps", a->steps, "Stop after this many steps (from the first seen)", 1);
  a->seconds_opt = add_unsigned_option(app, "--for", a->seconds, "Stop after this many seconds", 1);
  app.add_option("--tags", a->tags, "Only the profile's points with these tags (STEP,CTRL,PHYS,FRAM)");
  app.add_flag("--allow-64bit", a->allow_64bit,
               "Record a 64-bit process too (its blocks below 4 GiB; its snapshot lossy, as snapshot --allow-64bit)");
  app.add_flag("--no-aslr", a->no_aslr, "Start the program with address-space randomisation off (as setarch -R)");
  app.add_flag("--no-ldt", a->no_ldt, "Take the snapshot without running modify_ldt in the process");
  return [a](Io& io) -> Result<int> {
    auto r = run_record(io, *a);
    if (!r.ok()) return r.error();
    return *r;
  };
}

}  // namespace

Command record_command() {
  return {"record", "Record a running original at the profile's [[record]] points into a state log", setup_record};
}

}  // namespace lockstep::cli
