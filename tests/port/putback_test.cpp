// Putting a car back, its sector searches and the race paths against the documents (F048, F082..F086, F144).
#include <gtest/gtest.h>

#include <cmath>

#include "pod/math.hpp"
#include "pod/putback.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Point;
using pod::Vec3;
using podtest::World;

struct FactsPutBack : ::testing::Test {
  World w;
  pod::GuestAddr track = w.flat_track({0, 0, 0});
  Car car = w.standard_car(0, 100 << 16, 0, 0, track + pod::Sector::kSize);
  pod::GuestAddr driver = w.driver(0).addr();
  void SetUp() override {
    w.set_dt(0x888);
    w.m.put_u32(pod::addr::kRacePaths, 0);
  }
  // A triangle face of its own mesh, corners given, and wheel 0 having last touched it.
  void last_touched_triangle(const Vec3& a, const Vec3& b, const Vec3& c) {
    const pod::GuestAddr verts = w.alloc(36);
    w.m.put_vec3(verts, a);
    w.m.put_vec3(verts + 12, b);
    w.m.put_vec3(verts + 24, c);
    const pod::GuestAddr tris = w.alloc(2 * pod::Triangle::kSize);
    const pod::Triangle t(w.m, tris + pod::Triangle::kSize);  // face number 1
    for (std::uint16_t k = 0; k < 3; ++k) t.set(pod::Triangle::corners[k], k);
    const pod::GuestAddr mesh = w.alloc(pod::Mesh::kSize);
    w.m.put_u32(mesh + pod::Mesh::vertices.offset, verts);
    w.m.put_u32(mesh + pod::Mesh::triangles.offset, tris);
    car.point(0).set(Point::face_mesh, mesh);
    car.point(0).set(Point::face_number, 1);
    car.point(0).set(Point::face_is_quad, std::uint8_t{0});
  }
};

// F082: a triangle's middle is its three corners summed and scaled by 0x5555 (FUN_004d4606: rounded
// to nearest); the body goes 1 above it (F085).
TEST_F(FactsPutBack, F082_F085_TriangleMiddleThroughTimes0x5555) {
  EXPECT_EQ(pod::putback::kThird, 0x5555);
  const Vec3 a{(100 << 16) + 7, 3 << 16, 0x4000};
  const Vec3 b{(104 << 16) + 1, 5 << 16, 0x4001};
  const Vec3 c{(101 << 16), -(2 << 16) + 5, 0x4002};
  last_touched_triangle(a, b, c);
  pod::putback::put_back(w.m, car.addr(), driver);
  const auto third = [](std::int64_t s) { return static_cast<std::int32_t>(std::llround(static_cast<double>(s) * 0x5555 / 65536.0)); };
  const Vec3 centre = car.get(Car::centre);
  EXPECT_EQ(centre.x, third(std::int64_t{a.x} + b.x + c.x));
  EXPECT_EQ(centre.y, third(std::int64_t{a.y} + b.y + c.y));
  EXPECT_EQ(centre.z, third(std::int64_t{a.z} + b.z + c.z) + 0x10000);
}

// F082: a quad's middle is its four corners summed and shifted right by 2.
TEST_F(FactsPutBack, F082_QuadMiddleIsTheSumShiftedRightByTwo) {
  car.point(0).set(Point::face_mesh, w.m.u32(track + 2 * pod::Sector::kSize));
  car.point(0).set(Point::face_number, 0);
  car.point(0).set(Point::face_is_quad, std::uint8_t{1});
  pod::putback::put_back(w.m, car.addr(), driver);
  // Sector 2's quad: x 150 and 250, y ±50, z 0.
  EXPECT_EQ(car.get(Car::centre), (Vec3{(150 + 250 + 250 + 150) << 14, 0, 0x10000}));
}

// F083, F085: without race paths the heading is the car's forward axis, made level and of length 1;
// up is the world's z; left = up × forward.
TEST_F(FactsPutBack, F083_F085_HeadingWithoutPathsIsTheForwardAxisLevelled) {
  const double th = 0.3;
  car.set(Car::forward, Vec3{World::fx(std::cos(th) * 0.8), World::fx(std::sin(th) * 0.8), World::fx(0.6)});
  pod::putback::put_back(w.m, car.addr(), driver);
  const Vec3 f = car.get(Car::forward);
  EXPECT_NEAR(f.x / 65536.0, std::cos(th), 2e-4);
  EXPECT_NEAR(f.y / 65536.0, std::sin(th), 2e-4);
  EXPECT_EQ(f.z, 0);
  EXPECT_EQ(car.get(Car::up), (Vec3{0, 0, 0x10000}));
  const Vec3 l = car.get(Car::left);
  EXPECT_NEAR(l.x / 65536.0, -std::sin(th), 2e-4);
  EXPECT_NEAR(l.y / 65536.0, std::cos(th), 2e-4);
}

// F086: the put-back clears the upside-down timer and resets the car (velocity, spin, carried force
// and torque, engine and gearbox, +0x4ec, the brake hold, the points' skid flags, velocity and
// impulse, the steering, the wheels' roll and spin, the wheels at rest height); then the points are
// placed from the new pose and each takes the first sector near it.
TEST_F(FactsPutBack, F086_TimerResetPlacementAndSectors) {
  car.set(Car::upside_down, 0x12345678u);
  car.set(Car::velocity, Vec3{1, 2, 3});
  car.set(Car::spin, Vec3{4, 5, 6});
  car.set(Car::carried_force, Vec3{7, 8, 9});
  car.set(Car::carried_torque, Vec3{1, 1, 1});
  car.set(Car::engine_speed, 500 << 16);
  car.set(Car::gear, std::int8_t{3});
  car.set(Car::gear_timer, 99);
  car.set(Car::controller_word, 77);
  car.set(Car::brake_hold, 0x8000);
  car.set(Car::steer, 0x1000);
  for (int i = 0; i < Car::kPoints; ++i) {
    car.point(i).set(Point::skidding, std::uint8_t{1});
    car.point(i).set(Point::sliding, std::uint8_t{1});
    car.point(i).set(Point::impulse, Vec3{5, 5, 5});
    car.point(i).set(Point::sector, 0);
  }
  car.point(1).set(Point::roll_angle, 1234);
  car.point(1).set(Point::spin, 99 << 16);
  car.point(1).set(Point::extension, 0x1234);
  pod::putback::put_back(w.m, car.addr(), driver);
  EXPECT_EQ(car.get(Car::upside_down), 0u);
  EXPECT_EQ(car.get(Car::velocity), Vec3{});
  EXPECT_EQ(car.get(Car::spin), Vec3{});
  EXPECT_EQ(car.get(Car::carried_force), Vec3{});
  EXPECT_EQ(car.get(Car::carried_torque), Vec3{});
  EXPECT_EQ(car.get(Car::engine_speed), 0);
  EXPECT_EQ(car.get(Car::gear), 0);
  EXPECT_EQ(car.get(Car::gear_timer), 0);
  EXPECT_EQ(car.get(Car::controller_word), 0);
  EXPECT_EQ(car.get(Car::brake_hold), 0);
  EXPECT_EQ(car.get(Car::steer), 0);
  for (int i = 0; i < Car::kPoints; ++i) {
    EXPECT_EQ(car.point(i).get(Point::skidding), 0);
    EXPECT_EQ(car.point(i).get(Point::sliding), 0);
    EXPECT_EQ(car.point(i).get(Point::impulse), Vec3{});
    EXPECT_EQ(car.point(i).get(Point::velocity), Vec3{}) << "placed with no velocity and no spin";
  }
  EXPECT_EQ(car.point(1).get(Point::roll_angle), 0);
  EXPECT_EQ(car.point(1).get(Point::spin), 0);
  EXPECT_EQ(car.point(1).get(Point::extension), car.point(1).get(Point::rest)) << "at rest height";
  // Wheel 0 never touched a face: the car goes back where wheel 0 is, raised by 1; each point finds
  // the sector that holds it (none was set).
  const Vec3 p0 = car.point(0).get(Point::position);
  EXPECT_EQ(car.point(0).get(Point::sector), track + pod::Sector::kSize);
  EXPECT_EQ(car.point(0).get(Point::last_sector), car.point(0).get(Point::sector));
  EXPECT_GT(p0.z, 0);
}

// F048: car_reset sets the engine limit to 1000 rad/s and the shift points to 0.92, 0.46, 0.10 and
// 0.20 of it.
TEST_F(FactsPutBack, F048_CarResetEngineLimitAndShiftPoints) {
  car.set(Car::engine_max, 5);
  pod::putback::car_reset(w.m, car.addr());
  EXPECT_EQ(car.get(Car::engine_max), 1000 << 16);
  const double f[4] = {0.92, 0.46, 0.10, 0.20};
  for (std::uint32_t k = 0; k < 4; ++k) EXPECT_NEAR(car.get(Car::shift_points[k]) / 65536.0, 1000 * f[k], 0.02) << k;
}

// The sector searches: near = the hint, its neighbours, then any in-play sector in table order that
// holds the point (out-of-play sectors are skipped, F079), else the first sector.
TEST_F(FactsPutBack, SectorNearAndSectorAny) {
  const pod::GuestAddr s0 = track;
  const pod::GuestAddr s1 = track + pod::Sector::kSize;
  const pod::GuestAddr s2 = track + 2 * pod::Sector::kSize;
  const pod::GuestAddr at = w.vec(Vec3{200 << 16, 0, 1 << 16});
  EXPECT_EQ(pod::putback::sector_near(w.m, at, s2), s2);
  EXPECT_EQ(pod::putback::sector_near(w.m, at, s1), s2) << "a neighbour of the hint";
  EXPECT_EQ(pod::putback::sector_near(w.m, at, 0), s2) << "every sector";
  EXPECT_EQ(pod::putback::sector_near(w.m, at, s0), s2) << "not a neighbour: every sector";
  pod::Sector(w.m, s2).set(pod::Sector::neighbour_count, -1);
  EXPECT_EQ(pod::putback::sector_any(w.m, at), s0) << "out of play: none holds it, the first sector";
  const pod::GuestAddr far = w.vec(Vec3{900 << 16, 0, 0});
  EXPECT_EQ(pod::putback::sector_any(w.m, far), s0);
}

// Race paths (F144): nodes of 0x24 bytes (+0 position, +0xc links out, +0x14 their list), links
// of 0x1c (+8 end node, +0x10 points of 12 bytes, +0x18 their number).
struct FactsPaths : ::testing::Test {
  World w;
  pod::GuestAddr node(const Vec3& at, std::vector<pod::GuestAddr> out) {
    const pod::GuestAddr n = w.alloc(0x24);
    w.m.put_vec3(n, at);
    w.m.put_i32(n + 0xc, static_cast<std::int32_t>(out.size()));
    const pod::GuestAddr list = w.alloc(4 * static_cast<std::uint32_t>(out.size() + 1));
    for (std::size_t k = 0; k < out.size(); ++k) w.m.put_u32(list + 4 * static_cast<std::uint32_t>(k), out[k]);
    w.m.put_u32(n + 0x14, list);
    return n;
  }
  pod::GuestAddr link(pod::GuestAddr end, std::vector<Vec3> points) {
    const pod::GuestAddr l = w.alloc(0x1c);
    const pod::GuestAddr pts = w.alloc(12 * static_cast<std::uint32_t>(points.size() + 1));
    for (std::size_t k = 0; k < points.size(); ++k) w.m.put_vec3(pts + 12 * static_cast<std::uint32_t>(k), points[k]);
    w.m.put_u32(l + 8, end);
    w.m.put_u32(l + 0x10, pts);
    w.m.put_i32(l + 0x18, static_cast<std::int32_t>(points.size()));
    return l;
  }
};

// F084 (and C19's third case): past a link's last point, the next point is the end node's position
// when more than one link leaves it, the first point of its only link, or none.
TEST_F(FactsPaths, F084_NextPointPastALinksEnd) {
  const pod::GuestAddr a = link(0, {Vec3{1, 1, 1}});
  const pod::GuestAddr b = link(0, {Vec3{2, 2, 2}});
  const pod::GuestAddr fork = node(Vec3{9, 9, 9}, {a, b});
  const pod::GuestAddr single = node(Vec3{8, 8, 8}, {a});
  const pod::GuestAddr dead = node(Vec3{7, 7, 7}, {});
  EXPECT_EQ(pod::paths::next_point(w.m, link(fork, {Vec3{}})), fork);
  EXPECT_EQ(w.m.vec3(pod::paths::next_point(w.m, link(single, {Vec3{}}))), (Vec3{1, 1, 1}));
  EXPECT_EQ(pod::paths::next_point(w.m, link(dead, {Vec3{}})), 0u);
}

// F083: with race paths the put-back heads from the tracker's point to the next one.
TEST_F(FactsPaths, F083_HeadingAlongThePath) {
  const pod::GuestAddr l = link(0, {Vec3{0, 0, 0}, Vec3{3 << 16, 4 << 16, 0}, Vec3{0, 0, 0}});
  const pod::Driver d = w.driver(0);
  d.set(pod::Driver::tracker_link, l);
  d.set(pod::Driver::tracker_point, 0);
  const pod::GuestAddr out = w.alloc(12);
  EXPECT_EQ(pod::paths::heading(w.m, d.addr(), out), 1);
  EXPECT_EQ(w.m.vec3(out), (Vec3{3 << 16, 4 << 16, 0}));
  // The whole put-back: forward is that heading, level and of length 1.
  const pod::GuestAddr track = w.flat_track({0});
  const Car car = w.standard_car(0, 0, 0, 0, track);
  w.m.put_u32(pod::addr::kRacePaths, l);
  pod::putback::put_back(w.m, car.addr(), d.addr());
  EXPECT_NEAR(car.get(Car::forward).x / 65536.0, 0.6, 2e-4);
  EXPECT_NEAR(car.get(Car::forward).y / 65536.0, 0.8, 2e-4);
  // [0x543254] = 0: no race paths, the car's own forward axis whatever tracker the driver holds.
  const Car other = w.standard_car(0, 0, 0, 0, track);
  const Vec3 own = other.get(Car::forward);
  w.m.put_u32(pod::addr::kRacePaths, 0);
  pod::putback::put_back(w.m, other.addr(), d.addr());
  EXPECT_NEAR(other.get(Car::forward).x / 65536.0, own.x / 65536.0, 2e-4);
  EXPECT_NEAR(other.get(Car::forward).y / 65536.0, own.y / 65536.0, 2e-4);
  // The tracker at the link's last point, its end node a dead end: no heading.
  d.set(pod::Driver::tracker_point, 2);
  EXPECT_EQ(pod::paths::heading(w.m, d.addr(), out), 0);
}

}  // namespace
