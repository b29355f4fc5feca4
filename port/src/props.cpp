// The props: FUN_0046a780, FUN_00454654, FUN_00468cfc (building the list), FUN_004547a4, FUN_004214b4,
// FUN_004215a8, FUN_00421750, FUN_00454a98, FUN_004adab0 and the props' part of FUN_0042196c (000 "Props",
// 002 "Props"; port/CHOICES.md "Props").
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

/// Takes `size` bytes from the heap word [0x6212e0]: returns where they start.
GuestAddr take(Memory& m, std::uint32_t size) {
  const GuestAddr at = m.u32(addr::kPropHeap);
  m.put_u32(addr::kPropHeap, at + size);
  return at;
}

/// Scratch object slot s (0 or 1) loaded from a prop: +0x44 the hull's address, +0x48 the matrix, +0x6c
/// the position, nothing else (the hull test reads a prop through it).
GuestAddr load_slot(Memory& m, int slot, GuestAddr prop) {
  const GuestAddr o = addr::kPropObjects + RaceObject::kSize * static_cast<std::uint32_t>(slot);
  m.put_u32(o + RaceObject::hull.offset, m.u32(prop + Prop::hull.offset));
  copy_words(m, o + RaceObject::kMatrix, prop + Prop::kMatrix, 36);
  copy_words(m, o + RaceObject::position.offset, prop + Prop::position.offset, 12);
  return o;
}

/// A face of a mesh as the prop's plane search sees it.
struct FaceRef {
  GuestAddr face;
  GuestAddr mesh;
  bool quad;
  int corners() const { return quad ? 4 : 3; }
};

/// Visits the faces of the sector, then of its neighbours in list order (a count <= 0: none): per mesh
/// its quads, then its triangles, until `visit` returns true. Each word is read when it is reached.
void search_faces(Memory& m, GuestAddr sector, const std::function<bool(const FaceRef&)>& visit) {
  const auto visit_sector = [&](GuestAddr s) {
    const GuestAddr mesh = Sector(m, s).get(Sector::mesh);
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
  if (visit_sector(sector)) return;
  const Sector s(m, sector);
  const std::int32_t count = s.get(Sector::neighbour_count);
  for (std::int32_t k = 0; k < count; ++k) {
    if (visit_sector(m.u32(s.get(Sector::neighbours) + 4u * static_cast<std::uint32_t>(k)))) return;
  }
}

std::uint8_t face_flags(Memory& m, const FaceRef& f) {
  return f.quad ? Quad(m, f.face).get(Quad::flags) : Triangle(m, f.face).get(Triangle::flags);
}

/// The address of the vertex of the face's corner c.
GuestAddr corner(Memory& m, const FaceRef& f, int c) {
  const std::uint32_t i = static_cast<std::uint32_t>(c);
  const std::uint16_t v = f.quad ? Quad(m, f.face).get(Quad::corners[i]) : Triangle(m, f.face).get(Triangle::corners[i]);
  return Mesh(m, f.mesh).get(Mesh::vertices) + Mesh::kVertexSize * v;
}

/// True when the face's corners' box along axis j (0 x, 1 y), widened by `margin` on both sides, holds
/// `value` (inclusive).
bool box_holds(Memory& m, const FaceRef& f, std::uint32_t j, Fixed value, Fixed margin) {
  Fixed lo = 0, hi = 0;
  for (int c = 0; c < f.corners(); ++c) {
    const Fixed v = m.i32(corner(m, f, c) + 4 * j);
    if (c == 0 || v < lo) lo = v;
    if (c == 0 || v > hi) hi = v;
  }
  return wrap_sub(lo, margin) <= value && value <= wrap_add(hi, margin);
}

}  // namespace

// FUN_0046a780
GuestAddr kind(Memory& m, GuestAddr record, GuestAddr bytes) {
  const Prop p(m, record);
  zero_words(m, record, Prop::kSize);
  const GuestAddr hull = take(m, Hull::kSize);
  copy_words(m, hull, bytes + 0x04, Hull::kSize);  // the hull's seven words
  p.set(Prop::hull, hull);
  const std::int32_t n = m.i32(bytes + 0x3c);
  const GuestAddr points = take(m, PropPoint::kSize * static_cast<std::uint32_t>(n > 0 ? n : 0));
  for (std::int32_t i = 0; i < n; ++i) {
    const GuestAddr from = bytes + kTypeHeaderSize + kTypePointSize * static_cast<std::uint32_t>(i);
    const PropPoint pt(m, points + PropPoint::kSize * static_cast<std::uint32_t>(i));
    zero_words(m, pt.addr(), PropPoint::kSize);
    pt.set(PropPoint::radius, m.i32(from));
    pt.set(PropPoint::offset, m.vec3(from + 4));
    pt.set(PropPoint::mass, m.i32(from + 0x10));
    pt.set(PropPoint::sector, m.u32(addr::kSectorTable));  // 002: each point in the first sector
  }
  p.set(Prop::points, points);
  p.set(Prop::point_count, n);
  p.set(Prop::mass, m.i32(bytes + 0x20));
  p.set(Prop::inertia, m.vec3(bytes + 0x24));
  p.set(Prop::health, m.i32(bytes + 0x30));
  p.set(Prop::friction, m.i32(bytes + 0x34));
  p.set(Prop::chain, m.u32(bytes + 0x38));
  p.set(Prop::object, m.u32(bytes + 0x00));
  return bytes + kTypeHeaderSize + kTypePointSize * static_cast<std::uint32_t>(n > 0 ? n : 0);
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
void build(Memory& m, GuestAddr bytes) {
  const std::int32_t type_count = m.i32(bytes);
  GuestAddr cursor = bytes + 4;
  for (std::int32_t t = 0; t < type_count; ++t) {
    const GuestAddr type = Prop::at(addr::kPropTypes, static_cast<std::uint32_t>(t));
    cursor = kind(m, type, cursor);
    centre(m, type);
  }
  const std::int32_t count = m.i32(cursor);
  cursor += 4;
  const GuestAddr list = take(m, Prop::kSize * static_cast<std::uint32_t>(count > 0 ? count : 0));
  m.put_u32(addr::kProps, list);
  m.put_i32(addr::kPropCount, count);
  for (std::int32_t k = 0; k < count; ++k) {
    const std::uint32_t j = static_cast<std::uint32_t>(k);
    const GuestAddr entry = cursor + kPropEntrySize * j;
    const GuestAddr type = Prop::at(addr::kPropTypes, m.u32(entry));
    const Prop p(m, Prop::at(list, j));
    copy_words(m, p.addr(), type, Prop::kSize);  // 002: a copy of its type's record
    const std::int32_t n = p.get(Prop::point_count);
    const std::uint32_t size = PropPoint::kSize * static_cast<std::uint32_t>(n > 0 ? n : 0);
    const GuestAddr points = take(m, size);
    copy_words(m, points, Prop(m, type).get(Prop::points), size);  // its own points; the hull is shared
    p.set(Prop::points, points);
    p.set(Prop::position, m.vec3(entry + 4));
    copy_words(m, p.addr() + Prop::kMatrix, entry + 0x10, 36);  // row by row, as the file gives it
    p.set(Prop::macro_list, m.u32(entry + 0x34));
    if (n > 0) {
      const GuestAddr sector = putback::sector_any(m, p.addr(Prop::position));
      for (std::int32_t i = 0; i < n; ++i) PropPoint(m, p.point(static_cast<std::uint32_t>(i))).set(PropPoint::sector, sector);
    }
    m.put_u8(hit_flag(j), 0);
  }
}

// FUN_004547a4
int faces(Memory& m, GuestAddr prop) {
  const Prop p(m, prop);
  if (p.get(Prop::point_count) <= 0) return 0;
  const GuestAddr sector = PropPoint(m, p.point(0)).get(PropPoint::sector);
  FaceRef ground{0, 0, false}, wall{0, 0, false};
  bool have_radius = false;
  Fixed radius = 0;
  search_faces(m, sector, [&](const FaceRef& f) {
    const std::uint8_t flags = face_flags(m, f);
    if (ground.face == 0 && (flags & face_flags::kGround) != 0) {
      // The ground under the prop: its corners' x and y boxes hold the position.
      const Vec3 pos = p.get(Prop::position);
      if (box_holds(m, f, 0, pos.x, 0) && box_holds(m, f, 1, pos.y, 0)) ground = f;
    }
    if (wall.face == 0 && (flags & face_flags::kWall) != 0) {
      // A wall within the hull's radius, in front or behind, beside the face (its boxes widened by it).
      const Vec3 pos = p.get(Prop::position);
      const Fixed d = dot16(sub(pos, m.vec3(corner(m, f, 0))), m.vec3(f.face));
      if (!have_radius) {
        radius = Hull(m, p.get(Prop::hull)).get(Hull::radius);
        have_radius = true;
      }
      if (abs32(d) <= radius && box_holds(m, f, 0, pos.x, radius) && box_holds(m, f, 1, pos.y, radius)) wall = f;
    }
    return ground.face != 0 && wall.face != 0;
  });
  int found = 0;
  if (ground.face != 0) {  // none: the plane a neighbour handed on stays
    p.set(Prop::ground, ground.face);
    p.set(Prop::rest_point, m.vec3(corner(m, ground, 0)));
    found |= kFoundGround;
  }
  p.set(Prop::wall, wall.face);
  if (wall.face != 0) {
    p.set(Prop::wall_point, m.vec3(corner(m, wall, 0)));
    found |= kFoundWall;
  }
  return found;
}

// FUN_004214b4
void impulse(Memory& m, std::uint32_t prop, GuestAddr normal, Fixed j, GuestAddr point) {
  const Prop p(m, prop_at(m, prop));
  const Vec3 f = scale16(m.vec3(normal), j);
  p.set(Prop::force, add(p.get(Prop::force), f));
  const Vec3 r = sub(m.vec3(point), p.get(Prop::position));
  p.set(Prop::torque, add(p.get(Prop::torque), cross16(r, f)));
  p.set(Prop::last_impulse, j);
  m.put_u8(hit_flag(prop), 1);
  // F112: half the impulse off the health; the chain when it runs out (as a part's, damage::hit).
  const std::int32_t old = p.get(Prop::health);
  if (old <= 0) return;
  const std::int32_t left = wrap_sub(old, j >> 1);
  if (left > 0) {
    p.set(Prop::health, left);
    return;
  }
  const GuestAddr chain = p.get(Prop::chain);
  if (chain == 0) {
    p.set(Prop::health, 0);
    return;
  }
  damage::run_chain(m, p.addr(), chain);
  const std::int32_t h = wrap_add(p.get(Prop::health), left);
  p.set(Prop::health, h > 0 ? h : 0);
}

// FUN_004215a8
Fixed car_hit(Memory& m, int racer, std::uint32_t prop) {
  const GuestAddr driver = addr::kDrivers + static_cast<std::uint32_t>(racer) * addr::kDriverSize;
  const GuestAddr object = Driver(m, driver).get(Driver::object);
  if (object == 0) return 0;
  const GuestAddr car = Car::at(addr::kRaceCars, racer);
  const GuestAddr p = prop_at(m, prop);
  // F111: the hull test with the prop as the second hull, then the car's parts test.
  const GuestAddr slot = load_slot(m, 0, p);
  if (cars::hull_test(m, object, slot, addr::kContact) == 0) return 0;
  const std::uint32_t parts = cars::mark_parts(m, object, car, addr::kContact);
  if (parts == 0) return 0;
  const Contact contact(m, addr::kContact);
  const GuestAddr n = contact.addr(Contact::normal);
  const GuestAddr point = contact.addr(Contact::point);
  const Fixed j = cars::impulse(m, cars::Mover::of_car(car), cars::Mover::of_prop(p), n);
  // F111: the prop pushed by half the overlap and given the impulse.
  const Vec3 push = scale16(contact.get(Contact::normal), contact.get(Contact::overlap) >> 1);
  const Prop pr(m, p);
  pr.set(Prop::position, add(pr.get(Prop::position), push));
  impulse(m, prop, n, j, point);
  // The car pushed back, then its impulse, its damage, its drawn object placed again.
  const Car c(m, car);
  c.set(Car::centre, sub(c.get(Car::centre), push));
  suspension::place_points(m, car);
  cars::carry(m, car, n, wrap_neg(j), point);
  damage::hit(m, car, parts, j);
  step::pose(m, car, driver);
  return j;
}

// FUN_00421750
void knock(Memory& m, std::uint32_t prop) {
  const GuestAddr a = prop_at(m, prop);
  const GuestAddr slot_a = load_slot(m, 0, a);
  const std::int32_t count = m.i32(addr::kPropCount);
  const Contact contact(m, addr::kContact);
  const GuestAddr n = contact.addr(Contact::normal);
  const GuestAddr point = contact.addr(Contact::point);
  for (std::int32_t k = 0; k < count; ++k) {
    const std::uint32_t other = static_cast<std::uint32_t>(k);
    if (other == prop) continue;
    const GuestAddr b = prop_at(m, other);
    if (cars::hull_test(m, slot_a, load_slot(m, 1, b), addr::kContact) == 0) continue;
    // F113: a quarter of the hit prop's last impulse.
    impulse(m, other, n, Prop(m, a).get(Prop::last_impulse) >> 2, point);
    // F114: the two hand on what they rest on.
    const Vec3 normal = contact.get(Contact::normal);
    const Prop pa(m, a), pb(m, b);
    const auto rest_on_slant = [&](const Prop& upper, const Vec3& up) {
      const PropSlant slant(m);
      slant.set(PropSlant::normal, up);
      slant.set(PropSlant::point, contact.get(Contact::point));
      upper.set(Prop::ground, addr::kPropSlant);
      upper.set(Prop::rest_point, contact.get(Contact::point));
    };
    if (normal.z > kRestSlant) {
      rest_on_slant(pb, normal);  // b lies on a
    } else if (normal.z < wrap_neg(kRestSlant)) {
      rest_on_slant(pa, Vec3{wrap_neg(normal.x), wrap_neg(normal.y), wrap_neg(normal.z)});
    } else if (pb.get(Prop::ground) == 0) {  // side by side: the other's face
      pb.set(Prop::ground, pa.get(Prop::ground));
      pb.set(Prop::rest_point, pa.get(Prop::rest_point));
    } else if (pa.get(Prop::ground) == 0) {
      pa.set(Prop::ground, pb.get(Prop::ground));
      pa.set(Prop::rest_point, pb.get(Prop::rest_point));
    }
  }
}

// FUN_00454a98
int motion(Memory& m, std::uint32_t prop) {
  const Prop p(m, prop_at(m, prop));
  const Fixed dt = FrameTime(m).get(FrameTime::step_dt);
  faces(m, p.addr());
  const GuestAddr ground = p.get(Prop::ground);
  const GuestAddr wall = p.get(Prop::wall);
  Vec3 force = p.get(Prop::force);
  Vec3 torque = p.get(Prop::torque);
  const Vec3 pos = p.get(Prop::position);
  Vec3 axes[3] = {p.axis(0), p.axis(1), p.axis(2)};
  struct Plane {
    GuestAddr face;
    Field<Vec3> point;
    std::uint32_t flag;
  };
  const Plane planes[2] = {{ground, Prop::rest_point, PropPoint::kTouchesGround}, {wall, Prop::wall_point, PropPoint::kTouchesWall}};
  const std::int32_t n = p.get(Prop::point_count);
  int touching = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    const PropPoint pt(m, p.point(static_cast<std::uint32_t>(i)));
    const Vec3 place = to_world(pos, axes, pt.get(PropPoint::offset));
    pt.set(PropPoint::place, place);
    const Fixed pm = pt.get(PropPoint::mass);
    const Vec3 gravity{0, 0, wrap_neg(static_cast<Fixed>(static_cast<std::uint32_t>(pm) * static_cast<std::uint32_t>(kGravity)))};  // F115
    pt.set(PropPoint::force, gravity);
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
      if (plane.flag == PropPoint::kTouchesGround) ++touching;
    }
    pt.set(PropPoint::push, push);
    pt.set(PropPoint::flags, flags);
    const Vec3 f = add(gravity, push);
    force = add(force, f);
    torque = add(torque, cross16(sub(place, pos), f));
  }
  if (touching > 0) {  // F117: the force along the ground cancelled while it stays small
    const Vec3 normal = m.vec3(ground);
    const Fixed across = dot16(force, normal);
    const Vec3 kept = scale16(normal, across);
    if (tables::length16(m, sub(force, kept)) <= mul16(p.get(Prop::friction), abs32(across))) force = kept;
  }
  // F118: velocity, position by the half step's velocity, spin per axis by the inertia, the axes.
  const Fixed mass = p.get(Prop::mass);
  const Vec3 v0 = p.get(Prop::velocity);
  Vec3 v;
  Vec3 moved;
  for (int j = 0; j < 3; ++j) {
    v[j] = wrap_add(v0[j], math::qdiv(m, mul16(force[j], dt), mass));
    moved[j] = wrap_add(pos[j], mul16(wrap_add(v0[j], v[j]) >> 1, dt));
  }
  const Vec3 inertia = p.get(Prop::inertia);
  Vec3 spin = p.get(Prop::spin);
  for (int k = 0; k < 3; ++k) spin[k] = wrap_add(spin[k], math::qdiv(m, mul16(dot16(torque, axes[k]), dt), inertia[k]));
  Vec3 turn;  // this step's rotation in the world: Σ_k (spin_k · dt) axis_k
  for (int k = 0; k < 3; ++k) {
    const Fixed angle = mul16(spin[k], dt);
    for (int j = 0; j < 3; ++j) turn[j] = wrap_add(turn[j], mul16(angle, axes[k][j]));
  }
  const Vec3 a0 = add(axes[0], cross16(turn, axes[0]));
  const Vec3 a1 = add(axes[1], cross16(turn, axes[1]));
  // Squared again: x normalised, z = x × (turned axis 1) normalised, y = z × x.
  axes[0] = normalised(m, a0);
  axes[2] = normalised(m, cross16(axes[0], a1));
  axes[1] = cross16(axes[2], axes[0]);
  if (touching > 0) {  // F119
    for (int k = 0; k < 3; ++k) spin[k] = mul16(spin[k], kSpinDecay);
  }
  // F120: a slow prop resting on three points or more settles.
  if (touching >= kSettlePoints && tables::length16(m, v) < kSettleSpeed) {
    m.put_u8(hit_flag(prop), 0);
    v = Vec3{};
    spin = Vec3{};
  }
  p.set(Prop::velocity, v);
  p.set(Prop::position, moved);
  p.set(Prop::spin, spin);
  for (int k = 0; k < 3; ++k) p.set_axis(k, axes[k]);
  p.set(Prop::force, Vec3{});
  p.set(Prop::torque, Vec3{});
  if (touching == 0) p.set(Prop::ground, 0u);  // nothing holds it any more
  // F121: fallen 8 below its sector's low bound, resting on nothing: removed.
  if (n > 0 && p.get(Prop::ground) == 0) {
    const GuestAddr sector = PropPoint(m, p.point(0)).get(PropPoint::sector);
    if (moved.z < wrap_sub(Sector(m, sector).get(Sector::bounds_low).z, kFallDepth)) {
      remove(m, prop);
      return 1;
    }
  }
  return 0;
}

// FUN_004adab0
void remove(Memory& m, std::uint32_t prop) {
  const std::int32_t count = m.i32(addr::kPropCount);
  const GuestAddr list = m.u32(addr::kProps);
  for (std::uint32_t j = prop; static_cast<std::int64_t>(j) + 1 < count; ++j) {
    copy_words(m, Prop::at(list, j), Prop::at(list, j + 1), Prop::kSize);
    m.put_u8(hit_flag(j), m.u8(hit_flag(j + 1)));
  }
  m.put_i32(addr::kPropCount, wrap_sub(count, 1));
}

// FUN_0042196c after the car pairs
void pass(Memory& m, std::int32_t racers) {
  const std::int32_t count = m.i32(addr::kPropCount);
  for (std::int32_t r = 0; r < racers; ++r) {
    for (std::int32_t i = 0; i < count; ++i) car_hit(m, r, static_cast<std::uint32_t>(i));
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
