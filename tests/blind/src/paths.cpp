// Blind reading: paths::track (FUN_004b0ec0), "moves the race tracker along" (002 "The race
// paths", F143, F172) and VALUES.md section 11. What moves it, how far and when it is lost are
// open; choices in READING.md.
#include <cstdint>

#include "pod/blind.hpp"
#include "pod/memory.hpp"
#include "pod/putback.hpp"

namespace pod::blind::paths {
namespace {

constexpr GuestAddr kTrackerLink = 0x2c;   // driver
constexpr GuestAddr kTrackerPoint = 0x30;  // driver: index into the link's points
constexpr GuestAddr kBody = 0x498;         // car: the body's centre (000, 003 "the +0x498 point")
constexpr GuestAddr kPointSize = 0xd8;
constexpr GuestAddr kTouching = 0x3a;

constexpr GuestAddr kLinkPoints = 0x10;
constexpr GuestAddr kLinkCount = 0x18;
constexpr GuestAddr kNodeLinksOut = 0x0c;
constexpr GuestAddr kNodeLinkList = 0x14;

constexpr Fixed kLost = 0x80000;           // a lost tracker's distance, 8

struct Tracker {
  GuestAddr link;
  std::int32_t point;
};

bool any_wheel_down(Memory& m, GuestAddr car) {
  for (GuestAddr w = 0; w < 4; ++w)
    if (m.u8(car + w * kPointSize + kTouching) != 0) return true;
  return false;
}

// One move forward when the next place is nearer the body than the tracker's (F143's distance).
// Past the link's last point the next place is the end node's position (F172); moving there takes
// the node's first link out, at its point 0 (chosen).
bool step_forward(Memory& m, Tracker& t, const Vec3& body, Fixed& here) {
  const std::int32_t count = m.i32(t.link + kLinkCount);
  if (t.point + 1 < count) {
    const Vec3 next = m.vec3(m.u32(t.link + kLinkPoints) + 12u * static_cast<GuestAddr>(t.point + 1));
    const Fixed d = ::pod::paths::distance(next, body);
    if (d >= here) return false;
    ++t.point;
    here = d;
    return true;
  }
  const GuestAddr node = ::pod::paths::track_node(m, t.link);
  if (node == 0 || m.i32(node + kNodeLinksOut) <= 0) return false;
  const Fixed d = ::pod::paths::distance(m.vec3(node), body);
  if (d >= here) return false;
  t.link = m.u32(m.u32(node + kNodeLinkList));
  t.point = 0;
  here = d;
  return t.link != 0;
}

}  // namespace

void track(Memory& m, GuestAddr driver, GuestAddr car) {
  const GuestAddr link = m.u32(driver + kTrackerLink);
  if (link == 0) return;  // no tracker
  const std::int32_t point = m.i32(driver + kTrackerPoint);
  Tracker t{link, point};
  const Vec3 body = m.vec3(car + kBody);
  const GuestAddr points = m.u32(t.link + kLinkPoints);
  Fixed here = ::pod::paths::distance(m.vec3(points + 12u * static_cast<GuestAddr>(t.point)), body);
  // As far as it gets nearer, bounded by one link's worth of points and one node per call.
  const std::int32_t bound = m.i32(t.link + kLinkCount) + 1;
  for (std::int32_t i = 0; i < bound && step_forward(m, t, body, here); ++i) {
  }
  if (t.link != link) m.put_u32(driver + kTrackerLink, t.link);
  if (t.link != link || t.point != point) m.put_i32(driver + kTrackerPoint, t.point);
  // Lost: still farther than 8 from the body with a wheel on the ground: placed again (chosen).
  if (here > kLost && any_wheel_down(m, car)) ::pod::paths::place(m, driver, car);
}

}  // namespace pod::blind::paths
