// Stage 24: track contact on ground faces.
#include "pod/collide.hpp"

#include "common.hpp"

namespace pod::collide {

using namespace pod::detail;

namespace {

Vec3 vertex(Memory& m, GuestAddr mesh, std::uint32_t n) {
  return m.vec3(Mesh(m, mesh).get(Mesh::vertices) + Mesh::kVertexSize * n);
}

// A face's corner vertices, each loaded (its u16 number, then the vertex) the first time an
// edge needs it: the original reads only the corners its tests reach (CHOICES "Replay findings" R2).
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
bool search(Memory& m, const Point& p, const Vec3& pos, Fixed radius, GuestAddr sector, Hit& hit) {
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
    const Fixed e = height(m, pos, f, mesh, k);
    if (band(e, radius)) {
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
    const Fixed e = height(m, pos, f, mesh, 0);
    if (band(e, radius)) {
      hit = Hit{f, mesh, 0, e};
      return true;
    }
  }
  return false;
}

// lo.x ≤ p.x, p.x ≤ hi.x, lo.y ≤ p.y, p.y ≤ hi.y, lo.z ≤ p.z, p.z ≤ hi.z in that order, each word
// loaded when its comparison is made, stopping at the first false (CHOICES "Replay findings" R3).
bool within_bounds(Memory& m, GuestAddr sector, const Vec3& p) {
  const GuestAddr lo = sector + Sector::bounds_low.offset;
  const GuestAddr hi = sector + Sector::bounds_high.offset;
  for (std::uint32_t k = 0; k < 3; ++k) {
    if (m.i32(lo + 4 * k) > p[static_cast<int>(k)]) return false;
    if (p[static_cast<int>(k)] > m.i32(hi + 4 * k)) return false;
  }
  return true;
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

// FUN_00417988
void track(Memory& m, GuestAddr car, GuestAddr /*driver: not read*/) {
  const Car c(m, car);
  const std::int32_t calls = wrap_add(c.get(Car::track_calls), 1);
  c.set(Car::track_calls, calls);
  const bool full = (calls & 3) == 0;  // every fourth call, every sector (F070)
  const bool chassis = chassis_searches(m, car);
  for (int i = 0; i < Car::kPoints; ++i) {
    if (i == Car::kChassis && !chassis) continue;  // keeps last step's state
    const Point p = c.point(i);
    const Fixed radius = p.get(Point::radius);
    const Vec3 pos = p.get(Point::position);
    Hit hit;
    bool found = false;
    bool by_search = false;
    GuestAddr sector = 0;
    // Last step's face first (F069).
    if (p.get(Point::touching) != 0) {
      const GuestAddr mesh = p.get(Point::face_mesh);
      if (mesh != 0) {
        const Mesh me(m, mesh);
        const auto number = static_cast<std::uint32_t>(p.get(Point::face_number));
        if (p.get(Point::face_is_quad) != 0) {
          const GuestAddr f = me.get(Mesh::quads) + Quad::kSize * number;
          const int k = over_quad(m, p.addr(), f, mesh);
          if (k != 0) {
            const Fixed e = height(m, pos, f, mesh, k);
            if (band(e, radius)) {
              hit = Hit{f, mesh, k, e};
              found = true;
            }
          }
        } else {
          const GuestAddr f = me.get(Mesh::triangles) + Triangle::kSize * number;
          if (over_triangle(m, p.addr(), f, mesh) != 0) {
            const Fixed e = height(m, pos, f, mesh, 0);
            if (band(e, radius)) {
              hit = Hit{f, mesh, 0, e};
              found = true;
            }
          }
        }
      }
    }
    if (!found) {
      GuestAddr first_holding = 0;
      const auto try_sector = [&](GuestAddr s) {
        if (!within_bounds(m, s, pos)) return false;
        if (first_holding == 0) first_holding = s;
        if (search(m, p, pos, radius, s, hit)) {
          sector = s;
          return true;
        }
        return false;
      };
      if (full) {
        const std::int32_t count = m.i32(addr::kSectorCount);
        const GuestAddr table = m.u32(addr::kSectorTable);
        for (std::int32_t s = 0; s < count && !found; ++s) {
          found = try_sector(table + Sector::kSize * static_cast<std::uint32_t>(s));
        }
      } else {
        const GuestAddr own = p.get(Point::sector);
        if (own != 0) {
          found = try_sector(own);
          if (!found) {
            const Sector so(m, own);
            const std::int32_t count = so.get(Sector::neighbour_count);
            GuestAddr list = 0;
            for (std::int32_t j = 0; j < count && !found; ++j) {
              if (j == 0) list = so.get(Sector::neighbours);
              found = try_sector(m.u32(list + 4u * static_cast<std::uint32_t>(j)));
            }
          }
        }
      }
      by_search = found;
      if (!found && first_holding != 0) p.set(Point::sector, first_holding);
    }
    if (!found) {
      p.set(Point::touching, std::uint8_t{0});
      continue;
    }
    if (by_search) p.set(Point::sector, sector);
    touch_face(m, p.addr(), hit.face, hit.mesh, hit.kind);
    if (i == Car::kChassis) {
      // Anything under the chassis point pushes it out with a depth and a bounce (F074).
      p.set(Point::wall_depth, wrap_sub(radius, hit.e));
      p.set(Point::wall_dir, p.get(Point::contact_normal));
      p.set(Point::bounce, 0x8000);
      continue;
    }
    const Fixed along = math::dot16(p.get(Point::contact_normal), c.get(Car::up));
    if (along <= kFloorUpMin) {  // F073
      p.set(Point::touching, std::uint8_t{0});
      continue;
    }
    // The wheel centre set one radius above the face, as far as its travel allows.
    const Fixed h = p.get(Point::extension);
    const Fixed lifted = clamp(wrap_add(h, math::qdiv(m, wrap_sub(hit.e, radius), along)), 0, p.get(Point::droop));
    p.set(Point::position, add(pos, math::scale16(c.get(Car::up), wrap_sub(h, lifted))));
    p.set(Point::extension_rate, math::dot16(p.get(Point::velocity), p.get(Point::contact_normal)));
    p.set(Point::extension, lifted);
  }
  const GuestAddr s1 = c.point(1).get(Point::sector);
  c.set(Car::wheel1_sector_number,
        s1 != 0 ? static_cast<std::int32_t>(s1 - m.u32(addr::kSectorTable)) / static_cast<std::int32_t>(Sector::kSize) : -1);
}

}  // namespace pod::collide
