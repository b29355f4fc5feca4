#include "gliders/gliders.hpp"

#include <limits>

namespace gliders {
namespace {

constexpr Fixed kMaxSpeed = 0x40000;  // 4.0 units per tick
constexpr Fixed kSink = 0x1000;       // 1/16 unit per tick without lift
constexpr float kDensity = 1.225f;    // world_step's air density (0x3f9ccccd)

// The original is built with -fexcess-precision=standard: its float arithmetic runs in the x87's
// registers at the precision the control word selects (0x037f: a 64-bit significand) and is rounded
// to float where the source assigns. long double is that format on x86-64 Linux, whose x87 runs at
// the same precision.
static_assert(std::numeric_limits<long double>::digits == 64, "the port needs the x87's 80-bit format");
using Extended = long double;

}  // namespace

Fixed fx_mul(Fixed a, Fixed b) {
  return static_cast<Fixed>((static_cast<std::int64_t>(a) * b) >> 16);
}

void glider_push(Memory& m, GuestAddr g, Fixed thrust) {
  // The original adds without overflow checks: wrap as its 32-bit adds do.
  Fixed vx = static_cast<Fixed>(static_cast<std::uint32_t>(m.i32(g + glider::kVx)) + static_cast<std::uint32_t>(thrust));
  Fixed vy = static_cast<Fixed>(static_cast<std::uint32_t>(m.i32(g + glider::kVy)) -
                                static_cast<std::uint32_t>(thrust >> 2));
  if (vx > kMaxSpeed) vx = kMaxSpeed;
  if (vx < -kMaxSpeed) vx = -kMaxSpeed;
  if (vy < -kMaxSpeed) vy = -kMaxSpeed;
  m.put_i32(g + glider::kVx, vx);
  m.put_i32(g + glider::kVy, vy);
}

void glider_lift(Memory& m, GuestAddr g, float density) {
  const float vx = static_cast<float>(static_cast<Extended>(m.i32(g + glider::kVx)) / 65536);
  const float vy = static_cast<float>(static_cast<Extended>(m.i32(g + glider::kVy)) / 65536);
  const Extended sum = static_cast<Extended>(vx) * vx + static_cast<Extended>(vy) * vy;
  m.put_f32(g + glider::kLift, static_cast<float>(density * sum * Extended{0.5}));
}

void world_step(Memory& m, GuestAddr w) {
  const Fixed thrust = fx_mul(m.i32(w + world::kWind), m.i32(w + world::kGust));
  for (int i = 0; i < world::kGliderCount; ++i) {
    const GuestAddr g = w + world::kGliders + static_cast<GuestAddr>(i) * glider::kSize;
    if (m.i32(g + glider::kAlive) == 0) continue;
    glider_push(m, g, thrust);
    glider_lift(m, g, kDensity);
    m.put_i32(g + glider::kX, static_cast<Fixed>(static_cast<std::uint32_t>(m.i32(g + glider::kX)) +
                                                 static_cast<std::uint32_t>(m.i32(g + glider::kVx))));
    Fixed y = static_cast<Fixed>(static_cast<std::uint32_t>(m.i32(g + glider::kY)) +
                                 static_cast<std::uint32_t>(m.i32(g + glider::kVy)));
    if (m.f32(g + glider::kLift) < 0.5f) y -= kSink;
    if (y < 0) {
      y = 0;
      m.put_i32(g + glider::kAlive, 0);
      m.put_i32(w + world::kLanded, m.i32(w + world::kLanded) + 1);
    }
    m.put_i32(g + glider::kY, y);
  }
  m.put_i32(w + world::kTicks, m.i32(w + world::kTicks) + 1);
}

}  // namespace gliders
