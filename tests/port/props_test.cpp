// The props against the documents (F110..F121, F150). Expected values come
// from the documents' words by hand arithmetic or from exact integer models written here (16.16
// multiply = floor of the 64-bit product / 2^16; divide = (a << 16) / b truncated), never from the
// port; where a rule is the table of choices' (port/CHOICES.md "Props"), the test says so.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "pod/cars.hpp"
#include "pod/layout.hpp"
#include "pod/props.hpp"
#include "pod/step.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Fixed;
using pod::GuestAddr;
using pod::Prop;
using pod::PropPoint;
using pod::RaceObject;
using pod::Vec3;
using podtest::World;

constexpr double kU = 65536.0;
constexpr Fixed kDt = 0x888;
constexpr GuestAddr kHeapStart = 0x652000;

std::int64_t mul16_model(std::int64_t a, std::int64_t b) { return (a * b) >> 16; }
std::int64_t div16_model(std::int64_t a, std::int64_t b) { return (a * 65536) / b; }

struct PointSpec {
  Fixed radius;
  Vec3 offset;
  Fixed mass;
};

struct TypeSpec {
  GuestAddr object = 0x1234;
  Vec3 half{0x8000, 0x8000, 0x8000};
  Fixed radius = World::fx(std::hypot(0.5, 0.5));
  Vec3 centre{};
  Fixed mass = 0x10000;
  Vec3 inertia{0x8000, 0x8000, 0x8000};
  Fixed health = 100 << 16;
  Fixed friction = 0x10000;
  GuestAddr chain = 0;
  std::vector<PointSpec> points;
};

struct PropSpec {
  std::uint32_t type = 0;
  Vec3 position{};
  GuestAddr macro_list = 0;
};

/// A unit box: its eight corners as points of mass 1/8 (the centre of mass at its middle).
TypeSpec box() {
  TypeSpec t;
  for (int c = 0; c < 8; ++c) {
    const Fixed x = (c & 1) ? 0x8000 : -0x8000, y = (c & 2) ? 0x8000 : -0x8000, z = (c & 4) ? 0x8000 : -0x8000;
    t.points.push_back({0, Vec3{x, y, z}, 0x2000});
  }
  return t;
}

/// A plank: two points at x = ±0.5 (mass 1/2 each) level with its centre of mass.
TypeSpec plank() {
  TypeSpec t;
  t.points.push_back({0, Vec3{-0x8000, 0, 0}, 0x8000});
  t.points.push_back({0, Vec3{0x8000, 0, 0}, 0x8000});
  return t;
}

struct PropsWorld : ::testing::Test {
  World w;
  GuestAddr track = 0;
  void SetUp() override {
    w.m.map(pod::addr::kRaceObjects, 8 * pod::addr::kRaceObjectSize);
    w.m.map(pod::addr::kHumanRacers, 12);
    w.m.map(0x633300, 0x60);  // the damage option words (0 = off)
    w.m.map(kHeapStart, 0x10000);  // the free memory the list is built in
    track = w.flat_track({0});  // one sector: x, y in [-50, 50], a ground quad at z = 0
    w.set_dt(kDt);
    w.m.put_i32(pod::addr::kFrameTime + 8, kDt);
  }
  /// The environment's bytes in the chosen format (port/CHOICES.md "Props").
  GuestAddr environment(const std::vector<TypeSpec>& types, const std::vector<PropSpec>& props) {
    std::vector<std::int32_t> words{static_cast<std::int32_t>(types.size())};
    for (const TypeSpec& t : types) {
      const std::int32_t head[] = {static_cast<std::int32_t>(t.object), t.half.x, t.half.y, t.half.z, t.radius,
                                   t.centre.x, t.centre.y, t.centre.z, t.mass, t.inertia.x, t.inertia.y, t.inertia.z,
                                   t.health, t.friction, static_cast<std::int32_t>(t.chain),
                                   static_cast<std::int32_t>(t.points.size())};
      words.insert(words.end(), std::begin(head), std::end(head));
      for (const PointSpec& p : t.points) words.insert(words.end(), {p.radius, p.offset.x, p.offset.y, p.offset.z, p.mass});
    }
    words.push_back(static_cast<std::int32_t>(props.size()));
    for (const PropSpec& p : props) {
      const std::int32_t entry[] = {static_cast<std::int32_t>(p.type), static_cast<std::int32_t>(p.macro_list),
                                    p.position.x, p.position.y, p.position.z, 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x10000};
      words.insert(words.end(), std::begin(entry), std::end(entry));
    }
    const GuestAddr at = w.alloc(static_cast<std::uint32_t>(4 * words.size()));
    for (std::size_t i = 0; i < words.size(); ++i) w.m.put_i32(at + 4 * static_cast<std::uint32_t>(i), words[i]);
    return at;
  }
  GuestAddr build(const std::vector<TypeSpec>& types, const std::vector<PropSpec>& props) {
    return pod::props::build(w.m, environment(types, props), kHeapStart);
  }
  Prop prop(std::uint32_t i) { return Prop(w.m, w.m.u32(pod::addr::kProps) + 0xd0 * i); }
  PropPoint point(std::uint32_t i, std::uint32_t k) { return PropPoint(w.m, prop(i).point(k)); }
  std::uint8_t flag(std::uint32_t i) { return w.m.u8(pod::addr::kPropHitFlags + i); }
  std::int32_t count() { return w.m.i32(pod::addr::kPropCount); }
  GuestAddr ground_quad() { return pod::Mesh(w.m, pod::Sector(w.m, track).get(pod::Sector::mesh)).get(pod::Mesh::quads); }
};

// F110: prop records are 0xd0 bytes at [0x62129c], [0x621298] of them; contact points 0x40 bytes. Each
// prop is a copy of its type (002) with its own points; the position and matrix come from the file.
TEST_F(PropsWorld, F110_RecordsOf0xd0AndPointsOf0x40) {
  EXPECT_EQ(Prop::kSize, 0xd0u);
  EXPECT_EQ(PropPoint::kSize, 0x40u);
  TypeSpec cone;
  cone.mass = 0x30000;
  cone.points = {{0x1000, Vec3{0, 0, 0}, 0x30000}};
  const GuestAddr end = build({box(), cone}, {{1, Vec3{1 << 16, 2 << 16, 3 << 16}, 0x99}, {0, Vec3{4 << 16, 0, 1 << 16}, 0}, {1, Vec3{-5 << 16, 0, 0}, 0}});
  ASSERT_EQ(count(), 3);
  const GuestAddr list = w.m.u32(pod::addr::kProps);
  EXPECT_EQ(prop(1).addr() - list, 0xd0u);
  EXPECT_EQ(prop(2).addr() - list, 2 * 0xd0u);
  EXPECT_EQ(prop(0).get(Prop::point_count), 1);
  EXPECT_EQ(prop(1).get(Prop::point_count), 8);
  EXPECT_EQ(prop(1).point(1) - prop(1).point(0), 0x40u);
  EXPECT_NE(prop(0).get(Prop::points), prop(2).get(Prop::points));  // each its own points
  EXPECT_EQ(prop(0).get(Prop::hull), prop(2).get(Prop::hull));      // one hull per type
  EXPECT_EQ(prop(0).get(Prop::mass), 0x30000);
  EXPECT_EQ(prop(0).get(Prop::position), (Vec3{1 << 16, 2 << 16, 3 << 16}));
  EXPECT_EQ(prop(0).get(Prop::macro_list), 0x99u);
  EXPECT_EQ(prop(0).axis(0), (Vec3{0x10000, 0, 0}));
  EXPECT_EQ(point(0, 0).get(PropPoint::radius), 0x1000);
  EXPECT_EQ(point(0, 0).get(PropPoint::sector), track);  // the sector that holds the position
  for (std::uint32_t i = 0; i < 3; ++i) EXPECT_EQ(flag(i), 0);
  // The free memory: two type records, their hulls and points (1 + 8), the list, the props' points.
  EXPECT_EQ(end - kHeapStart, 2 * 0xd0u + 2 * 0x1cu + 9 * 0x40u + 3 * 0xd0u + (1 + 8 + 1) * 0x40u);
  EXPECT_EQ(list, kHeapStart + 2 * 0xd0u + 2 * 0x1cu + 9 * 0x40u);
}

// F150: the centre of mass is Σ point offset × point mass, scaled by 2^32 / the prop's mass (A29: the
// point's mass and the prop's mass, chosen), and is taken off every point's offset and the hull's centre.
// Masses 1 and 3 at x = 2 and x = -2, the prop's mass 4: centre (2 - 6) / 4 = -1; with the prop's mass 8
// (more than its points'), -0.5.
TEST_F(PropsWorld, F150_CentreOfMassTakenOffThePointsAndTheHull) {
  TypeSpec t;
  t.mass = 4 << 16;
  t.centre = Vec3{0x8000, 0, 0};
  t.points = {{0, Vec3{2 << 16, 1 << 16, 0}, 1 << 16}, {0, Vec3{-2 << 16, 1 << 16, 0}, 3 << 16}};
  TypeSpec heavy = t;
  heavy.mass = 8 << 16;
  build({t, heavy}, {{0, {}, 0}, {1, {}, 0}});
  EXPECT_EQ(point(0, 0).get(PropPoint::offset), (Vec3{3 << 16, 0, 0}));  // y: (1 + 3) / 4 = 1 taken off
  EXPECT_EQ(point(0, 1).get(PropPoint::offset), (Vec3{-1 << 16, 0, 0}));
  EXPECT_EQ(pod::Hull(w.m, prop(0).get(Prop::hull)).get(pod::Hull::centre), (Vec3{0x18000, -1 << 16, 0}));
  EXPECT_EQ(point(1, 0).get(PropPoint::offset), (Vec3{0x28000, 0x8000, 0}));
  EXPECT_EQ(point(1, 1).get(PropPoint::offset), (Vec3{-0x18000, 0x8000, 0}));
}

// F112: an impulse J gives the prop the force J along the normal and its torque r × F, and takes J / 2
// off the health (the hit flag is the caller's); when that runs out, without a chain the health stays 0, with one the prop becomes its
// template (hull, chain, health) and keeps the excess below 0 (at least 0), as a car's part does.
TEST_F(PropsWorld, F112_HalfTheImpulseOffTheHealth) {
  TypeSpec t = box();
  t.health = 0x20000;
  build({t}, {{0, Vec3{0, 0, 5 << 16}, 0}});
  const GuestAddr n = w.vec(Vec3{0x10000, 0, 0});
  const GuestAddr at = w.vec(Vec3{0, 1 << 16, 5 << 16});  // one unit to the prop's left
  pod::props::impulse(w.m, prop(0).addr(), n, 0x30000, at);
  EXPECT_EQ(prop(0).get(Prop::health), 0x20000 - 0x18000);
  EXPECT_EQ(prop(0).get(Prop::force), (Vec3{0x30000, 0, 0}));
  EXPECT_EQ(prop(0).get(Prop::torque), (Vec3{0, 0, -0x30000}));  // (0, 1, 0) × (3, 0, 0)
  EXPECT_EQ(flag(0), 0);
  pod::props::impulse(w.m, prop(0).addr(), n, 0x30000, at);  // runs out, no chain
  EXPECT_EQ(prop(0).get(Prop::health), 0);
  // With a chain: the template's health 0x10000 plus the excess (0x8000 - 0x18000).
  const GuestAddr templ = w.alloc(0xd0);
  w.m.put_u32(templ + 0x34, 0x4444);
  w.m.put_i32(templ + 0x3c, 0x40000);
  const GuestAddr element = w.alloc(12);
  w.m.put_u32(element, pod::addr::kToTemplate);
  w.m.put_u32(element + 4, templ);
  prop(0).set(Prop::health, 0x8000);
  prop(0).set(Prop::chain, element);
  pod::props::impulse(w.m, prop(0).addr(), n, 0x30000, at);
  EXPECT_EQ(prop(0).get(Prop::hull), 0x4444u);
  EXPECT_EQ(prop(0).get(Prop::health), 0x40000 + 0x8000 - 0x18000);
}

struct PropsCar : PropsWorld {
  Car car = w.car(0);
  RaceObject object{w.m, pod::addr::kRaceObjects};
  void SetUp() override {
    PropsWorld::SetUp();
    w.m.put_i32(pod::addr::kHumanRacers, 1);
    car = w.standard_car(0, 0, 0, 0, track);
    const GuestAddr list = w.alloc(40);
    object.set(RaceObject::part_count, 10);
    object.set(RaceObject::parts, list);
    object.set(RaceObject::hull, hull(Vec3{World::fx(1.5), 0x10000, 0x8000}));
    for (int i = 0; i < 10; ++i) {
      const pod::Part p(w.m, w.alloc(pod::Part::kSize));
      p.set(pod::Part::hull, hull(Vec3{World::fx(1.5), 0x10000, 0x8000}));
      p.set(pod::Part::health, 2000000);
      w.m.put_u32(list + 4 * static_cast<std::uint32_t>(i), p.addr());
    }
    w.driver(0).set(pod::Driver::object, object.addr());
    pod::step::pose(w.m, car.addr(), w.driver(0).addr());
  }
  GuestAddr hull(const Vec3& half) {
    const pod::Hull h(w.m, w.alloc(pod::Hull::kSize));
    h.set(pod::Hull::half, half);
    h.set(pod::Hull::radius, World::fx(std::hypot(half.x / kU, half.y / kU)));
    return h.addr();
  }
  /// The car's box centre in the world (its object's position, the hull centred on it).
  Vec3 box_centre() { return object.get(RaceObject::position); }
};

// F111: a car against a prop. The car's front (1.5 ahead) and the box (0.5 half) overlap by 0.1 when the
// box sits 1.9 ahead: the prop is pushed by half the overlap along the normal and given the impulse
// (closing speed × (2 m_car m_prop / (m_car + m_prop)) / dt, F093's rule), the car pushed back by as
// much and given the opposite impulse along its nose. A box 2.1 ahead is missed: nothing moves.
TEST_F(PropsCar, F111_CarAgainstPropPushesBothAndExchangesTheImpulse) {
  const Vec3 c = box_centre();
  TypeSpec t = box();
  t.health = 1000 << 16;
  build({t}, {{0, Vec3{c.x + World::fx(2.1), c.y, c.z}, 0}});
  car.set(Car::velocity, Vec3{5 << 16, 0, 0});
  EXPECT_EQ(pod::props::car_hit(w.m, 0, 0), 0);
  EXPECT_EQ(prop(0).get(Prop::force), Vec3{});
  EXPECT_EQ(flag(0), 0);

  prop(0).set(Prop::position, Vec3{c.x + World::fx(1.9), c.y, c.z});
  const Vec3 centre0 = car.get(Car::centre);
  ASSERT_EQ(pod::props::car_hit(w.m, 0, 0), 1);
  const Fixed j = prop(0).get(Prop::force).x;  // the impulse along the normal (1, 0, 0)
  const double reduced = 2.0 * 32 * 1 / 33;  // car 32, box 1
  const double expected = 5.0 * reduced / (kDt / kU);  // in 16.16 units, as F093's rule gives it
  EXPECT_NEAR(j, expected, expected * 0.01);
  EXPECT_NEAR((prop(0).get(Prop::position).x - c.x) / kU, 1.9 + 0.05, 0.002);
  EXPECT_NEAR((car.get(Car::centre).x - centre0.x) / kU, -0.05, 0.002);
  EXPECT_NEAR(car.get(Car::carried_force).x, -j, 2.0);
  EXPECT_EQ(flag(0), 1);
  EXPECT_NEAR(prop(0).get(Prop::health), (1000 << 16) - j / 2, 2.0);  // F112
}

// F113: a hit prop pushes each prop it touches with a quarter of the impulse (F093's rule between the two
// props: closing speed 10 × (2 · 1 · 1 / 2) / dt, about 300 in 16.16), and takes a quarter back; the
// touched prop is hit in turn.
TEST_F(PropsWorld, F113_AQuarterOfTheImpulseToEachTouchedProp) {
  build({box()}, {{0, Vec3{0, 0, 5 << 16}, 0}, {0, Vec3{World::fx(0.9), 0, 5 << 16}, 0}, {0, Vec3{3 << 16, 0, 5 << 16}, 0}});
  prop(0).set(Prop::velocity, Vec3{10 << 16, 0, 0});
  pod::props::knock(w.m, 0);
  const double quarter = 10.0 * 1.0 / (kDt / kU) / 4;
  EXPECT_NEAR(prop(1).get(Prop::force).x, quarter, 2.0);
  EXPECT_NEAR(prop(0).get(Prop::force).x, -quarter, 2.0);
  EXPECT_EQ(flag(1), 1);
  EXPECT_EQ(prop(2).get(Prop::force), Vec3{});  // not touching
  EXPECT_EQ(flag(2), 0);
}

// F114: props hand on what they rest on: one on top of the other (the contact normal's slant, its z, past
// 0.885) rests on the plane of that normal, kept in the record at 0x4f9440; side by side (slant 0.866,
// under 0.885), the one with no face takes the other's.
TEST_F(PropsWorld, F114_HandOnTheFaceOrTheSlantRecord) {
  const auto at_angle = [](double degrees) {
    const double r = degrees * std::acos(-1.0) / 180.0;
    return Vec3{World::fx(0.9 * std::cos(r)), 0, (5 << 16) + World::fx(0.9 * std::sin(r))};
  };
  build({box()}, {{0, Vec3{0, 0, 5 << 16}, 0}, {0, at_angle(65.0), 0}});
  pod::props::knock(w.m, 0);
  EXPECT_EQ(prop(1).get(Prop::ground), pod::addr::kPropRest);
  EXPECT_EQ(prop(1).get(Prop::held), 1u);
  const Vec3 up = w.m.vec3(pod::addr::kPropRest);
  EXPECT_NEAR(up.z / kU, std::sin(65.0 * std::acos(-1.0) / 180.0), 0.002);
  EXPECT_EQ(prop(1).get(Prop::rest_point), w.m.vec3(pod::addr::kPropRest + 12));

  prop(1).set(Prop::ground, 0u);
  prop(1).set(Prop::position, at_angle(60.0));
  prop(0).set(Prop::ground, ground_quad());
  prop(0).set(Prop::rest_point, Vec3{7, 8, 9});
  prop(1).set(Prop::held, 0u);
  pod::props::knock(w.m, 0);
  EXPECT_EQ(prop(1).get(Prop::ground), ground_quad());
  EXPECT_EQ(prop(1).get(Prop::rest_point), (Vec3{7, 8, 9}));
  EXPECT_EQ(prop(1).get(Prop::held), 1u);
}

// F115: gravity on each contact point is its mass × 0x2d. A box in the air (8 points of 1/8): each
// point's force is -0x2000 × 45 in z; the whole prop (mass 1) gains 45 × dt of downward speed.
TEST_F(PropsWorld, F115_GravityIsThePointMassTimes0x2d) {
  build({box()}, {{0, Vec3{0, 0, 5 << 16}, 0}});
  pod::props::motion(w.m, 0);
  for (std::uint32_t k = 0; k < 8; ++k) EXPECT_EQ(point(0, k).get(PropPoint::force), (Vec3{0, 0, -0x2000 * 45}));
  EXPECT_EQ(prop(0).get(Prop::velocity), (Vec3{0, 0, -45 * kDt}));
}

// F116: a point below a plane is pushed out by depth × mass / dt². The box's four bottom points sit 0.01
// (655/65536) under the ground: each is pushed up by about 0.01 × 1/8 / dt² (1.125 in the exact model:
// dt² = 72/65536 in 16.16).
TEST_F(PropsWorld, F116_PushedOutByDepthTimesMassOverDtSquared) {
  build({box()}, {{0, Vec3{0, 0, 0x8000 - 655}, 0}});
  pod::props::motion(w.m, 0);
  const std::int64_t expected = div16_model(mul16_model(655, 0x2000), mul16_model(kDt, kDt));
  const double dt = kDt / kU;
  for (std::uint32_t k = 0; k < 4; ++k) {
    EXPECT_EQ(point(0, k).get(PropPoint::push), (Vec3{0, 0, static_cast<Fixed>(expected)}));
    EXPECT_NEAR(point(0, k).get(PropPoint::push).z / kU, (655 / kU) * 0.125 / (dt * dt), 0.02);
    EXPECT_EQ(point(0, k).get(PropPoint::flags), PropPoint::kUnderGround);
  }
  for (std::uint32_t k = 4; k < 8; ++k) EXPECT_EQ(point(0, k).get(PropPoint::flags), 0u);
}

// F117: on the ground the force along it is cancelled while it stays small (the limit chosen: the
// friction × the prop's weight, mass × 0x2d). A sliding plank (not slow, so it does not settle) keeps its
// speed along x under a small push, and gains speed under a large one.
TEST_F(PropsWorld, F117_ForceAlongTheGroundCancelledWhileSmall) {
  build({plank()}, {{0, Vec3{0, 0, -655}, 0}});
  prop(0).set(Prop::velocity, Vec3{2 << 16, 0, 0});
  prop(0).set(Prop::force, Vec3{World::fx(0.2), 0, 0});
  pod::props::motion(w.m, 0);
  EXPECT_EQ(prop(0).get(Prop::velocity).x, 2 << 16);
  // The limit: friction 1 × weight 45; 60 along is more.
  build({plank()}, {{0, Vec3{0, 0, -655}, 0}});
  prop(0).set(Prop::velocity, Vec3{2 << 16, 0, 0});
  prop(0).set(Prop::force, Vec3{60 << 16, 0, 0});
  pod::props::motion(w.m, 0);
  EXPECT_EQ(prop(0).get(Prop::velocity).x, (2 << 16) + mul16_model(div16_model(60 << 16, 0x10000), kDt));
}

// F118: the velocity first, then the position by the half step's velocity ((old + new) / 2 × dt: 36.4 /
// 65536 for 1 unit/s² from rest, where the new velocity would give twice that), the spin per axis by the
// inertia (torque 1 about z, inertia 0.5: 2 × dt), and the axes turned by it and squared again.
TEST_F(PropsWorld, F118_VelocityPositionByTheHalfStepSpinAndAxes) {
  TypeSpec t;
  t.inertia = Vec3{0x8000, 0x8000, 0x8000};
  t.points = {{0, Vec3{}, 0x10000}};
  build({t}, {{0, Vec3{0, 0, 5 << 16}, 0}});
  prop(0).set(Prop::force, Vec3{0x10000, 0, 45 << 16});  // gravity (45) balanced
  prop(0).set(Prop::torque, Vec3{0, 0, 0x10000});
  pod::props::motion(w.m, 0);
  EXPECT_EQ(prop(0).get(Prop::velocity), (Vec3{kDt, 0, 0}));
  EXPECT_EQ(prop(0).get(Prop::position).x, mul16_model(kDt / 2, kDt));
  EXPECT_NEAR(prop(0).get(Prop::position).x, (kDt / kU) * (kDt / kU) / 2 * kU, 0.5);
  EXPECT_EQ(prop(0).get(Prop::spin), (Vec3{0, 0, 2 * kDt}));
  const Vec3 x = prop(0).axis(0), y = prop(0).axis(1), z = prop(0).axis(2);
  const double angle = 2.0 * (kDt / kU) * (kDt / kU);  // spin × dt
  EXPECT_NEAR(x.y / kU, angle, 3.0 / kU);
  EXPECT_NEAR(y.x / kU, -angle, 3.0 / kU);
  const auto dot = [](const Vec3& a, const Vec3& b) { return (double(a.x) * b.x + double(a.y) * b.y + double(a.z) * b.z) / (kU * kU); };
  EXPECT_NEAR(dot(x, x), 1.0, 1e-3);
  EXPECT_NEAR(dot(y, y), 1.0, 1e-3);
  EXPECT_NEAR(dot(x, y), 0.0, 1e-3);
  EXPECT_NEAR(dot(x, z), 0.0, 1e-3);
}

// F119: on the ground the spin dies × 0.916 a step (0xea7f, the nearest 16.16); in the air it is kept.
TEST_F(PropsWorld, F119_SpinDecaysOnTheGround) {
  EXPECT_EQ(pod::props::kSpinDecay, static_cast<Fixed>(std::lround(0.916 * kU)));
  build({plank()}, {{0, Vec3{0, 0, -655}, 0}, {0, Vec3{10 << 16, 0, 5 << 16}, 0}});
  for (std::uint32_t i = 0; i < 2; ++i) {
    prop(i).set(Prop::spin, Vec3{0x10000, 0, 0});
    prop(i).set(Prop::velocity, Vec3{2 << 16, 0, 0});
    pod::props::motion(w.m, i);
  }
  EXPECT_EQ(prop(0).get(Prop::spin), (Vec3{0xea7f, 0, 0}));  // the two pushes' torques cancel
  EXPECT_EQ(prop(1).get(Prop::spin), (Vec3{0x10000, 0, 0}));
  // On the ground by one point: a post with its foot at its centre of mass (no torque from the push)
  // and its head 1 above, in the air. One point is on the ground: the spin decays all the same.
  TypeSpec post;
  post.points.push_back({0, Vec3{0, 0, 0}, 0x8000});
  post.points.push_back({0, Vec3{0, 0, 0x10000}, 0x8000});
  build({post}, {{0, Vec3{0, 0, -655}, 0}});
  prop(0).set(Prop::spin, Vec3{0x10000, 0, 0});
  pod::props::motion(w.m, 0);
  EXPECT_EQ(prop(0).get(Prop::spin), (Vec3{0xea7f, 0, 0}));
}

// F120: a slow prop resting on three points or more settles: its hit flag is cleared ("slow" chosen:
// velocity and spin under 0.5). On two points it does not. The box sits 6480/65536 deep, where its four
// pushes (each 810 × 65536 / 72 in the exact model) carry its weight of 45.
TEST_F(PropsWorld, F120_SettlesOnThreePointsOrMore) {
  build({box(), plank()}, {{0, Vec3{0, 0, 0x8000 - 6480}, 0}, {1, Vec3{10 << 16, 0, -6480}, 0}});
  w.m.put_u8(pod::addr::kPropHitFlags, 1);
  w.m.put_u8(pod::addr::kPropHitFlags + 1, 1);
  pod::props::motion(w.m, 0);
  pod::props::motion(w.m, 1);
  EXPECT_EQ(flag(0), 0);
  EXPECT_EQ(flag(1), 1);
  // Moving: not settled.
  build({box()}, {{0, Vec3{0, 0, 0x8000 - 6480}, 0}});
  w.m.put_u8(pod::addr::kPropHitFlags, 1);
  prop(0).set(Prop::velocity, Vec3{0x9000, 0, 0});
  pod::props::motion(w.m, 0);
  EXPECT_EQ(flag(0), 1);
}

// F121: a prop 8 below its sector (its low bound, A13) with nothing under it is removed; the list closes
// up and the pass skips the prop that moves into its place. Prop 0 off the track's edge 9 below the
// bound falls out; props 1 and 2 in the air: after the pass, the old prop 1 (now 0) has not moved, the
// old prop 2 (now 1) has.
TEST_F(PropsWorld, F121_FallenPropRemovedAndTheNextSkipped) {
  const Vec3 p1{0, 0, 5 << 16}, p2{20 << 16, 0, 5 << 16};
  build({box()}, {{0, Vec3{60 << 16, 0, -11 << 16}, 0}, {0, p1, 0x11}, {0, p2, 0x22}});
  for (std::uint32_t i = 0; i < 3; ++i) w.m.put_u8(pod::addr::kPropHitFlags + i, 1);
  pod::cars::collisions(w.m);
  ASSERT_EQ(count(), 2);
  EXPECT_EQ(prop(0).get(Prop::macro_list), 0x11u);
  EXPECT_EQ(prop(0).get(Prop::position), p1);
  EXPECT_EQ(prop(1).get(Prop::macro_list), 0x22u);
  EXPECT_LT(prop(1).get(Prop::position).z, p2.z);
  // 7 below the bound: kept.
  build({box()}, {{0, Vec3{60 << 16, 0, -9 << 16}, 0}});
  pod::props::motion(w.m, 0);
  EXPECT_EQ(count(), 1);
}

// F122: with no ground face the rest point is written 0 (where the original leaves a value its search
// never set); the ground face too.
TEST_F(PropsWorld, F122_NoGroundFaceRestPointZero) {
  build({box()}, {{0, Vec3{60 << 16, 0, 0}, 0}, {0, Vec3{0, 0, 0x8000}, 0}});
  prop(0).set(Prop::ground, 0x1111u);
  prop(0).set(Prop::rest_point, Vec3{1, 2, 3});
  pod::props::faces(w.m, prop(0).addr());
  EXPECT_EQ(prop(0).get(Prop::ground), 0u);
  EXPECT_EQ(prop(0).get(Prop::rest_point), Vec3{});
  pod::props::faces(w.m, prop(1).addr());  // over the quad, within the band: the quad and its corner 0
  EXPECT_EQ(prop(1).get(Prop::ground), ground_quad());
  EXPECT_EQ(prop(1).get(Prop::rest_point), (Vec3{-50 << 16, -50 << 16, 0}));
}

// props::remove closes the list up: records and hit flags after the prop move down one, the count drops.
TEST_F(PropsWorld, RemoveClosesTheListUp) {
  build({box()}, {{0, {}, 1}, {0, {}, 2}, {0, {}, 3}});
  w.m.put_u8(pod::addr::kPropHitFlags + 2, 1);
  pod::props::remove(w.m, 0);
  EXPECT_EQ(count(), 2);
  EXPECT_EQ(prop(0).get(Prop::macro_list), 2u);
  EXPECT_EQ(prop(1).get(Prop::macro_list), 3u);
  EXPECT_EQ(flag(1), 1);
  EXPECT_EQ(flag(2), 0);  // the last flag cleared
}

// What a renderer reads: each prop's record, drawn object, position and axes, in list order.
TEST_F(PropsWorld, PosesForDrawing) {
  TypeSpec t = box();
  t.object = 0xabc;
  build({t}, {{0, Vec3{1 << 16, 2 << 16, 3 << 16}, 0}, {0, Vec3{-4 << 16, 0, 0}, 0}});
  prop(1).set_axis(0, Vec3{0, 0x10000, 0});
  const std::vector<pod::props::Pose> poses = pod::props::poses(w.m);
  ASSERT_EQ(poses.size(), 2u);
  EXPECT_EQ(poses[0].record, prop(0).addr());
  EXPECT_EQ(poses[0].object, 0xabcu);
  EXPECT_EQ(poses[0].position, (Vec3{1 << 16, 2 << 16, 3 << 16}));
  EXPECT_EQ(poses[0].axes[2], (Vec3{0, 0, 0x10000}));
  EXPECT_EQ(poses[1].axes[0], (Vec3{0, 0x10000, 0}));
}

// With no props the collision pass reads the count and writes nothing the car pairs do not.
TEST_F(PropsWorld, NoPropsNoWritesBeyondTheCarPairs) {
  podtest::RecordingMemory rec(w.m);
  pod::cars::collisions(rec);
  EXPECT_TRUE(rec.read_in(pod::addr::kPropCount, pod::addr::kPropCount + 4));
  EXPECT_FALSE(rec.wrote_in(0, 0xffffffffu));
}

}  // namespace
