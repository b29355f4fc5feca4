// The car step and its inline stages against the documents (F018, F022, F026,
// F027, F032, F036, F123..F128), and a whole drive on a flat track.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <vector>

#include "pod/collide.hpp"
#include "pod/drive.hpp"
#include "pod/math.hpp"
#include "pod/step.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Driver;
using pod::Point;
using pod::Vec3;
using podtest::World;

struct FactsStep : ::testing::Test {
  World w;
  pod::GuestAddr track = w.flat_track({0, 0, 0});
  Car car = w.standard_car(0, 0, 0, 0, track);
  Driver driver = w.driver(0);
  void SetUp() override { w.set_dt(0x888); }
  pod::step::Out step() { return pod::step::step_from_controls(w.m, car.addr(), driver.addr()); }
  // Settles the car on its wheels.
  void settle(int n = 30) {
    for (int i = 0; i < n; ++i) step();
  }
};

// F018: touching counters 1..16 while down, −1..−16 while off.
TEST_F(FactsStep, F018_TouchingCountersRunOneToSixteen) {
  const Point p = car.point(0);
  p.set(Point::touch_count, 0);
  std::vector<std::int32_t> seen;
  for (int i = 0; i < 20; ++i) {
    p.set(Point::touching, std::uint8_t{1});
    pod::step::touching_counters(w.m, car.addr());
    seen.push_back(p.get(Point::touch_count));
  }
  EXPECT_EQ(seen.front(), 1);
  EXPECT_EQ(seen[15], 16);
  EXPECT_EQ(seen.back(), 16);
  p.set(Point::touching, std::uint8_t{0});
  pod::step::touching_counters(w.m, car.addr());
  EXPECT_EQ(p.get(Point::touch_count), -1);
  for (int i = 0; i < 20; ++i) pod::step::touching_counters(w.m, car.addr());
  EXPECT_EQ(p.get(Point::touch_count), -16);
  p.set(Point::touching, std::uint8_t{1});
  pod::step::touching_counters(w.m, car.addr());
  EXPECT_EQ(p.get(Point::touch_count), 1);
}

// F022: sound state bits 1 skid, 2/4 engine rising/falling, 8 airborne, 0x10 scraping; 0x20 and 0x40
// belong to later stages and are kept.
TEST_F(FactsStep, F022_SoundStateBits) {
  for (int i = 0; i < 5; ++i) car.point(i).set(Point::touching, std::uint8_t{0});
  car.set(Car::sound_state, std::uint8_t{0x20 | 0x40 | 0x01});
  car.set(Car::engine_speed, 100 << 16);
  std::vector<std::int32_t> slots;
  pod::step::sound_state(w.m, car.addr(), 90 << 16, &slots);
  EXPECT_EQ(car.get(Car::sound_state), 0x20 | 0x40 | 0x02 | 0x08);
  car.point(1).set(Point::touching, std::uint8_t{1});
  car.point(1).set(Point::skidding, std::uint8_t{1});
  car.point(Car::kChassis).set(Point::touching, std::uint8_t{1});
  slots.clear();
  pod::step::sound_state(w.m, car.addr(), 110 << 16, &slots);
  EXPECT_EQ(car.get(Car::sound_state), 0x20 | 0x40 | 0x01 | 0x04 | 0x10);
  EXPECT_EQ(car.get(Car::skid_sound), 1);
  EXPECT_EQ(slots, (std::vector<std::int32_t>{1, 2})) << "skid starts; landing";
}

// F027: the input bits are driver +0x34's low 16 bits (bit 3 removed, A04 chosen); bit 4 (brake) is
// forced while the countdown holds the car.
TEST_F(FactsStep, F027_InputBitsAndTheCountdownBrake) {
  driver.set(Driver::input, 0x12340000u | 0x0009u);  // throttle, bit 3, high bits
  step();
  EXPECT_EQ(car.get(Car::step_input), 0x0001);
  EXPECT_EQ(car.get(Car::throttle), 0x10000);
  EXPECT_EQ(car.get(Car::brake), 0);
  pod::RaceBlock(w.m).set(pod::RaceBlock::phase, 1);  // countdown
  step();
  EXPECT_EQ(car.get(Car::step_input), 0x0011);
  EXPECT_EQ(car.get(Car::brake), 0x10000);
}

// Stage 3 (port/CHOICES.md "step::step"): an analog steering input is clamped to −1..1 before it
// scales the limit, so past full lock the target is the limit exactly. With a steering limit of
// 1.5 rad at rest (lim = qdiv(1.5, 1 + 0) = 1.5) and the wheels already at 1.5, an input of 3 leaves
// them there: a clamp at 1 + 2^-16 would aim at mul16(0x10001, 0x18000) = 0x18001.
TEST_F(FactsStep, AnalogSteeringPastFullLockAimsAtTheLimit) {
  car.set(Car::steer_limit, 0x18000);
  car.set(Car::steer, 0x18000);
  driver.set(Driver::steering, 0x30000);
  step();
  EXPECT_EQ(car.get(Car::steer), 0x18000);
}

// F026: stages in order. The engine (7) follows the wheels through +0x444 as the torque stage (8)
// left it last step, and the torque stage then sets +0x444 from this step's spins.
TEST_F(FactsStep, F026_EngineStageRunsBeforeTheTorqueStage) {
  settle();
  car.set(Car::gear, std::int8_t{1});
  car.set(Car::gear_timer, 0);
  car.set(Car::wheel_engine_speed, 321 << 16);
  car.point(0).set(Point::spin, 10 << 16);
  car.point(2).set(Point::spin, 10 << 16);
  step();
  EXPECT_EQ(car.get(Car::engine_speed), 321 << 16) << "stage 7 used last step's +0x444";
  EXPECT_EQ(car.get(Car::wheel_engine_speed), pod::math::mul16(10 << 16, 0x120000)) << "stage 8 set it";
}

// Every access a step makes, in order: a Memory over the world's that records (address, width,
// write) before passing the access on.
class TracingMemory final : public pod::Memory {
 public:
  struct Access {
    pod::GuestAddr address;
    unsigned width;
    bool write;
  };
  explicit TracingMemory(pod::Memory& inner) : inner_(inner) {}
  std::vector<Access> trace;

  std::uint8_t load8_slow(pod::GuestAddr a) override { return note(a, 1, false), inner_.load8(a); }
  std::uint16_t load16_slow(pod::GuestAddr a) override { return note(a, 2, false), inner_.load16(a); }
  std::uint32_t load32_slow(pod::GuestAddr a) override { return note(a, 4, false), inner_.load32(a); }
  std::uint64_t load64_slow(pod::GuestAddr a) override { return note(a, 8, false), inner_.load64(a); }
  void store8_slow(pod::GuestAddr a, std::uint8_t v) override { note(a, 1, true), inner_.store8(a, v); }
  void store16_slow(pod::GuestAddr a, std::uint16_t v) override { note(a, 2, true), inner_.store16(a, v); }
  void store32_slow(pod::GuestAddr a, std::uint32_t v) override { note(a, 4, true), inner_.store32(a, v); }
  void store64_slow(pod::GuestAddr a, std::uint64_t v) override { note(a, 8, true), inner_.store64(a, v); }

  /// The index of the first (or last) access of that kind to the address, or -1.
  long first(pod::GuestAddr a, bool write) const {
    for (std::size_t i = 0; i < trace.size(); ++i)
      if (trace[i].address == a && trace[i].write == write) return static_cast<long>(i);
    return -1;
  }
  long last(pod::GuestAddr a, bool write) const {
    for (std::size_t i = trace.size(); i-- > 0;)
      if (trace[i].address == a && trace[i].write == write) return static_cast<long>(i);
    return -1;
  }

 private:
  void note(pod::GuestAddr a, unsigned width, bool write) { trace.push_back({a, width, write}); }
  pod::Memory& inner_;
};

// F026: the 32 stages run in the order of the physics document's table. Each stage is seen in the
// step's memory trace by an access only it makes (its marker, below); the markers' positions must
// rise with the stage number, so swapping any two stages (or moving one past another) fails. The
// state makes every stage act: a computer driver with a catch-up record (stage 1), a controller
// (2), an automatic car in first gear (4, 5), on the ground at rest without throttle (15: the slope
// hold reads the weight first), wheel 3 in the air since the last step (22: its sub-steps), all on
// a flat track. Stage 21 (the wall impacts) runs inside stage 20 (F034): its marker lies after the
// body's first one and before stage 22's.
TEST_F(FactsStep, F026_TheThirtyTwoStagesRunInTheDocumentsOrder) {
  settle();
  const pod::GuestAddr c = car.addr();
  const pod::GuestAddr d = driver.addr();
  driver.set(Driver::flags, 2u);  // a computer car: the catch-up (1) and the stuck timer (31) run
  driver.set(Driver::catch_up, pod::addr::kCatchUpRecords);
  w.m.put_i32(pod::addr::kCatchUpRecords, -1);  // its target: no racer, so nothing is scaled
  driver.set(Driver::stuck_timer, 0);
  driver.set(Driver::input, 0u);
  car.set(Car::gearbox_flags, pod::drive::kAutomatic);
  car.set(Car::gear, std::int8_t{1});
  car.set(Car::gear_timer, 0);
  car.set(Car::gear_request, std::uint8_t{0});
  car.point(3).set(Point::touching, std::uint8_t{0});
  TracingMemory t(w.m);
  long controller_at = -1;
  pod::step::step(t, c, d, pod::step::Scratch{}, [&](pod::Memory&, pod::GuestAddr, pod::GuestAddr) {
    controller_at = static_cast<long>(t.trace.size());
  });
  const auto p = [&](int i, std::uint32_t offset) { return c + static_cast<std::uint32_t>(i) * Point::kSize + offset; };
  struct Marker {
    const char* stage;
    long at;
  };
  const Marker markers[] = {
      {"1 catch-up: reads driver +0x90", t.first(d + 0x90, false)},
      {"2 the controller", controller_at},
      {"3 input bits: writes +0x4fa", t.first(c + 0x4fa, true)},
      {"4 automatic: reads the up shift point +0x474", t.first(c + 0x474, false)},
      {"5 gears: writes the gear +0x44a", t.first(c + 0x44a, true)},
      {"6 wheel axes: writes wheel 0's +0x60", t.first(p(0, 0x60), true)},
      {"7 engine: writes +0x440", t.first(c + 0x440, true)},
      {"8 torque: writes +0x464", t.first(c + 0x464, true)},
      {"9 torque split: writes wheel 0's +0x54", t.first(p(0, 0x54), true)},
      {"10 brakes: writes wheel 0's +0x58", t.first(p(0, 0x58), true)},
      {"11 rolling resistance: reads wheel 0's +0x90", t.first(p(0, 0x90), false)},
      {"12 air: reads the drag +0x530", t.first(c + 0x530, false)},
      {"13 grip: reads the side stiffness +0x540", t.first(c + 0x540, false)},
      {"14 wheel drive: reads wheel 0's +0x58", t.first(p(0, 0x58), false)},
      {"15 slope hold: reads the weight +0x53c", t.first(c + 0x53c, false)},
      {"16 springs: writes wheel 0's +0x9c", t.first(p(0, 0x9c), true)},
      {"17 normal forces: writes wheel 0's +0xa0", t.first(p(0, 0xa0), true)},
      {"18 tyres: writes wheel 0's +0x39", t.first(p(0, 0x39), true)},
      {"19 touch-time scaling: reads wheel 0's +0xd4", t.first(p(0, 0xd4), false)},
      {"20 body: writes the carried force +0x4d4", t.first(c + 0x4d4, true)},
      {"21 wall impacts (inside 20): write wheel 0's +0x84", t.first(p(0, 0x84), true)},
      {"22 sub-steps: write wheel 3's +0x98", t.first(p(3, 0x98), true)},
      {"23 points placed: write wheel 0's +0x00", t.first(p(0, 0x00), true)},
      {"24 track pass: writes its counter +0x43c", t.first(c + 0x43c, true)},
      {"25 wheel spin: writes wheel 0's +0x50", t.first(p(0, 0x50), true)},
      {"26 skid marks: write wheel 0's +0x20", t.first(p(0, 0x20), true)},
      {"27 travel: reads wheel 0's +0xa4", t.first(p(0, 0xa4), false)},
      {"28 push-out: the last read of wheel 0's +0xc0", t.last(p(0, 0xc0), false)},
      {"29 touching counters: write wheel 0's +0xd4", t.first(p(0, 0xd4), true)},
      {"30 beacon test: the move written at 0x4f3368", t.first(pod::addr::kChassisMove, true)},
      {"31 stuck timer: writes driver +0x7c", t.first(d + 0x7c, true)},
      {"32 sound state: writes +0x4f9", t.first(c + 0x4f9, true)},
  };
  for (const Marker& m : markers) EXPECT_GE(m.at, 0) << "stage " << m.stage << ": not seen";
  for (std::size_t i = 1; i < std::size(markers); ++i)
    EXPECT_LT(markers[i - 1].at, markers[i].at) << "stage " << markers[i - 1].stage << " after stage " << markers[i].stage;
  // Stage 21 inside stage 20: the body writes its velocity +0x4c8 after the impacts.
  EXPECT_LT(markers[20].at, t.last(c + 0x4c8, true)) << "the wall impacts run inside the body";
}

// F032: under 10 units/s (with no throttle) the car is held on a slope: the weight's part along the
// ground is cancelled in proportion to the wheels down. On a car tilted 0.2 rad about its left axis,
// the body's velocity along the slope stays near 0 under 10 units/s and not above.
TEST_F(FactsStep, F032_SlopeHoldUnderTenUnitsPerSecond) {
  settle();
  const auto drift = [&](double speed) {
    World w2;
    const Car c2 = w2.standard_car(0, 0, 0, 0, w2.flat_track({0}));
    w2.set_dt(0x888);
    for (int i = 0; i < 30; ++i) pod::step::step_from_controls(w2.m, c2.addr(), w2.driver(0).addr());
    // Tilt the up axis (as on a slope): the weight then has a part along the car.
    c2.set(Car::up, Vec3{World::fx(std::sin(0.2)), 0, World::fx(std::cos(0.2))});
    c2.set(Car::velocity, Vec3{static_cast<pod::Fixed>(speed * 65536), 0, 0});
    const pod::GuestAddr f5 = 0x4f3320 + 60;
    pod::step::step_from_controls(w2.m, c2.addr(), w2.driver(0).addr());
    return w2.m.vec3(f5);
  };
  const Vec3 slow = drift(5.0);
  const Vec3 fast = drift(15.0);
  // The hold pushes against the weight's part along the tilted ground (+x here): forces[5].x < 0
  // under 10 units/s only (air drag at 5 and 15 units/s is tiny by comparison).
  EXPECT_LT(slow.x, -(20 << 16));
  EXPECT_GT(fast.x, -(5 << 16));
  // The threshold itself: at 10 − 1/256 units/s the car is held, at exactly 10 it is not (the speed
  // is length16 of the velocity, exact for these).
  EXPECT_LT(drift(10.0 - 1.0 / 256).x, -(20 << 16));
  EXPECT_GT(drift(10.0).x, -(5 << 16));
}

// F036: the step returns the chassis point's move: its two ends, where it was when the step began
// and where it is at the end (eax = the address of the pair).
TEST_F(FactsStep, F036_StepReturnsTheChassisMove) {
  settle();
  car.set(Car::velocity, Vec3{8 << 16, 0, 0});
  const Vec3 before = car.point(Car::kChassis).get(Point::position);
  const pod::step::Out out = step();
  const Vec3 after = car.point(Car::kChassis).get(Point::position);
  ASSERT_NE(before, after);
  EXPECT_EQ(w.m.vec3(out.chassis_move), before);
  EXPECT_EQ(w.m.vec3(out.chassis_move + 12), after);
}

// A whole drive: from rest on a flat track, in first gear with full throttle, automatic gearbox:
// the car settles on its four wheels, speeds up along +x, changes up, stays level and on the ground.
TEST(Step, DrivesOffStaysOnItsWheelsAndChangesUp) {
  World w;
  const Car car = w.standard_car(0, 0, 0, 0, w.flat_track({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  const Driver driver = w.driver(0);
  w.set_dt(0x888);
  for (int i = 0; i < 30; ++i) pod::step::step_from_controls(w.m, car.addr(), driver.addr());
  for (int i = 0; i < 4; ++i) EXPECT_NE(car.point(i).get(Point::touching), 0) << i;
  const pod::Fixed rest_z = car.get(Car::centre).z;
  car.set(Car::gearbox_flags, std::uint8_t{4});
  driver.set(Driver::input, pod::input::kThrottle);
  car.set(Car::gear_request, std::uint8_t{0x20});  // into first
  int max_gear = 0;
  for (int i = 0; i < 250; ++i) {
    pod::step::step_from_controls(w.m, car.addr(), driver.addr());
    max_gear = std::max<int>(max_gear, car.get(Car::gear));
  }
  const Vec3 v = car.get(Car::velocity);
  EXPECT_GT(v.x, 15 << 16);
  EXPECT_EQ(v.y, 0) << "straight: nothing turns it";
  EXPECT_EQ(max_gear, 2);
  EXPECT_GT(car.get(Car::centre).x, 100 << 16);
  EXPECT_NEAR(car.get(Car::centre).z, rest_z, 0x1000);
  EXPECT_GT(car.get(Car::up).z, 0xff00);
  for (int i = 0; i < 4; ++i) EXPECT_NE(car.point(i).get(Point::touching), 0) << i;
}

// --- Catch-up (F123..F128) ---

struct FactsCatchUp : ::testing::Test {
  World w;
  pod::GuestAddr track = w.flat_track({0, 0, 0});
  Car me = w.standard_car(1, 0, 0, 0, track);
  Car target = w.standard_car(0, 0, 0, 0, track);
  Driver driver = w.driver(1);
  pod::GuestAddr rec = pod::addr::kCatchUpRecords + 16;
  void SetUp() override {
    w.m.map(pod::addr::kHumanRacers, 8);  // the racers the target's number must be below: 0 and 1
    w.m.put_i32(pod::addr::kHumanRacers, 1);
    w.m.put_i32(pod::addr::kComputerRacers, 1);
    driver.set(Driver::flags, 2u);  // a computer car
    driver.set(Driver::catch_up, rec);
    w.m.put_i32(rec + 0, 0);        // target racer 0
    w.m.put_i32(rec + 4, 0x10000);  // scale
    w.m.put_i32(rec + 8, 0x10000);  // weight
    w.m.put_i32(rec + 0xc, 0);      // places behind first
    w.set_dt(0x1000);
  }
  pod::Fixed run(double target_ahead) {
    target.set(Car::centre, Vec3{static_cast<pod::Fixed>(target_ahead * 65536), 0, 0x8000});
    w.set_dt(0x1000);
    pod::step::catch_up(w.m, me.addr(), driver.addr());
    return w.m.i32(rec + 4);
  }
};

// F123: with race paths the distance is the difference of the path values at the two drivers'
// trackers; within 50 it is taken straight. The straight distance and the path's disagree here: the
// target is 100 ahead along the path but 10 behind in a straight line.
TEST_F(FactsCatchUp, F123_DistanceAlongThePathsStraightWithinFifty) {
  const pod::GuestAddr values = w.alloc(16);
  w.m.put_i32(values + 0, 0);
  w.m.put_i32(values + 4, 100 << 16);
  w.m.put_i32(values + 8, 130 << 16);
  const pod::GuestAddr link = w.alloc(0x1c);
  w.m.put_u32(link + 0x14, values);
  w.m.put_u32(pod::addr::kRacePaths, link);
  driver.set(Driver::tracker_link, link);
  driver.set(Driver::tracker_point, 0);
  const Driver them = w.driver(0);
  them.set(Driver::tracker_link, link);
  them.set(Driver::tracker_point, 1);
  w.m.put_i32(rec + 4, 0xf000);
  EXPECT_EQ(run(-10.0), 0xf000 + 800) << "100 ahead along the path: faster";
  // 30 apart along the path (within 50): the straight distance, 10 behind, decides.
  driver.set(Driver::tracker_point, 1);
  them.set(Driver::tracker_point, 2);
  w.m.put_i32(rec + 4, 0xf000);
  const pod::Fixed within = run(-10.0);
  const pod::Fixed expect = ((0xf000 - 800) + 0x10000 + static_cast<pod::Fixed>((std::int64_t{-(10 << 16)} * 65536) / 0x320000)) >> 1;
  EXPECT_EQ(within, std::clamp(expect, 0xe666, 0x1020c));
  // 55 apart along the path (past 50, F123's bound): the path decides, 55 ahead: faster.
  w.m.put_i32(values + 12, 155 << 16);
  driver.set(Driver::tracker_point, 1);
  them.set(Driver::tracker_point, 3);
  w.m.put_i32(rec + 4, 0xf000);
  EXPECT_EQ(run(-10.0), 0xf000 + 800) << "55 ahead along the path: faster";
  // No paths: straight, whatever the trackers say.
  w.m.put_u32(pod::addr::kRacePaths, 0);
  driver.set(Driver::tracker_point, 0);
  them.set(Driver::tracker_point, 1);
  w.m.put_i32(rec + 4, 0xf000);
  EXPECT_LT(run(-100.0), 0xf000) << "100 behind in a straight line: slower";
}

// F124, F126: the scale moves by 800 / weight towards the target's place, between base + 0.90 and
// base + 1.008; the frame time is multiplied by it.
TEST_F(FactsCatchUp, F124_F126_ScaleMovesBy800OverWeightWithinLimits) {
  w.m.put_i32(rec + 4, 0xf000);
  EXPECT_EQ(run(100.0), 0xf000 + 800);  // ahead beyond 50: faster by 800 / 1.0 (raw 16.16 units)
  EXPECT_EQ(w.m.i32(pod::addr::kFrameTime), pod::math::mul16(0x1000, 0xf000 + 800));
  for (int i = 0; i < 10; ++i) run(100.0);
  EXPECT_EQ(w.m.i32(rec + 4), World::fx(1.008));
  for (int i = 0; i < 200; ++i) run(-100.0);
  EXPECT_EQ(w.m.i32(rec + 4), World::fx(0.90));
  w.m.put_i32(rec + 8, 0x20000);  // weight 2: half the step
  w.m.put_i32(rec + 4, 0xf000);
  EXPECT_EQ(run(100.0), 0xf000 + 400);
}

// F125: within 50 the scale averages in the speed ratio that would close the gap.
TEST_F(FactsCatchUp, F125_WithinFiftyTheScaleAverages) {
  const pod::Fixed s = run(25.0);  // (1 + 800/65536 + 1 + 25/50) / 2, within the limits
  EXPECT_EQ(s, World::fx(1.008)) << "held to the top";
  w.m.put_i32(rec + 4, 0xf000);
  const pod::Fixed s2 = run(-1.0);
  EXPECT_NEAR(s2 / 65536.0, (0xf000 / 65536.0 - 800 / 65536.0 + 1 - 1.0 / 50) / 2, 1e-4);
}

// F127, F128: the limits follow the base at 0x4f9848; the bottom drops by 400 per place behind first.
TEST_F(FactsCatchUp, F127_F128_BaseAndPlacesMoveTheLimits) {
  w.m.put_i32(pod::addr::kCatchUpBase, 3000);
  w.m.put_i32(rec + 0xc, 2);
  for (int i = 0; i < 200; ++i) run(-100.0);
  EXPECT_EQ(w.m.i32(rec + 4), 3000 + World::fx(0.90) - 2 * 400);
  for (int i = 0; i < 200; ++i) run(100.0);
  EXPECT_EQ(w.m.i32(rec + 4), 3000 + World::fx(1.008));
}

// Only a computer car's frame time is scaled.
TEST_F(FactsCatchUp, HumanCarsAreNotScaled) {
  driver.set(Driver::flags, 1u);
  run(100.0);
  EXPECT_EQ(w.m.i32(pod::addr::kFrameTime), 0x1000);
  EXPECT_EQ(w.m.i32(rec + 4), 0x10000);
}

}  // namespace

namespace {

// The step's writes stay inside the car, its scratch (force array, slip slot), the chassis search
// counter (0x4f3310), and for a computer car the frame time and its catch-up record: the blocks the
// step log's CTRL and PHYS records hold, plus the scratch.
TEST(Step, WritesOnlyTheCarItsScratchAndTheCatchUp) {
  World w;
  const Car car = w.standard_car(2, 0, 0, 0, w.flat_track({0, 0}));
  const Driver driver = w.driver(2);
  const pod::GuestAddr rec = pod::addr::kCatchUpRecords + 32;
  w.m.map(pod::addr::kHumanRacers, 8);
  w.m.put_i32(pod::addr::kComputerRacers, 3);  // racer 2's target, racer 0, is one
  driver.set(Driver::flags, 2u);
  driver.set(Driver::catch_up, rec);
  w.m.put_i32(rec + 4, 0x10000);
  w.m.put_i32(rec + 8, 0x10000);
  w.set_dt(0x888);
  driver.set(Driver::input, pod::input::kThrottle | pod::input::kLeft);
  podtest::RecordingMemory rec_m(w.m);
  for (int i = 0; i < 40; ++i) pod::step::step(rec_m, car.addr(), driver.addr());
  const pod::step::Scratch scratch;
  for (pod::GuestAddr a : rec_m.writes) {
    const bool in_car = a >= car.addr() && a < car.addr() + Car::kSize;
    const bool in_scratch = a >= scratch.forces && a < scratch.stale_slot + 4;
    const bool in_frame = a >= pod::addr::kFrameTime && a < pod::addr::kFrameTime + 4;
    const bool in_record = a >= rec + 4 && a < rec + 8;
    const bool in_counter = a >= pod::addr::kChassisSearchCounter && a < pod::addr::kChassisSearchCounter + 4;
    const bool in_stuck = a >= driver.addr(Driver::stuck_timer) && a < driver.addr(Driver::stuck_timer) + 4;
    EXPECT_TRUE(in_car || in_scratch || in_frame || in_record || in_counter || in_stuck) << std::hex << a;
  }
  EXPECT_TRUE(rec_m.wrote_in(pod::addr::kFrameTime, pod::addr::kFrameTime + 4));
  EXPECT_FALSE(rec_m.wrote_in(driver.addr(), driver.addr(Driver::stuck_timer)))
      << "the step leaves the driver alone but for its stuck timer";
}

}  // namespace

namespace {

// Prints a digest of every car byte after a scripted drive (FNV-1a), so that builds with other
// compilers, flags or hosts can be compared (scripts or CI diff this line; the test itself asserts
// only that two runs agree, as a digest is not a documented value).
TEST(Step, DriveDigestIsReproducible) {
  const auto digest = [] {
    World w;
    const Car car = w.standard_car(0, 0, 0, 0, w.flat_track({0, 0, 0, 0, 0, 0}));
    const Driver driver = w.driver(0);
    std::uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < 300; ++i) {
      w.set_dt(0x700 + (i * 37) % 0x300);
      driver.set(Driver::input, (i / 40) % 3 == 0 ? pod::input::kThrottle
                                                  : (i / 40) % 3 == 1 ? (pod::input::kThrottle | pod::input::kLeft)
                                                                      : pod::input::kBrake);
      if (i == 10) car.set(Car::gear_request, std::uint8_t{0x20});
      pod::step::step_from_controls(w.m, car.addr(), driver.addr());
    }
    for (std::uint32_t k = 0; k < Car::kSize; ++k) h = (h ^ w.m.u8(car.addr() + k)) * 1099511628211ull;
    return h;
  };
  const std::uint64_t a = digest();
  EXPECT_EQ(a, digest());
  std::printf("[ digest   ] drive: %016llx\n", static_cast<unsigned long long>(a));
}

}  // namespace
