// The stand-in's car physics over a whole race (tests/standin/src/physics/): every car
// step keeps the documented invariants (engine 0 .. engine_max - 1 F040, springs +-7.63 F033, spin
// held to 2.29 rad/s F064, touching counts +-1..16 F018, the catch-up's dt scale within 0.90 .. 1.008
// F126, a gear change 15000/65536 s F020), the body's frame stays orthonormal and its points stay on
// it, and the race is alive: cars move, change gear (the automatic one too), steer, skid and leave
// the ground. Every value of the car record read here is laid out in port/CHOICES.md ("Car
// parameters"); this file reads the step log only, never the stand-in's source.
#include <gtest/gtest.h>

#include <elf.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lockstep/base/io.hpp"
#include "lockstep/capture/state_log.hpp"
#include "standin_process.hpp"

namespace {

using lockstep::capture::Record;
using lockstep::capture::RecordKind;
using lockstep::capture::StateLog;

constexpr std::uint32_t kCars = 0x630838, kCarSize = 0x558, kPointSize = 0xd8, kFrame = 0x621b70;
constexpr std::uint32_t kTrackHeap = 0x800000, kTrackHeapEnd = 0x900000;
constexpr int kRacers = 8, kSteps = 1000, kAutomaticRacer = 3;

// Offsets: documented (port/CHOICES.md "Race car fields", "Point record fields") or chosen in port/CHOICES.md "Car parameters".
constexpr std::uint32_t kEngine = 0x440, kEngineMax = 0x458, kGear = 0x44a, kTopGear = 0x44b, kGearTimer = 0x470;
constexpr std::uint32_t kCentre = 0x498, kForward = 0x4a4, kLeft = 0x4b0, kUp = 0x4bc, kVelocity = 0x4c8;
constexpr std::uint32_t kSoundState = 0x4f9, kSpin = 0x4fc, kSteer = 0x454, kLayout = 0x54c, kFlags = 0x448;
constexpr std::uint32_t kPtPosition = 0x00, kPtSector = 0x1c, kPtSliding = 0x38, kPtSkidding = 0x39;
constexpr std::uint32_t kPtTouching = 0x3a, kPtSpring = 0x9c, kPtCount = 0xd4;
constexpr std::uint32_t kMass = 0x520, kInertia = 0x508, kTorqueCurve = 0x538, kCarPoint = 0x0, kPtSideGrip = 0xb8;
// The drivers (003: 0x61f870 + racer x 0xb0), their flags (+0x38, F151) and the catch-up base (F127).
constexpr std::uint32_t kDrivers = 0x61f870, kDriverSize = 0xb0, kDriverFlags = 0x38, kCatchUpBase = 0x4f9848;
constexpr std::uint32_t kCatchUpRecords = 0x4f97c8;  // four words per racer (000), the places at +0xc (chosen)

std::int32_t i32(std::span<const std::uint8_t> b, std::uint32_t off) {
  std::int32_t v;
  std::memcpy(&v, b.data() + off, 4);
  return v;
}
double fx(std::span<const std::uint8_t> b, std::uint32_t off) { return i32(b, off) / 65536.0; }
double length(std::span<const std::uint8_t> b, std::uint32_t off) {
  return std::sqrt(fx(b, off) * fx(b, off) + fx(b, off + 4) * fx(b, off + 4) + fx(b, off + 8) * fx(b, off + 8));
}
double dot(std::span<const std::uint8_t> b, std::uint32_t p, std::uint32_t q) {
  return fx(b, p) * fx(b, q) + fx(b, p + 4) * fx(b, q + 4) + fx(b, p + 8) * fx(b, q + 8);
}

std::string identity(const char* path) {
  std::error_code ec;
  auto t = std::filesystem::last_write_time(path, ec).time_since_epoch().count();
  return std::to_string(std::filesystem::file_size(path, ec)) + ":" + std::to_string(t);
}

// A race, shared by the tests of this file (each runs in its own process): made once per build of the
// stand-in and kept in the build tree, under a lock so parallel tests wait for it.
StateLog* recorded_race(const std::string& name, const std::vector<std::string>& race_args, int steps) {
  auto dir = std::filesystem::path(LOCKSTEP_BINARY_DIR) / ("standin-physics-test" + name);
  std::filesystem::create_directories(dir);
  const auto marker = dir / "done", path = dir / "steps.log";
  std::string key = identity(STANDIN_EXE) + " " + identity(STANDIN_RUN_EXE) + " " + std::to_string(steps);
  for (const auto& a : race_args) key += " " + a;
  int lock = ::open((dir / "lock").c_str(), O_CREAT | O_RDWR, 0644);
  if (lock >= 0) flock(lock, LOCK_EX);
  std::string have;
  if (std::ifstream in(marker); in) std::getline(in, have);
  if (have != key) {
    std::filesystem::remove(marker);
    // Auto: the race's properties hold in either mode (the step logs are identical).
    std::vector<std::string> args = {"--log", path.string(), "--steps", std::to_string(steps)};
    args.insert(args.end(), race_args.begin(), race_args.end());
    auto run = standin_test::run_standin(standin_test::Mode::kAuto, args, std::nullopt, dir);
    EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.error().message);
    if (run.ok()) {
      EXPECT_EQ(run->exit_status, 0) << run->err;
    }
    if (run.ok() && run->exit_status == 0) (void)lockstep::write_file_atomic(marker, key + "\n");
  }
  if (lock >= 0) ::close(lock);
  auto* out = new StateLog;
  auto read = lockstep::capture::read_state_log(path);
  EXPECT_TRUE(read.ok()) << (read.ok() ? "" : read.error().message);
  if (read.ok()) *out = std::move(*read);
  return out;
}

const StateLog& race() {
  static StateLog* log = recorded_race("", {}, kSteps);
  return *log;
}

// Calls f(record, car bytes) for every record of `kind`.
template <class F>
void each_car(RecordKind kind, F&& f) {
  for (const Record& rec : race().records) {
    if (rec.kind != kind) continue;
    auto car = rec.bytes_at(kCars + kCarSize * static_cast<std::uint32_t>(rec.instance), kCarSize);
    ASSERT_TRUE(car.ok()) << "step " << rec.step << " racer " << rec.instance;
    f(rec, *car);
  }
}

// The bytes the built stand-in holds at a guest address, read from its ELF file's loaded segments
// (not from the source): empty when no PT_LOAD segment's file bytes cover them.
std::vector<std::uint8_t> elf_bytes_at(std::uint32_t address, std::uint32_t n) {
  auto file = lockstep::read_file(STANDIN_EXE, 64u << 20);
  if (!file.ok() || file->size() < sizeof(Elf32_Ehdr)) return {};
  Elf32_Ehdr eh;
  std::memcpy(&eh, file->data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS32) return {};
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    const std::uint64_t at = std::uint64_t{eh.e_phoff} + std::uint64_t{i} * eh.e_phentsize;
    if (at + sizeof(Elf32_Phdr) > file->size()) return {};
    Elf32_Phdr ph;
    std::memcpy(&ph, file->data() + at, sizeof ph);
    if (ph.p_type != PT_LOAD || address < ph.p_vaddr || std::uint64_t{address} + n > std::uint64_t{ph.p_vaddr} + ph.p_filesz)
      continue;
    const std::uint64_t off = std::uint64_t{ph.p_offset} + (address - ph.p_vaddr);
    if (off + n > file->size()) return {};
    return {file->data() + off, file->data() + off + n};
  }
  return {};
}

TEST(StandinPhysics, TyreCurveAtItsDocumentedAddressHoldsF052) {
  // F052: peak 0.342, offset 0.523, curvature 8.55 below the peak and 2.37 above, at 0x4e9a78, as
  // four 16.16 words rounded to nearest (layout chosen, port/CHOICES.md "The tyre curve").
  auto bytes = elf_bytes_at(0x4e9a78, 16);
  ASSERT_EQ(bytes.size(), 16u) << "0x4e9a78 is not in the stand-in's loaded data";
  const double documented[4] = {0.342, 0.523, 8.55, 2.37};
  for (std::uint32_t k = 0; k < 4; ++k) {
    EXPECT_EQ(i32(bytes, 4 * k), static_cast<std::int32_t>(std::lround(documented[k] * 65536))) << "word " << k;
  }
  // 8.55 x 0.342^2 = 1.000: the curve below the peak runs from 0 at no slip to 1 at the peak.
  EXPECT_NEAR(documented[2] * documented[0] * documented[0], 1.0, 1e-3);
}

TEST(StandinPhysics, RaceRanEveryCarStep) {
  std::size_t phys = 0;
  each_car(RecordKind::kPhys, [&](const Record&, std::span<const std::uint8_t>) { ++phys; });
  EXPECT_EQ(phys, static_cast<std::size_t>(kSteps * kRacers));
}

TEST(StandinPhysics, EngineGearboxAndSpringsStayInTheirDocumentedLimits) {
  each_car(RecordKind::kPhys, [](const Record& rec, std::span<const std::uint8_t> car) {
    const std::int32_t e = i32(car, kEngine), max = i32(car, kEngineMax);
    EXPECT_EQ(max, 1000 << 16) << "F048: the engine limit is 1000 rad/s";
    EXPECT_GE(e, 0) << "step " << rec.step << " racer " << rec.instance;        // F040
    EXPECT_LE(e, max - 1) << "step " << rec.step << " racer " << rec.instance;  // F040
    const int gear = static_cast<std::int8_t>(car[kGear]);
    EXPECT_GE(gear, -1);
    EXPECT_LE(gear, car[kTopGear]);
    EXPECT_GE(i32(car, kGearTimer), 0);
    EXPECT_LE(i32(car, kGearTimer), 15000);  // F020
    for (std::uint32_t w = 0; w < 4; ++w) {
      EXPECT_LE(std::abs(i32(car, w * kPointSize + kPtSpring)), 0x7a148) << "F033, wheel " << w;
    }
    EXPECT_EQ(car[kSoundState] & 0x80, 0) << "F022 names bits 1..0x40 only";
  });
}

TEST(StandinPhysics, TouchingCountersFollowTheTouchingFlag) {
  // Racer 0 is dropped in above every sector's bounds (tests/standin/README.md, "The race"): its
  // points have no sector (0) until the search of every sector finds one as it falls, so before it
  // first touches the track; every other point, every other time, is in a sector of the track heap.
  bool dropped_car_landed = false;
  int no_sector = 0;
  each_car(RecordKind::kPhys, [&](const Record& rec, std::span<const std::uint8_t> car) {
    for (std::uint32_t p = 0; p < 5; ++p) {
      const std::int32_t c = i32(car, p * kPointSize + kPtCount);
      const bool touching = car[p * kPointSize + kPtTouching] != 0;
      // F018: 1..16 down, -1..-16 off; updated every step after the contact pass
      if (touching) {
        EXPECT_TRUE(c >= 1 && c <= 16) << "step " << rec.step << " racer " << rec.instance << " point " << p << ": " << c;
      } else {
        EXPECT_TRUE(c <= -1 && c >= -16) << "step " << rec.step << " racer " << rec.instance << " point " << p << ": " << c;
      }
      const std::uint32_t sector = static_cast<std::uint32_t>(i32(car, p * kPointSize + kPtSector));
      if (sector == 0 && rec.instance == 0 && !dropped_car_landed) {
        ++no_sector;
        continue;
      }
      EXPECT_TRUE(sector >= kTrackHeap && sector < kTrackHeapEnd)
          << "step " << rec.step << " racer " << rec.instance << " point " << p << " sector " << sector;
    }
    if (rec.instance == 0)
      for (std::uint32_t p = 0; p < 5; ++p) dropped_car_landed = dropped_car_landed || car[p * kPointSize + kPtTouching];
  });
  EXPECT_GT(no_sector, 0) << "the dropped car's points never lacked a sector";
  EXPECT_TRUE(dropped_car_landed) << "the dropped car never landed";
}

TEST(StandinPhysics, BodyFrameStaysOrthonormalAndSpinHeld) {
  each_car(RecordKind::kPhys, [](const Record& rec, std::span<const std::uint8_t> car) {
    for (std::uint32_t axis : {kForward, kLeft, kUp}) EXPECT_NEAR(length(car, axis), 1.0, 0.01) << "step " << rec.step;
    EXPECT_NEAR(dot(car, kForward, kLeft), 0.0, 0.01);
    EXPECT_NEAR(dot(car, kForward, kUp), 0.0, 0.01);
    EXPECT_NEAR(dot(car, kLeft, kUp), 0.0, 0.01);
    for (std::uint32_t k = 0; k < 3; ++k) EXPECT_LE(std::abs(i32(car, kSpin + 4 * k)), 0x24a3d) << "F064";
    // every point hangs from the body: within its offset (at most 1.6) plus the droop (0.5)
    for (std::uint32_t p = 0; p < 5; ++p) {
      double d2 = 0;
      for (std::uint32_t k = 0; k < 3; ++k) {
        const double d = fx(car, p * kPointSize + kPtPosition + 4 * k) - fx(car, kCentre + 4 * k);
        d2 += d * d;
      }
      EXPECT_LT(std::sqrt(d2), 2.2) << "step " << rec.step << " racer " << rec.instance << " point " << p;
    }
  });
}

TEST(StandinPhysics, CatchUpScalesComputerCarsWithinItsLimits) {
  // F126/F127: the scale stays between base + 0.90 and base + 1.008, base [0x4f9848] (the race's
  // middle difficulty: 3000), and only a computer car's (driver flags bit 1, F151) is scaled: the
  // human's and the bit-3 driver's are not. The CTRL record holds the scaled dt at the frame block's +0,
  // the step's dt at +8, the driver's flags at +0x38.
  int scaled = 0, unscaled_drivers = 0;
  for (const Record& rec : race().records) {
    if (rec.kind != RecordKind::kCtrl) continue;
    auto frame = rec.bytes_at(kFrame, 16);
    ASSERT_TRUE(frame.ok());
    auto base_word = rec.bytes_at(kCatchUpBase, 4);
    ASSERT_TRUE(base_word.ok()) << "the CTRL record holds the race block with the catch-up base";
    const std::int64_t base = i32(*base_word, 0);
    EXPECT_EQ(base, 3000) << "step " << rec.step;
    auto driver = rec.bytes_at(kDrivers + kDriverSize * static_cast<std::uint32_t>(rec.instance), kDriverSize);
    ASSERT_TRUE(driver.ok());
    const std::int64_t dt = i32(*frame, 0), step_dt = i32(*frame, 8);
    if (!(i32(*driver, kDriverFlags) & 2)) {
      EXPECT_EQ(dt, step_dt) << "a driver other than a computer car's is not scaled (step " << rec.step
                             << " racer " << rec.instance << ")";
      unscaled_drivers += rec.instance != 0;
      continue;
    }
    // the bottom drops by 400 per place behind first: the racer's catch-up record's +0xc (chosen)
    auto places = rec.bytes_at(kCatchUpRecords + 16 * static_cast<std::uint32_t>(rec.instance) + 0xc, 4);
    ASSERT_TRUE(places.ok());
    EXPECT_GE(dt, (step_dt * (0xe666 + base - 400 * i32(*places, 0))) >> 16) << "step " << rec.step << " racer " << rec.instance;
    EXPECT_LE(dt, (step_dt * (0x1020c + base)) >> 16) << "step " << rec.step << " racer " << rec.instance;
    scaled += dt != step_dt;
  }
  EXPECT_GT(scaled, 0) << "no computer car's time was ever scaled";
  EXPECT_GT(unscaled_drivers, 0) << "the driver with flag bit 3 only (no human, no computer car) ran";
}

TEST(StandinPhysics, EveryCarHasItsOwnParameterSet) {
  // The eight cars differ in mass (+0x520), inertias (+0x508), torque curve (+0x538's address) and the
  // wheels' grips (point +0xb8, +0xbc); the drive layouts are RaceIsAlive's.
  std::set<std::int32_t> masses, curves, grips;
  std::set<std::vector<std::int32_t>> inertias;
  each_car(RecordKind::kCtrl, [&](const Record& rec, std::span<const std::uint8_t> car) {
    if (rec.step != 0) return;
    masses.insert(i32(car, kMass));
    curves.insert(i32(car, kTorqueCurve));
    grips.insert(i32(car, kCarPoint + kPtSideGrip));
    inertias.insert({i32(car, kInertia), i32(car, kInertia + 4), i32(car, kInertia + 8)});
  });
  EXPECT_EQ(masses.size(), 8u);
  EXPECT_EQ(inertias.size(), 8u);
  EXPECT_EQ(curves.size(), 8u);
  EXPECT_EQ(grips.size(), 8u);
}

TEST(StandinPhysics, RaceIsAlive) {
  int gear_changes = 0, automatic_changes = 0, off_steps = 0, skids = 0, slides = 0, steered = 0;
  int flights = 0;  // car steps with every wheel off for more than four steps over the road (F066)
  std::set<std::int32_t> layouts;
  std::int8_t last_gear[kRacers] = {};
  double moved[kRacers] = {}, last_x[kRacers] = {}, last_y[kRacers] = {};
  each_car(RecordKind::kPhys, [&](const Record& rec, std::span<const std::uint8_t> car) {
    const int r = rec.instance;
    const auto gear = static_cast<std::int8_t>(car[kGear]);
    if (rec.step > 0) moved[r] += std::hypot(fx(car, kCentre) - last_x[r], fx(car, kCentre + 4) - last_y[r]);
    last_x[r] = fx(car, kCentre), last_y[r] = fx(car, kCentre + 4);
    if (rec.step > 0 && gear != last_gear[r]) {
      ++gear_changes;
      if (r == kAutomaticRacer) ++automatic_changes;
    }
    last_gear[r] = gear;
    int down = 0;
    for (std::uint32_t w = 0; w < 4; ++w) {
      down += car[w * kPointSize + kPtTouching] != 0;
      skids += car[w * kPointSize + kPtSkidding] != 0;
      slides += car[w * kPointSize + kPtSliding] != 0;
    }
    off_steps += rec.step > 0 && down < 4;
    const double ring = std::hypot(fx(car, kCentre), fx(car, kCentre + 4));
    bool flying = ring > 112 && ring < 128 && fx(car, kCentre + 8) > 0;
    for (std::uint32_t w = 0; w < 4; ++w) flying = flying && i32(car, w * kPointSize + kPtCount) <= -5;
    flights += flying;
    steered += i32(car, kSteer) != 0;
    layouts.insert(i32(car, kLayout));
    if (r == kAutomaticRacer) {
      EXPECT_TRUE(car[kFlags] & 0x04) << "F021";
    }
  });
  RecordProperty("gear_changes", gear_changes);
  RecordProperty("car_steps_with_a_wheel_off", off_steps);
  RecordProperty("skidding_wheel_steps", skids);
  RecordProperty("sliding_wheel_steps", slides);
  EXPECT_GT(gear_changes, kRacers) << "cars change gear";
  EXPECT_GT(automatic_changes, 1) << "the automatic gearbox (F021) changes gear on its own";
  RecordProperty("car_steps_flying_over_the_road", flights);
  EXPECT_GT(off_steps, 0) << "no wheel ever left the ground (slope, crest, bump)";
  EXPECT_GT(flights, 0) << "no car ever flew (the bump), so the airborne branches never ran";
  EXPECT_GT(skids, 0) << "no tyre ever skidded (F055)";
  EXPECT_GT(steered, kSteps) << "the front wheels are steered";
  EXPECT_EQ(layouts, (std::set<std::int32_t>{0, 1, 2, 3})) << "every drive layout of F028 runs (0 and 3 both rear)";
  for (int r = 0; r < kRacers; ++r) EXPECT_GT(moved[r], 100.0) << "racer " << r << " hardly moved (path length in x, y)";
}

// The damage race (--race damage-veto): damage mode 2 with the veto [0x633314] held at 1 for steps
// 0..39 and 290..319 (tests/standin/README.md). Damage only while the veto is 0 (F098): no body part's
// health changes over a step of a window (from a racer's CTRL record to its next one: that step's car
// step and collision pass), and some part is hurt outside them.
TEST(StandinPhysics, TheDamageRaceVetoHoldsOffEveryHit) {
  static StateLog* log = recorded_race("-damage-veto", {"--race", "damage-veto"}, 420);
  constexpr std::uint32_t kParts = 0x640000, kPartSize = 0xa4, kHealth = 0x3c, kVeto = 0x633314;
  const auto vetoed = [](std::uint32_t step) { return step < 40 || (step >= 290 && step < 320); };
  std::map<int, std::pair<std::uint32_t, std::vector<std::int32_t>>> last;  // racer -> (step, healths)
  int hurt_outside = 0, steps_in_windows = 0, veto_words_seen = 0;
  for (const Record& rec : log->records) {
    if (rec.kind != RecordKind::kCtrl || rec.instance == 7) continue;
    auto veto = rec.bytes_at(kVeto, 4);
    ASSERT_TRUE(veto.ok()) << "the CTRL record holds the veto word";
    EXPECT_EQ(i32(*veto, 0), vetoed(rec.step) ? 1 : 0) << "step " << rec.step;
    veto_words_seen += i32(*veto, 0);
    std::vector<std::int32_t> health;
    for (std::uint32_t j = 0; j < 6; ++j) {
      auto part = rec.bytes_at(kParts + kPartSize * (22 * static_cast<std::uint32_t>(rec.instance) + j), kPartSize);
      ASSERT_TRUE(part.ok()) << "step " << rec.step << " racer " << rec.instance;
      health.push_back(i32(*part, kHealth));
    }
    if (auto it = last.find(rec.instance); it != last.end() && it->second.first + 1 == rec.step) {
      const bool changed = it->second.second != health;
      if (vetoed(it->second.first)) {
        ++steps_in_windows;
        EXPECT_FALSE(changed) << "racer " << rec.instance << " hurt in step " << it->second.first << ", under the veto";
      } else {
        hurt_outside += changed ? 1 : 0;
      }
    }
    last[rec.instance] = {rec.step, health};
  }
  EXPECT_GT(steps_in_windows, 0);
  EXPECT_GT(veto_words_seen, 0);
  EXPECT_GT(hurt_outside, 0) << "damage mode 2 hurts some part outside the veto's windows";
}

// The race starts from the settling (F142): before the first step the cars put on their grid slots
// (the body 1 above the slot's point, F085) have had two seconds to come down onto their springs, so at
// step 0 every car but the two the race stages afterwards (racer 0 lifted, racer 7 turned over) stands
// on all four wheels, nearly still. Without the settling they would still hang 1 above the road.
TEST(StandinPhysics, TheRaceStartsSettled) {
  int settled = 0;
  each_car(RecordKind::kCtrl, [&](const Record& rec, std::span<const std::uint8_t> car) {
    if (rec.step != 0 || rec.instance == 0 || rec.instance == 7) return;
    for (std::uint32_t w = 0; w < 4; ++w)
      EXPECT_NE(car[w * kPointSize + kPtTouching], 0) << "racer " << rec.instance << " wheel " << w;
    EXPECT_LT(length(car, kVelocity), 0.5) << "racer " << rec.instance;
    ++settled;
  });
  EXPECT_EQ(settled, 6);
}

}  // namespace
