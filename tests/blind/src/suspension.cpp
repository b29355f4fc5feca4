// Blind reading: suspension::travel (FUN_0041988c, stage 27): "wheel travel limits, the body
// pushed when a touching wheel bottoms out" (000 stage table). The rule itself is open (G10);
// VALUES.md section 6 gives the fields. Choices: READING.md.
#include <cstdint>

#include "pod/blind.hpp"
#include "pod/math.hpp"
#include "pod/memory.hpp"

namespace pod::blind::suspension {
namespace {

constexpr GuestAddr kPointSize = 0xd8;
constexpr int kWheels = 4;
constexpr int kPoints = 5;  // wheels 0..3 and the chassis point (F016)

// Point fields (VALUES.md point table).
constexpr GuestAddr kPosition = 0x00;
constexpr GuestAddr kTouching = 0x3a;
constexpr GuestAddr kExtension = 0x94;  // h: 0 = top of travel
constexpr GuestAddr kPastTop = 0xa4;    // how far the track pass found it past the top
constexpr GuestAddr kDroop = 0xac;      // the largest extension

// Car fields (000 "The race car").
constexpr GuestAddr kCentre = 0x498;
constexpr GuestAddr kUp = 0x4bc;
constexpr GuestAddr kVelocity = 0x4c8;

// Each wheel's extension held to [0, droop]; returns the push a touching wheel asks for.
Fixed limit_wheel(Memory& m, GuestAddr wheel) {
  const Fixed h = m.i32(wheel + kExtension);
  const Fixed droop = m.i32(wheel + kDroop);
  const Fixed held = math::clamp(h, 0, droop);
  if (held != h) m.put_i32(wheel + kExtension, held);
  if (m.u8(wheel + kTouching) == 0) return 0;
  const Fixed past = m.i32(wheel + kPastTop);
  return past > 0 ? past : 0;
}

}  // namespace

void travel(Memory& m, GuestAddr car) {
  // The largest bottoming-out among the touching wheels is the body's push (chosen: max, not sum).
  Fixed push = 0;
  for (int w = 0; w < kWheels; ++w) {
    const Fixed p = limit_wheel(m, car + static_cast<GuestAddr>(w) * kPointSize);
    if (p > push) push = p;
  }
  if (push == 0) return;
  // The body (and every point with it) goes up its own up axis by that amount.
  const Vec3 up = m.vec3(car + kUp);
  const Vec3 lift = math::scale16(up, push);
  m.put_vec3(car + kCentre, math::add(m.vec3(car + kCentre), lift));
  for (int p = 0; p < kPoints; ++p) {
    const GuestAddr point = car + static_cast<GuestAddr>(p) * kPointSize;
    m.put_vec3(point + kPosition, math::add(m.vec3(point + kPosition), lift));
  }
  // A body pushed up out of the ground keeps no speed into it (chosen): v -= up (v . up) if < 0.
  const Vec3 v = m.vec3(car + kVelocity);
  const Fixed into = math::dot16(v, up);
  if (into < 0) m.put_vec3(car + kVelocity, math::sub(v, math::scale16(up, into)));
}

}  // namespace pod::blind::suspension
