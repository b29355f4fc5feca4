// Track contact against the documents (F069..F075).
#include <gtest/gtest.h>

#include "pod/collide.hpp"
#include "pod/math.hpp"
#include "pod/suspension.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Point;
using pod::Vec3;
using podtest::World;

struct FactsCollide : ::testing::Test {
  World w;
  pod::GuestAddr table = w.flat_track({0, 0, 0});  // three sectors along x, linked k−1, k+1
  pod::GuestAddr sector(int k) { return table + pod::Sector::kSize * static_cast<std::uint32_t>(k); }
  Car car = w.standard_car(0, 0, 0, 0, sector(0));
  pod::GuestAddr quad(int k) { return w.m.u32(w.m.u32(sector(k)) + pod::Mesh::quads.offset); }
  pod::GuestAddr mesh(int k) { return w.m.u32(sector(k)); }
  void SetUp() override { w.set_dt(0x1000); }
  void place_wheel(int i, const Vec3& pos) { car.point(i).set(Point::position, pos); }
  bool touching(int i) { return car.point(i).get(Point::touching) != 0; }
  // Wheels 1..3 far above the track, so that wheel 0 is alone (no free-wheel test, F077).
  void lift_others() {
    for (int i = 1; i < 4; ++i) {
      car.point(i).set(Point::position, Vec3{0, 0, 500 << 16});
      car.point(i).set(Point::touching, std::uint8_t{0});
      car.point(i).set(Point::face_mesh, 0);
    }
  }
};

// F071: a point over a quad is tested by the side of its A–C diagonal: 1 over a b c, 2 over c d a.
TEST_F(FactsCollide, F071_QuadHalvesByTheAcDiagonal) {
  const pod::GuestAddr p = car.point(0).addr();
  // Quad 0 spans x, y in [−50, 50]; a (−50,−50), b (50,−50), c (50,50), d (−50,50).
  place_wheel(0, Vec3{10 << 16, -(20 << 16), 0});  // x > y: the a b c side
  EXPECT_EQ(pod::collide::over_quad(w.m, p, quad(0), mesh(0)), 1);
  place_wheel(0, Vec3{-(10 << 16), 20 << 16, 0});  // the c d a side
  EXPECT_EQ(pod::collide::over_quad(w.m, p, quad(0), mesh(0)), 2);
  place_wheel(0, Vec3{60 << 16, 0, 0});  // outside
  EXPECT_EQ(pod::collide::over_quad(w.m, p, quad(0), mesh(0)), 0);
  place_wheel(0, Vec3{-(51 << 16), 0, 0});
  EXPECT_EQ(pod::collide::over_quad(w.m, p, quad(0), mesh(0)), 0);
}

TEST_F(FactsCollide, F071_OverTriangleInsideAllThreeEdges) {
  // A triangle a (0,0), b (10,0), c (0,10) at z 0 in a mesh of its own.
  const pod::GuestAddr verts = w.alloc(36);
  w.m.put_vec3(verts, Vec3{0, 0, 0});
  w.m.put_vec3(verts + 12, Vec3{10 << 16, 0, 0});
  w.m.put_vec3(verts + 24, Vec3{0, 10 << 16, 0});
  const pod::GuestAddr tri = w.alloc(pod::Triangle::kSize);
  const pod::GuestAddr me = w.alloc(pod::Mesh::kSize);
  w.m.put_u32(me + pod::Mesh::vertices.offset, verts);
  const pod::Triangle t(w.m, tri);
  t.set(pod::Triangle::normal, Vec3{0, 0, 0x10000});
  for (std::uint16_t k = 0; k < 3; ++k) t.set(pod::Triangle::corners[k], k);
  const pod::GuestAddr p = car.point(0).addr();
  place_wheel(0, Vec3{2 << 16, 2 << 16, 5 << 16});
  EXPECT_EQ(pod::collide::over_triangle(w.m, p, tri, me), 1);
  place_wheel(0, Vec3{6 << 16, 6 << 16, 0});  // past the b–c edge
  EXPECT_EQ(pod::collide::over_triangle(w.m, p, tri, me), 0);
  place_wheel(0, Vec3{-(1 << 16), 2 << 16, 0});
  EXPECT_EQ(pod::collide::over_triangle(w.m, p, tri, me), 0);
}

// F072: a point counts as on a face between 2.29 below and its radius above (for its sphere's
// bottom): the wheel centre from radius − 2.29 to 2 × radius over the face.
TEST_F(FactsCollide, F072_ContactBandIs229BelowToRadiusAbove) {
  const pod::Fixed r = car.point(0).get(Point::radius);
  EXPECT_EQ(pod::collide::kBandBelow, World::fx(2.29));
  struct Case {
    pod::Fixed z;
    bool on;
  };
  for (const Case c : {Case{2 * r, true}, Case{2 * r + 1, false}, Case{r - World::fx(2.29), true},
                       Case{r - World::fx(2.29) - 1, false}, Case{r, true}}) {
    car.point(0).set(Point::touching, std::uint8_t{0});
    car.point(0).set(Point::face_mesh, 0);
    place_wheel(0, Vec3{1 << 16, 1 << 16, c.z});
    pod::collide::track(w.m, car.addr(), w.driver(0).addr());
    EXPECT_EQ(touching(0), c.on) << c.z;
  }
}

// F073: a floor more than 0.195 off the car's up axis lifts no wheel into the suspension.
TEST_F(FactsCollide, F073_FloorOffTheUpAxisDoesNotTouch) {
  EXPECT_EQ(pod::collide::kFloorUpMin, World::fx(0.195));
  for (pod::Fixed upz : {World::fx(0.19), World::fx(0.195), World::fx(0.20)}) {  // 0.195 itself: not more
    car.set(Car::up, Vec3{0, 0, upz});  // the dot of the floor's normal with up
    car.point(0).set(Point::touching, std::uint8_t{0});
    place_wheel(0, Vec3{1 << 16, 1 << 16, car.point(0).get(Point::radius)});
    pod::collide::track(w.m, car.addr(), w.driver(0).addr());
    EXPECT_EQ(touching(0), upz > World::fx(0.195)) << upz;
  }
}

// F069: a point that touched a face re-tests that face first (found even with no sector to search).
TEST_F(FactsCollide, F069_LastFaceFirst) {
  lift_others();
  place_wheel(0, Vec3{1 << 16, 1 << 16, car.point(0).get(Point::radius)});
  pod::collide::track(w.m, car.addr(), w.driver(0).addr());
  ASSERT_TRUE(touching(0));
  EXPECT_EQ(car.point(0).get(Point::face_mesh), mesh(0));
  car.point(0).set(Point::sector, 0);  // nothing to search
  pod::collide::track(w.m, car.addr(), w.driver(0).addr());
  EXPECT_TRUE(touching(0)) << "found through its last face";
  car.point(0).set(Point::face_mesh, 0);
  car.set(Car::track_calls, 0);
  pod::collide::track(w.m, car.addr(), w.driver(0).addr());
  EXPECT_FALSE(touching(0)) << "no face, no sector";
}

// F070: every fourth call the search covers every sector, not only the point's and its neighbours.
TEST_F(FactsCollide, F070_EveryFourthCallSearchesAllSectors) {
  // Wheel 0 over sector 2, its sector set to 0 (not a neighbour of 2... 0's neighbour is 1 only).
  lift_others();
  car.set(Car::track_calls, 0);
  int found_at = 0;
  for (int call = 1; call <= 4; ++call) {
    car.point(0).set(Point::touching, std::uint8_t{0});
    car.point(0).set(Point::face_mesh, 0);
    car.point(0).set(Point::sector, sector(0));
    place_wheel(0, Vec3{200 << 16, 1 << 16, car.point(0).get(Point::radius)});
    pod::collide::track(w.m, car.addr(), w.driver(0).addr());
    if (touching(0) && found_at == 0) found_at = call;
  }
  EXPECT_EQ(found_at, 4);
  EXPECT_EQ(car.point(0).get(Point::sector), sector(2));
  // From sector 1, the neighbour list reaches sector 2 on any call.
  car.set(Car::track_calls, 0);
  car.point(0).set(Point::touching, std::uint8_t{0});
  car.point(0).set(Point::sector, sector(1));
  pod::collide::track(w.m, car.addr(), w.driver(0).addr());
  EXPECT_TRUE(touching(0));
}

// F075: the chassis point searches every 17th call of the counter at 0x4f3310, with fewer than four
// wheels down, or when a wheel's normal points away from the car's up axis.
TEST_F(FactsCollide, F075_ChassisSearchesEvery17thCall) {
  w.m.put_i32(pod::addr::kChassisSearchCounter, 0);
  for (int i = 0; i < 4; ++i) {
    car.point(i).set(Point::touching, std::uint8_t{1});
    car.point(i).set(Point::contact_normal, Vec3{0, 0, 0x10000});
  }
  std::vector<int> yes;
  for (int call = 1; call <= 40; ++call) {
    if (pod::collide::chassis_searches(w.m, car.addr())) yes.push_back(call);
  }
  EXPECT_EQ(yes, (std::vector<int>{17, 34}));
  car.point(3).set(Point::touching, std::uint8_t{0});
  EXPECT_TRUE(pod::collide::chassis_searches(w.m, car.addr())) << "three wheels down";
  car.point(3).set(Point::touching, std::uint8_t{1});
  car.point(2).set(Point::contact_normal, Vec3{0x10000, 0, 0});
  EXPECT_TRUE(pod::collide::chassis_searches(w.m, car.addr())) << "a normal away from up";
  car.point(2).set(Point::contact_normal, Vec3{0, 0, 0x10000});
  // Whichever wheel is the one off the ground or tilted away, the first included: every wheel counts.
  for (int i = 0; i < 4; ++i) {
    w.m.put_i32(pod::addr::kChassisSearchCounter, 0);  // far from the 17th call
    car.point(i).set(Point::touching, std::uint8_t{0});
    EXPECT_TRUE(pod::collide::chassis_searches(w.m, car.addr())) << "wheel " << i << " off the ground";
    car.point(i).set(Point::touching, std::uint8_t{1});
    car.point(i).set(Point::contact_normal, Vec3{0, 0x10000, 0});
    EXPECT_TRUE(pod::collide::chassis_searches(w.m, car.addr())) << "wheel " << i << "'s normal across up";
    car.point(i).set(Point::contact_normal, Vec3{0, 0, 0x10000});
    EXPECT_FALSE(pod::collide::chassis_searches(w.m, car.addr())) << "all four down again, the counter at 3";
  }
}

// F074: anything under the chassis point pushes it out with a depth and a bounce.
TEST_F(FactsCollide, F074_ChassisContactGivesDepthAndBounce) {
  w.m.put_i32(pod::addr::kChassisSearchCounter, 16);  // this call is the 17th
  const Point ch = car.point(Car::kChassis);
  const pod::Fixed r = ch.get(Point::radius);
  ch.set(Point::position, Vec3{1 << 16, 1 << 16, r / 2});  // half its radius into the ground
  pod::collide::track(w.m, car.addr(), w.driver(0).addr());
  ASSERT_NE(ch.get(Point::touching), 0);
  EXPECT_EQ(ch.get(Point::wall_depth), r - r / 2);
  EXPECT_EQ(ch.get(Point::wall_dir), (Vec3{0, 0, 0x10000}));
  EXPECT_GT(ch.get(Point::bounce), 0);
}

// The wheel is lifted into the suspension: its centre one radius above the face, its extension
// shortened by as much; touch_face records the face.
TEST_F(FactsCollide, WheelLiftedOntoTheFace) {
  const Point p = car.point(0);
  const pod::Fixed r = p.get(Point::radius);
  const pod::Fixed h = p.get(Point::extension);
  place_wheel(0, Vec3{1 << 16, 1 << 16, r - 0x1000});  // 0x1000 into the ground
  pod::collide::track(w.m, car.addr(), w.driver(0).addr());
  ASSERT_TRUE(touching(0));
  EXPECT_EQ(p.get(Point::extension), h - 0x1000);
  EXPECT_EQ(p.get(Point::position).z, r);
  EXPECT_EQ(p.get(Point::face_number), 0);
  EXPECT_EQ(p.get(Point::face_is_quad), 1);
  EXPECT_EQ(p.get(Point::surface), pod::Surface::at(0));
  EXPECT_EQ(car.get(Car::wheel1_sector_number), 0);
}

}  // namespace

namespace {

// F071, F078: the search takes the first ground face: the sector's quads first, then its triangles;
// faces without the ground bit (a wall, bit 5) are skipped.
TEST(Collide, F071_SearchTakesQuadsThenTrianglesWithTheGroundBit) {
  World w;
  const pod::GuestAddr table = w.flat_track({0});
  const pod::GuestAddr sector = table;
  const pod::GuestAddr mesh = w.m.u32(sector);
  // Add two triangles over the same ground, at z 0: the first a wall, the second ground.
  const pod::GuestAddr tris = w.alloc(2 * pod::Triangle::kSize);
  for (std::uint32_t k = 0; k < 2; ++k) {
    const pod::Triangle t(w.m, tris + k * pod::Triangle::kSize);
    t.set(pod::Triangle::normal, Vec3{0, 0, 0x10000});
    t.set(pod::Triangle::corners[0], 0);
    t.set(pod::Triangle::corners[1], 1);
    t.set(pod::Triangle::corners[2], 2);  // the a b c half of the quad
    t.set(pod::Triangle::flags, k == 0 ? pod::face_flags::kWall : pod::face_flags::kGround);
    t.set(pod::Triangle::surface, std::uint8_t{5});
  }
  w.m.put_i16(mesh + pod::Mesh::triangle_count.offset, 2);
  w.m.put_u32(mesh + pod::Mesh::triangles.offset, tris);
  const Car car = w.standard_car(0, 0, 0, 0, sector);
  const Point p = car.point(0);
  const auto probe = [&] {
    p.set(Point::touching, std::uint8_t{0});
    p.set(Point::position, Vec3{10 << 16, -(10 << 16), p.get(Point::radius)});
    pod::collide::track(w.m, car.addr(), w.driver(0).addr());
  };
  probe();
  EXPECT_EQ(p.get(Point::face_is_quad), 1) << "the quad comes first";
  // Make the quad a wall: now the second triangle (ground) is taken, not the first (a wall).
  w.m.put_u8(w.m.u32(mesh + pod::Mesh::quads.offset) + pod::Quad::flags.offset, pod::face_flags::kWall);
  probe();
  ASSERT_NE(p.get(Point::touching), 0);
  EXPECT_EQ(p.get(Point::face_is_quad), 0);
  EXPECT_EQ(p.get(Point::face_number), 1);
  EXPECT_EQ(p.get(Point::surface), pod::Surface::at(5));
}

}  // namespace

namespace {

// The replay compares read sets: the face tests load a corner only when an edge needs it, and the
// bounds test stops at the first failing comparison (port/CHOICES.md "Replay findings" R2, R3).
TEST_F(FactsCollide, FaceAndBoundsTestsReadOnlyWhatTheyCompare) {
  podtest::RecordingMemory rec(w.m);
  const pod::GuestAddr verts = w.m.u32(mesh(0) + pod::Mesh::vertices.offset);
  place_wheel(0, Vec3{-(10 << 16), 20 << 16, 0});  // the c d a half: corner b (vertex 1) unused
  EXPECT_EQ(pod::collide::over_quad(rec, car.point(0).addr(), quad(0), mesh(0)), 2);
  EXPECT_FALSE(rec.read_in(verts + 12, verts + 24)) << "vertex b";
  EXPECT_FALSE(rec.read_in(quad(0) + 0x2e, quad(0) + 0x30)) << "corner b's number";
  EXPECT_TRUE(rec.read_in(verts + 36, verts + 48)) << "vertex d";
  // A point in sector 0 whose own sector is 1: sector 1's low x already fails.
  rec.clear();
  car.point(0).set(Point::touching, std::uint8_t{0});
  car.point(0).set(Point::sector, sector(1));
  car.set(Car::track_calls, 0);
  place_wheel(0, Vec3{1 << 16, 1 << 16, car.point(0).get(Point::radius)});
  pod::collide::track(rec, car.addr(), w.driver(0).addr());
  EXPECT_TRUE(touching(0)) << "found through the neighbour, sector 0";
  EXPECT_TRUE(rec.read_in(sector(1) + 0x10, sector(1) + 0x14));
  EXPECT_FALSE(rec.read_in(sector(1) + 0x14, sector(1) + 0x28)) << "nothing after the failing low x";
}

// The pass loads a point's position and radius only where a test needs them (CHOICES "Reads"): with
// no face to re-test and no sector to search (and so no walls), it reads neither, for any point.
TEST_F(FactsCollide, ReadsNoPositionOrRadiusItDoesNotTest) {
  for (int i = 0; i < Car::kPoints; ++i) {
    car.point(i).set(Point::sector, 0);
    car.point(i).set(Point::face_mesh, 0);
    car.point(i).set(Point::touching, std::uint8_t{0});
  }
  car.set(Car::track_calls, 0);  // the first call: not a full search
  podtest::RecordingMemory rec(w.m);
  pod::collide::track(rec, car.addr(), w.driver(0).addr());
  for (int i = 0; i < Car::kPoints; ++i) {
    const Point p = car.point(i);
    for (pod::GuestAddr a = p.addr(Point::position); a < p.addr(Point::position) + 12; ++a)
      EXPECT_EQ(rec.reads.count(a), 0u) << "point " << i << " position";
    for (pod::GuestAddr a = p.addr(Point::radius); a < p.addr(Point::radius) + 4; ++a)
      EXPECT_EQ(rec.reads.count(a), 0u) << "point " << i << " radius";
  }
}

}  // namespace
