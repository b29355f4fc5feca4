// The props: FUN_0046a780, FUN_00454654, FUN_00468cfc (building the list), FUN_004547a4, FUN_004214b4,
// FUN_004215a8, FUN_00421750, FUN_00454a98, FUN_004adab0 and the props' part of FUN_0042196c (port/CHOICES.md
// "Props").
#include "pod/props.hpp"

#include <functional>

#include "common.hpp"
#include "pod/cars.hpp"
#include "pod/collide.hpp"
#include "pod/damage.hpp"
#include "pod/putback.hpp"
#include "pod/step.hpp"
#include "pod/suspension.hpp"
#include "pod/tables.hpp"

namespace pod::props {

using namespace pod::detail;
using math::cross16;
using math::dot16;
using math::mul16;
using math::scale16;

namespace {

/// Prop i's record in the list at [0x62129c].
GuestAddr prop_at(Memory& m, std::uint32_t i) { return Prop::at(m.u32(addr::kProps), i); }

GuestAddr hit_flag(std::uint32_t i) { return addr::kPropHitFlags + i; }

/// Copies `bytes` bytes (a multiple of 4) word by word.
void copy_words(Memory& m, GuestAddr to, GuestAddr from, std::uint32_t bytes) {
  for (std::uint32_t k = 0; k < bytes; k += 4) m.put_u32(to + k, m.u32(from + k));
}

void zero_words(Memory& m, GuestAddr to, std::uint32_t bytes) {
  for (std::uint32_t k = 0; k < bytes; k += 4) m.put_u32(to + k, 0);
}

/// A prop-frame vector in the world: position + v.x·axis0 + v.y·axis1 + v.z·axis2, each term a mul16,
/// added in that order (as the hull test's centre).
Vec3 to_world(const Vec3& pos, const Vec3 axes[3], const Vec3& v) {
  Vec3 w;
  for (int j = 0; j < 3; ++j) w[j] = wrap_add(wrap_add(wrap_add(pos[j], mul16(v.x, axes[0][j])), mul16(v.y, axes[1][j])), mul16(v.z, axes[2][j]));
  return w;
}

/// v over its length16, each component by qdiv.
Vec3 normalised(Memory& m, const Vec3& v) {
  const Fixed len = tables::length16(m, v);
  return Vec3{math::qdiv(m, v.x, len), math::qdiv(m, v.y, len), math::qdiv(m, v.z, len)};
}

/// |v| as the 32-bit negation (|−2^31| stays −2^31).
Fixed abs32(Fixed v) { return v < 0 ? wrap_neg(v) : v; }

/// A face of a mesh as the prop's plane search sees it.
struct FaceRef {
  GuestAddr face;
  GuestAddr mesh;
  bool quad;
};

/// Visits the faces of the prop's sector, then of its neighbours in list order: per mesh its quads,
/// then its triangles, until `visit` returns true. Reads each word only when it is reached.
bool search_faces(Memory& m, GuestAddr sector, const std::function<bool(const FaceRef&)>& visit) {
  const auto visit_sector = [&](GuestAddr s) {
    const GuestAddr mesh = Sector(m, s).get(Sector::mesh);
    if (mesh == 0) return false;
    const Mesh me(m, mesh);
    const std::int32_t quads = me.get(Mesh::quad_count);
    for (std::int32_t q = 0; q < quads; ++q) {
      if (visit(FaceRef{me.get(Mesh::quads) + Quad::kSize * static_cast<std::uint32_t>(q), mesh, true})) return true;
    }
    const std::int32_t triangles = me.get(Mesh::triangle_count);
    for (std::int32_t t = 0; t < triangles; ++t) {
      if (visit(FaceRef{me.get(Mesh::triangles) + Triangle::kSize * static_cast<std::uint32_t>(t), mesh, false})) return true;
    }
    return false;
  };
  if (visit_sector(sector)) return true;
  const Sector s(m, sector);
  const std::int32_t count = s.get(Sector::neighbour_count);
  for (std::int32_t k = 0; k < count; ++k) {
    if (visit_sector(m.u32(s.get(Sector::neighbours) + 4u * static_cast<std::uint32_t>(k)))) return true;
  }
  return false;
}

std::uint8_t face_flags(Memory& m, const FaceRef& f) {
  return f.quad ? Quad(m, f.face).get(Quad::flags) : Triangle(m, f.face).get(Triangle::flags);
}

/// The world position of the face's first corner (the mesh's vertex of its first corner number).
Vec3 first_corner(Memory& m, const FaceRef& f) {
  const std::uint16_t c = f.quad ? Quad(m, f.face).get(Quad::corners[0]) : Triangle(m, f.face).get(Triangle::corners[0]);
  return m.vec3(Mesh(m, f.mesh).get(Mesh::vertices) + Mesh::kVertexSize * c);
}

/// The rule of a face's height test: h = dot16(position − corner 0, normal) within [low, the hull's
/// radius], the radius read only when h passes `low`.
struct PlaneTest {
  Memory& m;
  GuestAddr prop;
  bool have_radius = false;
  Fixed radius = 0;
  Fixed hull_radius() {
    if (!have_radius) {
      radius = Hull(m, Prop(m, prop).get(Prop::hull)).get(Hull::radius);
      have_radius = true;
    }
    return radius;
  }
  /// True (and the corner in `corner`) when the face's plane lies within [low, radius] of the position.
  bool within(const FaceRef& f, Fixed low, Vec3& corner) {
    corner = first_corner(m, f);
    const Fixed h = dot16(sub(Prop(m, prop).get(Prop::position), corner), m.vec3(f.face));
    if (h < low) return false;
    return h <= hull_radius();
  }
};

}  // namespace

// FUN_0046a780
GuestAddr kind(Memory& m, GuestAddr bytes, GuestAddr record, GuestAddr free) {
  const Prop p(m, record);
  zero_words(m, record, Prop::kSize);
  p.set(Prop::object, m.u32(bytes + 0x00));
  copy_words(m, free, bytes + 0x04, Hull::kSize);  // the hull's seven words
  p.set(Prop::hull, free);
  free += Hull::kSize;
  p.set(Prop::mass, m.i32(bytes + 0x20));
  p.set(Prop::inertia, m.vec3(bytes + 0x24));
  p.set(Prop::health, m.i32(bytes + 0x30));
  p.set(Prop::friction, m.i32(bytes + 0x34));
  p.set(Prop::chain, m.u32(bytes + 0x38));
  const std::int32_t n = m.i32(bytes + 0x3c);
  p.set(Prop::point_count, n);
  p.set(Prop::points, free);
  GuestAddr first_sector = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    const GuestAddr from = bytes + kTypeHeaderSize + kTypePointSize * static_cast<std::uint32_t>(i);
    const PropPoint pt(m, free + PropPoint::kSize * static_cast<std::uint32_t>(i));
    zero_words(m, pt.addr(), PropPoint::kSize);
    pt.set(PropPoint::radius, m.i32(from));
    pt.set(PropPoint::offset, m.vec3(from + 4));
    pt.set(PropPoint::mass, m.i32(from + 0x10));
    if (i == 0) first_sector = m.u32(addr::kSectorTable);  // 002: each point in the first sector
    pt.set(PropPoint::sector, first_sector);
  }
  if (n > 0) free += PropPoint::kSize * static_cast<std::uint32_t>(n);
  return free;
}

// FUN_00454654
void centre(Memory& m, GuestAddr record) {
  const Prop p(m, record);
  const Fixed mass = p.get(Prop::mass);
  if (mass <= 0) return;
  const std::int32_t n = p.get(Prop::point_count);
  Vec3 sum;  // F150: Σ point offset × point mass
  for (std::int32_t i = 0; i < n; ++i) {
    const PropPoint pt(m, p.point(static_cast<std::uint32_t>(i)));
    const Vec3 o = pt.get(PropPoint::offset);
    const Fixed pm = pt.get(PropPoint::mass);
    for (int j = 0; j < 3; ++j) sum[j] = wrap_add(sum[j], mul16(o[j], pm));
  }
  // F150: scaled by 2^32 / the mass (the low 32 bits of the quotient).
  const Fixed inv = static_cast<Fixed>(static_cast<std::uint32_t>((std::int64_t{1} << 32) / mass));
  const Vec3 c{mul16(sum.x, inv), mul16(sum.y, inv), mul16(sum.z, inv)};
  for (std::int32_t i = 0; i < n; ++i) {
    const PropPoint pt(m, p.point(static_cast<std::uint32_t>(i)));
    pt.set(PropPoint::offset, sub(pt.get(PropPoint::offset), c));
  }
  const Hull hull(m, p.get(Prop::hull));
  hull.set(Hull::centre, sub(hull.get(Hull::centre), c));
}

// FUN_00468cfc
GuestAddr build(Memory& m, GuestAddr bytes, GuestAddr free) {
  const std::int32_t type_count = m.i32(bytes);
  GuestAddr cursor = bytes + 4;
  const GuestAddr types = free;
  if (type_count > 0) free += Prop::kSize * static_cast<std::uint32_t>(type_count);
  for (std::int32_t t = 0; t < type_count; ++t) {
    const GuestAddr type = Prop::at(types, static_cast<std::uint32_t>(t));
    free = kind(m, cursor, type, free);
    centre(m, type);
    const std::int32_t n = Prop(m, type).get(Prop::point_count);
    cursor += kTypeHeaderSize + kTypePointSize * static_cast<std::uint32_t>(n);
  }
  std::int32_t count = m.i32(cursor);
  cursor += 4;
  if (count < 0) count = 0;
  if (count > static_cast<std::int32_t>(addr::kMaxProps)) count = static_cast<std::int32_t>(addr::kMaxProps);
  const GuestAddr list = free;
  m.put_u32(addr::kProps, list);
  m.put_i32(addr::kPropCount, count);
  free += Prop::kSize * static_cast<std::uint32_t>(count);
  for (std::uint32_t j = 0; j < static_cast<std::uint32_t>(count); ++j) {
    const GuestAddr entry = cursor + kPropEntrySize * j;
    const GuestAddr type = Prop::at(types, m.u32(entry));
    const Prop p(m, Prop::at(list, j));
    copy_words(m, p.addr(), type, Prop::kSize);  // 002: a copy of its type's record
    p.set(Prop::macro_list, m.u32(entry + 4));
    p.set(Prop::position, m.vec3(entry + 8));
    copy_words(m, p.addr() + Prop::kMatrix, entry + 0x14, 36);  // row by row, as the file gives it
    const std::int32_t n = p.get(Prop::point_count);
    p.set(Prop::points, free);  // its own points; the hull is shared
    if (n > 0) {
      const std::uint32_t size = PropPoint::kSize * static_cast<std::uint32_t>(n);
      copy_words(m, free, Prop(m, type).get(Prop::points), size);
      free += size;
      const GuestAddr sector = putback::sector_any(m, p.addr(Prop::position));
      for (std::int32_t i = 0; i < n; ++i) PropPoint(m, p.point(static_cast<std::uint32_t>(i))).set(PropPoint::sector, sector);
    }
    m.put_u8(hit_flag(j), 0);
  }
  return free;
}

// FUN_004547a4
void faces(Memory& m, GuestAddr prop) {
  const Prop p(m, prop);
  FaceRef ground{0, 0, false}, wall{0, 0, false};
  Vec3 ground_corner, wall_corner;
  if (p.get(Prop::point_count) > 0) {
    const GuestAddr sector = PropPoint(m, p.point(0)).get(PropPoint::sector);
    PlaneTest test{m, prop};
    const GuestAddr position = p.addr(Prop::position);
    search_faces(m, sector, [&](const FaceRef& f) {
      if ((face_flags(m, f) & face_flags::kGround) == 0) return false;
      const int over = f.quad ? collide::over_quad(m, position, f.face, f.mesh) : collide::over_triangle(m, position, f.face, f.mesh);
      if (over == 0) return false;
      if (!test.within(f, wrap_neg(kGroundBandBelow), ground_corner)) return false;
      ground = f;
      return true;
    });
    search_faces(m, sector, [&](const FaceRef& f) {
      if ((face_flags(m, f) & face_flags::kWall) == 0) return false;
      if (!test.within(f, 0, wall_corner)) return false;
      wall = f;
      return true;
    });
  }
  // F122: with no ground face the rest point is 0 (the original leaves what its stack held).
  p.set(Prop::ground, ground.face);
  p.set(Prop::rest_point, ground.face != 0 ? ground_corner : Vec3{});
  p.set(Prop::wall, wall.face);
  p.set(Prop::wall_point, wall.face != 0 ? wall_corner : Vec3{});
}

// FUN_004214b4
void impulse(Memory& m, GuestAddr prop, GuestAddr normal, Fixed j, GuestAddr point) {
  const Prop p(m, prop);
  const Vec3 f = scale16(m.vec3(normal), j);
  p.set(Prop::force, add(p.get(Prop::force), f));
  const Vec3 r = sub(m.vec3(point), p.get(Prop::position));
  p.set(Prop::torque, add(p.get(Prop::torque), cross16(r, f)));
  // F112: half the impulse off the health; the chain when it runs out (as a part's, damage::hit).
  const Fixed share = abs32(j) >> 1;
  const std::int32_t old = p.get(Prop::health);
  const std::int32_t left = wrap_sub(old, share);
  if (left > 0) {
    p.set(Prop::health, left);
    return;
  }
  if (old <= 0) {
    p.set(Prop::health, 0);
    return;
  }
  const GuestAddr chain = p.get(Prop::chain);
  if (chain == 0) {
    p.set(Prop::health, 0);
    return;
  }
  damage::run_chain(m, prop, chain);
  const std::int32_t h = wrap_add(p.get(Prop::health), left);
  p.set(Prop::health, h > 0 ? h : 0);
}

// FUN_004215a8
int car_hit(Memory& m, int racer, std::uint32_t prop) {
  const GuestAddr driver = addr::kDrivers + static_cast<std::uint32_t>(racer) * addr::kDriverSize;
  const GuestAddr object = Driver(m, driver).get(Driver::object);
  if (object == 0) return 0;
  const GuestAddr car = Car::at(addr::kRaceCars, racer);
  const GuestAddr p = prop_at(m, prop);
  // F111: the hull test with the prop as the second hull, then the car's parts test.
  if (cars::hull_test(m, cars::Placement::of_object(object), cars::Placement::of_prop(p), addr::kContact) == 0) return 0;
  const std::uint32_t parts = cars::mark_parts(m, object, car, addr::kContact);
  if (parts == 0) return 0;
  const Contact contact(m, addr::kContact);
  const GuestAddr n = contact.addr(Contact::normal);
  const GuestAddr point = contact.addr(Contact::point);
  const Fixed j = cars::impulse(m, cars::Mover::of_car(car), cars::Mover::of_prop(p), n);
  m.put_u8(hit_flag(prop), 1);
  // F111: the prop pushed by half the overlap and given the impulse.
  const Vec3 push = scale16(contact.get(Contact::normal), contact.get(Contact::overlap) >> 1);
  const Prop pr(m, p);
  pr.set(Prop::position, add(pr.get(Prop::position), push));
  impulse(m, p, n, j, point);
  // The car pushed back, then its impulse, its damage, its drawn object placed again.
  const Car c(m, car);
  c.set(Car::centre, sub(c.get(Car::centre), push));
  suspension::place_points(m, car);
  cars::carry(m, car, n, wrap_neg(j), point);
  damage::hit(m, car, parts, j);
  step::pose(m, car, driver);
  return 1;
}

// FUN_00421750
void knock(Memory& m, std::uint32_t prop) {
  const std::int32_t count = m.i32(addr::kPropCount);
  const GuestAddr a = prop_at(m, prop);
  const Contact contact(m, addr::kContact);
  const GuestAddr n = contact.addr(Contact::normal);
  const GuestAddr point = contact.addr(Contact::point);
  for (std::int32_t k = 0; k < count; ++k) {
    const std::uint32_t other = static_cast<std::uint32_t>(k);
    if (other == prop) continue;
    const GuestAddr b = prop_at(m, other);
    if (cars::hull_test(m, cars::Placement::of_prop(a), cars::Placement::of_prop(b), addr::kContact) == 0) continue;
    // F113: a quarter of the impulse, each way.
    const Fixed q = cars::impulse(m, cars::Mover::of_prop(a), cars::Mover::of_prop(b), n) >> 2;
    impulse(m, b, n, q, point);
    impulse(m, a, n, wrap_neg(q), point);
    m.put_u8(hit_flag(other), 1);
    // F114: the two hand on what they rest on.
    const Vec3 normal = contact.get(Contact::normal);
    const Prop pa(m, a), pb(m, b);
    const auto rest_on_record = [&](const Prop& upper, const Vec3& up) {
      const PropRest rest(m);
      rest.set(PropRest::normal, up);
      rest.set(PropRest::point, contact.get(Contact::point));
      upper.set(Prop::ground, addr::kPropRest);
      upper.set(Prop::rest_point, contact.get(Contact::point));
      upper.set(Prop::held, 1u);
    };
    if (normal.z > kRestSlant) {
      rest_on_record(pb, normal);  // b lies on a
    } else if (normal.z < wrap_neg(kRestSlant)) {
      rest_on_record(pa, Vec3{wrap_neg(normal.x), wrap_neg(normal.y), wrap_neg(normal.z)});
    } else if (pa.get(Prop::ground) == 0) {
      const GuestAddr gb = pb.get(Prop::ground);
      if (gb != 0) {
        pa.set(Prop::ground, gb);
        pa.set(Prop::rest_point, pb.get(Prop::rest_point));
        pa.set(Prop::held, 1u);
      }
    } else if (pb.get(Prop::ground) == 0) {
      pb.set(Prop::ground, pa.get(Prop::ground));
      pb.set(Prop::rest_point, pa.get(Prop::rest_point));
      pb.set(Prop::held, 1u);
    }
  }
}

// FUN_00454a98
void motion(Memory& m, std::uint32_t prop) {
  const Prop p(m, prop_at(m, prop));
  const std::uint32_t held = p.get(Prop::held);
  if (held == 0) faces(m, p.addr());
  const GuestAddr ground = p.get(Prop::ground);
  const GuestAddr wall = p.get(Prop::wall);
  Vec3 force = p.get(Prop::force);
  Vec3 torque = p.get(Prop::torque);
  const Vec3 pos = p.get(Prop::position);
  Vec3 axes[3] = {p.axis(0), p.axis(1), p.axis(2)};
  const Fixed dt = FrameTime(m).get(FrameTime::step_dt);
  struct Plane {
    GuestAddr face;
    Field<Vec3> point;
    std::uint32_t flag;
  };
  const Plane planes[2] = {{ground, Prop::rest_point, PropPoint::kUnderGround}, {wall, Prop::wall_point, PropPoint::kUnderWall}};
  const std::int32_t n = p.get(Prop::point_count);
  int on_ground = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    const PropPoint pt(m, p.point(static_cast<std::uint32_t>(i)));
    const Vec3 place = to_world(pos, axes, pt.get(PropPoint::offset));
    const Fixed pm = pt.get(PropPoint::mass);
    const Vec3 gravity{0, 0, wrap_neg(static_cast<Fixed>(static_cast<std::uint32_t>(pm) * static_cast<std::uint32_t>(kGravity)))};  // F115
    Vec3 push;
    std::uint32_t flags = 0;
    for (const Plane& plane : planes) {
      if (plane.face == 0) continue;
      // F116: a point below the plane is pushed out by depth × mass / dt².
      const Vec3 normal = m.vec3(plane.face);
      const Fixed depth = wrap_sub(pt.get(PropPoint::radius), dot16(sub(place, p.get(plane.point)), normal));
      if (depth <= 0) continue;
      push = add(push, scale16(normal, math::qdiv(m, mul16(depth, pm), mul16(dt, dt))));
      flags |= plane.flag;
    }
    const Vec3 f = add(gravity, push);
    pt.set(PropPoint::place, place);
    pt.set(PropPoint::force, f);
    pt.set(PropPoint::push, push);
    pt.set(PropPoint::flags, flags);
    force = add(force, f);
    torque = add(torque, cross16(sub(place, pos), f));
    if ((flags & PropPoint::kUnderGround) != 0) ++on_ground;
  }
  const Fixed mass = p.get(Prop::mass);
  if (on_ground >= 1) {  // F117: the force along the ground cancelled while it stays small
    const Vec3 normal = m.vec3(ground);
    const Vec3 along = sub(force, scale16(normal, dot16(force, normal)));
    const Fixed weight = static_cast<Fixed>(static_cast<std::uint32_t>(mass) * static_cast<std::uint32_t>(kGravity));
    if (tables::length16(m, along) <= mul16(p.get(Prop::friction), weight)) force = sub(force, along);
  }
  // F118: velocity, position by the half step's velocity, spin per axis by the inertia, the axes.
  const Vec3 v0 = p.get(Prop::velocity);
  Vec3 v;
  Vec3 moved = pos;
  for (int j = 0; j < 3; ++j) {
    v[j] = wrap_add(v0[j], mul16(math::qdiv(m, force[j], mass), dt));
    moved[j] = wrap_add(pos[j], mul16(wrap_add(v0[j], v[j]) >> 1, dt));
  }
  const Vec3 inertia = p.get(Prop::inertia);
  Vec3 spin = p.get(Prop::spin);
  for (int k = 0; k < 3; ++k) spin[k] = wrap_add(spin[k], mul16(math::qdiv(m, dot16(torque, axes[k]), inertia[k]), dt));
  Vec3 turn;  // the world rotation of this step: Σ_k (spin_k · dt) axis_k
  for (int k = 0; k < 3; ++k) {
    const Fixed angle = mul16(spin[k], dt);
    for (int j = 0; j < 3; ++j) turn[j] = wrap_add(turn[j], mul16(angle, axes[k][j]));
  }
  const Vec3 a0 = add(axes[0], cross16(turn, axes[0]));
  const Vec3 a1 = add(axes[1], cross16(turn, axes[1]));
  // Squared again: forward normalised, up = forward × left normalised, left = up × forward.
  axes[0] = normalised(m, a0);
  axes[2] = normalised(m, cross16(axes[0], a1));
  axes[1] = cross16(axes[2], axes[0]);
  if (on_ground >= 1) {  // F119
    for (int k = 0; k < 3; ++k) spin[k] = mul16(spin[k], kSpinDecay);
  }
  p.set(Prop::velocity, v);
  p.set(Prop::position, moved);
  p.set(Prop::spin, spin);
  for (int k = 0; k < 3; ++k) p.set_axis(k, axes[k]);
  p.set(Prop::force, Vec3{});
  p.set(Prop::torque, Vec3{});
  p.set(Prop::held, 0u);
  // F120: a slow prop resting on three points or more settles.
  if (on_ground >= kSettlePoints && tables::length16(m, v) < kSettleSpeed && tables::length16(m, spin) < kSettleSpeed) {
    m.put_u8(hit_flag(prop), 0);
  }
  // F121: fallen 8 below its sector's low bound, with no neighbour holding it: removed.
  if (held == 0 && n > 0) {
    const GuestAddr sector = PropPoint(m, p.point(0)).get(PropPoint::sector);
    const Fixed floor = m.i32(sector + Sector::bounds_low.offset + 8);  // the low bound's z
    if (moved.z < wrap_sub(floor, kFallDepth)) remove(m, prop);
  }
}

// FUN_004adab0
void remove(Memory& m, std::uint32_t prop) {
  const std::int32_t count = m.i32(addr::kPropCount);
  for (std::uint32_t j = prop; static_cast<std::int64_t>(j) + 1 < count; ++j) {
    const GuestAddr list = m.u32(addr::kProps);
    copy_words(m, Prop::at(list, j), Prop::at(list, j + 1), Prop::kSize);
    m.put_u8(hit_flag(j), m.u8(hit_flag(j + 1)));
  }
  if (count >= 1) m.put_u8(hit_flag(static_cast<std::uint32_t>(count - 1)), 0);
  m.put_i32(addr::kPropCount, wrap_sub(count, 1));
}

// FUN_0042196c after the car pairs
void pass(Memory& m, std::int32_t racers) {
  for (std::int32_t r = 0; r < racers; ++r) {
    for (std::int32_t i = 0; i < m.i32(addr::kPropCount); ++i) car_hit(m, r, static_cast<std::uint32_t>(i));
  }
  // F121: a removal closes the list up; the prop moved into slot i waits for the next pass.
  for (std::int32_t i = 0; i < m.i32(addr::kPropCount); ++i) {
    const std::uint32_t k = static_cast<std::uint32_t>(i);
    if (m.u8(hit_flag(k)) == 0) continue;
    knock(m, k);
    motion(m, k);
  }
}

std::vector<Pose> poses(Memory& m) {
  std::vector<Pose> out;
  const std::int32_t count = m.i32(addr::kPropCount);
  for (std::int32_t i = 0; i < count; ++i) {
    const Prop p(m, prop_at(m, static_cast<std::uint32_t>(i)));
    Pose pose;
    pose.record = p.addr();
    pose.object = p.get(Prop::object);
    pose.position = p.get(Prop::position);
    for (int k = 0; k < 3; ++k) pose.axes[k] = p.axis(k);
    out.push_back(pose);
  }
  return out;
}

}  // namespace pod::props
