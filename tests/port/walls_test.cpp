// Walls, wall impacts, the free wheels, the fall test, travel and push-out against the documents
// (F024, F034, F059, F060, F068, F074, F076, F077, F080). Expected values
// come from the documented formulas in double arithmetic, with tolerances for 16.16 rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "pod/body.hpp"
#include "pod/collide.hpp"
#include "pod/math.hpp"
#include "pod/suspension.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Point;
using pod::Vec3;
using podtest::World;

constexpr double kUnit = 65536.0;

// One sector 100 × 100 around the origin at floor z = 0 (as World::flat_track), with a wall quad at
// x = wall_x facing −x (towards the road), 3 high. Returns the sector.
pod::GuestAddr walled_sector(World& w, int wall_x) {
  const pod::GuestAddr table = w.alloc(pod::Sector::kSize);
  w.m.put_i32(pod::addr::kSectorCount, 1);
  w.m.put_u32(pod::addr::kSectorTable, table);
  const pod::GuestAddr verts = w.alloc(8 * 12);
  const std::int32_t h = 50 << 16;
  const std::int32_t wx = wall_x << 16;
  const Vec3 v[8] = {{-h, -h, 0}, {h, -h, 0}, {h, h, 0}, {-h, h, 0},
                     {wx, h, 0},  {wx, -h, 0}, {wx, -h, 3 << 16}, {wx, h, 3 << 16}};
  for (std::uint32_t k = 0; k < 8; ++k) w.m.put_vec3(verts + 12 * k, v[k]);
  const pod::GuestAddr quads = w.alloc(2 * pod::Quad::kSize);
  const auto quad = [&](std::uint32_t j, Vec3 n, std::uint16_t a, std::uint8_t flags) {
    const pod::Quad q(w.m, quads + j * pod::Quad::kSize);
    q.set(pod::Quad::normal, n);
    q.set(pod::Quad::normal_abc, n);
    q.set(pod::Quad::normal_cda, n);
    for (std::uint16_t c = 0; c < 4; ++c) q.set(pod::Quad::corners[c], static_cast<std::uint16_t>(a + c));
    q.set(pod::Quad::flags, flags);
  };
  quad(0, Vec3{0, 0, 0x10000}, 0, pod::face_flags::kGround);
  // The wall's corners a b c d: seen from −x they run counter-clockwise, so its normal is −x.
  quad(1, Vec3{-0x10000, 0, 0}, 4, pod::face_flags::kWall);
  const pod::GuestAddr mesh = w.alloc(pod::Mesh::kSize);
  const pod::Mesh me(w.m, mesh);
  me.set(pod::Mesh::vertex_count, std::uint16_t{8});
  me.set(pod::Mesh::quad_count, std::int16_t{2});
  me.set(pod::Mesh::vertices, verts);
  me.set(pod::Mesh::quads, quads);
  const pod::Sector s(w.m, table);
  s.set(pod::Sector::mesh, mesh);
  s.set(pod::Sector::bounds_low, Vec3{-h, -h, -(2 << 16)});
  s.set(pod::Sector::bounds_high, Vec3{h, h, 10 << 16});
  s.set(pod::Sector::neighbour_count, 0);
  s.set(pod::Sector::neighbours, w.alloc(4));
  s.set(pod::Sector::one, 1);
  return table;
}

struct FactsWalls : ::testing::Test {
  World w;
  pod::GuestAddr sector = walled_sector(w, 10);
  Car car = w.standard_car(0, 0, 0, 0, sector);
  void SetUp() override { w.set_dt(0x888); }
  Point wheel(int i) const { return car.point(i); }
};

// F074, F076: a wheel reaching into a wall of its sector takes the depth (radius − its centre's
// distance to the wall), the wall's direction and a bounce; the walls are tested after the floors.
TEST_F(FactsWalls, F074_F076_WallGivesDepthDirectionAndBounce) {
  const pod::Fixed r = wheel(0).get(Point::radius);
  // Wheel 0 0.1 from the wall (centre at x = 9.9), the rest well clear.
  car.set(Car::centre, Vec3{World::fx(9.9 - 1.3), 0, 0x8000});
  pod::suspension::place_points(w.m, car.addr());
  pod::collide::track(w.m, car.addr(), w.driver(0).addr());
  EXPECT_TRUE(wheel(0).get(Point::touching)) << "its floor found first";
  EXPECT_NEAR(wheel(0).get(Point::wall_depth) / kUnit, r / kUnit - 0.1, 2e-4);
  EXPECT_EQ(wheel(0).get(Point::wall_dir), (Vec3{-0x10000, 0, 0}));
  EXPECT_EQ(wheel(0).get(Point::bounce), pod::collide::kBounce);
  EXPECT_EQ(wheel(1).get(Point::wall_depth), 0) << "the rear wheels are 2.6 from the wall";
  // Next pass, moved away: the depth is cleared at the pass's start.
  car.set(Car::centre, Vec3{0, 0, 0x8000});
  pod::suspension::place_points(w.m, car.addr());
  pod::collide::track(w.m, car.addr(), w.driver(0).addr());
  EXPECT_EQ(wheel(0).get(Point::wall_depth), 0);
}

// F076: the walls tested are those of the sectors the points found: a wall in a sector no point is
// in pushes nobody.
TEST_F(FactsWalls, F076_OnlyTheSectorsFoundAreTested) {
  car.set(Car::centre, Vec3{World::fx(9.9 - 1.3), 0, 0x8000});
  pod::suspension::place_points(w.m, car.addr());
  for (int i = 0; i < Car::kPoints; ++i) {
    wheel(i).set(Point::sector, 0);
    wheel(i).set(Point::face_mesh, 0);
    wheel(i).set(Point::touching, std::uint8_t{0});
  }
  car.set(Car::track_calls, 1);  // not a full search
  pod::collide::track(w.m, car.addr(), w.driver(0).addr());
  EXPECT_EQ(wheel(0).get(Point::wall_depth), 0) << "no point has a sector: no wall is tested";
}

// F024: the floor-contact lift factor +0x3c (0 in every car) grows the reach of the point's sphere:
// with 0 the reach is the radius, with 0.5 it is 1.5 radii.
TEST_F(FactsWalls, F024_LiftFactorGrowsTheReach) {
  const pod::Fixed r = wheel(0).get(Point::radius);
  const pod::GuestAddr p = wheel(0).addr();
  wheel(0).set(Point::position, Vec3{World::fx(10 - 0.2), 0, 0x599a});
  wheel(0).set(Point::wall_depth, 0);
  pod::collide::push_faces(w.m, p, sector, car.addr());
  EXPECT_NEAR(wheel(0).get(Point::wall_depth) / kUnit, r / kUnit - 0.2, 2e-4);
  wheel(0).set(Point::lift, 0x8000);
  wheel(0).set(Point::wall_depth, 0);
  pod::collide::push_faces(w.m, p, sector, car.addr());
  EXPECT_NEAR(wheel(0).get(Point::wall_depth) / kUnit, 1.5 * r / kUnit - 0.2, 2e-4);
}

// The deepest push is kept (FUN_004167ec writes only a deeper one).
TEST(Walls, WallDepthKeepsTheDeepest) {
  World w;
  const Car car = w.standard_car(0, 0, 0, 0, w.flat_track({0}));
  const pod::GuestAddr n1 = w.vec(Vec3{0x10000, 0, 0});
  const pod::GuestAddr n2 = w.vec(Vec3{0, 0x10000, 0});
  const Point p = car.point(0);
  pod::collide::wall_depth(w.m, p.addr(), n1, 0x1000);
  pod::collide::wall_depth(w.m, p.addr(), n2, 0x800);
  EXPECT_EQ(p.get(Point::wall_depth), 0x1000);
  EXPECT_EQ(p.get(Point::wall_dir), (Vec3{0x10000, 0, 0}));
  pod::collide::wall_depth(w.m, p.addr(), n2, 0x2000);
  EXPECT_EQ(p.get(Point::wall_depth), 0x2000);
  EXPECT_EQ(p.get(Point::wall_dir), (Vec3{0, 0x10000, 0}));
}

struct FactsImpacts : ::testing::Test {
  World w;
  Car car = w.standard_car(0, 0, 0, 0, w.flat_track({0}));
  static constexpr pod::Fixed kDt = 0x888;
  void SetUp() override { w.set_dt(kDt); }
  // Point i pushed into a wall facing −x, moving at (vx, vy, 0).
  void hit(int i, double vx, double vy) {
    const Point p = car.point(i);
    p.set(Point::wall_depth, 0x1000);
    p.set(Point::wall_dir, Vec3{-0x10000, 0, 0});
    p.set(Point::bounce, 0x8000);
    p.set(Point::velocity, Vec3{World::fx(vx), World::fx(vy), 0});
  }
  // (−v·n − 0.264) × mass / dt × bounce (F059).
  double size(double closing) const {
    return (closing - 0.264) * (car.get(Car::mass) / kUnit) / (kDt / kUnit) * 0.5;
  }
};

// F059: the impulse's size is (−v·n − 0.264) × mass / dt × the point's bounce, along the wall.
TEST_F(FactsImpacts, F059_ImpulseSizeFromClosingSpeedMassDtAndBounce) {
  EXPECT_EQ(pod::body::kImpactAllowance, World::fx(0.264));
  hit(0, 3.0, 0.0);
  Vec3 f, t;
  std::vector<pod::body::Impact> calls;
  EXPECT_EQ(pod::body::impacts(w.m, car.addr(), f, t, &calls), 1);
  const Vec3 j = car.point(0).get(Point::impulse);
  EXPECT_NEAR(-j.x / kUnit, size(3.0), size(3.0) * 1e-3);
  EXPECT_EQ(j.y, 0);
  EXPECT_EQ(f, j) << "the impulse joins the body's force";
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_NEAR(calls[0].strength / kUnit, size(3.0) / 4, size(3.0) * 1e-3) << "a quarter to the damage (F099)";
  // Closing at 0.2 units/s, under the allowance: nothing.
  hit(0, 0.2, 0.0);
  Vec3 f2, t2;
  EXPECT_EQ(pod::body::impacts(w.m, car.addr(), f2, t2), 0);
  EXPECT_EQ(car.point(0).get(Point::impulse), Vec3{});
  EXPECT_EQ(f2, Vec3{});
}

// F059: shared among the points hit, halved for two.
TEST_F(FactsImpacts, F059_TwoPointsEachTakeHalf) {
  hit(0, 3.0, 0.0);
  hit(2, 3.0, 0.0);
  Vec3 f, t;
  EXPECT_EQ(pod::body::impacts(w.m, car.addr(), f, t), 2);
  EXPECT_NEAR(-car.point(0).get(Point::impulse).x / kUnit, size(3.0) / 2, size(3.0) * 1e-3);
  EXPECT_NEAR(-car.point(2).get(Point::impulse).x / kUnit, size(3.0) / 2, size(3.0) * 1e-3);
  EXPECT_EQ(car.point(1).get(Point::impulse), Vec3{});
}

// F060: a single point also gets friction, up to 0.15 of the impulse, against its sliding along the
// wall; a slow slide is stopped outright (mass × speed / dt), not more.
TEST_F(FactsImpacts, F060_SinglePointFrictionUpToFifteenHundredths) {
  EXPECT_EQ(pod::body::kImpactFriction, World::fx(0.15));
  hit(0, 3.0, 20.0);  // sliding fast along the wall (+y)
  Vec3 f, t;
  pod::body::impacts(w.m, car.addr(), f, t);
  const Vec3 j = car.point(0).get(Point::impulse);
  EXPECT_NEAR(-j.y / kUnit, 0.15 * size(3.0), size(3.0) * 2e-3);
  hit(0, 3.0, 0.001);  // hardly sliding: the friction only stops it
  Vec3 f2, t2;
  pod::body::impacts(w.m, car.addr(), f2, t2);
  const double stop = 0.001 * (car.get(Car::mass) / kUnit) / (kDt / kUnit);
  EXPECT_NEAR(-car.point(0).get(Point::impulse).y / kUnit, stop, 0.05);
  EXPECT_LT(-car.point(0).get(Point::impulse).y / kUnit, 0.15 * size(3.0) / 2);
  // Two points: no friction.
  hit(0, 3.0, 20.0);
  hit(2, 3.0, 20.0);
  Vec3 f3, t3;
  pod::body::impacts(w.m, car.addr(), f3, t3);
  EXPECT_EQ(car.point(0).get(Point::impulse).y, 0);
}

// F034: the wall impacts (stage 21) run inside the body (stage 20): the impulse changes the velocity
// the same step, by impulse × dt / mass.
TEST_F(FactsImpacts, F034_ImpactsActInsideTheBody) {
  for (int i = 0; i < Car::kPoints; ++i) car.point(i).set(Point::touching, std::uint8_t{0});
  car.set(Car::velocity, Vec3{World::fx(3.0), 0, 0});
  hit(0, 3.0, 0.0);
  const pod::GuestAddr forces = 0x4f3320;
  for (int i = 0; i < 6; ++i) w.m.put_vec3(forces + 12u * static_cast<std::uint32_t>(i), Vec3{});
  std::vector<pod::body::Impact> calls;
  pod::body::integrate(w.m, car.addr(), forces, &calls);
  const double dv = car.get(Car::velocity).x / kUnit - 3.0;
  EXPECT_NEAR(dv, -size(3.0) * (kDt / kUnit) / (car.get(Car::mass) / kUnit), 2e-3);
  EXPECT_EQ(calls.size(), 1u);
}

// F068: nearly stopped with three wheels down and pushed into a wall, the steering turns the car on
// the spot; not with two wheels down, not at speed, not away from walls.
TEST_F(FactsImpacts, F068_TurnOnTheSpot) {
  const auto yaw_after = [&](int wheels_down, double speed, bool walled) {
    World w2;
    const Car c = w2.standard_car(0, 0, 0, 0, w2.flat_track({0}));
    w2.set_dt(kDt);
    for (int i = 0; i < Car::kPoints; ++i) {
      c.point(i).set(Point::touching, static_cast<std::uint8_t>(i < wheels_down ? 1 : 0));
      c.point(i).set(Point::contact_normal, Vec3{0, 0, 0x10000});
    }
    if (walled) c.point(1).set(Point::wall_depth, 0x800);  // pushed, but not closing: no impulse
    c.set(Car::velocity, Vec3{World::fx(speed), 0, 0});
    c.set(Car::steer, World::fx(0.3));
    const pod::GuestAddr forces = 0x4f3320;
    for (int i = 0; i < 6; ++i) w2.m.put_vec3(forces + 12u * static_cast<std::uint32_t>(i), Vec3{});
    pod::body::integrate(w2.m, c.addr(), forces);
    return c.get(Car::spin).z / kUnit;
  };
  EXPECT_NEAR(yaw_after(3, 0.5, true), 0.3 * 2.0, 1e-3);
  EXPECT_NEAR(yaw_after(4, 0.5, true), 0.3 * 2.0, 1e-3);
  EXPECT_NEAR(yaw_after(2, 0.5, true), 0.0, 1e-2);
  EXPECT_NEAR(yaw_after(3, 2.0, true), 0.0, 1e-2);
  EXPECT_NEAR(yaw_after(3, 0.5, false), 0.0, 1e-2);
}

// F077: with two or three wheels down, a free wheel is tested where it would sit on a touching
// wheel's plane: over no face of its own, it still touches, on that wheel's face.
TEST(FactsFreeWheels, F077_FreeWheelsOnTheTouchingWheelsPlanes) {
  const auto run = [](double y) {
    auto w = std::make_unique<World>();
    const pod::GuestAddr track = w->flat_track({0});
    const Car car = w->standard_car(0, 0, World::fx(y), 0, track);
    w->set_dt(0x888);
    pod::collide::track(w->m, car.addr(), w->driver(0).addr());
    return std::make_pair(std::move(w), car.addr());
  };
  // The left wheels (0, 1) at y = 49.6 + 0.9 = 50.5, past the road's edge; the right ones on it.
  auto [w, car_at] = run(49.6);
  const Car car(w->m, car_at);
  EXPECT_TRUE(car.point(2).get(Point::touching));
  EXPECT_TRUE(car.point(3).get(Point::touching));
  ASSERT_TRUE(car.point(0).get(Point::touching)) << "on wheel 2's plane";
  EXPECT_EQ(car.point(0).get(Point::face_mesh), car.point(2).get(Point::face_mesh));
  EXPECT_EQ(car.point(0).get(Point::sector), car.point(2).get(Point::sector));
  // One wheel down only: no plane test. At the road's corner only wheel 3 (rear right) is over it.
  auto w1 = std::make_unique<World>();
  const Car one = w1->standard_car(0, World::fx(49.0), World::fx(49.6), 0, w1->flat_track({0}));
  w1->set_dt(0x888);
  pod::collide::track(w1->m, one.addr(), w1->driver(0).addr());
  int down = 0;
  for (int i = 0; i < 4; ++i) down += one.point(i).get(Point::touching) != 0 ? 1 : 0;
  EXPECT_EQ(down, 1) << "only the wheel over the road's corner";
}

// F080: when no point found anything and the car is more than 10 below wheel 0's sector, the track
// pass puts it back; at 9.9 below it does not.
TEST(FactsFall, F080_PutBackWhenTenBelowTheSector) {
  const auto fall = [](double below_floor) {
    World w;
    const pod::GuestAddr track = w.flat_track({0});
    const Car car = w.standard_car(0, 0, 0, 0, track);
    w.m.put_u32(pod::addr::kRacePaths, 0);
    // Lower the whole car: the sector's low bound is 2 below the floor.
    const double dz = -(2.0 + below_floor) - 0.35;
    car.set(Car::centre, Vec3{0, 0, World::fx(dz + 0.5)});
    pod::suspension::place_points(w.m, car.addr());
    for (int i = 0; i < Car::kPoints; ++i) car.point(i).set(Point::touching, std::uint8_t{0});
    // The face wheel 0 last touched: the sector's one quad, whose middle is the origin.
    car.point(0).set(Point::face_mesh, w.m.u32(track));
    car.point(0).set(Point::face_number, 0);
    car.point(0).set(Point::face_is_quad, std::uint8_t{1});
    car.set(Car::velocity, Vec3{0, 0, -(5 << 16)});
    const bool back = pod::collide::track(w.m, car.addr(), w.driver(0).addr());
    return std::make_pair(back, car.get(Car::centre));
  };
  const auto [deep, at] = fall(10.1);
  EXPECT_TRUE(deep);
  EXPECT_EQ(at.z, 0x10000) << "back on the face, raised by 1";
  EXPECT_FALSE(fall(9.9).first);
}

// F080 compares wheel 0 alone: with wheel 0 10.1 below the sector's low bound and wheel 1 only 9.5
// below, the car is put back; with wheel 0 9.9 below and wheel 1 10.5 below, it is not.
TEST(FactsFall, F080_OnlyWheelZeroIsCompared) {
  const auto fall = [](double wheel0_below, double wheel1_below) {
    World w;
    const pod::GuestAddr track = w.flat_track({0});
    const Car car = w.standard_car(0, 0, 0, 0, track);
    w.m.put_u32(pod::addr::kRacePaths, 0);
    // As F080_PutBackWhenTenBelowTheSector: the car lowered until wheel 0 is wheel0_below under the
    // low bound (2 below the floor), then wheel 1 alone moved to wheel1_below.
    const double dz = -(2.0 + wheel0_below) - 0.35;
    car.set(Car::centre, Vec3{0, 0, World::fx(dz + 0.5)});
    pod::suspension::place_points(w.m, car.addr());
    const Vec3 p0 = car.point(0).get(Point::position);
    const Vec3 p1 = car.point(1).get(Point::position);
    car.point(1).set(Point::position, Vec3{p1.x, p1.y, p0.z + World::fx(wheel0_below - wheel1_below)});
    for (int i = 0; i < Car::kPoints; ++i) car.point(i).set(Point::touching, std::uint8_t{0});
    car.point(0).set(Point::face_mesh, w.m.u32(track));  // where a put-back places it
    car.point(0).set(Point::face_number, 0);
    car.point(0).set(Point::face_is_quad, std::uint8_t{1});
    car.set(Car::velocity, Vec3{0, 0, -(5 << 16)});
    return pod::collide::track(w.m, car.addr(), w.driver(0).addr());
  };
  EXPECT_TRUE(fall(10.1, 9.5)) << "wheel 0 is past 10 below";
  EXPECT_FALSE(fall(9.9, 10.5)) << "wheel 1 past 10 below does not count";
}

// Stage 27: a touching wheel found past the top of its travel pushes the body up by the most any did;
// the velocity into the ground along up is taken away.
TEST(Travel, BottomedOutWheelPushesTheBody) {
  World w;
  const Car car = w.standard_car(0, 0, 0, 0, w.flat_track({0}));
  car.point(0).set(Point::touching, std::uint8_t{1});
  car.point(0).set(Point::bottom_out, 0x2000);
  car.point(1).set(Point::touching, std::uint8_t{1});
  car.point(1).set(Point::bottom_out, 0x3000);
  car.point(2).set(Point::bottom_out, 0x9000);  // not touching: not counted
  car.point(3).set(Point::extension, -0x100);   // held to 0
  car.set(Car::velocity, Vec3{0x10000, 0, -0x20000});
  const Vec3 c0 = car.get(Car::centre);
  const Vec3 p0 = car.point(4).get(Point::position);
  pod::suspension::travel(w.m, car.addr());
  EXPECT_EQ(car.get(Car::centre).z - c0.z, 0x3000);
  EXPECT_EQ(car.point(4).get(Point::position).z - p0.z, 0x3000);
  EXPECT_EQ(car.point(3).get(Point::extension), 0);
  EXPECT_EQ(car.get(Car::velocity), (Vec3{0x10000, 0, 0}));
}

// Stage 28: the push out of the walls moves the body and its points by the wall pushes, each only by
// what the ones before did not already cover.
TEST(PushOut, MovesTheBodyOutOfTheWalls) {
  World w;
  const Car car = w.standard_car(0, 0, 0, 0, w.flat_track({0}));
  car.point(0).set(Point::wall_depth, 0x2000);
  car.point(0).set(Point::wall_dir, Vec3{-0x10000, 0, 0});
  car.point(2).set(Point::wall_depth, 0x3000);  // the same wall, deeper: adds 0x1000 more
  car.point(2).set(Point::wall_dir, Vec3{-0x10000, 0, 0});
  car.point(1).set(Point::wall_depth, 0x1000);  // another wall
  car.point(1).set(Point::wall_dir, Vec3{0, -0x10000, 0});
  const Vec3 c0 = car.get(Car::centre);
  pod::body::push_out(w.m, car.addr());
  EXPECT_EQ(car.get(Car::centre).x - c0.x, -0x3000);
  EXPECT_EQ(car.get(Car::centre).y - c0.y, -0x1000);
}

}  // namespace
