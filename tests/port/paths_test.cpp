// The race's paths: F143's distance, placing a tracker, moving it along (F172), the lane target, the
// catch-up's target by number (A07) and the simulation step's paths pass. Expected values come from
// the documents' rules (F143, F172; "Catch-up") and
// the readings in port/CHOICES.md "The race's paths", worked by hand on small paths.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "pod/putback.hpp"
#include "pod/race.hpp"
#include "pod/step.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Driver;
using pod::GuestAddr;
using pod::PathLink;
using pod::PathNode;
using pod::Vec3;
using podtest::World;
namespace addr = pod::addr;

constexpr pod::Fixed kUnit = 0x10000;
Vec3 at(int x, int y, int z) { return Vec3{x * kUnit, y * kUnit, z * kUnit}; }

/// Race paths laid out in a World's heap: nodes, links with their points, and the link table.
struct Paths {
  World& w;
  std::vector<GuestAddr> table;

  GuestAddr node(const Vec3& position, const std::vector<GuestAddr>& out = {}) {
    const GuestAddr n = w.alloc(PathNode::kSize);
    w.m.put_vec3(n, position);
    links_out(n, out);
    return n;
  }
  void links_out(GuestAddr n, const std::vector<GuestAddr>& out) {
    const GuestAddr list = w.alloc(4 * static_cast<std::uint32_t>(out.size() + 1));
    for (std::size_t i = 0; i < out.size(); ++i) w.m.put_u32(list + 4 * static_cast<std::uint32_t>(i), out[i]);
    PathNode(w.m, n).set(PathNode::link_count, static_cast<std::int32_t>(out.size()));
    PathNode(w.m, n).set(PathNode::links, list);
  }
  /// A link with `points`, ending at `end` (0: none); put in the link table.
  GuestAddr link(const std::vector<Vec3>& points, GuestAddr end = 0) {
    const GuestAddr l = w.alloc(PathLink::kSize);
    const GuestAddr p = w.alloc(12 * static_cast<std::uint32_t>(points.size() + 1));
    for (std::size_t i = 0; i < points.size(); ++i) w.m.put_vec3(p + 12 * static_cast<std::uint32_t>(i), points[i]);
    const PathLink view(w.m, l);
    view.set(PathLink::points, p);
    view.set(PathLink::point_count, static_cast<std::int32_t>(points.size()));
    view.set(PathLink::end, end);
    table.push_back(l);
    w.m.put_i32(addr::kPathLinks, static_cast<std::int32_t>(table.size()));
    w.m.put_u32(addr::kPathLinks + 4 * static_cast<std::uint32_t>(table.size()), l);
    w.m.put_u32(addr::kRacePaths, table.front());
    return l;
  }
  GuestAddr point(GuestAddr link, int k) const {
    return PathLink(w.m, link).get(PathLink::points) + 12 * static_cast<std::uint32_t>(k);
  }
};

struct RacePaths : ::testing::Test {
  World w;
  Paths paths{w, {}};
  Car car = w.car(3);
  Driver driver = w.driver(3);
  void body_at(const Vec3& p) { car.set(Car::centre, p); }
  void wheel_down(bool down) { car.point(2).set(pod::Point::touching, down ? 1 : 0); }
  void tracker(GuestAddr link, int k) {
    driver.set(Driver::tracker_link, link);
    driver.set(Driver::tracker_point, k);
  }
};

// F143: the larger of |dx| and |dy|, or |4 dz| when that is larger.
TEST(FactsTrackers, F143_DistanceIsTheLargerOfDxDyOrFourDz) {
  EXPECT_EQ(pod::paths::distance(at(3, -5, 1), at(0, 0, 0)), 5 * kUnit);
  EXPECT_EQ(pod::paths::distance(at(0, 0, 0), at(3, -5, 1)), 5 * kUnit);
  EXPECT_EQ(pod::paths::distance(at(1, 1, 2), at(0, 0, 0)), 8 * kUnit) << "|4 dz| = 8 beats 1";
  EXPECT_EQ(pod::paths::distance(at(7, 0, -2), at(0, 0, 0)), 8 * kUnit) << "dz's sign does not count";
  EXPECT_EQ(pod::paths::distance(at(9, 0, -2), at(0, 0, 0)), 9 * kUnit);
  EXPECT_EQ(pod::paths::distance(at(4, 4, 1), at(4, 4, 1)), 0);
  // Not the straight distance: 3 up is 12, 10 along is 10.
  EXPECT_LT(pod::paths::distance(at(10, 0, 0), at(0, 0, 0)), pod::paths::distance(at(0, 0, 3), at(0, 0, 0)));
}

// 002: the tracker goes on the path point nearest the car's body by F143's distance, over every link.
TEST_F(RacePaths, F143_PlaceTakesTheNearestPointByThatDistance) {
  const GuestAddr a = paths.link({at(0, 0, 3), at(40, 0, 0)});
  const GuestAddr b = paths.link({at(50, 0, 0), at(10, 0, 0), at(10, 1, 0)});
  body_at(at(0, 0, 0));
  tracker(0, 0);
  pod::paths::place(w.m, driver.addr(), car.addr());
  // (0, 0, 3) is 3 away in a straight line but 12 by F143; (10, 0, 0) is 10; (10, 1, 0) ties it, later.
  EXPECT_EQ(driver.get(Driver::tracker_link), b);
  EXPECT_EQ(driver.get(Driver::tracker_point), 1);
  // Nearer to link a's second point now.
  body_at(at(38, 0, 0));
  pod::paths::place(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_link), a);
  EXPECT_EQ(driver.get(Driver::tracker_point), 1);
}

TEST_F(RacePaths, PlaceWritesNothingWithoutAPoint) {
  tracker(0x1234, 7);
  pod::paths::place(w.m, driver.addr(), car.addr());  // an empty table
  EXPECT_EQ(driver.get(Driver::tracker_link), 0x1234u);
  paths.link({});  // a link with no point
  pod::paths::place(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_link), 0x1234u);
  EXPECT_EQ(driver.get(Driver::tracker_point), 7);
  w.m.put_i32(addr::kPathLinks, 33);
  EXPECT_THROW(pod::paths::place(w.m, driver.addr(), car.addr()), std::runtime_error) << "past the table's room";
}

// F172: past a link's end the race tracker takes the end node's position (the node's address).
TEST_F(RacePaths, F172_PastTheEndTheNodesPosition) {
  const GuestAddr end = paths.node(at(30, 0, 0));
  EXPECT_EQ(pod::paths::track_node(w.m, paths.link({at(0, 0, 0)}, end)), end);
  EXPECT_EQ(pod::paths::track_node(w.m, paths.link({at(0, 0, 0)})), 0u) << "no end node";
}

// The tracker moves one point on when the next is nearer the body, past the end through the node to
// the node's first link out (F172), and stays while the car is in the air.
TEST_F(RacePaths, TrackMovesOnePointAlongWhileAWheelIsDown) {
  const GuestAddr second = paths.link({at(40, 0, 0), at(50, 0, 0)});
  const GuestAddr other = paths.link({at(30, 5, 0)});
  const GuestAddr end = paths.node(at(30, 0, 0), {second, other});
  const GuestAddr first = paths.link({at(0, 0, 0), at(10, 0, 0), at(20, 0, 0)}, end);
  tracker(first, 0);
  body_at(at(9, 0, 0));
  wheel_down(false);
  pod::paths::track(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_point), 0) << "in the air the tracker stays";
  wheel_down(true);
  body_at(at(19, 0, 0));  // nearer point 1, and nearer still point 2: one point per call
  pod::paths::track(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_point), 1);
  pod::paths::track(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_point), 2);
  pod::paths::track(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_point), 2) << "the node (30, 0, 0) is 11 away, the point 1";
  body_at(at(26, 0, 0));  // nearer the node: on to its first link out, point 0
  pod::paths::track(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_link), second);
  EXPECT_EQ(driver.get(Driver::tracker_point), 0);
}

// Past the end the tracker moves to the node's first link out when it has points ([first+0x18] ≥ 1,
// port/CHOICES.md "paths::track"): a link of a single point is enough.
TEST_F(RacePaths, TrackMovesOntoAFirstLinkOutOfOnePoint) {
  const GuestAddr single = paths.link({at(40, 0, 0)});
  const GuestAddr end = paths.node(at(30, 0, 0), {single});
  const GuestAddr first = paths.link({at(0, 0, 0), at(20, 0, 0)}, end);
  wheel_down(true);
  tracker(first, 1);
  body_at(at(27, 0, 0));  // the node (3 away) nearer than point 1 (7 away)
  pod::paths::track(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_link), single);
  EXPECT_EQ(driver.get(Driver::tracker_point), 0);
}

TEST_F(RacePaths, TrackStaysAtANodeWithoutALinkOutAndIsPlacedAgainWhenLost) {
  const GuestAddr far = paths.link({at(100, 0, 0)});
  const GuestAddr end = paths.node(at(30, 0, 0));
  const GuestAddr last = paths.link({at(20, 0, 0)}, end);
  wheel_down(true);
  tracker(last, 0);
  body_at(at(29, 0, 0));  // the node is nearer, but no link leaves it
  pod::paths::track(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_link), last);
  EXPECT_EQ(driver.get(Driver::tracker_point), 0);
  // 8 from its point and not moving on: still its (8 is not more than 8).
  body_at(at(12, 0, 0));
  pod::paths::track(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_link), last);
  // Lost (more than 8 from its point, the next no nearer): placed again on the nearest point.
  body_at(at(90, 0, 20));  // (100, 0, 0) is 80 by F143 and (30, 0, 0) is 80 too: the first in the table
  EXPECT_EQ(paths.table.front(), far);
  pod::paths::track(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_link), far);
  tracker(0, 0);
  pod::paths::track(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_link), 0u) << "no tracker, none made";
}

// 000: a computer driver's lane target after a put-back: the point after its tracker's.
TEST_F(RacePaths, LaneTargetIsThePointAfterTheTrackers) {
  const GuestAddr end = paths.node(at(30, 0, 0));
  const GuestAddr link = paths.link({at(0, 0, 0), at(10, 0, 0)}, end);
  tracker(link, 0);
  pod::paths::lane_target(w.m, driver.addr());
  EXPECT_EQ(driver.get(Driver::line_point), paths.point(link, 1));
  tracker(link, 1);
  pod::paths::lane_target(w.m, driver.addr());
  EXPECT_EQ(driver.get(Driver::line_point), end) << "past the end: the node's position (F172)";
  tracker(0, 0);
  pod::paths::lane_target(w.m, driver.addr());
  EXPECT_EQ(driver.get(Driver::line_point), 0u);
}

// The simulation step's paths pass for one racer (003 Race::step; Cars::retrack): after a put-back
// the tracker is found again and a computer driver's lane target set; otherwise the tracker moves.
TEST_F(RacePaths, AfterAPutBackFoundAgainElseMovedAlong) {
  const GuestAddr a = paths.link({at(0, 0, 0), at(10, 0, 0)});
  const GuestAddr b = paths.link({at(60, 0, 0), at(70, 0, 0)});
  wheel_down(true);
  tracker(a, 0);
  body_at(at(61, 0, 0));
  driver.set(Driver::flags, 2u);  // a computer driver
  pod::paths::after_step(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_link), a) << "no put-back: moved along, not placed";
  EXPECT_EQ(driver.get(Driver::tracker_point), 1);
  driver.set(Driver::put_back_mark, 1u);
  tracker(a, 0);
  pod::paths::after_step(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::put_back_mark), 0u);
  EXPECT_EQ(driver.get(Driver::tracker_link), b);
  EXPECT_EQ(driver.get(Driver::tracker_point), 0);
  EXPECT_EQ(driver.get(Driver::line_point), paths.point(b, 1));
  // A driver with no tracker gets none after a put-back (found again only from one it had).
  driver.set(Driver::put_back_mark, 1u);
  tracker(0, 0);
  driver.set(Driver::line_point, 0x99u);
  pod::paths::after_step(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::tracker_link), 0u);
  EXPECT_EQ(driver.get(Driver::line_point), 0u) << "the lane target without a tracker";
}

// After a put-back only a computer driver ([driver+0x38] & 2, F151) gets a lane target: a human
// driver's line point keeps what it held (port/CHOICES.md "The paths pass").
TEST_F(RacePaths, AfterAPutBackAHumanDriverGetsNoLaneTarget) {
  const GuestAddr a = paths.link({at(0, 0, 0), at(10, 0, 0)});
  wheel_down(true);
  body_at(at(1, 0, 0));
  driver.set(Driver::flags, 1u);  // a human driver
  driver.set(Driver::put_back_mark, 1u);
  driver.set(Driver::line_point, 0x99u);
  tracker(a, 1);
  pod::paths::after_step(w.m, driver.addr(), car.addr());
  EXPECT_EQ(driver.get(Driver::put_back_mark), 0u);
  EXPECT_EQ(driver.get(Driver::tracker_point), 0) << "found again on the nearest point";
  EXPECT_EQ(driver.get(Driver::line_point), 0x99u) << "no lane target for a human driver";
}

// A07: the catch-up's target comes through the function at 0x4f984c, the racer by number.
TEST(FactsCatchUpTarget, A07_TheRacerByNumber) {
  World w;
  w.m.map(addr::kHumanRacers, 8);
  w.m.put_i32(addr::kHumanRacers, 1);
  w.m.put_i32(addr::kComputerRacers, 4);
  EXPECT_EQ(pod::catch_up::target(w.m, 0), addr::kDrivers);
  EXPECT_EQ(pod::catch_up::target(w.m, 4), addr::kDrivers + 4 * addr::kDriverSize);
  EXPECT_EQ(pod::catch_up::target(w.m, 5), 0u) << "no racer 5 of 5";
  EXPECT_EQ(pod::catch_up::target(w.m, -1), 0u);
}

TEST(FactsCatchUpTarget, A07_TheCatchUpCallsItAndRefusesAnyOtherFunction) {
  World w;
  w.m.map(addr::kHumanRacers, 8);
  w.m.put_i32(addr::kComputerRacers, 2);
  const Driver d = w.driver(1);
  d.set(Driver::flags, 2u);
  d.set(Driver::catch_up, addr::kCatchUpRecords + 16);
  w.m.put_i32(addr::kCatchUpRecords + 16 + 0, 5);  // no racer 5: nothing scaled, nothing written
  w.m.put_i32(addr::kCatchUpRecords + 16 + 4, 0xf000);
  w.m.put_i32(addr::kCatchUpRecords + 16 + 8, 0x10000);
  w.set_dt(0x1000);
  pod::step::catch_up(w.m, w.car(1).addr(), d.addr());
  EXPECT_EQ(w.m.i32(addr::kFrameTime), 0x1000);
  EXPECT_EQ(w.m.i32(addr::kCatchUpRecords + 16 + 4), 0xf000);
  w.m.put_i32(addr::kCatchUpRecords + 16 + 0, 0);  // racer 0, 100 ahead: faster
  w.car(0).set(Car::centre, at(100, 0, 0));
  w.car(1).set(Car::forward, at(1, 0, 0));
  pod::step::catch_up(w.m, w.car(1).addr(), d.addr());
  EXPECT_EQ(w.m.i32(addr::kCatchUpRecords + 16 + 4), 0xf000 + 800);
  pod::RaceBlock(w.m).set(pod::RaceBlock::catch_up_target_fn, 0x401000u);
  EXPECT_THROW(pod::step::catch_up(w.m, w.car(1).addr(), d.addr()), std::runtime_error);
}

}  // namespace
