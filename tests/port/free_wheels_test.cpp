// F077's count: "two or three wheels down" counts the wheels (points 0..3) only, never the chassis
// point. Between its searches (every 17th call, or after a step with a wheel off or on a steep face,
// F075) the track pass leaves the chassis point's touching flag as the last search set it, so a car sitting on its chassis with one wheel on the
// road (or three) must not test its free wheels on the touching wheels' planes.
#include <gtest/gtest.h>

#include "pod/collide.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Point;
using podtest::World;

// The car at the road's corner (as FactsFreeWheels.F077_…): only wheel 3 over the road.
int wheels_down_at_the_corner(bool chassis_touching) {
  World w;
  const Car car = w.standard_car(0, World::fx(49.0), World::fx(49.6), 0, w.flat_track({0}));
  w.set_dt(0x888);
  // Not a chassis search (F075): not the 17th call, and last step had every wheel down on a level
  // face.
  w.m.put_i32(pod::addr::kChassisSearchCounter, 0);
  for (int i = 0; i < Car::kWheels; ++i) {
    car.point(i).set(Point::touching, std::uint8_t{1});
    car.point(i).set(Point::contact_normal, pod::Vec3{0, 0, 0x10000});
  }
  car.point(Car::kChassis).set(Point::touching, static_cast<std::uint8_t>(chassis_touching ? 1 : 0));
  pod::collide::track(w.m, car.addr(), w.driver(0).addr());
  EXPECT_EQ(car.point(Car::kChassis).get(Point::touching), chassis_touching ? 1 : 0)
      << "the chassis point keeps its flag between searches";
  int down = 0;
  for (int i = 0; i < Car::kWheels; ++i) down += car.point(i).get(Point::touching) != 0 ? 1 : 0;
  return down;
}

TEST(FactsFreeWheels, F077_TheChassisPointIsNotAWheelDown) {
  EXPECT_EQ(wheels_down_at_the_corner(false), 1);
  EXPECT_EQ(wheels_down_at_the_corner(true), 1) << "one wheel and the chassis: not two wheels down";
}

}  // namespace
