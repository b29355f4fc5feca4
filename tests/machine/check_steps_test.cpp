// check-steps on the stand-in (pipeline): every recorded car step, re-run under the Unicorn machine
// from its CTRL record, equals its PHYS record; and the check can fail, at the right field.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include "lockstep/base/io.hpp"

#include <cstring>
#include <filesystem>

#include "lockstep/capture/driver.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/load/load.hpp"
#include "lockstep/machine/machine.hpp"
#include "lockstep/profile/profile.hpp"
#include "standin_process.hpp"

namespace lockstep::capture {
namespace {

using namespace lockstep::harness;

constexpr int kSteps = 300;  // 8 racers: 2,400 car steps
constexpr int kPause = 100;

struct Recording {
  std::filesystem::path dir;
  Snapshot snapshot;
  StateLog log;
  Profile profile;
  bool ok = false;
  std::string why;
};

/// One recording of the stand-in (native where the kernel runs i386, else standin_run), shared by
/// every test process (ctest runs each test alone) through a folder in the build tree, a lock and a
/// marker naming the stand-in binary it was made from.
const Recording& recording() {
  static Recording r = [] {
    Recording rec;
    rec.dir = std::filesystem::path(LOCKSTEP_BINARY_DIR) / "tests" / "machine" / "check-steps-recording";
    std::filesystem::create_directories(rec.dir);
    auto prof = load_profile(LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml");
    if (!prof.ok()) { rec.why = prof.error().message; return rec; }
    rec.profile = std::move(*prof);
    const auto log_path = rec.dir / "steps.log", snap_path = rec.dir / "snapshot.lks", marker = rec.dir / "made-from";
    std::error_code ec;
    const auto exe_time = std::filesystem::last_write_time(STANDIN_EXE, ec);
    const std::string key = fmt::format("{} {} {} {}", STANDIN_EXE, ec ? 0 : exe_time.time_since_epoch().count(), kSteps, kPause);
    const int lock = ::open((rec.dir / "lock").c_str(), O_CREAT | O_RDWR, 0644);
    if (lock >= 0) ::flock(lock, LOCK_EX);
    auto have = read_file(marker);
    if (!have.ok() || std::string(have->begin(), have->end()) != key) {
      // Auto: nothing here is compared with checked-in bytes, and where the kernel runs i386 the
      // native recording is the stronger check (Unicorn must reproduce what the real CPU did).
      auto run = standin_test::run_standin(standin_test::Mode::kAuto,
                                           {"--log", log_path.string(), "--steps", std::to_string(kSteps)}, kPause,
                                           rec.dir);
      if (!run.ok()) rec.why = run.error().message;
      else if (run->exit_status != 0 || !run->snapshot) rec.why = "the stand-in did not run to the end with a snapshot: " + run->err;
      else if (!save_snapshot(*run->snapshot, snap_path).ok()) rec.why = "cannot save the snapshot";
      else (void)write_file_atomic(marker, key);
    }
    if (lock >= 0) ::close(lock);
    if (!rec.why.empty()) return rec;
    auto snap = load_snapshot(snap_path);
    if (!snap.ok()) { rec.why = snap.error().message; return rec; }
    rec.snapshot = std::move(*snap);
    auto log = read_state_log(log_path);
    if (!log.ok()) { rec.why = log.error().message; return rec; }
    rec.log = std::move(*log);
    rec.ok = true;
    return rec;
  }();
  return r;
}

TEST(CheckSteps, EveryCarStepOfTheStandInMatches) {
  const Recording& r = recording();
  ASSERT_TRUE(r.ok) << r.why;
  auto report = check_steps(r.snapshot, r.log, r.profile);
  ASSERT_TRUE(report.ok()) << report.error().message;
  std::printf("check-steps on the stand-in: %s", format_step_report(*report).c_str());
  EXPECT_EQ(report->total, std::uint64_t{kSteps} * 8);
  EXPECT_EQ(report->matched, report->total) << format_step_report(*report);
  EXPECT_EQ(report->faulted, 0u);
  EXPECT_GT(report->blocks, report->total * 100);  // the steps really ran the physics
}

TEST(CheckSteps, TheCommandLineSaysSoToo) {
  const Recording& r = recording();
  ASSERT_TRUE(r.ok) << r.why;
  std::ostringstream out, err;
  const int rc = cli::run({"check-steps", (r.dir / "snapshot.lks").string(), (r.dir / "steps.log").string(), "--profile",
                           LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml", "--max-steps", "200"},
                          cli::Io{out, err}, /*bindings: these commands run no port*/ {});
  EXPECT_EQ(rc, 0) << out.str() << err.str();
  EXPECT_NE(out.str().find("steps matched: 200 / 200"), std::string::npos) << out.str();
}

// Frame mode: the race loop's pass (race::pass, the profile's race_pass driver) run under the machine
// from each FRAME record must leave exactly the next FRAME record (capture/docs/state-log.md).
std::size_t frame_records(const StateLog& log) {
  std::size_t n = 0;
  for (const Record& rec : log.records) n += rec.kind == RecordKind::kFrame;
  return n;
}

TEST(CheckSteps, EveryPassOfTheStandInLeavesItsNextFrameRecord) {
  const Recording& r = recording();
  ASSERT_TRUE(r.ok) << r.why;
  const std::size_t frames = frame_records(r.log);
  ASSERT_GT(frames, 100u) << "the recording holds the race loop's FRAME records";
  StepCheckOptions options;
  options.driver = "race_pass";
  auto report = check_steps(r.snapshot, r.log, r.profile, options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(report->frame_mode);
  EXPECT_EQ(report->total, frames - 1) << "every pass but the last, which has no FRAME record after it";
  EXPECT_EQ(report->matched, report->total) << format_step_report(*report);
  EXPECT_NE(format_step_report(*report).find("passes matched"), std::string::npos);
}

TEST(CheckSteps, ACorruptedFrameByteIsReportedAtItsFieldAndPass) {
  const Recording& r = recording();
  ASSERT_TRUE(r.ok) << r.why;
  // The race clock (0x502740) in the FRAME record of pass 41: the pass from 40 must then differ there.
  GuestAddr clock = 0;
  for (const LabelSpec& l : r.profile.labels)
    if (l.name == "race_clock") clock = l.address;
  ASSERT_NE(clock, 0u);
  StateLog log = r.log;
  bool done = false;
  for (Record& rec : log.records)
    if (rec.kind == RecordKind::kFrame && rec.pass == 41)
      for (Block& b : rec.blocks)
        if (clock >= b.address && clock < b.end()) {
          b.bytes[clock - b.address] ^= 0x01;
          done = true;
        }
  ASSERT_TRUE(done) << "no FRAME record of pass 41 holds the race clock";
  StepCheckOptions options;
  options.driver = "race_pass";
  options.max_steps = 45;  // passes 0..44: the corrupted one and a few after it
  auto report = check_steps(r.snapshot, log, r.profile, options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  // Pass 40 ends at the corrupted record; pass 41 starts from it (its race clock one off), so it and
  // the passes after it that carry the clock differ too until the countdown zeroes it, or all do.
  ASSERT_GE(report->mismatches.size(), 1u);
  const StepMismatch& m = report->mismatches.front();
  ASSERT_TRUE(m.pass.has_value());
  EXPECT_EQ(*m.pass, 40);
  ASSERT_FALSE(m.fields.empty());
  EXPECT_NE(m.fields.front().name.find("race_clock"), std::string::npos) << format_step_report(*report);
  EXPECT_EQ(m.bytes_differing, 1u) << format_step_report(*report);
}

/// The first CTRL record of racer `racer` at or after step `from`.
std::size_t ctrl_index(const StateLog& log, std::uint32_t from, std::int32_t racer) {
  for (std::size_t i = 0; i < log.records.size(); ++i)
    if (log.records[i].kind == RecordKind::kCtrl && log.records[i].step >= from && log.records[i].instance == racer) return i;
  return log.records.size();
}

TEST(CheckSteps, ACorruptedCtrlByteIsReportedAtItsField) {
  const Recording& r = recording();
  ASSERT_TRUE(r.ok) << r.why;
  const std::int32_t racer = 3;
  const std::size_t idx = ctrl_index(r.log, 150, racer);
  ASSERT_LT(idx, r.log.records.size());
  const Record& ctrl = r.log.records[idx];
  const InstanceSpec* car = r.profile.instance_by_name("car");
  ASSERT_NE(car, nullptr);
  const GuestAddr car_base = car->base + static_cast<GuestAddr>(racer) * r.profile.struct_by_name("car")->size;

  // Find a named byte of the car the step neither reads nor writes (so corrupting it changes that
  // byte only), by running this step once under the machine with recording.
  MachineConfig cfg = config_from_profile(r.profile);
  auto m = Machine::create(r.snapshot, cfg);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const DriverSpec* d = r.profile.driver_for_record("CTRL");
  ASSERT_NE(d, nullptr);
  for (const std::string& s : d->stubs) ASSERT_TRUE((*m)->set_stub_active(s, true).ok());
  for (const Block& b : ctrl.blocks) ASSERT_TRUE((*m)->write(b.address, b.bytes).ok());
  CallSpec spec;
  spec.function = d->function;
  spec.args = {Arg::u32(car_base), Arg::u32(r.profile.instance_by_name("driver")->base + racer * 0xb0)};
  auto out = (*m)->call(spec);
  ASSERT_TRUE(out.ok() && out->returned());
  auto touched = [&](GuestAddr a) {
    for (const auto* runs : {&out->record.effects.inputs, &out->record.effects.outputs})
      for (const ByteRun& run : *runs)
        if (a >= run.addr && a < run.end()) return true;
    return false;
  };
  const Labeler labels(r.profile);
  GuestAddr victim = 0;
  for (GuestAddr a = car_base; a < car_base + 0x558 && !victim; ++a)
    if (!touched(a) && !labels.field(a).field.empty() && !labels.field(a).gap && ctrl.find(a)) victim = a;
  ASSERT_NE(victim, 0u) << "every named byte of the car is read or written by the step";

  StateLog bad = r.log;
  Record& rec = bad.records[idx];
  for (Block& b : rec.blocks)
    if (victim >= b.address && victim < b.end()) b.bytes[victim - b.address] ^= 0x5a;
  // Every car step up to the corrupted one and the sixteen after it (two of each racer): one differs.
  StepCheckOptions opt;
  opt.max_steps = 16;
  for (std::size_t i = 0; i <= idx; ++i) opt.max_steps += bad.records[i].kind == RecordKind::kCtrl ? 1 : 0;
  auto report = check_steps(r.snapshot, bad, r.profile, opt);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->total, opt.max_steps);
  EXPECT_EQ(report->matched, report->total - 1);
  ASSERT_EQ(report->mismatches.size(), 1u);
  const StepMismatch& mm = report->mismatches[0];
  EXPECT_EQ(mm.step, ctrl.step);
  EXPECT_EQ(mm.instance, racer);
  EXPECT_EQ(mm.bytes_differing, 1u);
  ASSERT_EQ(mm.fields.size(), 1u);
  EXPECT_EQ(mm.fields[0].name, labels.field(victim).text());
  const std::string text = format_step_report(*report);
  EXPECT_NE(text.find(labels.field(victim).text()), std::string::npos) << text;
  EXPECT_NE(text.find("**"), std::string::npos) << text;
  std::printf("corrupted %s:\n%s", labels.name(victim).c_str(), text.c_str());
}

TEST(CheckSteps, AWrongStubIsAMismatchNamedByField) {
  // Stubbing the engine (drive::engine) with a ret leaves the engine speed as the CTRL record had it.
  const Recording& r = recording();
  ASSERT_TRUE(r.ok) << r.why;
  Profile p = r.profile;
  const FunctionSpec* engine = p.function_by_name("drive::engine");
  ASSERT_NE(engine, nullptr);
  StubSpec wrong;
  wrong.name = "wrong_engine";
  wrong.address = engine->address;
  wrong.why = "deliberately wrong";
  p.stubs.push_back(wrong);
  StepCheckOptions opt;
  opt.max_steps = 400;
  opt.max_reports = 400;
  auto report = check_steps(r.snapshot, r.log, p, opt);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_LT(report->matched, report->total);
  bool named = false;
  for (const StepMismatch& mm : report->mismatches)
    for (const FieldDiff& f : mm.fields)
      if (f.name.find("engine_speed") != std::string::npos) named = true;
  EXPECT_TRUE(named) << format_step_report(*report);
}

class Keep : public CallObserver {
 public:
  void on_leave(const CallRecord& r) override { calls.push_back(r); }
  std::vector<CallRecord> calls;
};

TEST(NestedCapture, EveryCallOfAWatchedFunctionInsideTheCarStep) {
  // The capture's building block: tyres::tyres (and drive::engine) called inside the car step are
  // recorded call by call, each with its own inputs and outputs.
  const Recording& r = recording();
  ASSERT_TRUE(r.ok) << r.why;
  const FunctionSpec* tyres = r.profile.function_by_name("tyres::tyres");
  const FunctionSpec* engine = r.profile.function_by_name("drive::engine");
  ASSERT_TRUE(tyres && engine);
  MachineConfig cfg = config_from_profile(r.profile);
  cfg.watched = {tyres->address, engine->address};
  auto m = Machine::create(r.snapshot, cfg);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const DriverSpec* d = r.profile.driver_for_record("CTRL");
  for (const std::string& s : d->stubs) ASSERT_TRUE((*m)->set_stub_active(s, true).ok());
  Keep keep;
  (*m)->set_observer(&keep);
  const GuestAddr cars = r.profile.instance_by_name("car")->base, drivers = r.profile.instance_by_name("driver")->base;
  std::size_t steps = 0;
  for (const Record& rec : r.log.records) {
    if (rec.kind != RecordKind::kCtrl || steps == 16) continue;
    ++steps;
    (*m)->reset();
    for (const Block& b : rec.blocks) ASSERT_TRUE((*m)->write(b.address, b.bytes).ok());
    CallSpec spec;
    spec.function = d->function;
    const GuestAddr car = cars + static_cast<GuestAddr>(rec.instance) * 0x558;
    spec.args = {Arg::u32(car), Arg::u32(drivers + static_cast<GuestAddr>(rec.instance) * 0xb0)};
    const std::size_t before = keep.calls.size();
    auto out = (*m)->call(spec);
    ASSERT_TRUE(out.ok() && out->returned());
    ASSERT_GT(keep.calls.size(), before) << "step " << rec.step << " racer " << rec.instance;
    for (std::size_t i = before; i < keep.calls.size(); ++i) {
      const CallRecord& c = keep.calls[i];
      EXPECT_TRUE(c.complete);
      EXPECT_GE(c.depth, 1u);
      EXPECT_EQ(c.in.eax, car);  // Watcom: the car in eax
      EXPECT_FALSE(c.effects.inputs.empty());
      EXPECT_FALSE(c.effects.outputs.empty());
      // Whatever a nested call wrote outside its frame, the whole step wrote too.
      for (const ByteRun& run : c.effects.outputs)
        for (GuestAddr a = run.addr; a < run.end(); ++a) {
          bool found = false;
          for (const auto* list : {&out->record.effects.outputs, &out->record.effects.frame_writes})
            for (const ByteRun& o : *list) found = found || (a >= o.addr && a < o.end());
          ASSERT_TRUE(found) << std::hex << a;
        }
    }
  }
  std::size_t n_tyres = 0, stale = 0;
  for (const CallRecord& c : keep.calls) {
    n_tyres += c.function == tyres->address;
    stale += !c.effects.stale_stack_reads.empty();
  }
  std::printf("nested capture: %zu calls in %zu car steps (%zu of tyres::tyres), %zu with stale stack reads\n",
              keep.calls.size(), steps, n_tyres, stale);
  EXPECT_GT(n_tyres, 0u);
}

// One exit-code rule for check-steps and capture (README, "Exit codes"): a guest fault is 3 in both,
// and a log a driver cannot run (no CTRL record, a racer the profile has no car for, a repeated
// record) is bad input, 2 in both, refused before anything runs.
TEST(CheckSteps, ExitCodesAgreeWithCapture) {
  const Recording& r = recording();
  ASSERT_TRUE(r.ok) << r.why;
  const std::string profile = LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml";
  const auto dir = r.dir / ("exit-codes-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto both = [&](const std::string& log, std::vector<std::string> extra) {
    std::ostringstream out, err;
    std::vector<std::string> check = {"check-steps", (r.dir / "snapshot.lks").string(), log, "--profile", profile,
                                      "--max-steps", "2"};
    std::vector<std::string> capture = {"capture", (r.dir / "snapshot.lks").string(), log, "--profile", profile,
                                        "--fn", "math::dot16", "--every", "400", "--quiet", "-o",
                                        (dir / "corpus").string()};
    check.insert(check.end(), extra.begin(), extra.end());
    capture.insert(capture.end(), extra.begin(), extra.end());
    const int a = cli::run(check, cli::Io{out, err}, /*bindings: these commands run no port*/ {});
    const int b = cli::run(capture, cli::Io{out, err}, /*bindings: these commands run no port*/ {});
    return std::pair{a, b};
  };
  auto write_log = [&](const std::string& name, std::vector<Record> records) {
    StateLog log = r.log;
    log.records = std::move(records);
    const auto path = (dir / name).string();
    EXPECT_TRUE(write_file_atomic(path, encode_state_log(log)).ok());
    return path;
  };
  // The first step of the recording, whole.
  std::vector<Record> first_step;
  for (const Record& rec : r.log.records)
    if (rec.step == r.log.records.front().step) first_step.push_back(rec);
  ASSERT_GT(first_step.size(), 2u);

  // A budget of one block: every run stops (a guest fault): 3, not check-steps' former 1.
  EXPECT_EQ(both((r.dir / "steps.log").string(), {"--budget", "1"}), std::pair(3, 3));

  // Only STEP records: nothing to run. Before, an empty run passed (exit 0, an empty corpus).
  std::vector<Record> steps_only;
  for (const Record& rec : first_step)
    if (rec.kind == RecordKind::kStep) steps_only.push_back(rec);
  EXPECT_EQ(both(write_log("steps-only.log", steps_only), {}), std::pair(2, 2));

  // A racer the profile has no car for (its CTRL and PHYS records both say 99).
  std::vector<Record> racer99 = first_step;
  for (Record& rec : racer99)
    if (rec.kind != RecordKind::kStep && rec.instance == first_step[1].instance) rec.instance = 99;
  EXPECT_EQ(both(write_log("racer99.log", racer99), {}), std::pair(2, 2));

  // A CTRL record twice: refused, not run twice.
  std::vector<Record> twice = first_step;
  for (std::size_t i = 0; i < twice.size(); ++i)
    if (twice[i].kind == RecordKind::kCtrl) {
      twice.insert(twice.begin() + static_cast<std::ptrdiff_t>(i), twice[i]);
      break;
    }
  EXPECT_EQ(both(write_log("ctrl-twice.log", twice), {}), std::pair(2, 2));
  std::filesystem::remove_all(dir);
}

TEST(CheckSteps, BadDriverIsAnError) {
  const Recording& r = recording();
  ASSERT_TRUE(r.ok) << r.why;
  StepCheckOptions opt;
  opt.driver = "nope";
  EXPECT_EQ(check_steps(r.snapshot, r.log, r.profile, opt).error().code, Errc::kNotFound);
}

}  // namespace
}  // namespace lockstep::capture
