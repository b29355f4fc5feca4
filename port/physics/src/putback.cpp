// Putting a car back on the track, the sector searches it uses, and the race paths: the put-back's
// next point, the race trackers and the lane target.
#include "pod/putback.hpp"

#include <optional>
#include <stdexcept>
#include <string>

#include "common.hpp"
#include "pod/suspension.hpp"
#include "pod/tables.hpp"

namespace pod::putback {

using namespace pod::detail;
using math::mul16;

bool within_bounds(Memory& m, GuestAddr sector, GuestAddr position) {
  const GuestAddr lo = sector + Sector::bounds_low.offset;
  const GuestAddr hi = sector + Sector::bounds_high.offset;
  for (std::uint32_t k = 0; k < 3; ++k) {
    if (m.i32(lo + 4 * k) > m.i32(position + 4 * k)) return false;
    if (m.i32(position + 4 * k) > m.i32(hi + 4 * k)) return false;
  }
  return true;
}

// FUN_0045ccd8
GuestAddr sector_any(Memory& m, GuestAddr position) {
  const std::int32_t count = m.i32(addr::kSectorCount);
  const GuestAddr table = m.u32(addr::kSectorTable);
  for (std::int32_t i = 0; i < count; ++i) {
    const GuestAddr s = table + Sector::kSize * static_cast<std::uint32_t>(i);
    if (Sector(m, s).get(Sector::neighbour_count) < 0) continue;  // out of play (F079)
    if (within_bounds(m, s, position)) return s;
  }
  return table;  // none holds it: the first sector
}

// FUN_0045ca78
GuestAddr sector_near(Memory& m, GuestAddr position, GuestAddr hint) {
  if (hint != 0) {
    if (within_bounds(m, hint, position)) return hint;
    const Sector h(m, hint);
    const std::int32_t count = h.get(Sector::neighbour_count);
    GuestAddr list = 0;
    for (std::int32_t j = 0; j < count; ++j) {
      if (j == 0) list = h.get(Sector::neighbours);
      const GuestAddr s = m.u32(list + 4u * static_cast<std::uint32_t>(j));
      if (within_bounds(m, s, position)) return s;
    }
  }
  return sector_any(m, position);
}

// FUN_0041c814
void car_reset(Memory& m, GuestAddr car) {
  const Car c(m, car);
  c.set(Car::velocity, Vec3{});
  c.set(Car::spin, Vec3{});
  c.set(Car::carried_force, Vec3{});
  c.set(Car::carried_torque, Vec3{});
  c.set(Car::engine_speed, 0);
  c.set(Car::wheel_engine_speed, 0);
  c.set(Car::gear, std::int8_t{0});
  c.set(Car::gear_request, std::uint8_t{0});
  c.set(Car::gear_timer, 0);
  c.set(Car::controller_word, 0);
  c.set(Car::brake_hold, 0);
  c.set(Car::steer, 0);
  for (int i = 0; i < Car::kPoints; ++i) {
    const Point p = c.point(i);
    p.set(Point::sliding, std::uint8_t{0});
    p.set(Point::skidding, std::uint8_t{0});
    p.set(Point::velocity, Vec3{});
    p.set(Point::impulse, Vec3{});
  }
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    p.set(Point::roll_angle, 0);
    p.set(Point::spin, 0);
    p.set(Point::extension, p.get(Point::rest));  // at rest height
    p.set(Point::extension_rate, 0);
  }
  c.set(Car::engine_max, kEngineLimit);  // F048
  for (std::uint32_t k = 0; k < 4; ++k) {
    c.set(Car::shift_points[k], mul16(c.get(Car::engine_max), kShiftFractions[k]));
  }
}

// FUN_004231b4
void clear_pose(Memory& m, GuestAddr car) {
  const Car c(m, car);
  c.set(Car::centre, Vec3{});
  c.set(Car::forward, Vec3{});
  c.set(Car::left, Vec3{});
  c.set(Car::up, Vec3{});
  car_reset(m, car);
}

// FUN_00423538
void place(Memory& m, GuestAddr car, GuestAddr point, GuestAddr heading) {
  place_at(m, car, m.vec3(point), Vec3{m.i32(heading), m.i32(heading + 4), 0});
}

void place_at(Memory& m, GuestAddr car, const Vec3& at, const Vec3& heading) {
  const Car c(m, car);
  c.set(Car::centre, Vec3{at.x, at.y, wrap_add(at.z, kRaise)});  // F085
  const Vec3 level{heading.x, heading.y, 0};
  const Fixed len = tables::length16(m, level);
  const Vec3 forward{math::qdiv(m, level.x, len), math::qdiv(m, level.y, len), 0};
  const Vec3 up{0, 0, kOne};
  c.set(Car::forward, forward);
  c.set(Car::up, up);
  c.set(Car::left, math::cross16(up, forward));
  suspension::place_points(m, car);
  for (int i = 0; i < Car::kPoints; ++i) {
    const Point p = c.point(i);
    const GuestAddr s = sector_near(m, p.addr(Point::position), p.get(Point::sector));
    p.set(Point::sector, s);
    p.set(Point::last_sector, s);
  }
}

// FUN_00415730
void put_back(Memory& m, GuestAddr car, GuestAddr driver) {
  const Car c(m, car);
  const Point w0 = c.point(0);
  // Where: the middle of the face wheel 0 last touched (F082).
  Vec3 at;
  const GuestAddr mesh = w0.get(Point::face_mesh);
  if (mesh == 0) {
    at = w0.get(Point::position);
  } else {
    const Mesh me(m, mesh);
    const auto number = static_cast<std::uint32_t>(w0.get(Point::face_number));
    const GuestAddr vertices = me.get(Mesh::vertices);
    const auto corner = [&](GuestAddr numbers, std::uint32_t k) {
      return m.vec3(vertices + Mesh::kVertexSize * m.u16(numbers + 2 * k));
    };
    Vec3 sum;
    if (w0.get(Point::face_is_quad) != 0) {
      const GuestAddr q = me.get(Mesh::quads) + Quad::kSize * number;
      for (std::uint32_t k = 0; k < 4; ++k) sum = add(sum, corner(q + Quad::corners.offset, k));
      at = Vec3{sum.x >> 2, sum.y >> 2, sum.z >> 2};
    } else {
      const GuestAddr t = me.get(Mesh::triangles) + Triangle::kSize * number;
      for (std::uint32_t k = 0; k < 3; ++k) sum = add(sum, corner(t + Triangle::corners.offset, k));
      at = math::scale16_fistp(sum, kThird);  // FUN_004d4606, in place
    }
  }
  // Heading: along the race path when the track has one (F083), else the forward axis.
  Vec3 heading;
  std::optional<Vec3> along;
  if (m.u32(addr::kRacePaths) != 0) along = paths::heading_of(m, driver);
  heading = along ? *along : c.get(Car::forward);
  c.set(Car::upside_down, 0u);  // F086
  car_reset(m, car);
  clear_pose(m, car);
  place_at(m, car, at, heading);
  Driver(m, driver).set(Driver::put_back_mark, 1u);  // the paths pass's cue (the caller's share)
}

}  // namespace pod::putback

namespace pod::paths {

using namespace pod::detail;

namespace {
// Race path records (F144; unnamed fields chosen).
constexpr std::uint32_t kNodeLinkCount = PathNode::link_count.offset;
constexpr std::uint32_t kNodeLinks = PathNode::links.offset;
constexpr std::uint32_t kLinkEnd = PathLink::end.offset;
constexpr std::uint32_t kLinkPoints = PathLink::points.offset;
constexpr std::uint32_t kLinkCount = PathLink::point_count.offset;
constexpr std::uint32_t kPointSize = PathLink::kPointSize;

/// A tracker this far from its point, and not moving on, is lost (8 units, the road's half width;
/// chosen).
constexpr Fixed kLost = 0x80000;

/// |v| as the original's negation: |−2^31| stays −2^31 (and compares as the smallest).
Fixed abs32(Fixed v) { return v < 0 ? wrap_neg(v) : v; }

/// The tracker's point k on `link`.
GuestAddr point_at(Memory& m, GuestAddr link, std::int32_t k) {
  return m.u32(link + kLinkPoints) + kPointSize * static_cast<std::uint32_t>(k);
}
}  // namespace

Fixed distance(const Vec3& a, const Vec3& b) {
  Fixed d = abs32(wrap_sub(a.x, b.x));
  const Fixed dy = abs32(wrap_sub(a.y, b.y));
  if (dy > d) d = dy;
  const Fixed z4 = abs32(static_cast<Fixed>(static_cast<std::uint32_t>(wrap_sub(a.z, b.z)) << 2));  // F143
  if (z4 > d) d = z4;
  return d;
}

// FUN_004aa8a0
void place(Memory& m, GuestAddr driver, GuestAddr car) {
  const std::int32_t n = m.i32(addr::kPathLinks);
  if (n <= 0) return;
  if (n > static_cast<std::int32_t>(addr::kMaxPathLinks))
    throw std::runtime_error("paths::place: the link table at 0x543258 counts " + std::to_string(n) +
                             " links, more than its room for " + std::to_string(addr::kMaxPathLinks) +
                             " (is the track's path table laid out?)");
  std::optional<Vec3> body;  // the car's body centre, read at the first point compared
  GuestAddr best_link = 0;
  std::int32_t best_point = 0;
  Fixed best = 0;
  for (std::int32_t l = 0; l < n; ++l) {
    const GuestAddr link = m.u32(addr::kPathLinks + 4 + 4 * static_cast<std::uint32_t>(l));
    const std::int32_t count = m.i32(link + kLinkCount);
    for (std::int32_t k = 0; k < count; ++k) {
      const Vec3 q = m.vec3(point_at(m, link, k));
      if (!body) body = Car(m, car).get(Car::centre);
      const Fixed d = distance(q, *body);
      if (best_link == 0 || d < best) {  // the first strictly nearer wins
        best_link = link;
        best_point = k;
        best = d;
      }
    }
  }
  if (best_link == 0) return;
  const Driver dr(m, driver);
  dr.set(Driver::tracker_link, best_link);
  dr.set(Driver::tracker_point, best_point);
}

// FUN_004b0b98
GuestAddr track_node(Memory& m, GuestAddr link) { return m.u32(link + kLinkEnd); }

// FUN_004b0ec0
void track(Memory& m, GuestAddr driver, GuestAddr car) {
  const Driver dr(m, driver);
  const GuestAddr link = dr.get(Driver::tracker_link);
  if (link == 0) return;  // a racer without a tracker
  const Car c(m, car);
  bool down = false;  // in the air every point is as far as the car falls: the tracker stays
  for (int w = 0; w < Car::kWheels && !down; ++w) down = c.point(w).get(Point::touching) != 0;
  if (!down) return;
  const std::int32_t k = dr.get(Driver::tracker_point);
  const GuestAddr cur = point_at(m, link, k);
  const std::int32_t count = m.i32(link + kLinkCount);
  const GuestAddr next = k + 1 < count ? cur + kPointSize : track_node(m, link);
  const Vec3 body = c.get(Car::centre);
  const Fixed dc = distance(m.vec3(cur), body);
  if (next != 0 && distance(m.vec3(next), body) < dc) {
    if (k + 1 < count) {
      dr.set(Driver::tracker_point, k + 1);
    } else {  // past the end, at the node: on along the node's first link out, when it has points
      const GuestAddr end = m.u32(link + kLinkEnd);
      if (m.i32(end + kNodeLinkCount) >= 1) {
        const GuestAddr first = m.u32(m.u32(end + kNodeLinks));
        if (m.i32(first + kLinkCount) >= 1) {
          dr.set(Driver::tracker_link, first);
          dr.set(Driver::tracker_point, 0);
        }
      }
    }
    return;
  }
  if (dc > kLost) place(m, driver, car);  // lost: found again by the nearest point
}

// FUN_00455ed0
void lane_target(Memory& m, GuestAddr driver) {
  const Driver dr(m, driver);
  const GuestAddr link = dr.get(Driver::tracker_link);
  if (link == 0) {
    dr.set(Driver::line_point, 0u);
    return;
  }
  const std::int32_t k = dr.get(Driver::tracker_point);
  const GuestAddr line = k + 1 < m.i32(link + kLinkCount) ? point_at(m, link, k + 1) : track_node(m, link);
  dr.set(Driver::line_point, line);
}

void after_step(Memory& m, GuestAddr driver, GuestAddr car) {
  const Driver dr(m, driver);
  if (dr.get(Driver::put_back_mark) != 0) {
    dr.set(Driver::put_back_mark, 0u);
    if (dr.get(Driver::tracker_link) != 0) place(m, driver, car);  // found again from a tracker it had
    if ((dr.get(Driver::flags_low) & 2u) != 0) lane_target(m, driver);
    return;
  }
  track(m, driver, car);
}

// FUN_004abae8
GuestAddr next_point(Memory& m, GuestAddr link) {
  const GuestAddr end = m.u32(link + kLinkEnd);
  if (end == 0) return 0;
  const std::int32_t out = m.i32(end + kNodeLinkCount);
  if (out > 1) return end;  // the node's position, at +0
  if (out == 1) {
    const GuestAddr only = m.u32(m.u32(end + kNodeLinks));
    if (m.i32(only + kLinkCount) > 0) return m.u32(only + kLinkPoints);
    return 0;
  }
  return 0;
}

// FUN_004abd38
int heading(Memory& m, GuestAddr driver, GuestAddr out) {
  const std::optional<Vec3> h = heading_of(m, driver);
  if (!h) return 0;
  m.put_vec3(out, *h);
  return 1;
}

std::optional<Vec3> heading_of(Memory& m, GuestAddr driver) {
  const Driver d(m, driver);
  const GuestAddr link = d.get(Driver::tracker_link);
  if (link == 0) return std::nullopt;
  const auto k = static_cast<std::uint32_t>(d.get(Driver::tracker_point));
  const GuestAddr cur = m.u32(link + kLinkPoints) + kPointSize * k;
  GuestAddr next;
  if (static_cast<std::int32_t>(k) + 1 < m.i32(link + kLinkCount)) {
    next = cur + kPointSize;
  } else {
    next = next_point(m, link);
    if (next == 0) return std::nullopt;
  }
  return sub(m.vec3(next), m.vec3(cur));
}

}  // namespace pod::paths
