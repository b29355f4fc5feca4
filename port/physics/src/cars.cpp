// Car against car: FUN_00423fd8, FUN_00423c64, FUN_00420548, FUN_004209c8, FUN_00420adc, FUN_00420b4c,
// FUN_0042127c and the collision pass FUN_0042196c (port/CHOICES.md "Car against car and damage").
#include "pod/cars.hpp"

#include <algorithm>

#include "common.hpp"
#include "pod/damage.hpp"
#include "pod/props.hpp"
#include "pod/step.hpp"
#include "pod/suspension.hpp"
#include "pod/tables.hpp"

namespace pod::cars {

using namespace pod::detail;
using math::dot16;
using math::mul16;

namespace {

/// |v| as the original's 32-bit negation: |−2^31| stays −2^31 (the table of choices).
Fixed abs32(Fixed v) { return v < 0 ? wrap_neg(v) : v; }

/// |d| ≤ limit, compared signed.
bool within(Fixed d, Fixed limit) { return abs32(d) <= limit; }

/// Axis k of the matrix at `matrix`: column k (m[k], m[3+k], m[6+k]).
Vec3 axis_of(Memory& m, GuestAddr matrix, int k) {
  const GuestAddr c = matrix + 4u * static_cast<std::uint32_t>(k);
  return Vec3{m.i32(c), m.i32(c + 12), m.i32(c + 24)};
}

/// The hull centre c (object frame) in the world: position + c.x·axis0 + c.y·axis1 + c.z·axis2, each
/// term a mul16, added in that order per component.
Vec3 world_centre(const Vec3& pos, const Vec3 axes[3], const Vec3& c) {
  Vec3 w;
  for (int j = 0; j < 3; ++j) w[j] = wrap_add(wrap_add(wrap_add(pos[j], mul16(c.x, axes[0][j])), mul16(c.y, axes[1][j])), mul16(c.z, axes[2][j]));
  return w;
}

/// The corner of a box facing along `towards`: centre + Σ_k ±mul16(half_k, axis_k), + where
/// dot16(towards, axis_k) ≥ 0. `sign` −1 walks the other way (b's corner facing a: centre − Σ …).
Vec3 facing_corner(const Vec3& centre, const Vec3 axes[3], const Vec3& half, const Vec3& n, int sign) {
  Vec3 corner = centre;
  for (int k = 0; k < 3; ++k) {
    const bool ahead = dot16(n, axes[k]) >= 0;
    for (int j = 0; j < 3; ++j) {
      Fixed t = mul16(half[k], axes[k][j]);
      if (ahead != (sign > 0)) t = wrap_neg(t);
      corner[j] = wrap_add(corner[j], t);
    }
  }
  return corner;
}

}  // namespace

// FUN_00423fd8
Fixed centre_distance(Memory& m, const Vec3& a, const Vec3& b) { return tables::length16(m, sub(b, a)); }

// FUN_00423c64
Fixed normal(Memory& m, const Vec3& a, const Vec3& b, Vec3& out) {
  const Vec3 d = sub(b, a);
  const Fixed len = tables::length16(m, d);
  if (len == 0) {
    out = Vec3{0, 0, kOne};
  } else {
    for (int k = 0; k < 3; ++k) out[k] = math::qdiv(m, d[k], len);
  }
  return len;
}

Placement Placement::of_object(GuestAddr object) {
  return Placement{object + RaceObject::hull.offset, object + RaceObject::kMatrix, object + RaceObject::position.offset};
}

Placement Placement::of_prop(GuestAddr prop) {
  return Placement{prop + Prop::hull.offset, prop + Prop::kMatrix, prop + Prop::position.offset};
}

// FUN_00420548
int hull_test(Memory& m, GuestAddr object_a, GuestAddr object_b, GuestAddr contact) {
  return hull_test(m, Placement::of_object(object_a), Placement::of_object(object_b), contact);
}

int hull_test(Memory& m, const Placement& a, const Placement& b, GuestAddr contact) {
  const Hull ha(m, m.u32(a.hull));
  const Fixed ra = ha.get(Hull::radius);
  const Hull hb(m, m.u32(b.hull));
  const Fixed rb = hb.get(Hull::radius);
  const Fixed reach_limit = wrap_add(ra, rb);
  for (std::uint32_t k = 0; k < 3; ++k) {  // F090: the positions within the summed radii on each axis
    const Fixed pa = m.i32(a.position + 4 * k);
    const Fixed pb = m.i32(b.position + 4 * k);
    if (!within(wrap_sub(pb, pa), reach_limit)) return 0;
  }
  const Vec3 axes_a[3] = {axis_of(m, a.matrix, 0), axis_of(m, a.matrix, 1), axis_of(m, a.matrix, 2)};
  const Vec3 ca = world_centre(m.vec3(a.position), axes_a, ha.get(Hull::centre));
  const Vec3 axes_b[3] = {axis_of(m, b.matrix, 0), axis_of(m, b.matrix, 1), axis_of(m, b.matrix, 2)};
  const Vec3 cb = world_centre(m.vec3(b.position), axes_b, hb.get(Hull::centre));
  const Fixed distance = centre_distance(m, ca, cb);
  if (distance > reach_limit) return 0;  // F090: the centres within that distance
  Vec3 n;
  normal(m, ca, cb, n);
  const Vec3 half_a = ha.get(Hull::half), half_b = hb.get(Hull::half);
  Fixed reach = 0;  // F090: Σ |n · axis| × half size over both boxes
  for (int k = 0; k < 3; ++k) reach = wrap_add(reach, mul16(abs32(dot16(n, axes_a[k])), half_a[k]));
  for (int k = 0; k < 3; ++k) reach = wrap_add(reach, mul16(abs32(dot16(n, axes_b[k])), half_b[k]));
  const Fixed overlap = wrap_sub(reach, distance);  // F091
  if (overlap <= 0) return 0;
  // F091: the contact is the midpoint of the facing corners, half their distances its spread.
  const Vec3 corner_a = facing_corner(ca, axes_a, half_a, n, +1);
  const Vec3 corner_b = facing_corner(cb, axes_b, half_b, n, -1);
  Vec3 point, spread;
  for (int j = 0; j < 3; ++j) {
    point[j] = wrap_add(corner_a[j], corner_b[j]) >> 1;
    spread[j] = abs32(wrap_sub(corner_a[j], corner_b[j])) >> 1;
  }
  const Contact c(m, contact);
  c.set(Contact::normal, n);
  c.set(Contact::overlap, overlap);
  c.set(Contact::point, point);
  c.set(Contact::spread, spread);
  c.set(Contact::distance, distance);
  return 1;
}

// FUN_004209c8
std::uint32_t mark_parts(Memory& m, GuestAddr object, GuestAddr car, GuestAddr contact) {
  const RaceObject o(m, object);
  const std::int32_t count = o.get(RaceObject::part_count);
  const GuestAddr list = o.get(RaceObject::parts);
  const Contact c(m, contact);
  const Vec3 spread = c.get(Contact::spread);
  const Fixed s = std::max({spread.x, spread.y, spread.z});
  const Vec3 pos = o.get(RaceObject::position);
  const Vec3 axes[3] = {o.axis(0), o.axis(1), o.axis(2)};
  // The contact in the object's frame.
  const Vec3 rel = sub(c.get(Contact::point), pos);
  const Vec3 q{dot16(rel, axes[0]), dot16(rel, axes[1]), dot16(rel, axes[2])};
  std::uint32_t mask = 0;
  for (std::int32_t i = 0; i < count; ++i) {
    const Part part(m, m.u32(list + 4u * static_cast<std::uint32_t>(i)));
    const Hull hull(m, part.get(Part::hull));
    Vec3 offset;
    if (i >= RaceObject::kFirstWheelPart && i < RaceObject::kParts) {  // F092: placed by the car's wheel
      const Vec3 w = sub(Car(m, car).point(i - RaceObject::kFirstWheelPart).get(Point::position), pos);
      offset = Vec3{dot16(w, axes[0]), dot16(w, axes[1]), dot16(w, axes[2])};
    } else {
      offset = part.get(Part::offset);
    }
    const Vec3 place = add(offset, hull.get(Hull::centre));
    bool near = true;
    for (std::uint32_t k = 0; k < 3 && near; ++k) {
      const Fixed half = m.i32(hull.addr() + Hull::half.offset + 4 * k);
      near = within(wrap_sub(q[static_cast<int>(k)], place[static_cast<int>(k)]), wrap_add(half, s));
    }
    if (near) mask |= 1u << i;
  }
  return mask;
}

// FUN_00420adc
Fixed impulse(Memory& m, GuestAddr car_a, GuestAddr car_b, GuestAddr normal) {
  return impulse(m, Mover::of_car(car_a), Mover::of_car(car_b), normal);
}

Mover Mover::of_car(GuestAddr car) { return Mover{car + Car::velocity.offset, car + Car::mass.offset}; }

Mover Mover::of_prop(GuestAddr prop) { return Mover{prop + Prop::velocity.offset, prop + Prop::mass.offset}; }

Fixed impulse(Memory& m, const Mover& a, const Mover& b, GuestAddr normal) {
  const Fixed closing = dot16(sub(m.vec3(a.velocity), m.vec3(b.velocity)), m.vec3(normal));
  if (closing <= 0) return 0;  // F093: the two part
  const std::int32_t ma = m.i32(a.mass);
  const std::int32_t mb = m.i32(b.mass);
  const std::int32_t sum = wrap_add(ma, mb);
  if (sum <= 0) return 0;
  const std::int64_t reduced = (2 * static_cast<std::int64_t>(ma) * mb) / sum;
  const Fixed shifted = static_cast<Fixed>(static_cast<std::uint32_t>(reduced)) >> 8;
  const Fixed step_dt = FrameTime(m).get(FrameTime::step_dt);
  return math::qdiv(m, mul16(closing, shifted), static_cast<Fixed>(static_cast<std::uint32_t>(step_dt) << 8));
}

// FUN_00420b4c
void carry(Memory& m, GuestAddr car, GuestAddr normal, Fixed impulse, GuestAddr point) {
  const Car c(m, car);
  const Vec3 n = m.vec3(normal);
  const Field<Vec3> axes[3] = {Car::forward, Car::left, Car::up};
  Vec3 dir;
  Fixed along = 0;
  Fixed best = 0;
  for (int k = 0; k < 3; ++k) {  // F094: the own axis nearest the normal; ties keep the first
    const Vec3 axis = c.get(axes[k]);
    const Fixed d = dot16(n, axis);
    if (k == 0 || abs32(d) > best) {
      best = abs32(d);
      dir = axis;
      along = d;
    }
  }
  if (along < 0) dir = Vec3{wrap_neg(dir.x), wrap_neg(dir.y), wrap_neg(dir.z)};
  const Vec3 f = math::scale16(dir, impulse);
  c.set(Car::carried_force, add(c.get(Car::carried_force), f));
  const Vec3 r = sub(m.vec3(point), c.get(Car::centre));
  c.set(Car::carried_torque, add(c.get(Car::carried_torque), math::cross16(r, f)));
}

// FUN_0042127c
PairOut pair(Memory& m, int racer_a, int racer_b) {
  PairOut out;
  out.racer_a = racer_a;
  out.racer_b = racer_b;
  const GuestAddr driver_a = addr::kDrivers + static_cast<std::uint32_t>(racer_a) * addr::kDriverSize;
  const GuestAddr driver_b = addr::kDrivers + static_cast<std::uint32_t>(racer_b) * addr::kDriverSize;
  const GuestAddr object_a = Driver(m, driver_a).get(Driver::object);
  if (object_a == 0) return out;
  const GuestAddr object_b = Driver(m, driver_b).get(Driver::object);
  if (object_b == 0) return out;
  const GuestAddr car_a = Car::at(addr::kRaceCars, racer_a);
  const GuestAddr car_b = Car::at(addr::kRaceCars, racer_b);
  if (hull_test(m, object_a, object_b, addr::kContact) == 0) return out;
  // F092: a contact counts only when both cars have a part near it.
  const std::uint32_t parts_a = mark_parts(m, object_a, car_a, addr::kContact);
  if (parts_a == 0) return out;
  const std::uint32_t parts_b = mark_parts(m, object_b, car_b, addr::kContact);
  if (parts_b == 0) return out;
  out.contact = true;
  const Contact contact(m, addr::kContact);
  const GuestAddr n = contact.addr(Contact::normal);
  const GuestAddr point = contact.addr(Contact::point);
  const Fixed j = impulse(m, car_a, car_b, n);
  out.impulse = j;
  carry(m, car_a, n, wrap_neg(j), point);  // the first car backwards
  damage::hit(m, car_a, parts_a, j);
  carry(m, car_b, n, j, point);
  damage::hit(m, car_b, parts_b, j);
  // F095: the second car pushed by half the overlap along the normal, the first back.
  const Vec3 push = math::scale16(contact.get(Contact::normal), contact.get(Contact::overlap) >> 1);
  const Car a(m, car_a), b(m, car_b);
  b.set(Car::centre, add(b.get(Car::centre), push));
  suspension::place_points(m, car_b);
  a.set(Car::centre, sub(a.get(Car::centre), push));
  suspension::place_points(m, car_a);
  step::pose(m, car_b, driver_b);  // F096: the wheels turn by one more frame of spin
  step::pose(m, car_a, driver_a);
  // F097: the contact bit and its sound.
  if (j > kContactSoundImpulse) {
    const std::uint8_t sa = a.get(Car::sound_state);
    if ((sa & sound::kCarContact) == 0) {
      const std::uint8_t sb = b.get(Car::sound_state);
      if ((sb & sound::kCarContact) == 0) {
        a.set(Car::sound_state, static_cast<std::uint8_t>(sa | sound::kCarContact));
        b.set(Car::sound_state, static_cast<std::uint8_t>(sb | sound::kCarContact));
        out.sounds.emplace_back(car_a, kContactSoundSlot);
      }
    }
  } else {
    const std::uint8_t sa = a.get(Car::sound_state);
    if ((sa & sound::kCarContact) != 0) {
      const std::uint8_t sb = b.get(Car::sound_state);
      if ((sb & sound::kCarContact) != 0) {
        a.set(Car::sound_state, static_cast<std::uint8_t>(sa & ~sound::kCarContact));
        b.set(Car::sound_state, static_cast<std::uint8_t>(sb & ~sound::kCarContact));
      }
    }
  }
  return out;
}

// FUN_0042196c
std::vector<PairOut> collisions(Memory& m, Props props) {
  std::vector<PairOut> contacts;
  const std::int32_t racers = wrap_add(m.i32(addr::kHumanRacers), m.i32(addr::kComputerRacers));
  for (std::int32_t a = 0; a < racers; ++a) {
    for (std::int32_t b = a + 1; b < racers; ++b) {
      PairOut out = pair(m, a, b);
      if (out.contact) contacts.push_back(std::move(out));
    }
  }
  if (props == Props::kRun) props::pass(m, racers);
  return contacts;
}

}  // namespace pod::cars
