// The stand-in's props, called one by one under lockstep's machine on the stand-in's own snapshot,
// against the documents' words computed here independently (the test never reads the stand-in's
// source): the centre of mass (F150), half the impulse off the health and the chain when it runs out
// (F112), a point's weight (F115), the spin kept on the ground (F119), settling on three points and not
// on two (F120), the stacked prop resting on the slant record past 0.885 (F114), the removal 8 below the
// sector closing the list up (F121). The records and argument lists the documents leave open are the
// props' entries of the table of choices, as harness/profiles/pod.toml records them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <unistd.h>

#include "lockstep/machine/machine.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/snapshot/snapshot.hpp"
#include "twin_machine.hpp"

namespace {

using namespace lockstep::harness;
using lockstep::harness::GuestAddr;

// Documented addresses (port/CHOICES.md "Props") and the profile's chosen ones.
constexpr GuestAddr kCount = 0x621298, kList = 0x62129c, kHitFlags = 0x6212a0, kSlant = 0x4f9440, kFrame = 0x621b70;
constexpr GuestAddr kSectors = 0x800000, kSectorSize = 0x3c;  // the stand-in's sector table (its track's heap)
constexpr GuestAddr kProps = 0x658000, kHulls = 0x65a000, kPoints = 0x65b000, kChain = 0x65f000, kTemplate = 0x65f100;
constexpr std::uint32_t kPropSize = 0xd0, kPointSize = 0x40;
constexpr std::uint32_t kMass = 0x1c, kFriction = 0x20, kInertia = 0x24, kPointCount = 0x30, kHull = 0x34,
                        kChainField = 0x38, kHealth = 0x3c, kMatrix = 0x40, kRestFace = 0x70, kForce = 0x74,
                        kVelocity = 0x8c, kPosition = 0x98, kSpin = 0xa4, kPointsField = 0xb8;
constexpr std::uint32_t kPointRadius = 0x00, kPointOffset = 0x04, kPointMass = 0x1c, kPointForce = 0x20, kPointPush = 0x2c,
                        kPointSector = 0x38;
constexpr GuestAddr kCentre = 0x454654, kImpulse = 0x4214b4, kKnock = 0x421750, kMotion = 0x454a98,
                    kToTemplate = 0x4545a8;
constexpr std::int32_t kOne = 0x10000;

std::int32_t fx(double v) { return static_cast<std::int32_t>(std::lround(v * 65536.0)); }

struct Point { double radius, x, y, z, mass; };

struct Twin : standin_test::TwinMachine {
  void SetUp() override {
    TwinMachine::SetUp();
    if (HasFatalFailure()) return;  // no machine: the base said why
    put(kFrame + 8, 0x888);  // the step's time, 1/30 s
  }


  static GuestAddr prop(int k) { return kProps + kPropSize * static_cast<GuestAddr>(k); }
  static GuestAddr point(int k, int j) { return kPoints + 0x200u * static_cast<GuestAddr>(k) + kPointSize * static_cast<GuestAddr>(j); }

  // Prop k of a list laid at kProps: upright (its axes the world's), at rest, its points in sector 1, hit.
  static void lay(int k, double x, double y, double z, double mass, const std::vector<Point>& points,
                  double half = 0.3, std::int32_t health = 3000) {
    GuestAddr p = prop(k), hull = kHulls + 0x20u * static_cast<GuestAddr>(k);
    for (std::uint32_t o = 0; o < kPropSize; o += 4) put(p + o, 0);
    put(p + kMass, fx(mass));
    put(p + kFriction, fx(0.6));
    for (int a = 0; a < 3; ++a) put(p + kInertia + 4 * a, fx(0.25));
    put(p + kPointCount, static_cast<std::int32_t>(points.size()));
    put(p + kHull, static_cast<std::int32_t>(hull));
    put(p + kHealth, health);
    for (int a = 0; a < 3; ++a) put(p + kMatrix + 16 * a, kOne);  // the diagonal of the row-by-row matrix
    put(p + kPosition, fx(x)), put(p + kPosition + 4, fx(y)), put(p + kPosition + 8, fx(z));
    put(p + kPointsField, static_cast<std::int32_t>(point(k, 0)));
    for (int a = 0; a < 3; ++a) put(hull + 4 * a, fx(half));
    put(hull + 0xc, fx(half * std::sqrt(2.0)));
    for (int a = 0; a < 3; ++a) put(hull + 0x10 + 4 * a, 0);
    for (std::size_t j = 0; j < points.size(); ++j) {
      GuestAddr q = point(k, static_cast<int>(j));
      for (std::uint32_t o = 0; o < kPointSize; o += 4) put(q + o, 0);
      put(q + kPointRadius, fx(points[j].radius));
      put(q + kPointOffset, fx(points[j].x)), put(q + kPointOffset + 4, fx(points[j].y)),
          put(q + kPointOffset + 8, fx(points[j].z));
      put(q + kPointMass, fx(points[j].mass));
      put(q + kPointSector, static_cast<std::int32_t>(kSectors + kSectorSize));
    }
    put8(kHitFlags + static_cast<GuestAddr>(k), 1);
  }
  static void list(int count) {
    put(kList, static_cast<std::int32_t>(kProps));
    put(kCount, count);
  }
};

std::vector<Point> box_corners(double half = 0.3, double mass = 0.5) {
  std::vector<Point> p;
  for (int k = 0; k < 8; ++k)
    p.push_back({0.05, (k & 1) ? half : -half, (k & 2) ? half : -half, (k & 4) ? half : -half, mass});
  return p;
}

// The road of the stand-in's sector 1 at 0.35 rad, radius 120: height 0.
constexpr double kRoadX = 120.0 * 0.939372713, kRoadY = 120.0 * 0.342897807;

TEST_F(Twin, CentreOfMassIsTheMassWeightedMeanOfThePointsF150) {
  // Two points of mass 3 and 1 at x = 0.6 and -0.6 (y 0 and 0.2, z 0 and -0.3), the prop's mass 4:
  // the centre (3 x 0.6 - 0.6) / 4 = 0.3, y 0.05, z -0.075; each offset and the hull's centre less it.
  lay(0, kRoadX, kRoadY, 1.0, 4.0, {{0.05, 0.6, 0.0, 0.0, 3.0}, {0.05, -0.6, 0.2, -0.3, 1.0}});
  list(1);
  call(kCentre, {Arg::u32(prop(0))});
  const double want[2][3] = {{0.3, -0.05, 0.075}, {-0.9, 0.15, -0.225}};
  for (int j = 0; j < 2; ++j)
    for (int a = 0; a < 3; ++a)
      EXPECT_NEAR(get(point(0, j) + kPointOffset + 4 * a) / 65536.0, want[j][a], 3.0 / 65536) << "point " << j << " axis " << a;
  GuestAddr hull = static_cast<GuestAddr>(get(prop(0) + kHull));
  const double centre[3] = {-0.3, -0.05, 0.075};
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(get(hull + 0x10 + 4 * a) / 65536.0, centre[a], 3.0 / 65536) << "axis " << a;
}

TEST_F(Twin, AnImpulseTakesHalfItselfOffTheHealthAndRunsTheChainWhenItRunsOutF112) {
  const std::int32_t normal[3] = {kOne, 0, 0};
  std::vector<std::uint8_t> n(12), at(12, 0);
  std::memcpy(n.data(), normal, 12);
  struct Case { std::int32_t health, impulse; bool chain; std::int32_t want; };
  // the chain's template holds 2000: a prop running out takes it plus how far it fell below 0, at least 0
  const Case cases[] = {{3000, 4000, false, 1000}, {3000, 5998, false, 1},  {3000, 6000, false, 0},
                        {3000, 9000, false, 0},    {3000, 8000, true, 1000}, {3000, 20000, true, 0},
                        {3000, -4000, false, 1000}, {0, 8000, true, 0}};
  for (const Case& c : cases) {
    machine->reset();
    lay(0, kRoadX, kRoadY, 1.0, 4.0, box_corners(), 0.3, c.health);
    list(1);
    put(kChain, static_cast<std::int32_t>(kToTemplate)), put(kChain + 4, static_cast<std::int32_t>(kTemplate)), put(kChain + 8, 0);
    put(kTemplate + kHull, 0x1234), put(kTemplate + kChainField, 0), put(kTemplate + kHealth, 2000);
    if (c.chain) put(prop(0) + kChainField, static_cast<std::int32_t>(kChain));
    std::int32_t p[3] = {fx(kRoadX), fx(kRoadY), fx(1.0)};
    std::memcpy(at.data(), p, 12);  // at the centre: no torque
    call(kImpulse, {Arg::u32(prop(0)), Arg::bytes(n), Arg::i32(c.impulse), Arg::bytes(at)});
    EXPECT_EQ(get(prop(0) + kHealth), c.want) << "health " << c.health << " impulse " << c.impulse << " chain " << c.chain;
    EXPECT_EQ(get(prop(0) + kForce), c.impulse) << "the force along the normal";
    if (c.chain && c.health > 0 && c.health - c.impulse / 2 <= 0) {
      EXPECT_EQ(get(prop(0) + kHull), 0x1234) << "the prop became its template";
    }
  }
}

TEST_F(Twin, EachPointWeighsItsMassTimes0x2dF115) {
  // In the air (3 above the road): each point's force is its weight, straight down, plus any push
  // out of a plane (+0x2c).
  std::vector<Point> points = {{0.05, 0.2, 0.0, 0.0, 0.5}, {0.05, -0.2, 0.0, 0.0, 1.25}, {0.05, 0.0, 0.3, 0.1, 0.1}};
  lay(0, kRoadX, kRoadY, 3.0, 1.85, points);
  list(1);
  call(kMotion, {Arg::u32(0)});
  for (std::size_t j = 0; j < points.size(); ++j) {
    GuestAddr q = point(0, static_cast<int>(j));
    EXPECT_EQ(get(q + kPointForce) - get(q + kPointPush), 0) << "point " << j;
    EXPECT_EQ(get(q + kPointForce + 4) - get(q + kPointPush + 4), 0) << "point " << j;
    EXPECT_EQ(get(q + kPointForce + 8) - get(q + kPointPush + 8), -fx(points[j].mass) * 0x2d) << "point " << j;
  }
  EXPECT_EQ(get8(kHitFlags), 1) << "in the air it does not settle";
}

// A prop whose points all sit at its centre of mass (so no force turns it), on the road's plane, each
// point's sphere reaching down by its radius: 45 x dt^2 (dt = 1/30 s), the depth whose push (depth x
// mass / dt^2, F116) equals its weight (F115): it stays slow. Its hull small, so no wall is near it.
void lay_at_rest(int points, double spin) {
  std::vector<Point> p(static_cast<std::size_t>(points), Point{45.0 * 72 / 65536.0, 0.0, 0.0, 0.0, 1.0});
  Twin::lay(0, kRoadX, kRoadY, 0.0, points, p, 0.01);
  Twin::list(1);
  Twin::put(Twin::prop(0) + kSpin + 8, fx(spin));
}

TEST_F(Twin, OnTheGroundTheSpinKeeps0916AStepF119) {
  lay_at_rest(4, 2.0);
  call(kMotion, {Arg::u32(0)});
  EXPECT_NEAR(get(prop(0) + kSpin + 8) / 65536.0, 2.0 * 0.916, 2.0 / 65536);
  EXPECT_EQ(get8(kHitFlags), 1) << "still spinning: not settled";
}

TEST_F(Twin, ASlowPropSettlesOnThreePointsButNotOnTwoF120) {
  lay_at_rest(3, 0.0);
  call(kMotion, {Arg::u32(0)});
  EXPECT_LT(std::abs(get(prop(0) + kVelocity + 8)), fx(0.5)) << "slow";
  EXPECT_EQ(get8(kHitFlags), 0) << "three points down, slow: settled";
  machine->reset();
  put(kFrame + 8, 0x888);
  lay_at_rest(2, 0.0);
  call(kMotion, {Arg::u32(0)});
  EXPECT_LT(std::abs(get(prop(0) + kVelocity + 8)), fx(0.5)) << "slow";
  EXPECT_EQ(get8(kHitFlags), 1) << "two points down: not settled";
}

TEST_F(Twin, AStackedPropRestsOnTheContactPlaneKeptAtTheSlantRecordF114) {
  // Box 1 on box 0 (their hulls 0.02 into each other): the contact's normal points straight up, past 0.885.
  lay(0, kRoadX, kRoadY, 0.35, 4.0, box_corners());
  lay(1, kRoadX, kRoadY, 0.93, 4.0, box_corners());
  list(2);
  put8(kHitFlags + 1, 0);
  put(prop(0) + kVelocity + 8, fx(-1.0));
  call(kKnock, {Arg::u32(0)});
  EXPECT_EQ(static_cast<GuestAddr>(get(prop(1) + kRestFace)), kSlant);
  EXPECT_GT(get(kSlant + 8), fx(0.885)) << "the kept normal's slant";
  EXPECT_EQ(get8(kHitFlags + 1), 1) << "the other prop is hit";
  // side by side (the normal level): nothing rests on the slant record
  machine->reset();
  lay(0, kRoadX, kRoadY, 0.35, 4.0, box_corners());
  lay(1, kRoadX + 0.58, kRoadY, 0.35, 4.0, box_corners());
  list(2);
  call(kKnock, {Arg::u32(0)});
  EXPECT_NE(static_cast<GuestAddr>(get(prop(1) + kRestFace)), kSlant);
}

TEST_F(Twin, APropFallen8BelowItsSectorIsRemovedAndTheListClosesUpF121) {
  // Sector 1's floor is 2 below the road: at 10.5 below the road a prop is 8.5 below it.
  lay(0, kRoadX, kRoadY, -10.5, 4.0, box_corners());
  lay(1, kRoadX + 3.0, kRoadY, 0.35, 4.0, box_corners());
  lay(2, kRoadX - 3.0, kRoadY, 0.35, 4.0, box_corners());
  list(3);
  put8(kHitFlags + 1, 0);
  std::vector<std::int32_t> second, third;
  for (std::uint32_t o = 0; o < kPropSize; o += 4) second.push_back(get(prop(1) + o)), third.push_back(get(prop(2) + o));
  call(kMotion, {Arg::u32(0)});
  EXPECT_EQ(get(kCount), 2);
  for (std::uint32_t o = 0, i = 0; o < kPropSize; o += 4, ++i) {
    EXPECT_EQ(get(prop(0) + o), second[i]) << "record 1 moved into 0, +" << o;
    EXPECT_EQ(get(prop(1) + o), third[i]) << "record 2 moved into 1, +" << o;
  }
  EXPECT_EQ(get8(kHitFlags), 0) << "prop 1's flag moved with it";
  EXPECT_EQ(get8(kHitFlags + 1), 1) << "prop 2's flag moved with it";
  // 7.5 below its sector's floor: it stays
  machine->reset();
  put(kFrame + 8, 0x888);
  lay(0, kRoadX, kRoadY, -9.5, 4.0, box_corners());
  list(1);
  call(kMotion, {Arg::u32(0)});
  EXPECT_EQ(get(kCount), 1);
}

}  // namespace
