// Putting a car back on the track, the sector searches it uses, and the race paths' next point.
#include "pod/putback.hpp"

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
}

}  // namespace pod::putback

namespace pod::paths {

using namespace pod::detail;

namespace {
// Race path records (002 "The race paths"; F144; unnamed fields chosen).
constexpr std::uint32_t kNodeLinkCount = 0x0c;
constexpr std::uint32_t kNodeLinks = 0x14;
constexpr std::uint32_t kLinkEnd = 0x08;
constexpr std::uint32_t kLinkPoints = 0x10;
constexpr std::uint32_t kLinkCount = 0x18;
constexpr std::uint32_t kPointSize = 12;
}  // namespace

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
