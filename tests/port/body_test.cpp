// The body against the documents (F011, F057, F058, F061..F067).
#include <gtest/gtest.h>

#include <cmath>

#include "pod/body.hpp"
#include "pod/math.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Point;
using pod::Vec3;
using podtest::World;

constexpr pod::GuestAddr kForces = 0x4f3320;
constexpr double kDt = 1.0 / 16;

// A car in the air (no point touching, last step's counters as given), at rest, level.
struct FactsBody : ::testing::Test {
  World w;
  Car car = w.standard_car(0, 0, 0, 100 << 16, w.flat_track({0}));
  void SetUp() override {
    w.set_dt(0x1000);
    for (int i = 0; i < 5; ++i) {
      car.point(i).set(Point::touching, std::uint8_t{0});
      car.point(i).set(Point::touch_count, -1);
    }
    for (int i = 0; i < 6; ++i) w.m.put_vec3(kForces + 12 * i, Vec3{});
  }
  void counters(std::int32_t n) {
    for (int i = 0; i < 4; ++i) car.point(i).set(Point::touch_count, n);
  }
  void run() { pod::body::integrate(w.m, car.addr(), kForces); }
};

// F057, F062: the outside force includes the weight on z; velocity integrates by force × dt / mass.
TEST_F(FactsBody, F057_F062_WeightAndForceIntegrateVelocity) {
  const double g = car.get(Car::weight) / 65536.0 / (car.get(Car::mass) / 65536.0);
  car.set(Car::carried_force, Vec3{512 << 16, 0, 0});  // carried from collisions, used once
  run();
  const Vec3 v = car.get(Car::velocity);
  EXPECT_NEAR(v.x / 65536.0, 512 / 32.0 * kDt, 1e-4);
  EXPECT_NEAR(v.z / 65536.0, -g * kDt, 1e-4);
  EXPECT_EQ(car.get(Car::carried_force), Vec3{}) << "the carried force is used up";
}

// F063: position moves by the mean of the old and new velocity × dt × step_scale (1.1942).
TEST_F(FactsBody, F063_PositionMovesByMeanVelocityTimesStepScale) {
  EXPECT_EQ(pod::body::kStepScale, World::fx(1.1942));
  car.set(Car::weight, 0);  // no gravity: constant velocity
  car.set(Car::velocity, Vec3{10 << 16, 0, 0});
  const Vec3 c0 = car.get(Car::centre);
  run();
  EXPECT_NEAR((car.get(Car::centre).x - c0.x) / 65536.0, 10 * kDt * 1.1942, 2e-5);
  // With a force, the mean of old and new.
  car.set(Car::velocity, Vec3{0, 0, 0});
  car.set(Car::carried_force, Vec3{0, 32 << 16, 0});  // Δv = 1/16
  const Vec3 c1 = car.get(Car::centre);
  run();
  EXPECT_NEAR((car.get(Car::centre).y - c1.y) / 65536.0, (0 + kDt) / 2 * kDt * 1.1942, 3e-5);
}

// F061: 15/16 of the yaw torque is taken away (0xf000/65536 of it subtracted).
TEST_F(FactsBody, F061_FifteenSixteenthsOfTheYawTorqueIsRemoved) {
  EXPECT_EQ(pod::body::kYawRemoved, 0xf000);
  car.set(Car::carried_torque, Vec3{52 << 16, 48 << 16, 52 * 16 << 16});
  run();
  const Vec3 s = car.get(Car::spin);
  EXPECT_NEAR(s.z / 65536.0, 52.0 * 16 / 16 * kDt / 52, 1e-4);  // up: a sixteenth of it
  EXPECT_NEAR(s.y / 65536.0, 48.0 * kDt / 48, 1e-4);           // left: all of it
  EXPECT_NEAR(s.x / 65536.0, 52.0 * kDt / 16, 1e-4);           // forward: all of it (inertia 16)
}

// F058: a point's force turns the body about the centre, r reaching a radius below the point.
TEST_F(FactsBody, F058_PointForceTorqueAboutTheCentre) {
  car.set(Car::weight, 0);
  const Point p = car.point(0);  // front left
  p.set(Point::touching, std::uint8_t{1});
  p.set(Point::up, Vec3{0, 0, 0x10000});
  w.m.put_vec3(kForces, Vec3{0, 0, 16 << 16});  // pushed up at the front: nose up (pitch)
  run();
  const Vec3 s = car.get(Car::spin);
  // r = (1.3, 0.9, 0.2 − 0.35 − 0.35) from the centre; F = (0, 0, 16): torque = r × F =
  // (0.9·16, −1.3·16, 0); about left (y) −20.8 / inertia 48 × dt.
  EXPECT_NEAR(s.y / 65536.0, -1.3 * 16 / 48 * kDt, 2e-4);
  EXPECT_NEAR(s.x / 65536.0, 0.9 * 16 / 16 * kDt, 2e-4);
}

// F064: spin held to 2.29 rad/s on its largest axis (scaled as a whole).
TEST_F(FactsBody, F064_SpinHeldTo229OnItsLargestAxis) {
  EXPECT_EQ(pod::body::kSpinLimit, World::fx(2.29));
  counters(-1);
  car.set(Car::spin, Vec3{5 << 16, -(1 << 16), 0});
  run();
  const Vec3 s = car.get(Car::spin);
  EXPECT_NEAR(s.x / 65536.0, 2.29, 1e-3);
  EXPECT_NEAR(s.y / 65536.0, -2.29 / 5, 1e-3);
}

// F065: every wheel off for more than two steps: spin decays by e^(−3.5 dt) (as 1 + x + x²/2, F011).
TEST_F(FactsBody, F065_SpinDecaysInTheAirAfterTwoSteps) {
  const double x = -3.5 * kDt;
  for (std::int32_t n : {-2, -3}) {
    counters(n);
    car.set(Car::spin, Vec3{1 << 16, 0, 0});
    run();
    const double expect = n <= -3 ? 1 + x + x * x / 2 : 1.0;
    EXPECT_NEAR(car.get(Car::spin).x / 65536.0, expect, 2e-4) << n;
  }
}

// F066: after four steps in the air at speed the nose turns into the velocity by e^(−1.03 dt).
TEST_F(FactsBody, F066_NoseTurnsIntoTheVelocityAfterFourSteps) {
  car.set(Car::weight, 0);
  const double a = 1 - (1 - 1.03 * kDt + (1.03 * kDt) * (1.03 * kDt) / 2);
  for (std::int32_t n : {-4, -5}) {
    counters(n);
    car.set(Car::forward, Vec3{0x10000, 0, 0});
    car.set(Car::left, Vec3{0, 0x10000, 0});
    car.set(Car::up, Vec3{0, 0, 0x10000});
    car.set(Car::spin, Vec3{});
    car.set(Car::velocity, Vec3{0, 20 << 16, 0});
    run();
    const Vec3 f = car.get(Car::forward);
    if (n == -4) {
      EXPECT_EQ(f, (Vec3{0x10000, 0, 0}));
    } else {
      EXPECT_NEAR(static_cast<double>(f.y) / f.x, a / (1 - a), 2e-3);
    }
  }
}

// F067: above 30 units/s in the air the steering moves the car sideways by 0x5a0000 × dt × steer.
TEST_F(FactsBody, F067_AirSteeringAbove30) {
  EXPECT_EQ(pod::body::kAirSteer, 0x5a0000);  // 90.0
  car.set(Car::weight, 0);
  car.set(Car::steer, 0x10000);
  for (double speed : {29.0, 31.0}) {
    car.set(Car::velocity, Vec3{static_cast<pod::Fixed>(speed * 65536), 0, 0});
    car.set(Car::spin, Vec3{});
    run();
    const double dvy = car.get(Car::velocity).y / 65536.0;
    EXPECT_NEAR(dvy, speed > 30 ? 90 * kDt * 1.0 * kDt / 32 : 0.0, 2e-4) << speed;
  }
}

}  // namespace
