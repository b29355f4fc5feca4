// Forces, suspension and tyres against the documents (F030, F031, F033, F035, F049..F056).
#include <gtest/gtest.h>

#include <tuple>

#include <cmath>

#include "pod/forces.hpp"
#include "pod/math.hpp"
#include "pod/step.hpp"
#include "pod/suspension.hpp"
#include "pod/tyres.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Point;
using pod::Vec3;
using podtest::World;

constexpr pod::GuestAddr kForces = 0x4f3320;
constexpr pod::GuestAddr kSlot = 0x4f3320 + 0x48;

struct FactsForces : ::testing::Test {
  World w;
  pod::GuestAddr track = w.flat_track({0});
  Car car = w.standard_car(0, 0, 0, 0, track);
  void SetUp() override {
    w.set_dt(0x1000);
    for (int i = 0; i < 5; ++i) {
      const Point p = car.point(i);
      p.set(Point::contact_normal, Vec3{0, 0, 0x10000});
      p.set(Point::rolling_dir, Vec3{0x10000, 0, 0});
      p.set(Point::axle, Vec3{0, 0x10000, 0});
      p.set(Point::up, Vec3{0, 0, 0x10000});
      p.set(Point::touching, std::uint8_t{0});
    }
    for (int i = 0; i < 6; ++i) w.m.put_vec3(kForces + 12 * i, Vec3{});
  }
  Vec3 force(int i) { return w.m.vec3(kForces + 12 * static_cast<std::uint32_t>(i)); }
};

// F030: drag and downforce ∝ (forward speed / 256)².
TEST_F(FactsForces, F030_AirForcesGrowWithForwardSpeedOver256Squared) {
  car.set(Car::drag, 600 << 16);
  car.set(Car::downforce, 300 << 16);
  for (double speed : {128.0, -128.0, 64.0, 256.0}) {
    car.set(Car::velocity, Vec3{static_cast<pod::Fixed>(speed * 65536), 0, 0});
    pod::forces::air(w.m, car.addr(), kForces + 60);
    const double q = (speed / 256) * (speed / 256);
    const Vec3 f = force(5);
    EXPECT_EQ(f.x, static_cast<pod::Fixed>(std::lround((speed > 0 ? -1 : 1) * q * 600 * 65536))) << speed;
    EXPECT_EQ(f.z, static_cast<pod::Fixed>(std::lround(-q * 300 * 65536))) << speed;
    EXPECT_EQ(f.y, 0);
  }
}

// F031: a touching wheel's torque / radius along its rolling direction.
TEST_F(FactsForces, F031_WheelDriveIsTorqueOverRadiusAlongRollingDirection) {
  const Point p = car.point(1);
  p.set(Point::touching, std::uint8_t{1});
  p.set(Point::drive_torque, 0x20000);   // 2
  p.set(Point::brake_torque, -0x8000);   // −0.5, the two summed
  p.set(Point::radius, 0x8000);          // 0.5
  p.set(Point::rolling_dir, Vec3{0, 0x10000, 0});
  car.point(2).set(Point::drive_torque, 0x40000);  // not touching: no force
  pod::forces::wheel_drive(w.m, car.addr(), kForces);
  EXPECT_EQ(force(1), (Vec3{0, 3 << 16, 0}));  // (2 − 0.5) / 0.5
  EXPECT_EQ(force(2), Vec3{});
}

// F049 (grip's part): the side direction is contact normal × rolling direction; grip opposes the
// speed along it. Grip leaves the force array's address in the stale slot (F056, G08).
TEST_F(FactsForces, F049_GripActsAlongNormalCrossRollingDirection) {
  const Point p = car.point(0);
  p.set(Point::touching, std::uint8_t{1});
  p.set(Point::velocity, Vec3{5 << 16, 1 << 16, 0});  // 1 unit/s sideways (left, +y)
  car.set(Car::side_stiffness, 100 << 16);
  pod::forces::grip(w.m, car.addr(), kForces, kSlot);
  EXPECT_EQ(force(0), (Vec3{0, -(100 << 16), 0}));  // (0,0,1) × (1,0,0) = (0,1,0)
  EXPECT_EQ(w.m.u32(kSlot), kForces);
}

// F033: spring and damper output held to ±7.63.
TEST_F(FactsForces, F033_SpringsAreHeldToPlusMinus763) {
  const pod::Fixed limit = World::fx(7.63);
  EXPECT_EQ(pod::suspension::kSpringLimit, limit);
  const Point p = car.point(0);
  p.set(Point::extension, -(4 << 16));  // far compressed
  p.set(Point::extension_rate, 0);
  pod::suspension::springs(w.m, car.addr(), kForces);
  EXPECT_EQ(p.get(Point::spring_out), limit);
  p.set(Point::extension, 0x8000);
  p.set(Point::extension_rate, 100 << 16);  // extending fast: the damper pulls
  pod::suspension::springs(w.m, car.addr(), kForces);
  EXPECT_EQ(p.get(Point::spring_out), -limit);
  p.set(Point::extension_rate, 0);
  p.set(Point::extension, 0x599a);  // 0.15 compression × 6.6667 = 1 quarter weight
  pod::suspension::springs(w.m, car.addr(), kForces);
  EXPECT_NEAR(p.get(Point::spring_out), 0x10000, 8);
}

// F035: sub-steps of at most 0x444: a frame time of 2 × 0x444 gives the same heights as two frames of
// 0x444, and 0x445 the same as two of 0x222 (it must be split in two).
TEST_F(FactsForces, F035_SubStepsAreAtMost0x444) {
  EXPECT_EQ(pod::suspension::kSubStep, 0x444);
  auto run = [&](std::initializer_list<pod::Fixed> dts) {
    World w2;
    const Car c2 = w2.standard_car(0, 0, 0, 0, w2.flat_track({0}));
    for (int i = 0; i < 4; ++i) {
      c2.point(i).set(Point::touching, std::uint8_t{0});
      c2.point(i).set(Point::extension, 0x1000);
    }
    for (pod::Fixed d : dts) {
      w2.set_dt(d);
      pod::suspension::substeps(w2.m, c2.addr());
    }
    return std::pair{c2.point(0).get(Point::extension), c2.point(0).get(Point::extension_rate)};
  };
  EXPECT_EQ(run({0x888}), run({0x444, 0x444}));
  EXPECT_EQ(run({0x445}), run({0x222, 0x222}));
  EXPECT_NE(run({0x445}), run({0x444, 0x1})) << "the split is even, not 0x444 then the rest";
  // A touching wheel is left alone.
  World w3;
  const Car c3 = w3.standard_car(0, 0, 0, 0, w3.flat_track({0}));
  c3.point(0).set(Point::touching, std::uint8_t{1});
  const pod::Fixed h = c3.point(0).get(Point::extension);
  w3.set_dt(0x1000);
  pod::suspension::substeps(w3.m, c3.addr());
  EXPECT_EQ(c3.point(0).get(Point::extension), h);
}

// suspension::place_points: a point hangs at centre + axes · (hang offset − h along up).
TEST_F(FactsForces, PlacePointsHangsEachPointFromTheBody) {
  car.set(Car::centre, Vec3{10 << 16, 20 << 16, 5 << 16});
  car.set(Car::forward, Vec3{0, 0x10000, 0});  // turned 90° left
  car.set(Car::left, Vec3{-0x10000, 0, 0});
  car.set(Car::spin, Vec3{});
  car.set(Car::velocity, Vec3{0, 3 << 16, 0});
  pod::suspension::place_points(w.m, car.addr());
  const Point p = car.point(0);  // hang (1.3, 0.9, 0.2), h 0.35
  EXPECT_EQ(p.get(Point::position), (Vec3{(10 << 16) - 0xe666, (20 << 16) + 0x14ccd, (5 << 16) + 0x3333 - 0x599a}));
  EXPECT_EQ(p.get(Point::velocity), (Vec3{0, 3 << 16, 0}));
}

// --- Tyres ---

struct FactsTyres : FactsForces {
  // Wheel 0 touching, loaded, the force given; its velocity `v`.
  void wheel(const Vec3& v, const Vec3& f, pod::Fixed load = 100 << 16) {
    const Point p = car.point(0);
    p.set(Point::touching, std::uint8_t{1});
    p.set(Point::velocity, v);
    p.set(Point::load, load);
    w.m.put_vec3(kForces, f);
  }
  static Vec3 at_ratio(double speed, double ratio) {
    return Vec3{static_cast<pod::Fixed>(speed * std::sqrt(1 - ratio * ratio) * 65536),
                static_cast<pod::Fixed>(speed * ratio * 65536), 0};
  }
};

// F050: under 0.92 units/s the side limit is load × traction grip × surface grip.
TEST_F(FactsTyres, F050_SlowSideLimitIsLoadTimesTractionTimesGrip) {
  EXPECT_EQ(pod::tyres::kSlowSpeed, World::fx(0.92));
  w.m.put_i32(pod::Surface::at(0), 0x8000);  // surface grip 0.5
  wheel(Vec3{World::fx(0.91), 0, 0}, Vec3{0, 1000 << 16, 0});
  pod::tyres::tyres(w.m, car.addr(), kForces, kSlot);
  EXPECT_EQ(force(0).y, World::fx(100 * 1.5 * 0.5));
  // Just above 0.92 units/s, rolling straight (slip 0): the curve's limit, near nothing.
  wheel(Vec3{World::fx(0.93), 0, 0}, Vec3{0, 1000 << 16, 0});
  pod::tyres::tyres(w.m, car.addr(), kForces, kSlot);
  EXPECT_LT(force(0).y, World::fx(1.0));
}

// F052: the slip curve's peak 0.342 (value 1), offset 0.523, curvature 8.55 below and 2.37 above.
TEST_F(FactsTyres, F052_SlipCurvePeakOffsetAndCurvatures) {
  const auto curve = [&](double x) { return pod::tyres::slip_curve(w.m, static_cast<std::uint32_t>(World::fx(x))) / 65536.0; };
  EXPECT_NEAR(curve(0.342), 1.0, 1e-4);
  EXPECT_NEAR(curve(0.0), 1 - 8.55 * 0.342 * 0.342, 1e-4);
  EXPECT_NEAR(curve(0.2), 1 - 8.55 * 0.142 * 0.142, 1e-4);
  EXPECT_NEAR(curve(0.542), 1 - 2.37 * 0.2 * 0.2, 1e-4);
  EXPECT_NEAR(curve(0.9), 0.523, 1e-4) << "held at the offset above the peak";
  EXPECT_NEAR(curve(3.0), 0.523, 1e-4);
}

// F051, F053: above 0.92 units/s the side limit comes from the slip ratio (velocity · axle / speed)
// through the curve, scaled by a quarter of the weight (and by nothing else: no grip, no load).
TEST_F(FactsTyres, F051_F053_SideLimitIsCurveOfSlipTimesQuarterWeight) {
  const double quarter = car.get(Car::weight) / 65536.0 / 4;
  w.m.put_i32(pod::Surface::at(0), 0x8000);  // a surface grip of 0.5 does not enter this limit
  wheel(at_ratio(10, 0.342), Vec3{0, 1000 << 16, 0}, 1000 << 16);
  pod::tyres::tyres(w.m, car.addr(), kForces, kSlot);
  EXPECT_NEAR(force(0).y / 65536.0, quarter, quarter * 2e-3);  // curve 1 at the peak
  wheel(at_ratio(10, 0.542), Vec3{0, 1000 << 16, 0}, 0);         // nor does the load (an unloaded wheel)
  pod::tyres::tyres(w.m, car.addr(), kForces, kSlot);
  EXPECT_NEAR(force(0).y / 65536.0, quarter * (1 - 2.37 * 0.04), quarter * 3e-3);
}

// F054: the rolling part is held to a quarter of the weight × side grip × surface grip, less once
// (that limit / 256) × the side limit passes 0x1dcd65.
TEST_F(FactsTyres, F054_RollingLimitAndItsKnee) {
  const double limit = car.get(Car::weight) / 65536.0 / 4 * 1.6;
  // Slip 0: side limit near 0, so no reduction.
  wheel(at_ratio(10, 0.0), Vec3{1000 << 16, 0, 0}, 1000 << 16);
  pod::tyres::tyres(w.m, car.addr(), kForces, kSlot);
  EXPECT_NEAR(force(0).x / 65536.0, limit, limit * 1e-3);
  // At the curve's peak the side limit equals `limit`: (limit / 256) × limit passes 0x1dcd65.
  ASSERT_GT(limit / 256 * limit, 0x1dcd65 / 65536.0);
  wheel(at_ratio(10, 0.342), Vec3{1000 << 16, 0, 0}, 1000 << 16);
  pod::tyres::tyres(w.m, car.addr(), kForces, kSlot);
  EXPECT_LT(force(0).x / 65536.0, limit * 0.9);
  EXPECT_GT(force(0).x, 0);
}

// F055: past the side limit the point skids (+0x39) when |slip| > 0x4240 and slides (+0x38) when
// |slip| > 0x9470. The low-speed path tests the flags against the slip ratio its stack slot holds, so
// the test sets the ratio exactly: one below, at and one above each threshold, both signs. Moving
// either threshold by one fails it.
TEST_F(FactsTyres, F055_SkidAndSlideFlagsBySlip) {
  EXPECT_EQ(pod::tyres::kSkidSlip, 0x4240u);
  EXPECT_EQ(pod::tyres::kSlideSlip, 0x9470u);
  struct Case {
    std::int32_t slip;
    int skid;
    int slide;
  };
  for (const Case c : {Case{0x4240, 0, 0}, Case{0x4241, 1, 0}, Case{-0x4240, 0, 0}, Case{-0x4241, 1, 0},
                       Case{0x9470, 1, 0}, Case{0x9471, 1, 1}, Case{-0x9470, 1, 0}, Case{-0x9471, 1, 1},
                       Case{0, 0, 0}}) {
    wheel(Vec3{World::fx(0.5), 0, 0}, Vec3{0, 10000 << 16, 0}, 100 << 16);  // slow, far past its limit
    w.m.put_i32(kSlot, c.slip);
    pod::tyres::tyres(w.m, car.addr(), kForces, kSlot);
    EXPECT_EQ(car.point(0).get(Point::skidding), c.skid) << std::hex << c.slip;
    EXPECT_EQ(car.point(0).get(Point::sliding), c.slide) << std::hex << c.slip;
  }
  // At speed, from the ratio itself: 0.30 skids only, 0.7 slides too.
  for (const auto& [ratio, skid, slide] : {std::tuple{0.30, 1, 0}, std::tuple{0.7, 1, 1}}) {
    wheel(at_ratio(10, ratio), Vec3{0, 10000 << 16, 0}, 1000 << 16);
    pod::tyres::tyres(w.m, car.addr(), kForces, kSlot);
    EXPECT_EQ(car.point(0).get(Point::skidding), skid) << ratio;
    EXPECT_EQ(car.point(0).get(Point::sliding), slide) << ratio;
  }
  // Under the limit: no flag, whatever the slip.
  wheel(at_ratio(10, 0.9), Vec3{0, 1, 0}, 1000 << 16);
  pod::tyres::tyres(w.m, car.addr(), kForces, kSlot);
  EXPECT_EQ(car.point(0).get(Point::skidding), 0);
  EXPECT_EQ(car.point(0).get(Point::sliding), 0);
}

// F056: at low speed the flags test the slip ratio left in the stack slot; for the first point that
// is what forces::grip stored, the force array's address: above both thresholds (STALE_RATIO).
TEST_F(FactsTyres, F056_StaleRatioIsAboveBothThresholds) {
  EXPECT_GT(static_cast<std::uint32_t>(pod::tyres::STALE_RATIO), pod::tyres::kSlideSlip);
  EXPECT_GT(static_cast<std::uint32_t>(pod::tyres::STALE_RATIO), pod::tyres::kSkidSlip);
  wheel(Vec3{World::fx(0.5), 0, 0}, Vec3{}, 1 << 16);
  pod::forces::grip(w.m, car.addr(), kForces, kSlot);
  w.m.put_vec3(kForces, Vec3{0, 1000 << 16, 0});  // past the slow limit (1 × 1.5)
  pod::tyres::tyres(w.m, car.addr(), kForces, kSlot);
  EXPECT_EQ(car.point(0).get(Point::skidding), 1);
  EXPECT_EQ(car.point(0).get(Point::sliding), 1);
  w.m.put_i32(kSlot, pod::tyres::STALE_RATIO);
  w.m.put_vec3(kForces, Vec3{0, 1000 << 16, 0});
  pod::tyres::tyres(w.m, car.addr(), kForces, kSlot);
  EXPECT_EQ(car.point(0).get(Point::sliding), 1);
}

}  // namespace
