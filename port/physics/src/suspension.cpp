// Stages 16, 22, 23: springs, sub-steps, placing the points.
#include "pod/suspension.hpp"

#include <algorithm>

#include "common.hpp"

namespace pod::suspension {

using namespace pod::detail;
using math::mul16;

// FUN_004194c8
void springs(Memory& m, GuestAddr car, GuestAddr /*forces: not read*/) {
  const Car c(m, car);
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    const Fixed f = wrap_sub(mul16(p.get(Point::spring_rate), wrap_sub(p.get(Point::rest), p.get(Point::extension))),
                             mul16(p.get(Point::damper_rate), p.get(Point::extension_rate)));
    p.set(Point::spring_out, clamp(f, -kSpringLimit, kSpringLimit));
  }
}

// FUN_00419564
void substeps(Memory& m, GuestAddr car) {
  const Fixed t = dt(m);
  if (t <= 0) return;
  const std::int32_t n = static_cast<std::int32_t>((std::int64_t{t} + (kSubStep - 1)) / kSubStep);
  const Fixed sdt = t / n;
  const Car c(m, car);
  for (std::int32_t k = 0; k < n; ++k) {
    for (int i = 0; i < Car::kWheels; ++i) {
      const Point p = c.point(i);
      if (p.get(Point::touching) != 0) continue;  // collide::track sets a touching wheel's height
      const Fixed h0 = p.get(Point::extension);
      // The spring on the unsprung wheel (200 units/s² per quarter weight) plus droop 40 units/s²
      // (chosen).
      const Fixed push = mul16(mul16(p.get(Point::spring_rate), wrap_sub(p.get(Point::rest), h0)), 0xc80000);
      Fixed hv = wrap_add(p.get(Point::extension_rate), mul16(wrap_add(push, 0x280000), sdt));
      Fixed h = wrap_add(h0, mul16(hv, sdt));
      const Fixed droop = p.get(Point::droop);
      if (h >= droop) {
        h = droop;
        hv = 0;
      }
      p.set(Point::extension_rate, hv);
      p.set(Point::extension, h);
    }
  }
}

// FUN_00419680
void place_points(Memory& m, GuestAddr car) {
  const Car c(m, car);
  const Vec3 fwd = c.get(Car::forward);
  const Vec3 left = c.get(Car::left);
  const Vec3 up = c.get(Car::up);
  const Vec3 w = c.get(Car::spin);
  const Vec3 ww = add(add(math::scale16(fwd, w.x), math::scale16(left, w.y)), math::scale16(up, w.z));
  const Vec3 centre = c.get(Car::centre);
  const Vec3 vel = c.get(Car::velocity);
  for (int i = 0; i < Car::kPoints; ++i) {
    const Point p = c.point(i);
    const Vec3 o = p.get(Point::hang);
    const Vec3 r = add(add(math::scale16(fwd, o.x), math::scale16(left, o.y)),
                       math::scale16(up, wrap_sub(o.z, p.get(Point::extension))));
    p.set(Point::position, add(centre, r));
    p.set(Point::velocity, add(vel, math::cross16(ww, r)));
  }
}

// FUN_0041988c
void travel(Memory& m, GuestAddr car) {
  const Car c(m, car);
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    const Fixed h = p.get(Point::extension);
    const Fixed held = h < 0 ? 0 : std::min(h, p.get(Point::droop));  // droop read only when needed
    if (held != h) p.set(Point::extension, held);
  }
  Fixed most = 0;
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    if (p.get(Point::touching) == 0) continue;
    most = std::max(most, p.get(Point::bottom_out));
  }
  if (most <= 0) return;
  const Vec3 up = c.get(Car::up);
  const Vec3 push = math::scale16(up, most);
  c.set(Car::centre, add(c.get(Car::centre), push));
  for (int i = 0; i < Car::kPoints; ++i) {
    const Point p = c.point(i);
    p.set(Point::position, add(p.get(Point::position), push));
  }
  const Vec3 v = c.get(Car::velocity);
  const Fixed into = math::dot16(v, up);
  if (into < 0) c.set(Car::velocity, sub(v, math::scale16(up, into)));
}

}  // namespace pod::suspension
