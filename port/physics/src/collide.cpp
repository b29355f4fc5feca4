// Stage 24: track contact (ground faces, free wheels, walls, the fall test).
#include "pod/collide.hpp"

#include <algorithm>
#include <vector>

#include "common.hpp"
#include "pod/putback.hpp"

namespace pod::collide {

using namespace pod::detail;

namespace {

Vec3 vertex(Memory& m, GuestAddr mesh, std::uint32_t n) {
  return m.vec3(Mesh(m, mesh).get(Mesh::vertices) + Mesh::kVertexSize * n);
}

// A face's corner vertices, each loaded (its u16 number, then the vertex) the first time an
// edge needs it: the original reads only the corners its tests reach (CHOICES "Reads").
class Corners {
 public:
  Corners(Memory& m, GuestAddr mesh, GuestAddr numbers) : m_(m), mesh_(mesh), numbers_(numbers) {}
  const Vec3& operator[](int k) {
    if (!have_[k]) {
      v_[k] = vertex(m_, mesh_, m_.u16(numbers_ + 2u * static_cast<std::uint32_t>(k)));
      have_[k] = true;
    }
    return v_[k];
  }

 private:
  Memory& m_;
  GuestAddr mesh_;
  GuestAddr numbers_;
  Vec3 v_[4];
  bool have_[4] = {false, false, false, false};
};

// inside(a, b, c) with normal n: each edge (a, b), (b, c), (c, a) in turn keeps P on its inner side;
// stops at the first failure. a, b, c are corner indices into `corners`.
bool inside(Memory& m, const Vec3& p, Corners& corners, int a, int b, int c, GuestAddr normal) {
  const int order[3] = {a, b, c};
  const Vec3 n = m.vec3(normal);
  for (int e = 0; e < 3; ++e) {
    const Vec3 u = corners[order[e]];
    const Vec3 v = corners[order[(e + 1) % 3]];
    if (math::dot16(math::cross16(sub(v, u), sub(p, u)), n) < 0) return false;
  }
  return true;
}

// The face's normal for a kind: 0 triangle +0x00, 1 quad +0x0c (half a b c), 2 quad +0x18 (c d a).
GuestAddr normal_at(GuestAddr face, int kind) {
  return kind == 0 ? face + Triangle::normal.offset
                   : face + (kind == 1 ? Quad::normal_abc.offset : Quad::normal_cda.offset);
}

// The point's height over the face's plane: (position − corner 0) · normal(face, kind).
Fixed height(Memory& m, const Vec3& pos, GuestAddr face, GuestAddr mesh, int kind) {
  const std::uint32_t c0 = kind == 0 ? m.u16(face + Triangle::corners[0].offset) : m.u16(face + Quad::corners[0].offset);
  return math::dot16(sub(pos, vertex(m, mesh, c0)), m.vec3(normal_at(face, kind)));
}

// F072: from 2.29 below the face to one radius above it, for the bottom of the point's sphere.
bool band(Fixed e, Fixed radius) {
  const Fixed d = wrap_sub(e, radius);
  return d >= -kBandBelow && d <= radius;
}

struct Hit {
  GuestAddr face = 0;
  GuestAddr mesh = 0;
  int kind = 0;
  Fixed e = 0;
};

// The first ground face of the sector's mesh the point is over, within the band: quads first, then
// triangles (F071).
bool search(Memory& m, const Point& p, GuestAddr sector, Hit& hit) {
  const GuestAddr mesh = m.u32(sector + Sector::mesh.offset);
  const Mesh me(m, mesh);
  const std::int16_t quads = me.get(Mesh::quad_count);
  GuestAddr q = 0;
  for (std::int32_t j = 0; j < quads; ++j) {
    if (j == 0) q = me.get(Mesh::quads);
    const GuestAddr f = q + Quad::kSize * static_cast<std::uint32_t>(j);
    if ((m.u8(f + Quad::flags.offset) & face_flags::kGround) == 0) continue;
    const int k = over_quad(m, p.addr(), f, mesh);
    if (k == 0) continue;
    const Fixed e = height(m, p.get(Point::position), f, mesh, k);
    if (band(e, p.get(Point::radius))) {
      hit = Hit{f, mesh, k, e};
      return true;
    }
  }
  const std::int16_t tris = me.get(Mesh::triangle_count);
  GuestAddr t = 0;
  for (std::int32_t j = 0; j < tris; ++j) {
    if (j == 0) t = me.get(Mesh::triangles);
    const GuestAddr f = t + Triangle::kSize * static_cast<std::uint32_t>(j);
    if ((m.u8(f + Triangle::flags.offset) & face_flags::kGround) == 0) continue;
    if (over_triangle(m, p.addr(), f, mesh) == 0) continue;
    const Fixed e = height(m, p.get(Point::position), f, mesh, 0);
    if (band(e, p.get(Point::radius))) {
      hit = Hit{f, mesh, 0, e};
      return true;
    }
  }
  return false;
}

// A wheel on a face found with height e: the floor test (F073) and the lift into the suspension,
// as far as the wheel's travel allows; how far past the top is kept for suspension::travel.
void settle_wheel(Memory& m, const Car& c, const Point& p, Fixed e) {
  const Fixed along = math::dot16(p.get(Point::contact_normal), c.get(Car::up));
  if (along <= kFloorUpMin) {  // F073
    p.set(Point::touching, std::uint8_t{0});
    return;
  }
  const Fixed h = p.get(Point::extension);
  const Fixed raw = wrap_add(h, math::qdiv(m, wrap_sub(e, p.get(Point::radius)), along));
  p.set(Point::bottom_out, raw < 0 ? wrap_neg(raw) : 0);
  // Held to [0, droop]; the droop is read only when the lower bound does not decide (CHOICES "Reads").
  const Fixed lifted = raw < 0 ? 0 : std::min(raw, p.get(Point::droop));
  p.set(Point::position, add(p.get(Point::position), math::scale16(c.get(Car::up), wrap_sub(h, lifted))));
  p.set(Point::extension_rate, math::dot16(p.get(Point::velocity), p.get(Point::contact_normal)));
  p.set(Point::extension, lifted);
}

// F077: with two or three wheels down, each free wheel tries the touching wheels' planes in order.
void free_wheels(Memory& m, const Car& c) {
  int down = 0;
  for (int i = 0; i < Car::kWheels; ++i) {
    if (c.point(i).get(Point::touching) != 0) ++down;
  }
  if (down != 2 && down != 3) return;
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    if (p.get(Point::touching) != 0) continue;
    for (int j = 0; j < Car::kWheels; ++j) {
      const Point q = c.point(j);
      if (q.get(Point::touching) == 0) continue;
      const Fixed e = wrap_add(math::dot16(sub(p.get(Point::position), q.get(Point::position)), q.get(Point::contact_normal)),
                               q.get(Point::radius));
      if (!band(e, p.get(Point::radius))) continue;
      p.set(Point::surface, q.get(Point::surface));
      p.set(Point::sector, q.get(Point::sector));
      p.set(Point::contact_normal, q.get(Point::contact_normal));
      p.set(Point::face_mesh, q.get(Point::face_mesh));
      p.set(Point::face_number, q.get(Point::face_number));
      p.set(Point::face_is_quad, q.get(Point::face_is_quad));
      p.set(Point::touching, std::uint8_t{1});
      settle_wheel(m, c, p, e);
      break;
    }
  }
}

}  // namespace

// FUN_00424ba4
int over_quad(Memory& m, GuestAddr point, GuestAddr quad, GuestAddr mesh) {
  Corners k(m, mesh, quad + Quad::corners.offset);
  const Vec3 a = k[0];
  const Vec3 c = k[2];
  const Vec3 p = m.vec3(point + Point::position.offset);
  const Vec3 x = math::cross16(sub(c, a), sub(p, a));
  if (math::dot16(x, m.vec3(quad + Quad::normal.offset)) < 0) {
    return inside(m, p, k, 0, 1, 2, quad + Quad::normal_abc.offset) ? 1 : 0;
  }
  return inside(m, p, k, 2, 3, 0, quad + Quad::normal_cda.offset) ? 2 : 0;
}

// FUN_00424ee4
int over_triangle(Memory& m, GuestAddr point, GuestAddr triangle, GuestAddr mesh) {
  Corners k(m, mesh, triangle + Triangle::corners.offset);
  const Vec3 p = m.vec3(point + Point::position.offset);
  return inside(m, p, k, 0, 1, 2, triangle + Triangle::normal.offset) ? 1 : 0;
}

// FUN_004174f8
void touch_face(Memory& m, GuestAddr point, GuestAddr face, GuestAddr mesh, int kind) {
  const Point p(m, point);
  const Mesh me(m, mesh);
  std::uint8_t surface;
  std::int32_t number;
  if (kind == 0) {
    surface = m.u8(face + Triangle::surface.offset);
    number = static_cast<std::int32_t>(face - me.get(Mesh::triangles)) / static_cast<std::int32_t>(Triangle::kSize);
  } else {
    surface = m.u8(face + Quad::surface.offset);
    number = static_cast<std::int32_t>(face - me.get(Mesh::quads)) / static_cast<std::int32_t>(Quad::kSize);
  }
  p.set(Point::surface, Surface::at(surface & 0xfu));
  p.set(Point::contact_normal, m.vec3(normal_at(face, kind)));
  p.set(Point::face_mesh, mesh);
  p.set(Point::face_number, number);
  p.set(Point::face_is_quad, static_cast<std::uint8_t>(kind != 0 ? 1 : 0));
  p.set(Point::touching, std::uint8_t{1});
}

// FUN_00417884
bool chassis_searches(Memory& m, GuestAddr car) {
  std::int32_t n = math::wrap_add(m.i32(addr::kChassisSearchCounter), 1);
  bool yes = false;
  if (n >= kChassisEvery) {  // every 17th call (F075)
    n = 0;
    yes = true;
  }
  m.put_i32(addr::kChassisSearchCounter, n);
  const Car c(m, car);
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    if (p.get(Point::touching) == 0 || math::dot16(p.get(Point::contact_normal), c.get(Car::up)) < kWheelNormalMin) {
      yes = true;
    }
  }
  return yes;
}

// FUN_004167ec
void wall_depth(Memory& m, GuestAddr point, GuestAddr normal, Fixed depth) {
  const Point p(m, point);
  if (depth <= p.get(Point::wall_depth)) return;
  p.set(Point::wall_depth, depth);
  p.set(Point::wall_dir, m.vec3(normal));
  p.set(Point::bounce, kBounce);
}

// FUN_004168dc
void push_faces(Memory& m, GuestAddr point, GuestAddr sector, GuestAddr car) {
  const Point p(m, point);
  const bool chassis = point == car + Car::kChassis * Point::kSize;
  const std::uint8_t wanted = chassis ? (face_flags::kWall | face_flags::kGround) : face_flags::kWall;
  const GuestAddr mesh = m.u32(sector + Sector::mesh.offset);
  const Mesh me(m, mesh);
  // A face the point's sphere (its radius grown by the lift factor, F024) reaches into.
  const auto reach_into = [&](GuestAddr face, int kind) {
    const Fixed e = height(m, p.get(Point::position), face, mesh, kind);
    const Fixed radius = p.get(Point::radius);
    const Fixed reach = wrap_add(radius, math::mul16(p.get(Point::lift), radius));
    if (e < reach && e > -kBandBelow) wall_depth(m, point, normal_at(face, kind), wrap_sub(reach, e));
  };
  const std::int16_t quads = me.get(Mesh::quad_count);
  GuestAddr q = 0;
  for (std::int32_t j = 0; j < quads; ++j) {
    if (j == 0) q = me.get(Mesh::quads);
    const GuestAddr f = q + Quad::kSize * static_cast<std::uint32_t>(j);
    if ((m.u8(f + Quad::flags.offset) & wanted) == 0) continue;
    const int k = over_quad(m, point, f, mesh);
    if (k != 0) reach_into(f, k);
  }
  const std::int16_t tris = me.get(Mesh::triangle_count);
  GuestAddr t = 0;
  for (std::int32_t j = 0; j < tris; ++j) {
    if (j == 0) t = me.get(Mesh::triangles);
    const GuestAddr f = t + Triangle::kSize * static_cast<std::uint32_t>(j);
    if ((m.u8(f + Triangle::flags.offset) & wanted) == 0) continue;
    if (over_triangle(m, point, f, mesh) != 0) reach_into(f, 0);
  }
}

namespace {
// push_faces for each sector of the list and each point 0..4.
void walls_of(Memory& m, GuestAddr car, const GuestAddr* sectors, int count) {
  const Car c(m, car);
  for (int k = 0; k < count; ++k) {
    for (int i = 0; i < Car::kPoints; ++i) push_faces(m, c.point(i).addr(), sectors[k], car);
  }
}
}  // namespace

// FUN_00416be0
void sector_walls(Memory& m, GuestAddr car, GuestAddr sectors, std::int32_t count) {
  std::vector<GuestAddr> list;
  for (std::int32_t k = 0; k < count; ++k) list.push_back(m.u32(sectors + 4u * static_cast<std::uint32_t>(k)));
  walls_of(m, car, list.data(), static_cast<int>(list.size()));
}

namespace {

/// Last step's face first (F069): the point's face, when the point is still over it and within the
/// band. The point's position and radius are read where a test first needs them, as the original
/// reads them: a point with no face reads neither.
bool last_face(Memory& m, const Point& p, Hit& hit) {
  if (p.get(Point::touching) == 0) return false;
  const GuestAddr mesh = p.get(Point::face_mesh);
  if (mesh == 0) return false;
  const Mesh me(m, mesh);
  const auto number = static_cast<std::uint32_t>(p.get(Point::face_number));
  GuestAddr f = 0;
  int k = 0;
  if (p.get(Point::face_is_quad) != 0) {
    f = me.get(Mesh::quads) + Quad::kSize * number;
    k = over_quad(m, p.addr(), f, mesh);
    if (k == 0) return false;
  } else {
    f = me.get(Mesh::triangles) + Triangle::kSize * number;
    if (over_triangle(m, p.addr(), f, mesh) == 0) return false;
  }
  const Fixed e = height(m, p.get(Point::position), f, mesh, k);
  if (!band(e, p.get(Point::radius))) return false;
  hit = Hit{f, mesh, k, e};
  return true;
}

/// The sector searches (F070): every sector on a full call, else the point's own sector and then its
/// neighbours. The sector whose search found a face is `sector`; when none did, the first whose
/// bounds held the point becomes the point's sector.
bool search_sectors(Memory& m, const Point& p, bool full, Hit& hit, GuestAddr& sector) {
  GuestAddr first_holding = 0;
  const auto try_sector = [&](GuestAddr s) {
    if (!putback::within_bounds(m, s, p.addr(Point::position))) return false;
    if (first_holding == 0) first_holding = s;
    if (!search(m, p, s, hit)) return false;
    sector = s;
    return true;
  };
  bool found = false;
  if (full) {
    const std::int32_t count = m.i32(addr::kSectorCount);
    const GuestAddr table = m.u32(addr::kSectorTable);
    for (std::int32_t s = 0; s < count && !found; ++s) found = try_sector(table + Sector::kSize * static_cast<std::uint32_t>(s));
  } else if (const GuestAddr own = p.get(Point::sector); own != 0) {
    found = try_sector(own);
    const Sector so(m, own);
    const std::int32_t count = found ? 0 : so.get(Sector::neighbour_count);
    GuestAddr list = 0;
    for (std::int32_t j = 0; j < count && !found; ++j) {
      if (j == 0) list = so.get(Sector::neighbours);
      found = try_sector(m.u32(list + 4u * static_cast<std::uint32_t>(j)));
    }
  }
  if (!found && first_holding != 0) p.set(Point::sector, first_holding);
  return found;
}

/// The walls of the sectors found (F076): each distinct sector of points 0..4, in point order.
void walls_of_found(Memory& m, const Car& c) {
  GuestAddr found[Car::kPoints];
  int n = 0;
  for (int i = 0; i < Car::kPoints; ++i) {
    const GuestAddr s = c.point(i).get(Point::sector);
    if (s == 0) continue;
    bool seen = false;
    for (int k = 0; k < n; ++k) seen = seen || found[k] == s;
    if (!seen) found[n++] = s;
  }
  walls_of(m, c.addr(), found, n);
}

/// The fall test (F080): no point touching, and wheel 0 more than 10 below its sector's low bound.
bool fell(Memory& m, const Car& c) {
  for (int i = 0; i < Car::kPoints; ++i) {
    if (c.point(i).get(Point::touching) != 0) return false;
  }
  const Point w0 = c.point(0);
  const GuestAddr s0 = w0.get(Point::sector);
  if (s0 == 0) return false;
  const Fixed z = m.i32(w0.addr(Point::position) + 8);            // only z is compared
  const Fixed floor = m.i32(s0 + Sector::bounds_low.offset + 8);  // the low bound's z (A13, chosen)
  return z < wrap_sub(floor, kFallDepth);
}

}  // namespace

// FUN_00417988
bool track(Memory& m, GuestAddr car, GuestAddr driver) {
  const Car c(m, car);
  const std::int32_t calls = wrap_add(c.get(Car::track_calls), 1);
  c.set(Car::track_calls, calls);
  const bool full = (calls & 3) == 0;  // every fourth call, every sector (F070)
  for (int i = 0; i < Car::kPoints; ++i) {
    c.point(i).set(Point::wall_depth, 0);
    if (i < Car::kWheels) c.point(i).set(Point::bottom_out, 0);
  }
  const bool chassis = chassis_searches(m, car);
  for (int i = 0; i < Car::kPoints; ++i) {
    if (i == Car::kChassis && !chassis) continue;  // keeps last step's state
    const Point p = c.point(i);
    Hit hit;
    GuestAddr sector = 0;
    const bool kept = last_face(m, p, hit);
    const bool by_search = !kept && search_sectors(m, p, full, hit, sector);
    if (!kept && !by_search) {
      p.set(Point::touching, std::uint8_t{0});
      continue;
    }
    if (by_search) p.set(Point::sector, sector);
    touch_face(m, p.addr(), hit.face, hit.mesh, hit.kind);
    if (i == Car::kChassis) continue;  // its depth and bounce come from push_faces (F074)
    settle_wheel(m, c, p, hit.e);
  }
  free_wheels(m, c);  // F077
  walls_of_found(m, c);
  const GuestAddr s1 = c.point(1).get(Point::sector);
  c.set(Car::wheel1_sector_number,
        s1 != 0 ? static_cast<std::int32_t>(s1 - m.u32(addr::kSectorTable)) / static_cast<std::int32_t>(Sector::kSize) : -1);
  if (!fell(m, c)) return false;
  putback::put_back(m, car, driver);
  return true;
}

}  // namespace pod::collide
