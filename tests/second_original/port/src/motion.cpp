// Turning and the movement integrator.
#include <cmath>

#include "crawl/game.hpp"

namespace crawl {

// 0x4019d0: the difference is passed to angle_wrap as a float argument (rounded there).
void turn_toward(Memory& m, GuestAddr e, float target, float max_step) {
  float diff = angle_wrap(to_float(double{target} - double{m.f32(e + entity::kHeading)}));
  if (diff > max_step)
    diff = max_step;
  else if (diff < -max_step)
    diff = -max_step;
  m.put_f32(e + entity::kHeading, angle_wrap(to_float(double{m.f32(e + entity::kHeading)} + double{diff})));
}

// 0x401a20: the new position is stored as floats first (nx, ny), and the blocking test and the
// odometer both start from those floats. The 16.16 coordinates are x87 truncations: a position
// beyond +-32768 units gives 0x80000000, which is outside the map (a wall).
bool move(Memory& m, GuestAddr w, GuestAddr e, float dt) {
  const float x = m.f32(e + entity::kPosX), y = m.f32(e + entity::kPosY);
  const float nx = to_float(double{x} + double{m.f32(e + entity::kVelX)} * double{dt});
  const float ny = to_float(double{y} + double{m.f32(e + entity::kVelY)} * double{dt});
  if (tile_blocked(m, w + world::kMap, x87_truncate(double{nx} * 65536.0), x87_truncate(double{ny} * 65536.0))) {
    m.put_u8(e + entity::kFlags, static_cast<std::uint8_t>(m.u8(e + entity::kFlags) | entity::kBlocked));
    return false;
  }
  const double dx = double{nx} - double{x};
  const double dy = double{ny} - double{y};
  m.put_f64(e + entity::kOdometer, m.f64(e + entity::kOdometer) + std::sqrt(dx * dx + dy * dy));
  m.put_f32(e + entity::kPosX, nx);
  m.put_f32(e + entity::kPosY, ny);
  m.put_u8(e + entity::kFlags, static_cast<std::uint8_t>(m.u8(e + entity::kFlags) & ~entity::kBlocked));
  return true;
}

}  // namespace crawl
