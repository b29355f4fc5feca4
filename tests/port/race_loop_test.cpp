// The race loop against the documents (port/CHOICES.md "The race loop" and its
// measured rules; port/CHOICES.md "The car step and its functions"): the frame clock (F156, F157), the steps of a pass (F154, F160,
// F161), the race clock (F155, F159 and 003's "the race clock gains the whole frame time over each
// pass"), the countdown (F130) and the simulation step's order (F025, A32). Expected values are the
// documents' rules worked by hand; where a value is chosen (the lower clamp, the step unit, the
// n-steps formula, G19) the test names the choice in port/CHOICES.md "The race loop".
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <cstdint>
#include <vector>

#include "pod/math.hpp"
#include "pod/race.hpp"
#include "pod/step.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Driver;
using pod::FrameTime;
using pod::RaceBlock;
using podtest::World;

namespace addr = pod::addr;

/// A World with the race loop's words mapped: the racer counts and the time-trial word, the clock
/// words, the race clock, the drawn objects, the damage option (off) and the props' words (none). No
/// racer unless a test adds them, so a pass is its clocks alone.
struct RaceLoop : ::testing::Test {
  World w;
  pod::race::Racers racers;
  void SetUp() override {
    w.m.map(addr::kHumanRacers, 0x10);       // 0x61d5bc..0x61d5cc: the counts, extra objects, time trial
    w.m.map(addr::kStepUnit, 0x18);          // 0x60bdfc..0x60be14: step unit, frame time, last clock
    w.m.map(addr::kRaceClock, 4);
    w.m.map(addr::kRaceObjects, 8 * addr::kRaceObjectSize);
    w.m.map(0x633300, 0x60);                 // the damage option words (0: off)
    if (!w.m.mapped(0x621298, 8)) w.m.map(0x621298, 8);  // the props' count (0: none) and list
    w.m.put_i32(addr::kStepUnit, pod::race::kStepUnit);
  }
  std::int32_t word(pod::GuestAddr a) { return w.m.i32(a); }
  FrameTime frame() { return FrameTime(w.m); }
  RaceBlock race() { return RaceBlock(w.m); }
};

// --- The frame clock (003 row 8) ---

// F156: the frame time is the milliseconds since the last call × 65; the clock keeps the value it read.
TEST_F(RaceLoop, F156_FrameTimeIsMillisecondsSinceLastTimes65) {
  w.m.put_u32(addr::kLastClock, 100000);
  EXPECT_EQ(pod::race::frame_clock(w.m, 100100), 100 * 65);
  EXPECT_EQ(word(addr::kPassFrameTime), 6500);
  EXPECT_EQ(w.m.u32(addr::kLastClock), 100100u);
  EXPECT_EQ(pod::race::frame_clock(w.m, 100117), 17 * 65);  // since the last call, not since the start
}

// F157: clamped at 30000 (the most common value measured: 30000 / 65 = 461.5 ms).
TEST_F(RaceLoop, F157_FrameTimeClampedAt30000) {
  w.m.put_u32(addr::kLastClock, 5000);
  EXPECT_EQ(pod::race::frame_clock(w.m, 5000 + 461), 461 * 65);  // 29965: under the clamp
  EXPECT_EQ(pod::race::frame_clock(w.m, 5461 + 462), 30000);      // 30030: clamped
  EXPECT_EQ(pod::race::frame_clock(w.m, 5923 + 100000), 30000);   // a long stall: one clamped frame
  EXPECT_EQ(w.m.u32(addr::kLastClock), 105923u);
}

// G19 (chosen, CHOICES "The race loop"): the lower clamp is one millisecond's 65, so two readings in the
// same millisecond still give a step a time. The clock's difference wraps as a 32-bit counter does.
TEST_F(RaceLoop, FrameTimeAtLeastOneMillisecondAndTheClockWraps) {
  w.m.put_u32(addr::kLastClock, 7000);
  EXPECT_EQ(pod::race::frame_clock(w.m, 7000), 65);
  w.m.put_u32(addr::kLastClock, 0xfffffff0u);
  EXPECT_EQ(pod::race::frame_clock(w.m, 0x20), 0x30 * 65);
}

// --- The steps of a pass (003 row 3) ---

// F154: one step when the frame time is at most 3 × the step unit, n equal steps when longer. The
// n-steps formula is chosen (G19): n = F / U, each step F / n. F161: the frame-time sum gains F once a
// pass, whatever n is.
TEST_F(RaceLoop, F154_OneStepUpToThreeUnitsThenNEqualSteps) {
  const std::int32_t u = pod::race::kStepUnit;  // 2184
  struct Row {
    std::int32_t f, steps, dt;
  };
  const Row rows[] = {
      {1170, 1, 1170},             // a short frame: one step of the whole frame
      {3 * u, 1, 3 * u},           // exactly 3 units: still one step ("longer than 3 ×")
      {3 * u + 1, 3, u},           // 6553 / 2184 = 3 steps of 6553 / 3 = 2184
      {9100, 4, 2275},             // 9100 / 2184 = 4 steps of 2275
      {30000, 13, 2307},           // the clamp's frame: 13 steps of 2307
  };
  std::int32_t sum = 0x1234;
  std::int32_t steps = 5;
  frame().set(FrameTime::sum, sum);
  frame().set(FrameTime::step, steps);
  for (const Row& r : rows) {
    w.m.put_i32(addr::kPassFrameTime, r.f);
    const pod::race::PassOut out = pod::race::race_step(w.m, racers);
    sum += r.f;
    steps += r.steps;
    EXPECT_EQ(static_cast<std::int32_t>(out.steps.size()), r.steps) << "F = " << r.f;
    EXPECT_EQ(frame().get(FrameTime::step), steps) << "F = " << r.f;  // +0xc counts the steps run
    EXPECT_EQ(frame().get(FrameTime::step_dt), r.dt) << "F = " << r.f;
    EXPECT_EQ(frame().get(FrameTime::sum), sum) << "F = " << r.f;
    EXPECT_LE(r.steps * r.dt, r.f);  // equal steps within the frame
  }
}

// F154 at its far end: a frame of 30000 over a unit of 1 is 30000 equal steps of 1, all run (the
// runaway refusal is for frames asking more).
TEST_F(RaceLoop, ThirtyThousandStepsOfOneAreRun) {
  w.m.put_i32(addr::kPassFrameTime, 30000);
  w.m.put_i32(addr::kStepUnit, 1);
  pod::race::race_step(w.m, racers);
  EXPECT_EQ(frame().get(FrameTime::step), 30000);
  EXPECT_EQ(frame().get(FrameTime::step_dt), 1);
}

// A state no frame_clock leaves (a frame time far past its clamp over a unit of 1) asks billions of
// steps: refused with the numbers named, not run.
TEST_F(RaceLoop, AnAbsurdFrameOverTheUnitIsRefused) {
  w.m.put_i32(addr::kPassFrameTime, 0x7fff0000);
  w.m.put_i32(addr::kStepUnit, 1);
  EXPECT_THROW(pod::race::race_step(w.m, racers), std::runtime_error);
  EXPECT_EQ(frame().get(FrameTime::step), 0);
  w.m.put_i32(addr::kStepUnit, 0);  // a unit of 0: the original's idiv faults (#DE)
  EXPECT_THROW(pod::race::race_step(w.m, racers), pod::DivideFault);
  // A unit of −1 does not fault: idiv faults only on a divisor of 0 or a quotient past 32 bits
  // (−2^31 / −1). 2000 > 3 × −1, so n = 2000 / −1 = −2000 steps: none run, and the frame-time sum
  // still gains the frame (F161).
  frame().set(FrameTime::sum, 0);
  w.m.put_i32(addr::kPassFrameTime, 2000);
  w.m.put_i32(addr::kStepUnit, -1);
  EXPECT_EQ(pod::race::race_step(w.m, racers).steps.size(), 0u);
  EXPECT_EQ(frame().get(FrameTime::sum), 2000);
  EXPECT_EQ(frame().get(FrameTime::step), 0);
}

// F154: no step while a time trial counts down; F160: the steps run during a race's countdown.
TEST_F(RaceLoop, F154_F160_NoStepOnlyWhileATimeTrialCountsDown) {
  w.m.put_i32(addr::kPassFrameTime, 2000);
  race().set(RaceBlock::phase, 1);
  w.m.put_i32(addr::kTimeTrial, 1);
  EXPECT_TRUE(pod::race::race_step(w.m, racers).steps.empty());
  EXPECT_EQ(frame().get(FrameTime::step), 0);
  EXPECT_EQ(frame().get(FrameTime::sum), 0);  // a pass with no step is not a pass of the sum (F161)
  w.m.put_i32(addr::kTimeTrial, 0);
  EXPECT_EQ(pod::race::race_step(w.m, racers).steps.size(), 1u);  // a race: steps during the countdown
  race().set(RaceBlock::phase, 0);
  w.m.put_i32(addr::kTimeTrial, 1);
  EXPECT_EQ(pod::race::race_step(w.m, racers).steps.size(), 1u);  // a time trial after "GO!"
  EXPECT_EQ(frame().get(FrameTime::step), 2);
}

// --- The race clock and the countdown (003 rows 4 and 10) ---

// F155, 003 measured: the race clock gains the whole frame time over each pass — the frame time its
// steps split, which frame_clock measured in the pass before (F158), not the one it measures now.
TEST_F(RaceLoop, F155_RaceClockGainsThePassesWholeFrameTime) {
  w.m.put_u32(addr::kLastClock, 50000);
  w.m.put_i32(addr::kPassFrameTime, 30000);  // measured by the pass before: 13 steps now
  w.m.put_i32(addr::kRaceClock, 1000);
  const pod::race::PassOut out = pod::race::pass(w.m, 50020, racers);
  EXPECT_EQ(out.frame_time, 30000);
  EXPECT_EQ(out.steps.size(), 13u);
  EXPECT_EQ(word(addr::kRaceClock), 31000);          // the whole 30000, not 13 × 2307
  EXPECT_EQ(word(addr::kPassFrameTime), 20 * 65);    // row 8 after row 4: the next pass's
  pod::race::pass(w.m, 50020 + 33, racers);
  EXPECT_EQ(word(addr::kRaceClock), 31000 + 1300);
}

// F130: the countdown sets every racer's driver +0x7c to 0; F159: at "GO!" the race clock reads 0
// (the countdown runs after the clock's add). After "GO!" the clock runs and +0x7c is left alone.
TEST_F(RaceLoop, F130_F159_CountdownHoldsStuckTimersAndTheClockAtZeroUntilGo) {
  w.m.put_i32(addr::kHumanRacers, 1);
  w.m.put_i32(addr::kComputerRacers, 2);
  for (int r = 0; r < 8; ++r) w.driver(r).set(Driver::stuck_timer, 0x1000 + r);
  w.m.put_u32(addr::kLastClock, 9000);
  race().set(RaceBlock::phase, 1);
  race().set(RaceBlock::go_time, 10000u);
  w.m.put_i32(addr::kRaceClock, 777);
  pod::race::countdown(w.m);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(w.driver(r).get(Driver::stuck_timer), 0) << "racer " << r;
  for (int r = 3; r < 8; ++r) EXPECT_EQ(w.driver(r).get(Driver::stuck_timer), 0x1000 + r) << "not a racer";
  EXPECT_EQ(word(addr::kRaceClock), 0);
  EXPECT_EQ(race().get(RaceBlock::phase), 1);  // 1 s before "GO!"
  w.m.put_u32(addr::kLastClock, 10000);
  w.driver(1).set(Driver::stuck_timer, -0x20000);
  pod::race::countdown(w.m);
  EXPECT_EQ(race().get(RaceBlock::phase), 0);  // "GO!"
  EXPECT_EQ(w.driver(1).get(Driver::stuck_timer), 0);  // held at 0 at "GO!" too
}

// The same through passes: the clock reads 0 at "GO!" and from the next pass gains each frame.
TEST_F(RaceLoop, F159_ThroughPassesClockIsZeroAtGoThenRuns) {
  w.m.put_u32(addr::kLastClock, 0x10000);
  race().set(RaceBlock::phase, 1);
  race().set(RaceBlock::go_time, 0x10000u + 100);
  w.m.put_i32(addr::kPassFrameTime, 40 * 65);
  std::uint32_t now = 0x10000;
  std::vector<std::int32_t> clocks;
  std::vector<std::int32_t> phases;
  for (int i = 0; i < 5; ++i) {
    now += 40;  // 40 ms a pass: "GO!" at the third pass's frame clock (120 ms ≥ 100)
    pod::race::pass(w.m, now, racers);
    clocks.push_back(word(addr::kRaceClock));
    phases.push_back(race().get(RaceBlock::phase));
  }
  EXPECT_EQ(phases, (std::vector<std::int32_t>{1, 1, 0, 0, 0}));
  EXPECT_EQ(clocks, (std::vector<std::int32_t>{0, 0, 0, 2600, 5200}));
}

// --- The simulation step (F025, A32) ---

/// A memory that logs every access in order: (address, write?).
class OrderLog final : public pod::Memory {
 public:
  explicit OrderLog(pod::Memory& inner) : inner_(inner) {}
  struct Access {
    pod::GuestAddr address;
    bool write;
  };
  std::vector<Access> log;
  /// Index of the first / last access to [a, a + n) of the kind, or -1.
  long first(pod::GuestAddr a, std::uint32_t n, bool write, long from = 0) const {
    for (long i = from; i < static_cast<long>(log.size()); ++i)
      if (log[static_cast<std::size_t>(i)].write == write && in(log[static_cast<std::size_t>(i)].address, a, n)) return i;
    return -1;
  }
  long last(pod::GuestAddr a, std::uint32_t n, bool write) const {
    for (long i = static_cast<long>(log.size()) - 1; i >= 0; --i)
      if (log[static_cast<std::size_t>(i)].write == write && in(log[static_cast<std::size_t>(i)].address, a, n)) return i;
    return -1;
  }
  std::uint8_t load8_slow(pod::GuestAddr a) override { return note(a, false), inner_.load8(a); }
  std::uint16_t load16_slow(pod::GuestAddr a) override { return note(a, false), inner_.load16(a); }
  std::uint32_t load32_slow(pod::GuestAddr a) override { return note(a, false), inner_.load32(a); }
  std::uint64_t load64_slow(pod::GuestAddr a) override { return note(a, false), inner_.load64(a); }
  void store8_slow(pod::GuestAddr a, std::uint8_t v) override { note(a, true), inner_.store8(a, v); }
  void store16_slow(pod::GuestAddr a, std::uint16_t v) override { note(a, true), inner_.store16(a, v); }
  void store32_slow(pod::GuestAddr a, std::uint32_t v) override { note(a, true), inner_.store32(a, v); }
  void store64_slow(pod::GuestAddr a, std::uint64_t v) override { note(a, true), inner_.store64(a, v); }

 private:
  static bool in(pod::GuestAddr x, pod::GuestAddr a, std::uint32_t n) { return x >= a && x - a < n; }
  void note(pod::GuestAddr a, bool write) { log.push_back({a, write}); }
  pod::Memory& inner_;
};

// F025: per racer the car step (its controller inside it, C05), then upside-down, then the pose with
// the wheels' roll; after all racers the zones, then the collision pass (A32: once, after all cars).
// Each racer's step sees the frame block's +0 set to the unscaled +8, though a computer car's
// catch-up scaled it for the racer before (chosen, CHOICES "The race loop").
TEST_F(RaceLoop, F025_EachRacerInTurnThenTheCollisionPassOnce) {
  const pod::GuestAddr track = w.flat_track({0, 0, 0});
  w.standard_car(0, 0, 0, 0, track);
  w.standard_car(1, 100 << 16, 0, 0, track);
  w.m.put_i32(addr::kHumanRacers, 1);
  w.m.put_i32(addr::kComputerRacers, 1);
  // Racer 0 a computer car whose catch-up record scales its time (F123..F128): scale 0.95 of racer 1.
  w.driver(0).set(Driver::flags, 2u);
  w.driver(0).set(Driver::catch_up, addr::kCatchUpRecords);
  w.m.put_i32(addr::kCatchUpRecords + 0, 1);        // the target: racer 1
  w.m.put_i32(addr::kCatchUpRecords + 4, 0xf333);   // scale 0.95
  w.m.put_i32(addr::kCatchUpRecords + 8, 0x10000);  // weight
  w.driver(1).set(Driver::flags, 1u);
  // Racer 0's drawn object (its pose is the object's frame, F089), with a hull; racer 1 has none.
  const pod::RaceObject object0(w.m, addr::kRaceObjects);
  const pod::GuestAddr hull0 = w.alloc(pod::Hull::kSize);
  w.m.put_vec3(hull0, pod::Vec3{2 << 16, 1 << 16, 0x8000});
  object0.set(pod::RaceObject::hull, hull0);
  w.driver(0).set(Driver::object, object0.addr());
  frame().set(FrameTime::step_dt, 0x888);
  frame().set(FrameTime::dt, 0x1111);  // stale: the step must set it
  std::vector<std::int32_t> dt_seen;
  std::vector<pod::Vec3> pose0_seen;
  pod::race::Racers with;
  for (int r = 0; r < 2; ++r)
    with.controllers.push_back([&](pod::Memory& m, pod::GuestAddr, pod::GuestAddr) {
      dt_seen.push_back(m.i32(addr::kFrameTime));
      pose0_seen.push_back(object0.get(pod::RaceObject::position));
    });
  OrderLog log(w.m);
  const pod::race::SimOut out = pod::race::sim_step(log, with);
  ASSERT_EQ(out.turns.size(), 2u);
  ASSERT_EQ(dt_seen.size(), 2u);
  // Racer 0's controller ran after its catch-up scaled +0 (stage 1 before stage 2); racer 1's saw +0
  // back at +8.
  EXPECT_LT(dt_seen[0], 0x888);
  EXPECT_EQ(dt_seen[1], 0x888);
  // Racer 0's object was posed (after its step) before racer 1's turn began: racer 1's controller
  // already sees the pose the step leaves (no contact poses it again).
  EXPECT_EQ(pose0_seen[0], (pod::Vec3{}));
  EXPECT_NE(pose0_seen[1], (pod::Vec3{}));
  EXPECT_EQ(pose0_seen[1], object0.get(pod::RaceObject::position));
  // Order in memory: racer 1's upside-down timer (after its step) precedes the counts' second read
  // (the collision pass's), and +0 is set back to +8 between them.
  const pod::GuestAddr car1 = Car::at(addr::kRaceCars, 1);
  const long upside1 = log.last(car1 + Car::up.offset + 8, 4, false);  // upside-down reads up.z
  const long sound1 = log.last(car1 + Car::sound_state.offset, 1, true);  // stage 32, racer 1
  const long counts_first = log.first(addr::kHumanRacers, 8, false);
  const long counts_pass = log.last(addr::kHumanRacers, 8, false);
  const long dt_back = log.last(addr::kFrameTime, 4, true);
  ASSERT_GE(counts_first, 0);
  EXPECT_LT(counts_first, sound1);  // the racers' count is read before the turns
  EXPECT_LT(sound1, upside1);
  EXPECT_LT(upside1, dt_back);
  EXPECT_LT(dt_back, counts_pass);  // the collision pass reads the counts last
  EXPECT_EQ(w.m.i32(addr::kFrameTime), 0x888);
  EXPECT_TRUE(out.contacts.empty());  // 100 apart: no contact
}

// 003 Race::step, Cars::retrack: the simulation step ends with each racer's paths, after the
// collision pass (port/CHOICES.md "The paths pass"): every racer's put-back mark [driver+0x58] is
// taken down, the last racer's too.
TEST_F(RaceLoop, TheStepEndsWithEveryRacersPaths) {
  const pod::GuestAddr track = w.flat_track({0, 0, 0});
  w.standard_car(0, 0, 0, 0, track);
  w.standard_car(1, 100 << 16, 0, 0, track);
  w.m.put_i32(addr::kHumanRacers, 2);
  for (int r = 0; r < 2; ++r) {
    w.driver(r).set(Driver::flags, 1u);
    w.driver(r).set(Driver::put_back_mark, 1u);
  }
  frame().set(FrameTime::step_dt, 0x888);
  pod::race::sim_step(w.m, racers);
  EXPECT_EQ(w.driver(0).get(Driver::put_back_mark), 0u);
  EXPECT_EQ(w.driver(1).get(Driver::put_back_mark), 0u);
}

}  // namespace
