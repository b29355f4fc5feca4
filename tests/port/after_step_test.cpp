// What runs at the step's end and after it for each racer, against the documents (port/CHOICES.md "The car step and its functions",
// "Putting a car back", "Car against car"; 003): the stuck timer (F129, F170), upside-down (F023,
// F081), the drawn object's pose and the wheels' roll (F089, F096), the per-racer order (F025), the
// smoke's draws (F169).
#include <gtest/gtest.h>

#include <cmath>

#include "pod/putback.hpp"
#include "pod/race.hpp"
#include "pod/step.hpp"
#include "pod/tables.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Driver;
using pod::Point;
using pod::Vec3;
using podtest::World;

struct FactsAfterStep : ::testing::Test {
  World w;
  pod::GuestAddr track = w.flat_track({0, 0, 0});
  Car car = w.standard_car(1, 0, 0, 0, track);
  Driver driver = w.driver(1);
  void SetUp() override {
    w.set_dt(0x888);
    w.m.put_i32(pod::addr::kFrameTime + 8, 0x888);  // the step's unscaled time
    w.m.put_u32(pod::addr::kRacePaths, 0);
    driver.set(Driver::flags, 2u);  // a computer driver
  }
};

// F129: a computer car stuck for 2 s (here: nearly stopped with the throttle on) gets −2 s in its
// stuck timer; the physics then leaves the negative count to the controller.
TEST_F(FactsAfterStep, F129_StuckTwoSecondsGivesMinusTwo) {
  EXPECT_EQ(pod::step::kStuckTime, 2 << 16);
  car.set(Car::throttle, 0x10000);
  int steps = 0;
  while (driver.get(Driver::stuck_timer) >= 0 && steps < 1000) {
    pod::step::stuck(w.m, car.addr(), driver.addr());
    ++steps;
  }
  // 2 s at 0x888 per step: the first count past 0x20000.
  EXPECT_EQ(steps, 0x20000 / 0x888 + 1);
  EXPECT_EQ(driver.get(Driver::stuck_timer), -(2 << 16));
  pod::step::stuck(w.m, car.addr(), driver.addr());
  EXPECT_EQ(driver.get(Driver::stuck_timer), -(2 << 16)) << "the controller's count, left alone";
  // Moving, or off the throttle: the count starts again.
  driver.set(Driver::stuck_timer, 0x10000);
  car.set(Car::velocity, Vec3{5 << 16, 0, 0});
  pod::step::stuck(w.m, car.addr(), driver.addr());
  EXPECT_EQ(driver.get(Driver::stuck_timer), 0);
  // A human driver's timer is not the physics' to count.
  driver.set(Driver::flags, 1u);
  car.set(Car::velocity, Vec3{});
  pod::step::stuck(w.m, car.addr(), driver.addr());
  EXPECT_EQ(driver.get(Driver::stuck_timer), 0);
}

// F170: the stuck timer is one field, driver +0x7c, that the physics and the computer controller
// share: what the step writes there is what the controller reads, and a count the controller left
// (negative) comes back out of the step unchanged.
TEST_F(FactsAfterStep, F170_StuckTimerIsOneSharedField) {
  driver.set(Driver::stuck_timer, -0x8000);
  pod::step::step_from_controls(w.m, car.addr(), driver.addr());
  EXPECT_EQ(driver.get(Driver::stuck_timer), -0x8000);
  EXPECT_EQ(driver.addr(Driver::stuck_timer), driver.addr() + 0x7c);
}

// F023, F081: the upside-down timer's two 16-bit halves count the time (1/256 s) and the steps the
// car lies upside down; after 2.5 s the car is put back (and the timer cleared).
TEST_F(FactsAfterStep, F023_F081_UpsideDownTwoAndAHalfSecondsPutsBack) {
  car.set(Car::up, Vec3{0, 0, -0x10000});
  const std::uint32_t per_step = 0x888 >> 8;
  int steps = 0;
  bool back = false;
  while (!back && steps < 1000) {
    back = pod::step::upside_down(w.m, car.addr(), driver.addr());
    ++steps;
    if (!back) {
      EXPECT_EQ(car.get(Car::upside_down_lo), per_step * static_cast<std::uint32_t>(steps));
      EXPECT_EQ(car.get(Car::upside_down_hi), steps);
      car.set(Car::up, Vec3{0, 0, -0x10000});
    }
  }
  // 2.5 s = 640 / 256 s.
  EXPECT_EQ(static_cast<std::uint32_t>(steps), (640 + per_step - 1) / per_step);
  EXPECT_EQ(car.get(Car::upside_down), 0u);
  EXPECT_EQ(car.get(Car::up), (Vec3{0, 0, 0x10000})) << "back on its wheels";
  // Right way up: the timer is cleared.
  car.set(Car::upside_down, 0x00050005u);
  pod::step::upside_down(w.m, car.addr(), driver.addr());
  EXPECT_EQ(car.get(Car::upside_down), 0u);
}

// F089: the drawn object's matrix holds the forward, left and up axes as columns; its position is the
// chassis point less up × the hull's z half size.
TEST_F(FactsAfterStep, F089_ObjectFrameFromTheCar) {
  const pod::GuestAddr object = w.alloc(0x80);
  const pod::GuestAddr hull = w.alloc(0x1c);
  w.m.put_vec3(hull, Vec3{2 << 16, 1 << 16, 0x8000});
  w.m.put_u32(object + 0x44, hull);
  driver.set(Driver::object, object);
  const Vec3 f{0x10000, 0, 0}, l{0, 0xb505, 0xb505}, u{0, -0xb505, 0xb505};
  car.set(Car::forward, f);
  car.set(Car::left, l);
  car.set(Car::up, u);
  pod::step::pose(w.m, car.addr(), driver.addr());
  for (int r = 0; r < 3; ++r) {
    const Vec3 row = w.m.vec3(object + 0x48 + 12u * static_cast<std::uint32_t>(r));
    EXPECT_EQ(row, (Vec3{f[r], l[r], u[r]})) << "row " << r;
  }
  const Vec3 c = car.point(Car::kChassis).get(Point::position);
  const Vec3 at = w.m.vec3(object + 0x6c);
  EXPECT_NEAR(at.y, c.y + 0xb505 / 2, 2);
  EXPECT_NEAR(at.z, c.z - 0xb505 / 2, 2);
}

// F096: the wheels turn by one frame of spin: the roll angle moves by spin × the step's time.
TEST_F(FactsAfterStep, F096_WheelsTurnByTheirSpinTimesTheStepTime) {
  car.point(0).set(Point::spin, 30 << 16);
  car.point(1).set(Point::spin, -(30 << 16));
  car.point(2).set(Point::roll_angle, pod::tables::kPi16 - 10);
  car.point(2).set(Point::spin, 30 << 16);
  pod::step::wheel_roll(w.m, car.addr());
  EXPECT_NEAR(car.point(0).get(Point::roll_angle) / 65536.0, 30 * 0x888 / 65536.0, 1e-4);
  EXPECT_NEAR(car.point(1).get(Point::roll_angle) / 65536.0, -30 * 0x888 / 65536.0, 1e-4);
  const double a2 = car.point(2).get(Point::roll_angle) / 65536.0;
  EXPECT_NEAR(a2, M_PI + 30 * 0x888 / 65536.0 - 2 * M_PI, 1e-3) << "kept in (−π, π]";
  // π itself is inside (−π, π] (the interval 000 gives the angles): a wheel at π with no spin stays there.
  car.point(3).set(Point::roll_angle, pod::tables::kPi16);
  car.point(3).set(Point::spin, 0);
  pod::step::wheel_roll(w.m, car.addr());
  EXPECT_EQ(car.point(3).get(Point::roll_angle), pod::tables::kPi16);
}

// F025: after the car step come upside-down, then the pose and the wheels' roll: a car put back by
// upside-down has its object posed from the new place, in the same racer's turn.
TEST_F(FactsAfterStep, F025_UpsideDownThenPoseAndRoll) {
  const pod::GuestAddr object = w.alloc(0x80);
  driver.set(Driver::object, object);
  car.set(Car::left, Vec3{0, -0x10000, 0});  // rolled onto its roof about the forward axis
  car.set(Car::up, Vec3{0, 0, -0x10000});
  car.set(Car::upside_down_lo, std::uint16_t{639});
  pod::step::Scratch scratch;
  const pod::step::Out out = pod::step::racer_step_from_controls(w.m, car.addr(), driver.addr(), scratch);
  EXPECT_TRUE(out.put_back);
  EXPECT_EQ(w.m.vec3(object + 0x48 + 24), (Vec3{0, 0, 0x10000})) << "the third row: the new up's z";
}

// F169: the smoke's rand() draws reach no car state: the same step from two seeds leaves the same car.
TEST_F(FactsAfterStep, F169_SmokeDrawsReachNoCarState) {
  const auto car_after = [](std::uint32_t seed) {
    World w2;
    const Car c = w2.standard_car(0, 0, 0, 0, w2.flat_track({0}));
    w2.set_dt(0x888);
    w2.m.put_u32(pod::addr::kThreadBlockDefault + 0x10, seed);
    for (int i = 0; i < Car::kWheels; ++i) c.point(i).set(Point::skidding, std::uint8_t{1});
    pod::step::skid_smoke(w2.m, c.addr(), pod::addr::kThreadBlockDefault);
    std::vector<std::uint8_t> bytes(Car::kSize);
    w2.m.read_bytes(c.addr(), bytes.data(), bytes.size());
    const std::uint32_t puffs = w2.m.u32(pod::addr::kSmokeRing + 4);
    return std::make_pair(bytes, puffs);
  };
  const auto [a, puffs_a] = car_after(1);
  const auto [b, puffs_b] = car_after(12345);
  EXPECT_EQ(a, b);
  EXPECT_EQ(puffs_a, 4u);
  EXPECT_EQ(puffs_b, 4u);
}

// rand() (G22, chosen): the seed's linear congruential step, bits 16..30 returned.
TEST(Rand, LinearCongruentialOnTheThreadBlocksSeed) {
  World w;
  const pod::GuestAddr block = pod::addr::kThreadBlockDefault;
  w.m.put_u32(block + 0x10, 1);
  const std::uint32_t s1 = 1u * 1103515245u + 12345u;
  EXPECT_EQ(pod::step::rand(w.m, block), static_cast<std::int32_t>((s1 >> 16) & 0x7fff));
  EXPECT_EQ(w.m.u32(block + 0x10), s1);
}

// F036: the beacon test gets the chassis point's move, both its ends: a move from behind the next
// beacon's plane to on or past it passes the beacon (the beacons' layout is the stand-in's, chosen).
TEST_F(FactsAfterStep, F036_BeaconTestUsesTheMovesTwoEnds) {
  const pod::GuestAddr block = pod::addr::kRaceBlock;
  w.m.put_i32(block + pod::race::kBeaconCount, 2);
  w.m.put_vec3(block + pod::race::kBeacons, Vec3{10 << 16, 0, 0});             // beacon 0 at x = 10,
  w.m.put_vec3(block + pod::race::kBeacons + 12, Vec3{0x10000, 0, 0});         //   facing +x
  driver.set(Driver::racer, 1);
  const pod::GuestAddr record = block + pod::RaceBlock::record(1);
  const pod::GuestAddr move = w.alloc(24);
  const auto pass = [&](double from, double to) {
    w.m.put_vec3(move, Vec3{World::fx(from), 0, 0});
    w.m.put_vec3(move + 12, Vec3{World::fx(to), 0, 0});
    pod::race::beacon_test(w.m, driver.addr(), move);
    return w.m.i32(record + pod::race::kBeaconsPassed);
  };
  EXPECT_EQ(pass(8.0, 9.9), 0) << "still behind";
  EXPECT_EQ(pass(9.9, 10.0), 1) << "onto the plane";
  EXPECT_EQ(w.m.i32(record + pod::race::kNextBeacon), 1);
  w.m.put_i32(record + pod::race::kNextBeacon, 0);
  EXPECT_EQ(pass(10.5, 12.0), 1) << "already past it: no second pass";
  // The step hands the beacon test its chassis move: a car crossing beacon 0 in one step passes it.
  w.m.put_i32(record + pod::race::kBeaconsPassed, 0);
  const double x0 = car.point(Car::kChassis).get(Point::position).x / 65536.0;
  w.m.put_vec3(block + pod::race::kBeacons, Vec3{World::fx(x0 + 0.05), 0, 0});
  car.set(Car::velocity, Vec3{10 << 16, 0, 0});
  pod::step::step_from_controls(w.m, car.addr(), driver.addr());
  EXPECT_EQ(w.m.i32(record + pod::race::kBeaconsPassed), 1);
}

}  // namespace
