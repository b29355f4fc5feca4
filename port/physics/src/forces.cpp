// Stages 12–14: air, grip, wheel drive.
#include "pod/forces.hpp"

#include "common.hpp"

namespace pod::forces {

using namespace pod::detail;
using math::mul16;

// FUN_00417c2c
void air(Memory& m, GuestAddr car, GuestAddr force) {
  const Car c(m, car);
  const Vec3 fwd = c.get(Car::forward);
  const Fixed vf = math::dot16(c.get(Car::velocity), fwd);
  const Fixed s = vf >> 8;
  const Fixed q = mul16(s, s);  // (forward speed / 256)², F030
  Fixed drag = mul16(q, c.get(Car::drag));
  if (vf >= 0) drag = wrap_neg(drag);
  const Fixed down = wrap_neg(mul16(q, c.get(Car::downforce)));
  m.put_vec3(force, add(math::scale16(fwd, drag), math::scale16(c.get(Car::up), down)));
}

// FUN_00417cec
void grip(Memory& m, GuestAddr car, GuestAddr forces, GuestAddr stale_slot) {
  m.put_u32(stale_slot, forces);
  const Car c(m, car);
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    if (p.get(Point::touching) == 0) continue;
    // The tyres' side direction: contact normal × rolling direction (F049).
    const Vec3 side = math::cross16(p.get(Point::contact_normal), p.get(Point::rolling_dir));
    const Fixed vl = math::dot16(p.get(Point::velocity), side);
    m.put_vec3(force_at(forces, i), math::scale16(side, wrap_neg(mul16(vl, c.get(Car::side_stiffness)))));
  }
}

// FUN_00417f48
void wheel_drive(Memory& m, GuestAddr car, GuestAddr forces) {
  const Car c(m, car);
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    if (p.get(Point::touching) == 0) continue;
    const Fixed push = math::qdiv(m, wrap_add(p.get(Point::drive_torque), p.get(Point::brake_torque)),
                                  p.get(Point::radius));  // F031
    const GuestAddr f = force_at(forces, i);
    m.put_vec3(f, add(m.vec3(f), math::scale16(p.get(Point::rolling_dir), push)));
  }
}

}  // namespace pod::forces
