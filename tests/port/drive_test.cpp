// The drivetrain against the documents' statements (F019..F021, F028, F029,
// F037..F047). Expected values follow from the documented rules, computed here.
#include <gtest/gtest.h>

#include <cmath>

#include "pod/drive.hpp"
#include "pod/math.hpp"
#include "pod/step.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Point;

struct FactsDrive : ::testing::Test {
  podtest::World w;
  pod::GuestAddr track = w.flat_track({0});
  Car car = w.standard_car(0, 0, 0, 0, track);
  pod::GuestAddr driver = w.driver(0).addr();
  void spin_front(pod::Fixed spin) {
    car.point(0).set(Point::spin, spin);
    car.point(2).set(Point::spin, spin);
  }
};

// F038: out of gear with the throttle the engine speed rises by rev_up × dt.
TEST_F(FactsDrive, F038_EngineRisesByRevUpTimesDtOutOfGear) {
  w.set_dt(0x1000);  // 1/16 s
  car.set(Car::gear, std::int8_t{0});
  car.set(Car::throttle, 0x10000);
  car.set(Car::engine_speed, 100 << 16);
  pod::drive::engine(w.m, car.addr(), driver);
  EXPECT_EQ(car.get(Car::engine_speed), (100 << 16) + 600 * 65536 / 16);  // + 600 rad/s² × 1/16 s
}

// F039: without it, it falls by rev_down × dt / 2.
TEST_F(FactsDrive, F039_EngineFallsByHalfRevDownTimesDt) {
  w.set_dt(0x1000);
  car.set(Car::gear, std::int8_t{0});
  car.set(Car::throttle, 0);
  car.set(Car::engine_speed, 100 << 16);
  pod::drive::engine(w.m, car.addr(), driver);
  EXPECT_EQ(car.get(Car::engine_speed), (100 << 16) - 400 * 65536 / 16 / 2);
  // Also during a gear change (the engine is out of gear while the timer runs).
  car.set(Car::gear, std::int8_t{2});
  car.set(Car::gear_timer, 5000);
  pod::drive::engine(w.m, car.addr(), driver);
  EXPECT_EQ(car.get(Car::engine_speed), (100 << 16) - 2 * (400 * 65536 / 32));
}

// F040: between 0 and engine_max − 1.
TEST_F(FactsDrive, F040_EngineStaysBetweenZeroAndMaxMinusOne) {
  w.set_dt(0x10000);
  car.set(Car::gear, std::int8_t{0});
  car.set(Car::throttle, 0x10000);
  car.set(Car::engine_speed, 900 << 16);
  pod::drive::engine(w.m, car.addr(), driver);
  EXPECT_EQ(car.get(Car::engine_speed), (1000 << 16) - 1);
  car.set(Car::throttle, 0);
  car.set(Car::engine_speed, 10 << 16);
  pod::drive::engine(w.m, car.addr(), driver);
  EXPECT_EQ(car.get(Car::engine_speed), 0);
  // In gear it follows the wheels, held to the same range.
  car.set(Car::gear, std::int8_t{1});
  car.set(Car::wheel_engine_speed, 2000 << 16);
  pod::drive::engine(w.m, car.addr(), driver);
  EXPECT_EQ(car.get(Car::engine_speed), (1000 << 16) - 1);
}

// F041: in gear, +0x444 = the front wheels' mean spin × the gear's ratio.
TEST_F(FactsDrive, F041_WheelEngineSpeedIsFrontSpinTimesRatio) {
  car.set(Car::gear, std::int8_t{2});  // ratio 12
  car.point(0).set(Point::spin, 10 << 16);
  car.point(2).set(Point::spin, 20 << 16);
  car.point(1).set(Point::spin, 99 << 16);  // rear wheels do not count
  pod::drive::torque(w.m, car.addr(), driver);
  EXPECT_EQ(car.get(Car::wheel_engine_speed), 15 * 12 << 16);
}

// Sets a curve whose entry i is i + 1 (in 16.16), the engine at e rad/s in gear 1 with ratio 1 and
// the wheels at the engine's speed (nothing ahead, so no smooth-factor loss).
pod::Fixed torque_at(FactsDrive& t, double e_rad_s, std::uint32_t flags, pod::Fixed throttle = 0x10000) {
  const pod::GuestAddr curve = t.car.get(Car::torque_curve);
  for (std::uint32_t i = 0; i < 40; ++i) t.w.m.put_i32(curve + 4 * i, static_cast<std::int32_t>(i + 1) << 16);
  t.car.set(Car::ratios[0], 0x10000);
  t.car.set(Car::gear, std::int8_t{1});
  t.car.set(Car::gear_timer, 0);
  t.car.set(Car::throttle, throttle);
  const auto e = static_cast<pod::Fixed>(e_rad_s * 65536);
  t.car.set(Car::engine_speed, e);
  t.spin_front(e);
  t.w.driver(0).set(pod::Driver::flags, flags);
  return pod::drive::torque(t.w.m, t.car.addr(), t.driver);
}

// F042: the curve is read at the engine speed in rpm / 256 (× 0x98c9e = 60/2π in 16.16, >> 24).
TEST_F(FactsDrive, F042_TorqueIndexIsRpmOver256) {
  // 0x98c9e is 60/2π in 16.16, truncated (625822.56...).
  EXPECT_EQ(pod::drive::kRpmOver256, static_cast<std::int32_t>(std::floor(60.0 / (2 * M_PI) * 65536)));
  for (double e : {50.0, 200.0, 333.3, 640.0}) {
    const double index = e * 60.0 / (2 * M_PI) / 256.0;  // rpm / 256
    const double expect = index + 1.0;                   // curve[i] = i + 1, interpolated
    EXPECT_NEAR(torque_at(*this, e, 0) / 65536.0, expect, 2e-4) << e;
  }
}

// F037: the engine speed +0x440 is in rad/s. A wheel turning once a second (2π rad/s: its roll
// angle, in radians, advances by 2π × dt, F096's wheel roll) drives an engine in a gear of ratio 1 at
// 2π rad/s: in gear it follows the wheels (F041), and the torque stage reads that speed as 60 rpm
// (60 / 256 into the curve, F042). Were +0x440 in rpm or revolutions, the curve would be read at
// 2π / 256 or at 1 / 256 instead.
TEST_F(FactsDrive, F037_EngineSpeedIsRadiansPerSecond) {
  const pod::Fixed turn_a_second = static_cast<pod::Fixed>(std::lround(2 * M_PI * 65536));
  w.set_dt(0x1000);
  w.m.put_i32(pod::addr::kFrameTime + 8, 0x1000);  // the step's time, 1/16 s, which the roll uses
  car.point(0).set(Point::roll_angle, 0);
  spin_front(turn_a_second);
  pod::step::wheel_roll(w.m, car.addr());
  EXPECT_NEAR(car.point(0).get(Point::roll_angle) / 65536.0, 2 * M_PI / 16, 1e-4) << "the wheels turn in radians";
  // In first gear of ratio 1, no change running, no idle floor: the engine follows the wheels.
  car.set(Car::ratios[0], 0x10000);
  car.set(Car::gear, std::int8_t{1});
  car.set(Car::gear_timer, 0);
  car.set(Car::idle, 0);
  car.set(Car::throttle, 0x10000);
  w.driver(0).set(pod::Driver::flags, 2u);
  const pod::GuestAddr curve = car.get(Car::torque_curve);
  for (std::uint32_t i = 0; i < 40; ++i) w.m.put_i32(curve + 4 * i, static_cast<std::int32_t>(i + 1) << 16);
  pod::drive::torque(w.m, car.addr(), driver);  // +0x444 from this step's spins
  pod::drive::engine(w.m, car.addr(), driver);
  EXPECT_NEAR(car.get(Car::engine_speed) / 65536.0, 2 * M_PI, 1e-4) << "the engine turns at the wheels' rad/s";
  const pod::Fixed t = pod::drive::torque(w.m, car.addr(), driver);
  EXPECT_NEAR(t / 65536.0, 1.0 + 60.0 / 256.0, 2e-4) << "the curve is read at 60 rpm";
}

// F043: × 0.70 (0xb3b0) for a human driver (driver flag bit 0).
TEST_F(FactsDrive, F043_HumanTorqueIsScaledBy0xb3b0) {
  const pod::Fixed computer = torque_at(*this, 200.0, 2);
  const pod::Fixed human = torque_at(*this, 200.0, 1);
  EXPECT_EQ(human, static_cast<pod::Fixed>((static_cast<std::int64_t>(computer) * 0xb3b0) >> 16));
  EXPECT_NEAR(human / static_cast<double>(computer), 0.70, 0.003);
}

// F044: off the throttle above idle the torque is scaled "by 4 against the gear": four times the
// full-throttle torque (the curve × ratio), negative.
TEST_F(FactsDrive, F044_EngineBrakingIsFourTimesAgainstTheGear) {
  EXPECT_EQ(pod::drive::kAgainstGear, 4 << 16);
  const pod::Fixed on = torque_at(*this, 300.0, 2, 0x10000);
  const pod::Fixed off = torque_at(*this, 300.0, 2, 0);
  EXPECT_LT(off, 0);
  EXPECT_NEAR(-off, on * 4.0, 8.0);
}

// F045: scaled by a smooth function of how far the engine runs ahead of the wheels (falls as it runs
// ahead; 100 rad/s halves it, chosen).
TEST_F(FactsDrive, F045_TorqueFallsSmoothlyAsTheEngineRunsAhead) {
  const pod::Fixed level = torque_at(*this, 300.0, 2);
  pod::Fixed last = level;
  for (int ahead = 10; ahead <= 100; ahead += 10) {
    torque_at(*this, 300.0, 2);
    spin_front((300 - ahead) << 16);
    const pod::Fixed t = pod::drive::torque(w.m, car.addr(), driver);
    EXPECT_LT(t, last) << ahead;
    last = t;
  }
  EXPECT_NEAR(last, level / 2, level / 500);
}

// F019, F020: an up request (0x20) changes gear and starts a 15000/65536 s change; the change ends
// after that much frame time; a request during it is dropped.
TEST_F(FactsDrive, F019_F020_GearChangeLasts15000Over65536Seconds) {
  car.set(Car::gear, std::int8_t{1});
  car.set(Car::gear_request, pod::drive::kRequestUp);
  w.set_dt(1000);
  pod::drive::gears(w.m, car.addr());
  EXPECT_EQ(car.get(Car::gear), 2);
  EXPECT_EQ(car.get(Car::gear_timer), 15000);
  int steps = 0;
  while (car.get(Car::gear_timer) > 0) {
    car.set(Car::gear_request, pod::drive::kRequestDown);
    pod::drive::gears(w.m, car.addr());
    EXPECT_EQ(car.get(Car::gear_request), 0) << "dropped during the change";
    ++steps;
  }
  EXPECT_EQ(steps, 15);  // 15 steps of 1000/65536 s
  EXPECT_EQ(car.get(Car::gear), 2);
  car.set(Car::gear_request, pod::drive::kRequestDown);
  pod::drive::gears(w.m, car.addr());
  EXPECT_EQ(car.get(Car::gear), 1);
}

// F046: up from neutral re-maps the engine speed through a two-piece line (knee at +0x478).
TEST_F(FactsDrive, F046_UpFromNeutralRemapsTheEngineSpeed) {
  const pod::Fixed knee = car.get(Car::shift_down);
  car.set(Car::gear, std::int8_t{0});
  car.set(Car::engine_speed, knee + (100 << 16));
  car.set(Car::gear_request, pod::drive::kRequestUp);
  pod::drive::gears(w.m, car.addr());
  EXPECT_EQ(car.get(Car::engine_speed), knee + (50 << 16));
  EXPECT_EQ(car.get(Car::gear), 1);
  // Under the knee: unchanged (the line's other piece).
  car.set(Car::gear, std::int8_t{0});
  car.set(Car::gear_timer, 0);
  car.set(Car::engine_speed, knee - (100 << 16));
  car.set(Car::gear_request, pod::drive::kRequestUp);
  pod::drive::gears(w.m, car.addr());
  EXPECT_EQ(car.get(Car::engine_speed), knee - (100 << 16));
}

// F047: down may skip gears while the engine stays under +0x478.
TEST_F(FactsDrive, F047_DownShiftSkipsGearsUnderShiftDown) {
  const double knee = car.get(Car::shift_down) / 65536.0;  // 460 rad/s
  const double ratios[5] = {18, 12, 8.5, 6.5, 5.2};
  for (double wheel : {5.0, 20.0, 30.0, 45.0}) {
    car.set(Car::gear, std::int8_t{5});
    car.set(Car::gear_timer, 0);
    car.set(Car::gear_request, pod::drive::kRequestDown);
    spin_front(static_cast<pod::Fixed>(wheel * 65536));
    pod::drive::gears(w.m, car.addr());
    // From 4, keep going down while the next lower gear would still run under the knee.
    int g = 4;
    while (g > 1 && wheel * ratios[g - 2] < knee) --g;
    EXPECT_EQ(car.get(Car::gear), g) << wheel;
  }
}

// F021: the automatic gearbox runs only with car +0x448 bit 2; it asks up past the shift point.
TEST_F(FactsDrive, F021_AutomaticGearboxIsBit2Of0x448) {
  w.set_dt(0x400);
  car.set(Car::gear, std::int8_t{2});
  car.set(Car::wheel_engine_speed, car.get(Car::shift_up) + 1);
  car.set(Car::gear_request, std::uint8_t{0});
  pod::drive::automatic(w.m, car.addr());
  EXPECT_EQ(car.get(Car::gear_request), pod::drive::kRequestUp);
  // Through the step: without bit 2 no request is made, with it the gear goes up.
  for (std::uint8_t flags : {std::uint8_t{0}, std::uint8_t{4}}) {
    podtest::World w2;
    const pod::GuestAddr t2 = w2.flat_track({0});
    const Car c2 = w2.standard_car(0, 0, 0, 0, t2);
    w2.set_dt(0x400);
    c2.set(Car::gearbox_flags, flags);
    c2.set(Car::gear, std::int8_t{2});
    c2.set(Car::wheel_engine_speed, c2.get(Car::shift_up) + 1);
    for (int i = 0; i < 4; ++i) c2.point(i).set(Point::spin, 500 << 16);  // wheels fast: w stays high
    pod::step::step_from_controls(w2.m, c2.addr(), w2.driver(0).addr());
    EXPECT_EQ(c2.get(Car::gear), flags != 0 ? 3 : 2) << int(flags);
  }
}

// F028: the torque shared by car +0x54c: 1 all wheels by radius, 2 front (0, 2), else rear (1, 3).
// F029: then each wheel's rolling resistance, −(+0x90 × spin) >> 16.
TEST_F(FactsDrive, F028_F029_TorqueSplitAndRollingResistance) {
  for (std::int32_t layout : {0, 1, 2}) {
    podtest::World w2;
    const pod::GuestAddr t2 = w2.flat_track({0});
    const Car c2 = w2.standard_car(0, 0, 0, 0, t2);
    w2.set_dt(0x400);
    c2.set(Car::drive_layout, layout);
    c2.point(3).set(Point::radius, 2 * 0x599a);  // a bigger wheel takes more with layout 1
    for (int i = 0; i < 4; ++i) c2.point(i).set(Point::rolling_resistance, 0);
    w2.driver(0).set(pod::Driver::input, pod::input::kThrottle);
    c2.set(Car::gear, std::int8_t{1});
    for (int i = 0; i < 4; ++i) c2.point(i).set(Point::spin, 20 << 16);
    pod::step::step_from_controls(w2.m, c2.addr(), w2.driver(0).addr());
    const pod::Fixed t = c2.get(Car::torque_out);
    ASSERT_GT(t, 0);
    pod::Fixed share[4];
    for (int i = 0; i < 4; ++i) share[i] = c2.point(i).get(Point::drive_torque);
    if (layout == 2) {
      EXPECT_EQ(share[0], t >> 1);
      EXPECT_EQ(share[2], t >> 1);
      EXPECT_EQ(share[1], 0);
      EXPECT_EQ(share[3], 0);
    } else if (layout == 0) {
      EXPECT_EQ(share[1], t >> 1);
      EXPECT_EQ(share[3], t >> 1);
      EXPECT_EQ(share[0], 0);
      EXPECT_EQ(share[2], 0);
    } else {
      // By radius: wheel 3's radius is 2/5 of the sum.
      EXPECT_NEAR(share[3], t * 2.0 / 5.0, 2.0);
      EXPECT_NEAR(share[0], t / 5.0, 2.0);
    }
  }
  // F029 on its own: the share less (+0x90 × spin) >> 16, with the step's spin.
  podtest::World w3;
  const pod::GuestAddr t3 = w3.flat_track({0});
  const Car c3 = w3.standard_car(0, 0, 0, 0, t3);
  w3.set_dt(0x400);
  c3.point(1).set(Point::rolling_resistance, 0x3000);
  c3.point(1).set(Point::spin, -(7 << 16));
  pod::step::step_from_controls(w3.m, c3.addr(), w3.driver(0).addr());
  // Neutral: no drive torque, so +0x54 is the rolling resistance alone: −(0x3000 × −7).
  EXPECT_EQ(c3.point(1).get(Point::drive_torque), (0x3000 * 7));
}

}  // namespace
