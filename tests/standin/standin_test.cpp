// The stand-in end to end: it builds and runs twice with
// identical logs; its tables match their formulas on every entry; its arithmetic layer matches
// port/CHOICES.md's formulas; its log parses and carries the documented blocks; a snapshot at the
// pause holds the cars of that step's STEP record; every stand-in function of the profile sits at its
// POD address in the built binary (read from the ELF file, not from the source).
//
// The formulas here are written from port/CHOICES.md ("Arithmetic layer and tables"), in host
// double arithmetic, independently of the stand-in's assembly.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "lockstep/base/io.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/load/load.hpp"
#include "standin_process.hpp"

namespace {

using lockstep::capture::Record;
using lockstep::capture::RecordKind;
using lockstep::capture::StateLog;

constexpr std::uint32_t kCars = 0x630838, kCarSize = 0x558, kDrivers = 0x61f870, kDriverSize = 0xb0;
constexpr std::uint32_t kFrame = 0x621b70, kRaceBlock = 0x4f8d44, kRaceBlockEnd = 0x4f9854, kCounter = 0x4f3310;
constexpr int kRacers = 8, kSteps = 400, kPauseStep = 100;
constexpr std::uint32_t kParts = 0x640000, kPartSize = 0xa4, kRacerWithoutObject = 7;

std::filesystem::path scratch(const std::string& name) {
  auto dir = std::filesystem::path(LOCKSTEP_BINARY_DIR) / "standin-test" / name;
  std::filesystem::create_directories(dir);
  return dir;
}

// ---- runs shared by the tests (each takes a few seconds under the emulator) ----------------------
struct Runs {
  StateLog log;
  std::vector<std::uint8_t> log_bytes, second_log_bytes;
  lockstep::harness::Snapshot snapshot;
  std::string selftest;
  bool emulated = false;
};

// Each test runs in its own process (gtest_discover_tests), so the runs are made once and kept in
// the build tree, keyed by the two executables' sizes and times; a lock keeps parallel tests from
// making them twice.
std::string identity(const char* path) {
  std::error_code ec;
  auto t = std::filesystem::last_write_time(path, ec).time_since_epoch().count();
  return std::to_string(std::filesystem::file_size(path, ec)) + ":" + std::to_string(t);
}

const Runs& runs() {
  static Runs* r = [] {
    auto* runs = new Runs;
    auto first = scratch("first"), second = scratch("second"), self = scratch("selftest");
    const auto marker = first.parent_path() / "done", snap_file = first / "pause.lks";
    const std::string key = identity(STANDIN_EXE) + " " + identity(STANDIN_RUN_EXE) + " " + std::to_string(kSteps);
    int lock = ::open((first.parent_path() / "lock").c_str(), O_CREAT | O_RDWR, 0644);
    if (lock >= 0) flock(lock, LOCK_EX);
    std::string have;
    if (std::ifstream in(marker); in) std::getline(in, have);
    if (have.rfind(key, 0) != 0) {
      std::filesystem::remove(marker);
      // Auto: determinism and layout hold in either mode; recording_modes_test compares the two.
      auto a = standin_test::run_standin(standin_test::Mode::kAuto,
                                         {"--log", (first / "steps.log").string(), "--steps", std::to_string(kSteps)},
                                         kPauseStep, first);
      EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.error().message);
      bool ok = a.ok() && a->exit_status == 0 && a->snapshot;
      if (a.ok()) {
        EXPECT_EQ(a->exit_status, 0) << a->err;
      }
      if (ok) ok = lockstep::harness::save_snapshot(*a->snapshot, snap_file).ok();
      auto b = standin_test::run_standin(standin_test::Mode::kAuto,
                                         {"--log", (second / "steps.log").string(), "--steps", std::to_string(kSteps)},
                                         std::nullopt, second);
      EXPECT_TRUE(b.ok() && b->exit_status == 0);
      auto c = standin_test::run_standin(standin_test::Mode::kAuto, {"--selftest-arith", "3000"}, std::nullopt, self);
      EXPECT_TRUE(c.ok() && c->exit_status == 0);
      ok = ok && b.ok() && b->exit_status == 0 && c.ok() && c->exit_status == 0;
      if (ok) {
        (void)lockstep::write_file_atomic(self / "selftest.txt", c->out);
        (void)lockstep::write_file_atomic(marker, key + (a->emulated ? " emulated" : " native") + "\n");
      }
      have = key + (a.ok() && a->emulated ? " emulated" : " native");
    }
    if (lock >= 0) ::close(lock);
    runs->emulated = have.find("emulated") != std::string::npos;
    if (auto snap = lockstep::harness::load_snapshot(snap_file); snap.ok()) runs->snapshot = std::move(*snap);
    if (auto bytes = lockstep::read_file(self / "selftest.txt"); bytes.ok())
      runs->selftest.assign(bytes->begin(), bytes->end());
    if (auto bytes = lockstep::read_file(first / "steps.log"); bytes.ok()) runs->log_bytes = *bytes;
    if (auto bytes = lockstep::read_file(second / "steps.log"); bytes.ok()) runs->second_log_bytes = *bytes;
    auto log = lockstep::capture::decode_state_log(runs->log_bytes, "steps.log");
    EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message);
    if (log.ok()) runs->log = std::move(*log);
    return runs;
  }();
  return *r;
}

// ---- the formulas of port/CHOICES.md --------------------------------------------------------------
constexpr double kM = 0x1.8p68;

std::int32_t low32(double r) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(r))); }
std::int32_t fistp(double v) {
  double n = std::nearbyint(v);  // the host rounds to nearest, ties to even, as 0x027f does
  if (!(n >= -2147483648.0 && n < 2147483648.0)) return INT32_MIN;
  return static_cast<std::int32_t>(n);
}
double d(std::int32_t v) { return static_cast<double>(v); }

std::uint32_t sqrt_entry(std::uint32_t i) {  // floor(sqrt(i * 2^32)), corrected to exactness
  std::uint64_t v = std::uint64_t{i} << 32;
  auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(v)));
  while (r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return static_cast<std::uint32_t>(r);
}
std::int32_t recip_entry(std::int32_t i) { return i == 0 ? 0 : (1 << 24) / i; }
double sine_exact(int i) { return std::sin(i * 8.0 / 65536.0) * 65536.0; }
std::int32_t sine_entry(int i) { return static_cast<std::int32_t>(std::lround(sine_exact(i))); }

std::int32_t length16(std::int32_t x, std::int32_t y, std::int32_t z) {
  std::uint64_t s = static_cast<std::uint64_t>(std::int64_t{x} * x) + static_cast<std::uint64_t>(std::int64_t{y} * y) +
                    static_cast<std::uint64_t>(std::int64_t{z} * z);
  if (s == 0) return 0;
  int b = 63 - std::countl_zero(s);
  if (b >= 13) {
    int k = (b - 13) >> 1;
    std::uint32_t r = sqrt_entry(static_cast<std::uint32_t>(s >> (2 * k)));
    return static_cast<std::int32_t>(k <= 16 ? r >> (16 - k) : r << (k - 16));
  }
  int m = (14 - b) >> 1;
  return static_cast<std::int32_t>(sqrt_entry(static_cast<std::uint32_t>(s << (2 * m))) >> (16 + m));
}

std::int32_t sin16(std::int32_t a) {
  constexpr std::int32_t kPi = 205887, kTwoPi = 411774, kHalfPi = 102944;
  std::int32_t r = a % kTwoPi;
  if (r > kPi) r -= kTwoPi;
  if (r <= -kPi) r += kTwoPi;
  bool neg = r < 0;
  if (neg) r = -r;
  if (r > kHalfPi) r = kPi - r;
  std::int32_t t = sine_entry(r >> 3);
  return neg ? -t : t;
}

std::int32_t mul16(std::int32_t a, std::int32_t b) { return static_cast<std::int32_t>((std::int64_t{a} * b) >> 16); }

// ---- tests ----------------------------------------------------------------------------------------

TEST(Standin, RunsTwiceWithIdenticalLogs) {
  const Runs& r = runs();
  RecordProperty("emulated", r.emulated ? "yes (standin_run)" : "no (native)");
  ASSERT_FALSE(r.log_bytes.empty());
  EXPECT_EQ(r.log_bytes.size(), r.second_log_bytes.size());
  EXPECT_TRUE(r.log_bytes == r.second_log_bytes) << "two runs of one build wrote different logs";
}

TEST(Standin, LogHoldsStepCtrlPhysForEveryStepAndRacerAndAFrameForEveryPass) {
  // Each step: STEP, then CTRL and PHYS per racer; each pass of the race loop that ends before the
  // run's stop (--steps: at the entry of step kSteps) ends with a FRAME record, between steps, its
  // racer field the pass's number (0, 1, ...) and its step field the steps run so far.
  const StateLog& log = runs().log;
  EXPECT_EQ(log.header.producer, "lockstep-standin");
  std::size_t at = 0;
  std::int32_t passes = 0;
  std::uint32_t steps_at_last_frame = 0;
  for (std::uint32_t step = 0; step < kSteps; ++step) {
    while (at < log.records.size() && log.records[at].kind == RecordKind::kFrame) {
      const Record& f = log.records[at++];
      ASSERT_EQ(f.pass, passes) << "the FRAME records' passes are consecutive";
      ASSERT_EQ(f.step, step) << "a FRAME record counts the steps run so far";
      ASSERT_GE(f.step, steps_at_last_frame);
      steps_at_last_frame = f.step;
      ++passes;
    }
    ASSERT_LT(at, log.records.size());
    const Record& s = log.records[at++];
    ASSERT_EQ(s.kind, RecordKind::kStep);
    ASSERT_EQ(s.step, step);
    EXPECT_EQ(s.instance, -1);
    for (int racer = 0; racer < kRacers; ++racer) {
      for (RecordKind kind : {RecordKind::kCtrl, RecordKind::kPhys}) {
        const Record& rec = log.records[at++];
        ASSERT_EQ(rec.kind, kind) << "step " << step << " racer " << racer;
        ASSERT_EQ(rec.step, step);
        ASSERT_EQ(rec.instance, racer);
      }
    }
  }
  // the run stops at the entry of step kSteps: after the last step, at most the FRAME of its pass
  while (at < log.records.size()) {
    ASSERT_EQ(log.records[at].kind, RecordKind::kFrame);
    ASSERT_EQ(log.records[at++].step, kSteps);
    ++passes;
  }
  RecordProperty("passes", passes);
  EXPECT_GT(passes, kSteps / 3) << "most passes run one step";
  EXPECT_LT(passes, kSteps) << "some passes run several steps";
}

TEST(Standin, CtrlAndPhysCarryTheFiveDocumentedBlocksAndTheBodyParts) {
  // port/CHOICES.md "Step log": that car (0x558), its driver (0xb0), the frame time block, the race block
  // 0x4f8d44..0x4f9854, the chassis search's counter 0x4f3310; then (the table of choices: the race
  // runs with damage on) a racer with a drawn object's six body parts, part[22 r + 0..5] at 0x640000,
  // and the damage veto word.
  for (const Record& rec : runs().log.records) {
    if (rec.kind != RecordKind::kCtrl && rec.kind != RecordKind::kPhys) continue;
    const std::uint32_t r = static_cast<std::uint32_t>(rec.instance);
    ASSERT_EQ(rec.blocks.size(), r == kRacerWithoutObject ? 6u : 7u) << "racer " << r;
    // last, the damage veto (the damage race's human controller holds it; 0 in this race)
    EXPECT_EQ(rec.blocks.back().address, 0x633314u);
    EXPECT_EQ(rec.blocks.back().bytes, std::vector<std::uint8_t>(4, 0));
    if (r != kRacerWithoutObject) {
      EXPECT_EQ(rec.blocks[5].address, kParts + kPartSize * 22 * r);
      EXPECT_EQ(rec.blocks[5].bytes.size(), 6 * kPartSize);
    }
    EXPECT_EQ(rec.blocks[0].address, kCars + kCarSize * r);
    EXPECT_EQ(rec.blocks[0].bytes.size(), kCarSize);
    EXPECT_EQ(rec.blocks[1].address, kDrivers + kDriverSize * r);
    EXPECT_EQ(rec.blocks[1].bytes.size(), kDriverSize);
    EXPECT_EQ(rec.blocks[2].address, kFrame);
    EXPECT_EQ(rec.blocks[2].bytes.size(), 0x10u);
    EXPECT_EQ(rec.blocks[3].address, kRaceBlock);
    EXPECT_EQ(rec.blocks[3].bytes.size(), kRaceBlockEnd - kRaceBlock);
    EXPECT_EQ(rec.blocks[4].address, kCounter);
    EXPECT_EQ(rec.blocks[4].bytes.size(), 4u);
    // the record's step is the frame-time block's step number (+0xc)
    std::uint32_t step;
    std::memcpy(&step, rec.blocks[2].bytes.data() + 0xc, 4);
    ASSERT_EQ(step, rec.step);
  }
}

TEST(Standin, StepRecordsHoldEveryCarAndDriverAndTheTrack) {
  const StateLog& log = runs().log;
  for (const Record& rec : log.records) {
    if (rec.kind != RecordKind::kStep) continue;
    ASSERT_NE(rec.find(kCars, kRacers * kCarSize), nullptr);
    ASSERT_NE(rec.find(kDrivers, kRacers * kDriverSize), nullptr);
    ASSERT_NE(rec.find(kRaceBlock, kRaceBlockEnd - kRaceBlock), nullptr);
    ASSERT_NE(rec.find(kFrame, 0x10), nullptr);
    ASSERT_NE(rec.find(0x57bf74, 8), nullptr);
    auto table = rec.bytes_at(0x57bf74, 8);
    ASSERT_TRUE(table.ok());
    std::int32_t count;
    std::uint32_t pointer;
    std::memcpy(&count, table->data(), 4);
    std::memcpy(&pointer, table->data() + 4, 4);
    ASSERT_EQ(count, 25);
    ASSERT_NE(rec.find(pointer, 25 * 0x3c), nullptr) << "the sector records";
  }
}

TEST(Standin, OnlyTheCollisionPassMovesACarBetweenItsPhysAndTheNextStep) {
  // After the racers' turns the simulation step runs the zones (which change nothing) and the
  // collision pass (A32, F088): between a car's PHYS record and the next STEP only a contact changes
  // a car. So the car without a drawn object (racer 7: no hull, no contact) never changes there, and
  // the race's cars meet: the pass moves some car in some step, more than one pair of racers.
  const auto& records = runs().log.records;
  std::map<std::pair<std::uint32_t, int>, const Record*> phys;
  for (const Record& rec : records)
    if (rec.kind == RecordKind::kPhys) phys[{rec.step, rec.instance}] = &rec;
  int compared = 0, moved = 0;
  std::set<int> racers_moved;
  for (const Record& rec : records) {
    if (rec.kind != RecordKind::kStep || rec.step == 0) continue;
    for (int racer = 0; racer < kRacers; ++racer) {
      const Record* p = phys.at({rec.step - 1, racer});
      auto now = rec.bytes_at(kCars + kCarSize * static_cast<std::uint32_t>(racer), kCarSize);
      ASSERT_TRUE(now.ok());
      const bool same = std::equal(now->begin(), now->end(), p->blocks[0].bytes.begin());
      if (racer == static_cast<int>(kRacerWithoutObject)) {
        ASSERT_TRUE(same) << "car " << racer << " (no drawn object) changed between PHYS of step " << rec.step - 1
                          << " and STEP " << rec.step;
      }
      if (!same) ++moved, racers_moved.insert(racer);
      ++compared;
    }
  }
  EXPECT_EQ(compared, (kSteps - 1) * kRacers);
  RecordProperty("car_steps_moved_by_the_collision_pass", moved);
  EXPECT_GT(moved, 0) << "the collision pass never moved a car";
  EXPECT_GE(racers_moved.size(), 3u) << "fewer than three racers ever met another";
}

TEST(Standin, CarsMoveAndChangeWithTheControls) {
  // A sanity check that the race is a race: every car's record changes between the first step and
  // the last, and the controllers' input bits vary (throttle, brakes, gear requests).
  const auto& records = runs().log.records;
  const Record& first = records.front();
  auto last_step = std::find_if(records.rbegin(), records.rend(), [](const Record& r) { return r.kind == RecordKind::kStep; });
  ASSERT_NE(last_step, records.rend());
  const Record& last = *last_step;
  ASSERT_EQ(last.step, static_cast<std::uint32_t>(kSteps - 1));
  std::set<std::uint32_t> inputs;
  for (const Record& rec : records)
    if (rec.kind == RecordKind::kCtrl) {
      std::uint32_t bits;
      std::memcpy(&bits, rec.blocks[1].bytes.data() + 0x34, 4);
      inputs.insert(bits);
    }
  for (int racer = 0; racer < kRacers; ++racer) {
    auto a = first.bytes_at(kCars + kCarSize * static_cast<std::uint32_t>(racer), kCarSize);
    auto b = last.bytes_at(kCars + kCarSize * static_cast<std::uint32_t>(racer), kCarSize);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_FALSE(std::equal(a->begin(), a->end(), b->begin())) << "car " << racer << " never changed";
  }
  EXPECT_GE(inputs.size(), 4u);
  EXPECT_TRUE(inputs.count(0x10) || std::any_of(inputs.begin(), inputs.end(), [](auto v) { return v & 0x10; }));
  EXPECT_TRUE(std::any_of(inputs.begin(), inputs.end(), [](auto v) { return v & 0x20; })) << "no gear-up request";
}

TEST(Standin, TheRaceTakesEveryPath) {
  // The race is built to take every path of the car step (tests/standin/README.md, "The race"): read
  // back from the PHYS records, by the documented fields only. A car flies (all four wheels off:
  // touch count +0xd4 < 0), touches triangles (+0x3a touching, +0x3b 0) and walls (a point's wall
  // depth +0xc0 > 0), skids and slides (+0x39, +0x38 set), a computer car gets stuck and reverses
  // (driver +0x7c < 0, F129), a car lies upside down (+0x4f0 counting, F023) and is put back after
  // 2.5 s (F081), and a car falls off the track and is put back by the track pass (F080). A put-back
  // is a jump of the body's centre +0x498 by more than 5 units within one step that leaves the car at
  // rest (velocity +0x4c8 zero: car_reset, F086).
  int airborne = 0, on_triangle = 0, walled = 0, skidding = 0, sliding = 0, stuck = 0, upside_down = 0;
  int fall_put_backs = 0, upside_down_put_backs = 0;
  std::map<int, std::array<std::int32_t, 4>> last;  // racer -> centre x, y, z, upside-down timer
  auto i32 = [](const std::vector<std::uint8_t>& b, std::size_t off) {
    std::int32_t v;
    std::memcpy(&v, b.data() + off, 4);
    return v;
  };
  for (const Record& rec : runs().log.records) {
    if (rec.kind != RecordKind::kPhys) continue;
    const auto& car = rec.blocks[0].bytes;
    const auto& driver = rec.blocks[1].bytes;
    bool all_off = true;
    for (int w = 0; w < 4; ++w) {
      all_off = all_off && i32(car, 0xd8 * w + 0xd4) < 0;
      on_triangle += car[0xd8 * w + 0x3a] && car[0xd8 * w + 0x3b] == 0;
      skidding += car[0xd8 * w + 0x39] != 0;
      sliding += car[0xd8 * w + 0x38] != 0;
    }
    for (int p = 0; p < 5; ++p) walled += i32(car, 0xd8 * p + 0xc0) > 0;
    airborne += all_off;
    stuck += i32(driver, 0x7c) < 0;
    std::int32_t timer = i32(car, 0x4f0);
    upside_down += timer != 0;
    std::array<std::int32_t, 4> now = {i32(car, 0x498), i32(car, 0x49c), i32(car, 0x4a0), timer};
    auto it = last.find(rec.instance);
    if (it != last.end()) {
      const auto& was = it->second;
      double moved = std::hypot(std::hypot((now[0] - was[0]) / 65536.0, (now[1] - was[1]) / 65536.0),
                                (now[2] - was[2]) / 65536.0);
      bool at_rest = i32(car, 0x4c8) == 0 && i32(car, 0x4cc) == 0 && i32(car, 0x4d0) == 0;
      if (moved > 5.0 && at_rest) {
        // 2.5 s upside down is 640 in the timer's low half (1/256 s): one step before, it was near
        if ((was[3] & 0xffff) >= 0x200) ++upside_down_put_backs;
        else ++fall_put_backs;
      }
    }
    last[rec.instance] = now;
  }
  RecordProperty("airborne_car_steps", airborne);
  RecordProperty("wheel_steps_on_triangles", on_triangle);
  RecordProperty("fall_put_backs", fall_put_backs);
  RecordProperty("upside_down_put_backs", upside_down_put_backs);
  EXPECT_GT(airborne, 0) << "no car left the ground";
  EXPECT_GT(on_triangle, 0) << "no wheel touched a triangle";
  EXPECT_GT(walled, 0) << "no point touched a wall";
  EXPECT_GT(skidding, 0) << "no wheel skidded";
  EXPECT_GT(sliding, 0) << "no wheel slid";
  EXPECT_GT(stuck, 0) << "no computer car got stuck";
  EXPECT_GT(upside_down, 0) << "no car lay upside down";
  EXPECT_GE(fall_put_backs, 1) << "no car fell off and was put back";
  EXPECT_GE(upside_down_put_backs, 1) << "no car was put back after 2.5 s upside down";
}

TEST(Standin, FrameRecordsFollowTheRaceLoopsClock) {
  // Read back from the FRAME records by the documented rules and the table of choices' values, never
  // from the stand-in's code (F130, F154-F161): a pass steps with the frame time the
  // pass before measured (0x60be0c): one step, or n = F / U equal steps of F / n when F > 3U (U =
  // 0x60bdfc, 0x888); the frame-time sum (0x621b74) gains F; the race clock (0x502740) gains F once
  // a pass and reads 0 until "GO!"; the frame time is the milliseconds between two readings of the
  // clock (frame_clock's last one at 0x60be10) x 65, within 65..30000; while the countdown runs
  // (race block +0 not 0) every driver's +0x7c is 0; "GO!" comes when the clock reaches race block
  // +0x08.
  const auto& records = runs().log.records;
  auto word = [](const Record& r, std::uint32_t address) {
    auto b = r.bytes_at(address, 4);
    EXPECT_TRUE(b.ok()) << "FRAME record " << r.pass << " lacks 0x" << std::hex << address;
    std::int32_t v = 0;
    if (b.ok()) std::memcpy(&v, b->data(), 4);
    return v;
  };
  constexpr std::uint32_t kFrameTime = 0x60be0c, kLastMs = 0x60be10, kStepUnit = 0x60bdfc, kRaceClock = 0x502740;
  const Record* before = nullptr;
  int passes = 0, split = 0, clamped_high = 0, clamped_low = 0, go = 0, countdown = 0;
  for (const Record& f : records) {
    if (f.kind != RecordKind::kFrame) continue;
    ++passes;
    // the blocks a follower needs (the table of choices' list): every car, driver and drawn object,
    // the frame-time block, the race block, the clock words
    for (auto [address, size] : {std::pair{kCars, kRacers * kCarSize}, std::pair{kDrivers, kRacers * kDriverSize},
                                 std::pair{0x61a6d0u, kRacers * 0x80u}, std::pair{kFrame, 0x10u},
                                 std::pair{kRaceBlock, kRaceBlockEnd - kRaceBlock}, std::pair{kRaceClock, 4u},
                                 std::pair{kStepUnit, 4u}, std::pair{kFrameTime, 8u}})
      ASSERT_NE(f.find(address, size), nullptr) << "FRAME " << f.pass << " lacks 0x" << std::hex << address;
    const std::int32_t frame_time = word(f, kFrameTime), phase = word(f, kRaceBlock);
    EXPECT_GE(frame_time, 65);
    EXPECT_LE(frame_time, 30000);
    if (phase != 0) {
      ++countdown;
      EXPECT_EQ(word(f, kRaceClock), 0) << "pass " << f.instance << ": the race clock runs before GO!";
      for (std::uint32_t r = 0; r < kRacers; ++r)
        EXPECT_EQ(word(f, kDrivers + kDriverSize * r + 0x7c), 0) << "pass " << f.pass << " racer " << r;
      EXPECT_LT(static_cast<std::int32_t>(word(f, kLastMs) - word(f, kRaceBlock + 8)), 0);
    }
    if (before) {
      const std::int32_t f_before = word(*before, kFrameTime), unit = word(*before, kStepUnit);
      ASSERT_EQ(unit, 0x888);
      const std::int32_t n = f_before > 3 * unit ? f_before / unit : 1;
      EXPECT_EQ(static_cast<std::int32_t>(f.step - before->step), n) << "pass " << f.instance;
      EXPECT_EQ(word(f, kFrame + 8), f_before / n) << "pass " << f.instance << ": the step's dt";
      EXPECT_EQ(word(f, kFrame + 4) - word(*before, kFrame + 4), f_before) << "pass " << f.instance << ": the sum";
      split += n > 1;
      const std::uint32_t ms = static_cast<std::uint32_t>(word(f, kLastMs) - word(*before, kLastMs));
      const std::int64_t expected = std::clamp<std::int64_t>(std::int64_t{ms} * 65, 65, 30000);
      EXPECT_EQ(frame_time, expected) << "pass " << f.instance << ": " << ms << " ms";
      clamped_high += expected == 30000;
      clamped_low += ms == 0;
      const bool was_counting = word(*before, kRaceBlock) != 0;
      if (was_counting && phase == 0) {
        ++go;
        EXPECT_EQ(word(f, kRaceClock), 0) << "the race clock at GO! (F159)";
        EXPECT_GE(static_cast<std::int32_t>(word(f, kLastMs) - word(f, kRaceBlock + 8)), 0);
      } else if (!was_counting) {
        EXPECT_EQ(word(f, kRaceClock) - word(*before, kRaceClock), f_before) << "pass " << f.instance << " (F155)";
      }
    }
    before = &f;
  }
  RecordProperty("passes", passes);
  RecordProperty("passes_split_into_steps", split);
  EXPECT_GT(countdown, 5) << "the countdown held the cars for a few passes";
  EXPECT_EQ(go, 1) << "one GO!";
  EXPECT_GT(split, 2) << "no long frame split into equal steps";
  EXPECT_GE(clamped_high, 1) << "no frame past the clamp's maximum";
  EXPECT_GE(clamped_low, 1) << "no frame at the clamp's minimum (two readings in one millisecond)";
}

TEST(Standin, SnapshotAtThePauseHoldsThatStepsCars) {
  const Runs& r = runs();
  ASSERT_FALSE(r.snapshot.regions.empty()) << "no snapshot was taken at the pause";
  const Record* step = nullptr;
  for (const Record& rec : r.log.records)
    if (rec.kind == RecordKind::kStep && rec.step == kPauseStep) step = &rec;
  ASSERT_NE(step, nullptr);
  for (auto [address, size] : {std::pair{kCars, kRacers * kCarSize}, std::pair{kDrivers, kRacers * kDriverSize},
                               std::pair{kFrame, 0x10u}, std::pair{kRaceBlock, kRaceBlockEnd - kRaceBlock}}) {
    auto live = r.snapshot.read(address, size);
    ASSERT_TRUE(live.ok()) << live.error().message;
    auto logged = step->bytes_at(address, size);
    ASSERT_TRUE(logged.ok());
    EXPECT_TRUE(std::equal(logged->begin(), logged->end(), live->begin()))
        << "snapshot and STEP " << kPauseStep << " differ in the block at 0x" << std::hex << address;
  }
  ASSERT_FALSE(r.snapshot.threads.empty());
  EXPECT_EQ(r.snapshot.threads[0].x87.control, 0x027f) << "the thread's control word (F001)";
  EXPECT_NE(r.snapshot.threads[0].gs_base, 0u) << "the TLS block behind gs (rand's getter reads it)";
}

TEST(Standin, TablesMatchTheirFormulasOnEveryEntry) {
  const auto& snap = runs().snapshot;
  ASSERT_FALSE(snap.regions.empty());
  auto word = [&](std::uint32_t a) {
    auto b = snap.read(a, 4);
    std::uint32_t v = 0;
    if (b.ok()) std::memcpy(&v, b->data(), 4);
    return v;
  };
  // F012: square roots, floor(sqrt(i) * 65536), i = 0..0x7fff (read for 0x2000..0x7fff)
  const std::uint32_t sq = word(0x4ed434);
  auto sqb = snap.read(sq, 0x8000 * 4);
  ASSERT_TRUE(sqb.ok());
  for (std::uint32_t i = 0; i < 0x8000; ++i) {
    std::uint32_t v;
    std::memcpy(&v, sqb->data() + 4 * i, 4);
    ASSERT_EQ(v, sqrt_entry(i)) << "sqrt entry " << i;
  }
  // F013: reciprocals, 2^24 / i truncated, i = -16384..16383, [0x4ed42c] -> entry 0
  const std::uint32_t rc = word(0x4ed42c);
  auto rcb = snap.read(rc - 16384 * 4, 32768 * 4);
  ASSERT_TRUE(rcb.ok());
  for (std::int32_t i = -16384; i <= 16383; ++i) {
    std::int32_t v;
    std::memcpy(&v, rcb->data() + 4 * (i + 16384), 4);
    ASSERT_EQ(v, recip_entry(i)) << "reciprocal entry " << i;
  }
  // F014: sines, round(sin(i * 8 / 65536) * 65536), i = 0..12868 (0 to pi/2)
  auto sb = snap.read(0x72c704, 12869 * 4);
  ASSERT_TRUE(sb.ok());
  double closest = 1;
  for (int i = 0; i <= 12868; ++i) {
    std::int32_t v;
    std::memcpy(&v, sb->data() + 4 * i, 4);
    ASSERT_EQ(v, sine_entry(i)) << "sine entry " << i;
    double frac = sine_exact(i) - std::floor(sine_exact(i));
    closest = std::min(closest, std::fabs(frac - 0.5));
  }
  // no entry near a rounding boundary: any sin accurate to 1e-9 gives this table
  EXPECT_GT(closest, 1e-6);
  RecordProperty("sine_closest_to_half", std::to_string(closest));
}

TEST(Standin, ArithmeticLayerMatchesTheChoices) {
  std::istringstream in(runs().selftest);
  std::string line;
  std::map<std::string, int> checked;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string op;
    ls >> op;
    std::vector<std::int32_t> v;
    std::string h;
    while (ls >> h) v.push_back(static_cast<std::int32_t>(std::stoul(h, nullptr, 16)));
    auto n = v.size();
    if (op == "dot") {
      ASSERT_EQ(n, 7u);
      double r = ((d(v[0]) * d(v[3]) + kM) + d(v[1]) * d(v[4])) + d(v[2]) * d(v[5]);
      ASSERT_EQ(v[6], low32(r)) << line;
    } else if (op == "cross") {
      ASSERT_EQ(n, 9u);
      ASSERT_EQ(v[6], low32((d(v[1]) * d(v[5]) + kM) - d(v[2]) * d(v[4]))) << line;
      ASSERT_EQ(v[7], low32((d(v[2]) * d(v[3]) + kM) - d(v[0]) * d(v[5]))) << line;
      ASSERT_EQ(v[8], fistp((d(v[0]) * d(v[4]) - d(v[1]) * d(v[3])) * 0x1p-16)) << line;
    } else if (op == "scale") {
      ASSERT_EQ(n, 7u);
      for (int i = 0; i < 3; ++i) ASSERT_EQ(v[4 + i], low32(d(v[i]) * d(v[3]) + kM)) << line;
    } else if (op == "scale_in_place") {
      ASSERT_EQ(n, 7u);
      for (int i = 0; i < 3; ++i) ASSERT_EQ(v[4 + i], fistp(d(v[i]) * d(v[3]) * 0x1p-16)) << line;
    } else if (op == "length") {
      ASSERT_EQ(n, 4u);
      ASSERT_EQ(v[3], length16(v[0], v[1], v[2])) << line;
    } else if (op == "sin") {
      ASSERT_EQ(v[1], sin16(v[0])) << line;
    } else if (op == "cos") {
      ASSERT_EQ(v[1], sin16(static_cast<std::int32_t>(static_cast<std::uint32_t>(v[0]) + 102944u))) << line;
    } else if (op == "exp") {
      std::uint32_t t = static_cast<std::uint32_t>(mul16(v[0], v[0]));
      std::uint32_t want = 0x10000u + static_cast<std::uint32_t>(v[0]) + static_cast<std::uint32_t>(static_cast<std::int32_t>(t) >> 1);
      ASSERT_EQ(static_cast<std::uint32_t>(v[1]), want) << line;
    } else if (op == "mul") {
      ASSERT_EQ(v[2], mul16(v[0], v[1])) << line;
    } else if (op == "div") {
      std::int32_t want = (v[1] >= -32 && v[1] <= 32)
                              ? static_cast<std::int32_t>((std::int64_t{v[0]} * recip_entry(v[1])) >> 8)
                              : static_cast<std::int32_t>((std::int64_t{v[0]} * 65536) / v[1]);
      ASSERT_EQ(v[2], want) << line;
    } else {
      FAIL() << "unknown selftest line: " << line;
    }
    ++checked[op];
  }
  for (const char* op : {"dot", "cross", "scale", "scale_in_place", "length", "sin", "cos", "exp", "mul", "div"})
    EXPECT_GE(checked[op], 500) << op;
}

// ---- the binary: every profile function at its POD address -------------------------------------
struct ElfSymbol {
  std::uint32_t value, size;
  std::uint8_t info;
};

/// The stand-in's file and little-endian reads of it (the ELF32 header is checked by the tests).
struct StandinFile {
  std::vector<std::uint8_t> bytes;
  std::uint32_t u32(std::size_t o) const { std::uint32_t v = 0; std::memcpy(&v, bytes.data() + o, 4); return v; }
  std::uint16_t u16(std::size_t o) const { std::uint16_t v = 0; std::memcpy(&v, bytes.data() + o, 2); return v; }
};

StandinFile read_standin() {
  auto file = lockstep::read_file(STANDIN_EXE);
  EXPECT_TRUE(file.ok()) << STANDIN_EXE;
  return {file.ok() ? std::move(file).value() : std::vector<std::uint8_t>{}};
}

TEST(StandinBinary, EveryStandinFunctionSitsAtItsPodAddress) {
  const StandinFile f = read_standin();
  const auto& elf = f.bytes;
  auto u32 = [&](std::size_t o) { return f.u32(o); };
  auto u16 = [&](std::size_t o) { return f.u16(o); };
  ASSERT_GE(elf.size(), 52u);
  ASSERT_EQ(std::memcmp(elf.data(), "\x7f" "ELF\x01\x01", 6), 0) << "an ELF32 little-endian file";
  ASSERT_EQ(u16(16), 2) << "ET_EXEC: static, non-PIE";
  const std::uint32_t shoff = u32(32);
  const std::uint16_t shentsize = u16(46), shnum = u16(48);
  ASSERT_EQ(shentsize, 40);
  ASSERT_LE(shoff + std::uint64_t{shnum} * 40, elf.size());
  struct Section { std::uint32_t type, addr, offset, size, link; };
  std::vector<Section> sections;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    std::size_t s = shoff + 40u * i;
    sections.push_back({u32(s + 4), u32(s + 12), u32(s + 16), u32(s + 20), u32(s + 24)});
  }
  std::map<std::string, ElfSymbol> symbols;
  for (const Section& s : sections) {
    if (s.type != 2 /* SHT_SYMTAB */) continue;
    const Section& strtab = sections.at(s.link);
    for (std::uint32_t o = s.offset; o + 16 <= s.offset + s.size; o += 16) {
      std::string name(reinterpret_cast<const char*>(elf.data() + strtab.offset + u32(o)));
      symbols[name] = {u32(o + 4), u32(o + 8), elf[o + 12]};
    }
  }
  auto byte_at = [&](std::uint32_t address) -> int {
    for (const Section& s : sections)
      if (s.type == 1 /* PROGBITS */ && address >= s.addr && address < s.addr + s.size)
        return elf[s.offset + (address - s.addr)];
    return -1;
  };

  auto profile = toml::parse_file(STANDIN_PROFILE);
  auto* functions = profile["function"].as_array();
  ASSERT_NE(functions, nullptr);
  std::set<std::uint32_t> profile_addresses;
  std::vector<std::string> placeholders;
  for (auto& node : *functions) {
    auto& t = *node.as_table();
    auto address = static_cast<std::uint32_t>(*t["address"].value<std::int64_t>());
    std::string name = *t["name"].value<std::string>();
    profile_addresses.insert(address);
    char sym[32];
    std::snprintf(sym, sizeof sym, "pod_%08x", address);
    auto it = symbols.find(sym);
    ASSERT_NE(it, symbols.end()) << name << ": no entry symbol " << sym << " in the binary";
    EXPECT_EQ(it->second.value, address) << name;
    EXPECT_EQ(it->second.info & 0xf, 2) << name << ": not a function symbol";
    int first = byte_at(address);
    EXPECT_GE(first, 0) << name << ": no code bytes at 0x" << std::hex << address;
    EXPECT_NE(first, 0xcc) << name << ": only padding at 0x" << std::hex << address;
  }
  // and nothing at a POD address the profile does not know
  for (const auto& [name, sym] : symbols) {
    if (name.rfind("pod_", 0) == 0 && (sym.info & 0xf) == 2) {
      EXPECT_TRUE(profile_addresses.count(sym.value)) << name << " is not a [[function]] of the profile";
    }
  }
  // which physics bodies are still the weak placeholders (informational: src/physics/ replaces them)
  // (the bodies named in src/functions.def whose symbol is still weak: placeholders.c's, not src/physics/')
  std::ifstream def(std::string(LOCKSTEP_SOURCE_DIR) + "/tests/standin/src/functions.def");
  for (std::string line; std::getline(def, line);) {
    auto open = line.find("POD_FUNCTION("), comma = line.find(", ");
    if (open != 0 || comma == std::string::npos) continue;
    std::string body = line.substr(comma + 2, line.find(',', comma + 2) - comma - 2);
    auto it = symbols.find(body);
    EXPECT_NE(it, symbols.end()) << "functions.def names " << body << ", which the binary lacks";
    if (it != symbols.end() && (it->second.info >> 4) == 2 /* STB_WEAK */) placeholders.push_back(body);
  }
  std::string list;
  for (auto& p : placeholders) list += p + " ";
  RecordProperty("weak_placeholders", list);

  // the documented data blocks, where the stand-in defines them
  const std::map<std::string, std::uint32_t> data = {
      {"pod_cars", 0x630838}, {"pod_drivers", 0x61f870}, {"pod_surfaces", 0x62bc0c}, {"pod_sines", 0x72c704},
      {"pod_round_constant", 0x4ee0c0}, {"pod_recip_table_ptr", 0x4ed42c}, {"pod_sqrt_table_ptr", 0x4ed434},
      {"pod_tls_getter_ptr", 0x4ed728}, {"pod_chassis_search_counter", 0x4f3310}, {"pod_race_block", 0x4f8d44},
      {"pod_sector_count", 0x57bf74}, {"pod_sector_table", 0x57bf78}, {"pod_frame_time", 0x621b70},
      {"physics_step_forces", 0x4f3320} /* src/physics/'s, placed by the profile's label (CHOICES Q1) */};
  for (const auto& [name, address] : data) {
    auto it = symbols.find(name);
    ASSERT_NE(it, symbols.end()) << name;
    EXPECT_EQ(it->second.value, address) << name;
  }
  // 1.5 * 2^68 at 0x4ee0c0, as the bytes of a double
  std::uint64_t m = 0;
  for (int i = 0; i < 8; ++i) m |= std::uint64_t(byte_at(0x4ee0c0 + static_cast<std::uint32_t>(i))) << (8 * i);
  EXPECT_EQ(m, 0x4438000000000000u);  // 1.5 * 2^68: exponent 1023 + 68, mantissa .1
  // cos16's eight bytes fall through into sin16 (add eax, pi/2)
  EXPECT_EQ(byte_at(0x4c5e64), 0x05);
}

// The build type must not leak into the stand-in: its file's SHA-256 is recorded in every snapshot
// (and so in the corpora's snapshot hash), and the corpora are compared with the checked-in ones. The
// stand-in's own flags fix the optimisation level and turn debug information off (tests/standin/
// CMakeLists.txt): a Debug or RelWithDebInfo build's -g would add .debug_* sections, which this catches.
TEST(StandinBinary, HoldsNoDebugInformationWhateverTheBuildType) {
  const StandinFile f = read_standin();
  const auto& elf = f.bytes;
  auto u32 = [&](std::size_t o) { return f.u32(o); };
  auto u16 = [&](std::size_t o) { return f.u16(o); };
  ASSERT_GE(elf.size(), 52u);
  const std::uint32_t shoff = u32(32);
  const std::uint16_t shnum = u16(48), shstrndx = u16(50);
  ASSERT_LE(shoff + std::uint64_t{shnum} * 40, elf.size());
  ASSERT_LT(shstrndx, shnum);
  const std::uint32_t names = u32(shoff + 40u * shstrndx + 16);
  int sections_seen = 0;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::string name(reinterpret_cast<const char*>(elf.data() + names + u32(shoff + 40u * i)));
    EXPECT_NE(name.rfind(".debug", 0), 0u) << "the stand-in carries " << name;
    ++sections_seen;
  }
  EXPECT_GT(sections_seen, 10);  // the section table was read at all
}

}  // namespace
