// The damage calls of the wall impacts (F099, F105): what body::impacts hands the damage for each
// step, exactly. The damage gets the parts hit and a quarter of the impulse: for one point hit, its
// own part bits and its impulse's size >> 2; for two or more, one call after the loop with the OR of
// their parts and the sum of their shares >> 2 (port/CHOICES.md "body::impacts"). The shares are
// read back from the impulses the same call wrote (each J = share × the wall's direction, here a
// unit axis, so |J| is the share exactly): the test checks the calls against the impulses, both
// of which the gate's cases cannot see (the stand-in's damage is a bare ret).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "pod/body.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Point;
using pod::Vec3;
using podtest::World;

struct ImpactCalls : ::testing::Test {
  World w;
  Car car = w.standard_car(0, 0, 0, 0, w.flat_track({0}));
  void SetUp() override { w.set_dt(0x888); }
  // Point i pushed into a wall facing -x, closing at vx units/s.
  void hit(int i, double vx) {
    const Point p = car.point(i);
    p.set(Point::wall_depth, 0x1000);
    p.set(Point::wall_dir, Vec3{-0x10000, 0, 0});
    p.set(Point::bounce, 0x8000);
    p.set(Point::velocity, Vec3{World::fx(vx), 0, 0});
  }
  pod::Fixed share(int i) const { return -car.point(i).get(Point::impulse).x; }
};

// F105's part bits by point: wheel 0 0x10, 1 0x01, 2 0x20, 3 0x02, the chassis 0x0c.
TEST_F(ImpactCalls, F099_F105_OnePointHandsItsPartsAndAQuarterOfItsImpulse) {
  const std::uint32_t parts[5] = {0x10, 0x01, 0x20, 0x02, 0x0c};
  for (int i = 0; i < 5; ++i) {
    for (int k = 0; k < 5; ++k) car.point(k).set(Point::wall_depth, 0);
    hit(i, 3.0 + i);
    Vec3 f, t;
    std::vector<pod::body::Impact> calls;
    ASSERT_EQ(pod::body::impacts(w.m, car.addr(), f, t, &calls), 1) << i;
    ASSERT_EQ(calls.size(), 1u) << i;
    EXPECT_EQ(calls[0].parts, parts[i]) << i;
    EXPECT_EQ(calls[0].strength, share(i) >> 2) << i;  // one point: its share is its whole size
    EXPECT_GT(calls[0].strength, 0) << i;
  }
}

TEST_F(ImpactCalls, F099_TwoPointsOneCallWithBothPartsAndTheirSharesSum) {
  // Over many closing speeds, so that the sum's low two bits (dropped by >> 2) take every value.
  int low_bits_seen = 0;
  for (int k = 0; k < 64; ++k) {
    hit(0, 3.0 + k / 97.0);
    hit(2, 5.0 + k / 89.0);
    Vec3 f, t;
    std::vector<pod::body::Impact> calls;
    ASSERT_EQ(pod::body::impacts(w.m, car.addr(), f, t, &calls), 2);
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].parts, 0x10u | 0x20u);
    const pod::Fixed sum = share(0) + share(2);
    EXPECT_EQ(calls[0].strength, sum >> 2) << k;
    low_bits_seen |= 1 << (sum & 3);
  }
  EXPECT_EQ(low_bits_seen, 0xf) << "every remainder of the sum by 4 tried";
}

TEST_F(ImpactCalls, F099_ThreeAndFivePointsOneCallEach) {
  hit(1, 3.0);
  hit(3, 4.0);
  hit(4, 6.0);
  Vec3 f, t;
  std::vector<pod::body::Impact> calls;
  ASSERT_EQ(pod::body::impacts(w.m, car.addr(), f, t, &calls), 3);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].parts, 0x01u | 0x02u | 0x0cu);
  EXPECT_EQ(calls[0].strength, (share(1) + share(3) + share(4)) >> 2);
  hit(0, 7.0);
  hit(2, 8.0);
  calls.clear();
  Vec3 f5, t5;
  ASSERT_EQ(pod::body::impacts(w.m, car.addr(), f5, t5, &calls), 5);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].parts, 0x3fu);
  pod::Fixed sum = 0;
  for (int i = 0; i < 5; ++i) sum += share(i);
  EXPECT_EQ(calls[0].strength, sum >> 2);
}

// Nothing hit: no call, and every impulse cleared.
TEST_F(ImpactCalls, NoHitNoCall) {
  hit(0, 0.2);  // under the 0.264 allowance
  car.point(0).set(Point::impulse, Vec3{1, 2, 3});
  Vec3 f, t;
  std::vector<pod::body::Impact> calls;
  EXPECT_EQ(pod::body::impacts(w.m, car.addr(), f, t, &calls), 0);
  EXPECT_TRUE(calls.empty());
  EXPECT_EQ(car.point(0).get(Point::impulse), Vec3{});
}

}  // namespace
