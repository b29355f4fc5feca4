// Car against car against the documents (F088..F097). Geometry is checked
// against a double-precision model within a few 16.16 units, rules (which test decides, which car
// moves, which bits) exactly; the chosen formulas' details (port/CHOICES.md) are named where a test
// leans on them.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "pod/cars.hpp"
#include "pod/layout.hpp"
#include "pod/step.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Contact;
using pod::Hull;
using pod::Point;
using pod::RaceObject;
using pod::Vec3;
using podtest::World;

constexpr double kU = 65536.0;
/// Distances go through length16, which keeps 13 to 15 bits (F009): a relative error up to 2^-12.
constexpr double kLength = 1.0 / 4096;

struct CarsWorld : ::testing::Test {
  World w;
  pod::GuestAddr track = 0;
  void SetUp() override {
    w.m.map(pod::addr::kRaceObjects, 8 * pod::addr::kRaceObjectSize);
    w.m.map(pod::addr::kHumanRacers, 12);
    w.m.map(0x633300, 0x60);  // the damage option words (0 = off)
    track = w.flat_track({0});
    w.set_dt(0x888);
    w.m.put_i32(pod::addr::kFrameTime + 8, 0x888);
  }
  pod::GuestAddr hull(const Vec3& half, const Vec3& centre = {}) {
    const Hull h(w.m, w.alloc(Hull::kSize));
    h.set(Hull::half, half);
    h.set(Hull::centre, centre);
    h.set(Hull::radius, World::fx(std::hypot(half.x / kU, half.y / kU)));
    return h.addr();
  }
  /// Racer r's drawn object: the whole car's hull `half`, identity frame at the origin, ten parts
  /// (`count` of them listed), each with a hull `part_half` and the offset `offset(i)`.
  RaceObject object(int racer, const Vec3& half, const Vec3& part_half, int count = 10,
                    Vec3 (*offset)(int) = [](int) { return Vec3{}; }) {
    const RaceObject o(w.m, pod::addr::kRaceObjects + pod::addr::kRaceObjectSize * static_cast<std::uint32_t>(racer));
    const pod::GuestAddr list = w.alloc(40);
    o.set(RaceObject::part_count, count);
    o.set(RaceObject::parts, list);
    o.set(RaceObject::hull, hull(half));
    for (int i = 0; i < 10; ++i) {
      const pod::Part p(w.m, w.alloc(pod::Part::kSize));
      p.set(pod::Part::hull, hull(part_half));
      p.set(pod::Part::offset, offset(i));
      p.set(pod::Part::health, 2000000);
      w.m.put_u32(list + 4 * static_cast<std::uint32_t>(i), p.addr());
    }
    frame(o, 0.0, Vec3{});
    w.driver(racer).set(pod::Driver::object, o.addr());
    return o;
  }
  /// The object's frame: turned by `angle` about z, at `pos` (the matrix's columns are the axes).
  void frame(const RaceObject& o, double angle, const Vec3& pos) {
    const pod::Fixed c = World::fx(std::cos(angle)), s = World::fx(std::sin(angle));
    const pod::Fixed rows[9] = {c, -s, 0, s, c, 0, 0, 0, 0x10000};
    for (std::uint32_t i = 0; i < 9; ++i) w.m.put_i32(o.addr() + RaceObject::kMatrix + 4 * i, rows[i]);
    o.set(RaceObject::position, pos);
  }
  Contact contact() { return Contact(w.m, pod::addr::kContact); }
  int test(const RaceObject& a, const RaceObject& b) { return pod::cars::hull_test(w.m, a.addr(), b.addr(), pod::addr::kContact); }
};

const Vec3 kUnit{0x10000, 0x10000, 0x10000};

// F090: the positions must lie within the summed radii on each axis — z too, though the radius is
// the x and y half sizes' only (F148): tall boxes one above the other overlap in reach but fail it.
TEST_F(CarsWorld, F090_PositionsWithinTheSummedRadiiOnEachAxis) {
  const Vec3 tall{0x10000, 0x10000, 5 << 16};
  const RaceObject a = object(0, tall, tall), b = object(1, tall, tall);
  frame(b, 0.0, Vec3{0, 0, 4 << 16});  // |dz| = 4 > 2√2
  EXPECT_EQ(test(a, b), 0);
  frame(b, 0.0, Vec3{0, 0, World::fx(2.5)});  // 2.5 < 2√2: reach 10 along z
  ASSERT_EQ(test(a, b), 1);
  EXPECT_NEAR(contact().get(Contact::overlap) / kU, 7.5, 2.5 * kLength);
  EXPECT_NEAR(contact().get(Contact::normal).z / kU, 1.0, 4.0 / kU);
}

// The reads stop at the first failing test (the table of choices: the original reads only what its
// tests reach, and a replay fails on a byte the port reads beyond them): far apart on x, neither the
// y and z positions nor the matrices nor the half sizes are read.
TEST_F(CarsWorld, HullTestReadsStopAtTheFirstFailingAxis) {
  const RaceObject a = object(0, kUnit, kUnit), b = object(1, kUnit, kUnit);
  frame(b, 0.0, Vec3{10 << 16, 0, 0});
  podtest::RecordingMemory rec(w.m);
  EXPECT_EQ(pod::cars::hull_test(rec, a.addr(), b.addr(), pod::addr::kContact), 0);
  for (const RaceObject& o : {a, b}) {
    EXPECT_FALSE(rec.read_in(o.addr() + 0x70, o.addr() + 0x78)) << "y, z positions";
    EXPECT_FALSE(rec.read_in(o.addr() + RaceObject::kMatrix, o.addr() + RaceObject::kMatrix + 36)) << "matrix";
    const pod::GuestAddr h = o.get(RaceObject::hull);
    EXPECT_FALSE(rec.read_in(h, h + 0xc)) << "half sizes";
  }
  EXPECT_FALSE(rec.wrote_in(pod::addr::kContact, pod::addr::kContact + pod::addr::kContactSize));
}

// F090, F091: along the normal the boxes' reach Σ |n · axis| × half size must pass the distance; the
// overlap is reach − distance. A box turned by 45° reaches √2 along x where an aligned one reaches 1.
TEST_F(CarsWorld, F090_F091_ReachAlongTheNormalPassesTheDistance) {
  const RaceObject a = object(0, kUnit, kUnit), b = object(1, kUnit, kUnit);
  frame(b, 0.0, Vec3{World::fx(2.1), 0, 0});
  EXPECT_EQ(test(a, b), 0) << "reach 2 < 2.1, though within the radii";
  frame(b, 0.0, Vec3{World::fx(1.9), 0, 0});
  ASSERT_EQ(test(a, b), 1);
  EXPECT_NEAR(contact().get(Contact::overlap) / kU, 0.1, 2 * 1.9 * kLength);
  EXPECT_NEAR(contact().get(Contact::distance) / kU, 1.9, 1.9 * kLength);
  frame(b, 0.0, Vec3{World::fx(2.3), 0, 0});
  EXPECT_EQ(test(a, b), 0);
  frame(b, std::numbers::pi / 4, Vec3{World::fx(2.3), 0, 0});
  ASSERT_EQ(test(a, b), 1);
  EXPECT_NEAR(contact().get(Contact::overlap) / kU, 1.0 + std::sqrt(2.0) - 2.3, 3 * 2.3 * kLength);
}

// F090: the centres (position + the hull's centre in the object's frame) must lie within the summed
// radii: positions side by side, but centres pushed apart by the hulls' own centres.
TEST_F(CarsWorld, F090_CentresWithinTheSummedRadii) {
  const RaceObject a = object(0, kUnit, kUnit), b = object(1, kUnit, kUnit);
  frame(b, 0.0, Vec3{World::fx(1.5), 0, 0});
  ASSERT_EQ(test(a, b), 1);
  Hull(w.m, b.get(RaceObject::hull)).set(Hull::centre, Vec3{World::fx(1.5), 0, 0});  // centre at x = 3 > 2√2
  EXPECT_EQ(test(a, b), 0);
}

// F091: the contact is the midpoint of the boxes' facing corners, its spread half their x, y and z
// distances. Aligned unit boxes 1.9 apart: a's corner (1, 1, 1), b's (0.9, −1, −1) — exact, as the
// corners depend on the normal only through its signs.
TEST_F(CarsWorld, F091_ContactIsTheFacingCornersMidpoint) {
  const RaceObject a = object(0, kUnit, kUnit), b = object(1, kUnit, kUnit);
  const pod::Fixed dx = World::fx(1.9);
  frame(b, 0.0, Vec3{dx, 0, 0});
  ASSERT_EQ(test(a, b), 1);
  const pod::Fixed ax = 0x10000, bx = dx - 0x10000;
  EXPECT_EQ(contact().get(Contact::point), (Vec3{(ax + bx) >> 1, 0, 0}));
  EXPECT_EQ(contact().get(Contact::spread), (Vec3{(ax - bx) >> 1, 0x10000, 0x10000}));
}

// F092: wheels 0..3 are parts 6..9, placed by the car's wheel points (their own +0x98 is not read).
TEST_F(CarsWorld, F092_WheelPartsArePlacedByTheCarsWheels) {
  const Vec3 small{0x4000, 0x4000, 0x4000};
  const RaceObject o = object(0, kUnit, small, 10, [](int i) { return Vec3{(i - 3) << 16, 0, 0}; });
  const Car car = w.car(0);
  car.point(1).set(Point::position, Vec3{3 << 16, 5 << 16, 0});  // wheel 1 = part 7
  const Contact c = contact();
  c.set(Contact::point, Vec3{3 << 16, 5 << 16, 0});
  c.set(Contact::spread, Vec3{});
  podtest::RecordingMemory rec(w.m);
  EXPECT_EQ(pod::cars::mark_parts(rec, o.addr(), car.addr(), pod::addr::kContact), 1u << 7);
  const pod::GuestAddr part7 = o.part(7);
  EXPECT_FALSE(rec.read_in(part7 + 0x98, part7 + 0xa4));
  // A body part at the contact: part 1 sits at x = −2.
  c.set(Contact::point, Vec3{-2 << 16, 0, 0x1000});
  EXPECT_EQ(pod::cars::mark_parts(w.m, o.addr(), car.addr(), pod::addr::kContact), 1u << 1);
}

/// Two standard cars side by side along x, 2.9 apart, their objects posed from them: whole hulls
/// and body part 0 (1.5, 1, 0.5); the other parts far above unless `near`.
struct CarsPair : CarsWorld {
  Car a = w.car(0), b = w.car(1);
  void place(bool b_has_parts = true) {
    a = w.standard_car(0, 0, 0, 0, track);
    b = w.standard_car(1, World::fx(2.9), 0, 0, track);
    const Vec3 body{World::fx(1.5), 0x10000, 0x8000};
    object(0, body, body, 10, [](int i) { return i == 0 ? Vec3{} : Vec3{0, 0, 50 << 16}; });
    object(1, body, body, b_has_parts ? 10 : 6, [](int) { return Vec3{0, 0, 50 << 16}; });
    if (b_has_parts) pod::Part(w.m, RaceObject(w.m, w.driver(1).get(pod::Driver::object)).part(0)).set(pod::Part::offset, Vec3{});
    pod::step::pose(w.m, a.addr(), w.driver(0).addr());
    pod::step::pose(w.m, b.addr(), w.driver(1).addr());
    for (int i = 0; i < Car::kWheels; ++i) a.point(i).set(Point::roll_angle, 0), b.point(i).set(Point::roll_angle, 0);
  }
};

// F092: a contact counts only when both cars have a part near it: car b with only far body parts
// (and no wheel parts) takes nothing and neither car moves.
TEST_F(CarsPair, F092_BothCarsNeedAPartNearTheContact) {
  place(false);
  a.set(Car::velocity, Vec3{5 << 16, 0, 0});
  const Vec3 ca = a.get(Car::centre), cb = b.get(Car::centre);
  const pod::cars::PairOut out = pod::cars::pair(w.m, 0, 1);
  EXPECT_FALSE(out.contact);
  EXPECT_EQ(a.get(Car::centre), ca);
  EXPECT_EQ(b.get(Car::centre), cb);
  EXPECT_EQ(a.get(Car::carried_force), Vec3{});
  place(true);
  EXPECT_TRUE(pod::cars::pair(w.m, 0, 1).contact);
}

// F093: the impulse is the closing speed along the normal × ((2 ma mb / (ma + mb)) >> 8) / (dt << 8),
// 0 when the cars part. Exact integer model (the chosen arithmetic: a 64-bit reduced mass, then the
// 16.16 multiply and divide); also about closing × reduced mass / dt in plain units.
TEST_F(CarsWorld, F093_ImpulseFromClosingSpeedAndReducedMass) {
  const Car a = w.car(0), b = w.car(1);
  const std::int64_t ma = 32 << 16, mb = 16 << 16, dt = 0x888, va = World::fx(7.25), vb = World::fx(-1.5);
  a.set(Car::mass, static_cast<pod::Fixed>(ma));
  b.set(Car::mass, static_cast<pod::Fixed>(mb));
  a.set(Car::velocity, Vec3{static_cast<pod::Fixed>(va), 0x1234, 0});
  b.set(Car::velocity, Vec3{static_cast<pod::Fixed>(vb), -0x777, 0});
  const pod::GuestAddr n = w.vec(Vec3{0x10000, 0, 0});
  const std::int64_t closing = va - vb;  // along x: dot16 is exact
  const std::int64_t reduced = (2 * ma * mb / (ma + mb)) >> 8;
  const std::int64_t product = (closing * reduced) >> 16;
  const std::int64_t expected = (product << 16) / (dt << 8);
  EXPECT_EQ(pod::cars::impulse(w.m, a.addr(), b.addr(), n), expected);
  EXPECT_NEAR(static_cast<double>(expected), (closing / kU) * (2.0 * 32 * 16 / 48) / (dt / kU), 30.0);
  // The frame block's +0 (a computer car's scaled time) is not the one used (chosen: +8).
  w.set_dt(0x444);
  EXPECT_EQ(pod::cars::impulse(w.m, a.addr(), b.addr(), n), expected);
  b.set(Car::velocity, Vec3{static_cast<pod::Fixed>(va + 1), 0, 0});  // b runs away: the cars part
  EXPECT_EQ(pod::cars::impulse(w.m, a.addr(), b.addr(), n), 0);
}

// F094: the impulse goes along the car's own axis nearest the normal (its sign towards the normal),
// with the matching torque r × F about the body's centre.
TEST_F(CarsWorld, F094_ImpulseAlongTheNearestOwnAxisWithItsTorque) {
  const Car c = w.car(2);
  const double th = 0.5236;  // 30°: forward (cos, sin), left (−sin, cos)
  const Vec3 fwd{World::fx(std::cos(th)), World::fx(std::sin(th)), 0}, left{World::fx(-std::sin(th)), World::fx(std::cos(th)), 0};
  c.set(Car::forward, fwd);
  c.set(Car::left, left);
  c.set(Car::up, Vec3{0, 0, 0x10000});
  c.set(Car::centre, Vec3{10 << 16, 0, 0});
  const pod::GuestAddr point = w.vec(Vec3{11 << 16, 2 << 16, 0});
  const pod::Fixed j = 3000;
  pod::cars::carry(w.m, c.addr(), w.vec(Vec3{0x10000, 0, 0}), j, point);  // nearest: forward (0.866)
  Vec3 f = c.get(Car::carried_force);
  EXPECT_NEAR(f.x, std::cos(th) * j, 2.0);
  EXPECT_NEAR(f.y, std::sin(th) * j, 2.0);
  EXPECT_EQ(f.z, 0);
  // τ = r × F with r = (1, 2, 0): τz = rx·Fy − ry·Fx (16.16 units of F: F itself is j raw).
  EXPECT_NEAR(c.get(Car::carried_torque).z, (1.0 * std::sin(th) - 2.0 * std::cos(th)) * j, 2.0);
  c.set(Car::carried_force, Vec3{});
  c.set(Car::carried_torque, Vec3{});
  pod::cars::carry(w.m, c.addr(), w.vec(Vec3{0, -0x10000, 0}), j, point);  // nearest: left, negated
  f = c.get(Car::carried_force);
  EXPECT_NEAR(f.x, std::sin(th) * j, 2.0);
  EXPECT_NEAR(f.y, -std::cos(th) * j, 2.0);
}

// F095: the second car is pushed by half the overlap along the normal, the first back, and each has
// its points placed again; F096: posing the drawn objects again turns the wheels by one frame of spin.
TEST_F(CarsPair, F095_F096_PushedApartByHalfTheOverlapPointsAndWheelsFollow) {
  place();
  a.point(0).set(Point::spin, 10 << 16);
  const Vec3 ca = a.get(Car::centre), cb = b.get(Car::centre);
  const Vec3 wa = a.point(2).get(Point::position), wb = b.point(2).get(Point::position);
  const pod::cars::PairOut out = pod::cars::pair(w.m, 0, 1);
  ASSERT_TRUE(out.contact);
  const double half = 0.05;  // the overlap: reach 3 − distance 2.9
  EXPECT_NEAR((b.get(Car::centre).x - cb.x) / kU, half, 2.9 * kLength);
  EXPECT_NEAR((a.get(Car::centre).x - ca.x) / kU, -half, 2.9 * kLength);
  EXPECT_EQ(b.get(Car::centre).y, cb.y);
  EXPECT_EQ(b.point(2).get(Point::position).x - wb.x, b.get(Car::centre).x - cb.x);
  EXPECT_EQ(a.point(2).get(Point::position).x - wa.x, a.get(Car::centre).x - ca.x);
  EXPECT_EQ(a.point(0).get(Point::roll_angle), 10 * 0x888);  // one frame (0x888) of 10 rad/s
  // The drawn object follows the pushed car (F089).
  const RaceObject ob(w.m, w.driver(1).get(pod::Driver::object));
  EXPECT_EQ(ob.get(RaceObject::position).x, b.point(Car::kChassis).get(Point::position).x);
}

// F097: an impulse over 0x2000 sets the contact bit +0x4f9 0x20 in both cars when neither has it and
// the first car plays slot 7; a weaker one clears it when both have it.
TEST_F(CarsPair, F097_ContactBitAndSlotSeven) {
  place();
  a.set(Car::velocity, Vec3{10 << 16, 0, 0});  // 10 × 32 / (0x888 / 65536) ≈ 9600 > 0x2000
  pod::cars::PairOut out = pod::cars::pair(w.m, 0, 1);
  ASSERT_GT(out.impulse, 0x2000);
  EXPECT_EQ(a.get(Car::sound_state) & 0x20, 0x20);
  EXPECT_EQ(b.get(Car::sound_state) & 0x20, 0x20);
  ASSERT_EQ(out.sounds.size(), 1u);
  EXPECT_EQ(out.sounds[0], (std::pair<pod::GuestAddr, std::int32_t>{a.addr(), 7}));
  // Both have it, a weak contact (4 units/s: ≈ 3840): cleared in both.
  place();
  a.set(Car::sound_state, std::uint8_t{0x21});
  b.set(Car::sound_state, std::uint8_t{0x20});
  a.set(Car::velocity, Vec3{4 << 16, 0, 0});
  out = pod::cars::pair(w.m, 0, 1);
  ASSERT_TRUE(out.contact);
  ASSERT_LE(out.impulse, 0x2000);
  EXPECT_EQ(a.get(Car::sound_state), 0x01);
  EXPECT_EQ(b.get(Car::sound_state), 0x00);
  EXPECT_TRUE(out.sounds.empty());
  // One has it, a strong contact: nothing changes, no sound.
  place();
  b.set(Car::sound_state, std::uint8_t{0x20});
  a.set(Car::velocity, Vec3{10 << 16, 0, 0});
  out = pod::cars::pair(w.m, 0, 1);
  EXPECT_EQ(a.get(Car::sound_state) & 0x20, 0);
  EXPECT_TRUE(out.sounds.empty());
  // Only the second has it, a weak contact: not both, so it stays in the second.
  place();
  a.set(Car::sound_state, std::uint8_t{0x00});
  b.set(Car::sound_state, std::uint8_t{0x20});
  a.set(Car::velocity, Vec3{4 << 16, 0, 0});
  out = pod::cars::pair(w.m, 0, 1);
  ASSERT_TRUE(out.contact);
  ASSERT_LE(out.impulse, 0x2000);
  EXPECT_EQ(a.get(Car::sound_state), 0x00);
  EXPECT_EQ(b.get(Car::sound_state), 0x20);
}

// F088: the collision pass takes each pair of racers once, in order, among the racers counted
// ([0x61d5bc] humans + [0x61d5c0] computers): cars 0, 1, 2 in a row 2.9 apart touch as (0, 1) and
// (1, 2); car 3, touching car 2, is not a racer of this race.
TEST_F(CarsPair, F088_EveryPairOnceInOrder) {
  place();
  const Car c = w.standard_car(2, World::fx(5.8), 0, 0, track);
  const Car d = w.standard_car(3, World::fx(8.7), 0, 0, track);
  const Vec3 body{World::fx(1.5), 0x10000, 0x8000};
  for (int r = 2; r < 4; ++r) {
    object(r, body, body, 10, [](int i) { return i == 0 ? Vec3{} : Vec3{0, 0, 50 << 16}; });
    pod::step::pose(w.m, w.car(r).addr(), w.driver(r).addr());
  }
  w.m.put_i32(pod::addr::kHumanRacers, 1);
  w.m.put_i32(pod::addr::kComputerRacers, 2);
  const Vec3 cd = d.get(Car::centre);
  const std::vector<pod::cars::PairOut> contacts = pod::cars::collisions(w.m);
  ASSERT_EQ(contacts.size(), 2u);
  EXPECT_EQ(contacts[0].racer_a, 0);
  EXPECT_EQ(contacts[0].racer_b, 1);
  EXPECT_EQ(contacts[1].racer_a, 1);
  EXPECT_EQ(contacts[1].racer_b, 2);
  EXPECT_EQ(d.get(Car::centre), cd);
  EXPECT_GT(c.get(Car::centre).x, World::fx(5.8));
}

}  // namespace
