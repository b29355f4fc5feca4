// lockstep check-steps SNAPSHOT STEPLOG --profile P: the profile's driver (the car step on each CTRL
// record laid over the snapshot, controller and catch-up stubbed) compared with every block of the
// PHYS record. Exit 0 when every step matches, 3 when a step faulted, else 1 on any mismatch.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <fmt/ostream.h>

#include "lockstep/capture/driver.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/load/load.hpp"
#include "lockstep/profile/profile.hpp"

#include "command.hpp"
#include "image_option.hpp"
#include "numeric_option.hpp"

namespace lockstep::cli {
namespace {

struct CheckStepsOptions {
  std::string snapshot;
  std::string steplog;
  std::string profile;
  std::string driver;
  std::uint64_t max_steps = 0;
  std::size_t max_reports = 10;
  std::size_t thread = 0;
  harness::MachineConfig limits;  ///< --budget, --timeout
};

Result<int> run_check_steps(Io& io, const CheckStepsOptions& o, const ImageOption& image) {
  LOCKSTEP_TRY(harness::Profile profile, harness::load_profile(o.profile));
  LOCKSTEP_TRY(harness::Snapshot snap, load_snapshot_with_image(o.snapshot, image, io));
  LOCKSTEP_TRY(const int symbols_agree, check_profile_symbols(o.snapshot, snap, image, profile, io));
  if (symbols_agree != kExitOk) return symbols_agree;
  LOCKSTEP_TRY(capture::StateLog log, capture::read_state_log(o.steplog));
  capture::StepCheckOptions opt;
  opt.driver = o.driver;
  opt.max_steps = o.max_steps;
  opt.max_reports = o.max_reports;
  opt.machine.thread = o.thread;
  apply_run_limits(o.limits, opt.machine);
  const bool tty = &io.err == &std::cerr && ::isatty(2);
  if (tty)
    opt.progress = [&io](std::uint64_t done, std::uint64_t total) {
      if (done % 50 == 0 || done == total) fmt::print(io.err, "\rchecking steps: {} / {}", done, total);
      if (done == total) io.err << "\n";
    };
  LOCKSTEP_TRY(capture::StepCheckReport report, capture::check_steps(snap, log, profile, opt));
  io.out << capture::format_step_report(report);
  // The exit-code rule (README): a guest fault outranks a mismatch.
  if (report.faulted) return kExitGuestFault;
  return report.all_matched() ? kExitOk : kExitMismatch;
}

Action setup_check_steps(CLI::App& app, const cases::BindingSet& /*bindings: runs no port*/) {
  auto o = std::make_shared<CheckStepsOptions>();
  app.add_option("snapshot", o->snapshot, "Snapshot taken during the recorded run")->required();
  app.add_option("steplog", o->steplog, "State log (STEP/CTRL/PHYS records)")->required();
  app.add_option("--profile", o->profile, "Profile (TOML) with the [[driver]], stubs and labels")->required();
  app.add_option("--driver", o->driver, "The [[driver]] to run (default: the first on CTRL records)");
  add_unsigned_option(app, "--max-steps", o->max_steps, "Check at most this many steps (default: all)");
  add_unsigned_option(app, "--reports", o->max_reports, "Mismatching steps shown in detail (default 10)");
  add_unsigned_option(app, "--thread", o->thread, "Snapshot thread whose registers and stack the steps use");
  add_run_limits(app, o->limits, "one step");
  auto image = add_image_option(app);
  return [o, image](Io& io) -> Result<int> {
    auto r = run_check_steps(io, *o, *image);
    return r;
  };
}

}  // namespace

Command check_steps_command() {
  return {"check-steps",
          "Re-run every recorded step under the emulator and compare it with the recording",
          setup_check_steps};
}

}  // namespace lockstep::cli
