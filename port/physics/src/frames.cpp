// Stage 6: the wheels' axes and the steering turn.
#include "pod/frames.hpp"

#include "common.hpp"
#include "pod/tables.hpp"

namespace pod::frames {

using namespace pod::detail;

// FUN_0041b3d4
void wheel_axes(Memory& m, GuestAddr car) {
  const Car c(m, car);
  for (int i = 0; i < Car::kPoints; ++i) {
    // memmove of the 36 bytes +0x4a4..+0x4c7 (forward, left, up) to the point's +0x60..+0x83.
    const GuestAddr dst = c.point(i).addr(Point::rolling_dir);
    const GuestAddr src = c.addr(Car::forward);
    for (std::uint32_t k = 0; k < 36; k += 4) m.put_u32(dst + k, m.u32(src + k));
  }
}

// FUN_00424704
void turn(Memory& m, GuestAddr car, Fixed angle) {
  const Car c(m, car);
  const Fixed co = tables::cos16(m, angle);
  const Fixed si = tables::sin16(m, angle);
  for (int i : {0, 2}) {
    const Point p = c.point(i);
    const Vec3 f = p.get(Point::rolling_dir);
    const Vec3 l = p.get(Point::axle);
    p.set(Point::rolling_dir, add(math::scale16(f, co), math::scale16(l, si)));
    p.set(Point::axle, sub(math::scale16(l, co), math::scale16(f, si)));
  }
}

}  // namespace pod::frames
