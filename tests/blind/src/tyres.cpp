// Blind reading: tyres::tyres (FUN_0041af80, stage 18). 000 "Tyres" (F049..F056), VALUES.md
// section 1. The curve's shape, the friction circle and the clamping are open (G05, A14); the
// choices are in READING.md.
#include <cstdint>

#include "pod/blind.hpp"
#include "pod/math.hpp"
#include "pod/memory.hpp"
#include "pod/tables.hpp"

namespace pod::blind::tyres {
namespace {

constexpr GuestAddr kPointSize = 0xd8;
constexpr int kWheels = 4;

// Point fields.
constexpr GuestAddr kVelocity = 0x0c;
constexpr GuestAddr kSurface = 0x18;
constexpr GuestAddr kNormal = 0x24;
constexpr GuestAddr kSliding = 0x38;   // set past 0x9470 (F055)
constexpr GuestAddr kSkidding = 0x39;  // set past 0x4240 (F055)
constexpr GuestAddr kTouching = 0x3a;
constexpr GuestAddr kRolling = 0x60;   // rolling direction
constexpr GuestAddr kAxle = 0x6c;
constexpr GuestAddr kLoad = 0xa0;
constexpr GuestAddr kSideGrip = 0xb8;
constexpr GuestAddr kTraction = 0xbc;
constexpr GuestAddr kWeight = 0x53c;   // car

constexpr Fixed kSlowSpeed = 0xeb85;    // 0.92 units/s (F050)
constexpr Fixed kSkidSlip = 0x4240;     // F055
constexpr Fixed kSlideSlip = 0x9470;    // F055
constexpr Fixed kCircleLimit = 0x1dcd65;  // F054

// The slip curve's words at 0x4e9a78 (VALUES.md order).
constexpr GuestAddr kCurve = 0x4e9a78;
struct Curve {
  Fixed peak, offset, below, above;
};

Curve read_curve(Memory& m) {
  return Curve{m.i32(kCurve), m.i32(kCurve + 4), m.i32(kCurve + 8), m.i32(kCurve + 0xc)};
}

// The curve at |slip| (G05 chosen): 1 - below (peak - x)^2 up to the peak (8.55 x 0.342^2 = 1.000,
// so it starts at 0), then 1 - above (x - peak)^2, never under the offset 0.523.
Fixed curve_at(const Curve& c, Fixed x) {
  const Fixed d = math::wrap_sub(x, c.peak);
  const Fixed d2 = math::mul16(d, d);
  if (x < c.peak) {
    const Fixed f = math::wrap_sub(kOne, math::mul16(c.below, d2));
    return f < 0 ? 0 : f;
  }
  const Fixed f = math::wrap_sub(kOne, math::mul16(c.above, d2));
  return f < c.offset ? c.offset : f;
}

// F054 with A14's reduction chosen: once (limit / 256) x side limit passes 0x1dcd65, the rolling
// limit is scaled by 0x1dcd65 / that product.
Fixed rolling_limit(Memory& m, Fixed quarter_weight, Fixed side_grip, Fixed surface_grip, Fixed side_limit) {
  const Fixed limit = math::mul16(math::mul16(quarter_weight, side_grip), surface_grip);
  const Fixed used = math::mul16(limit >> 8, side_limit);
  if (used <= kCircleLimit) return limit;
  return math::qdiv(m, math::mul16(limit, kCircleLimit), used);
}

Vec3 combine(const Vec3& rolling_dir, Fixed rolling, const Vec3& side_dir, Fixed side, const Vec3& normal, Fixed down) {
  return math::add(math::add(math::scale16(rolling_dir, rolling), math::scale16(side_dir, side)),
                   math::scale16(normal, down));
}

void set_flags(Memory& m, GuestAddr wheel, bool past_limit, Fixed slip) {
  const std::uint32_t size = math::uabs(slip);
  m.put_u8(wheel + kSkidding, past_limit && size > static_cast<std::uint32_t>(kSkidSlip) ? 1 : 0);
  m.put_u8(wheel + kSliding, past_limit && size > static_cast<std::uint32_t>(kSlideSlip) ? 1 : 0);
}

void one_wheel(Memory& m, GuestAddr wheel, Fixed quarter_weight, const Curve& curve, GuestAddr force_at,
               GuestAddr stale_slot) {
  const Vec3 rolling_dir = m.vec3(wheel + kRolling);
  const Vec3 axle = m.vec3(wheel + kAxle);
  const Vec3 normal = m.vec3(wheel + kNormal);
  const Fixed surface_grip = m.i32(m.u32(wheel + kSurface));
  const Vec3 velocity = m.vec3(wheel + kVelocity);
  const Fixed load = m.i32(wheel + kLoad);
  const Fixed traction = m.i32(wheel + kTraction);
  const Fixed side_grip = m.i32(wheel + kSideGrip);
  const Vec3 force = m.vec3(force_at);
  // F049: side direction = contact normal x rolling direction.
  const Vec3 side_dir = math::cross16(normal, rolling_dir);
  const Fixed rolling = math::dot16(force, rolling_dir);
  const Fixed side = math::dot16(force, side_dir);
  const Fixed down = math::dot16(force, normal);
  const Fixed speed = ::pod::tables::length16(m, velocity);
  Fixed side_limit;
  Fixed slip;
  if (speed < kSlowSpeed) {
    // F050; F056: the flags use the slip ratio an earlier point left in the slot.
    side_limit = math::mul16(math::mul16(load, traction), surface_grip);
    slip = m.i32(stale_slot);
  } else {
    slip = math::qdiv(m, math::dot16(velocity, axle), speed);  // F051
    m.put_i32(stale_slot, slip);
    side_limit = math::mul16(curve_at(curve, static_cast<Fixed>(math::uabs(slip))), quarter_weight);  // F053
  }
  const bool past_limit = math::uabs(side) > math::uabs(side_limit);
  const Fixed side_held = math::clamp(side, -side_limit, side_limit);
  const Fixed roll_limit = rolling_limit(m, quarter_weight, side_grip, surface_grip, side_limit);
  const Fixed rolling_held = math::clamp(rolling, -roll_limit, roll_limit);
  m.put_vec3(force_at, combine(rolling_dir, rolling_held, side_dir, side_held, normal, down));
  set_flags(m, wheel, past_limit, slip);
}

}  // namespace

void tyres(Memory& m, GuestAddr car, GuestAddr forces, GuestAddr stale_slot) {
  Fixed quarter_weight = 0;
  bool weight_read = false;
  Curve curve{};
  for (int w = 0; w < kWheels; ++w) {
    const GuestAddr wheel = car + static_cast<GuestAddr>(w) * kPointSize;
    if (m.u8(wheel + kTouching) == 0) {
      // Chosen: a wheel off the ground neither skids nor slides.
      m.put_u8(wheel + kSkidding, 0);
      m.put_u8(wheel + kSliding, 0);
      continue;
    }
    if (!weight_read) {
      quarter_weight = m.i32(car + kWeight) >> 2;  // "a quarter of the car's weight" (F053)
      curve = read_curve(m);
      weight_read = true;
    }
    one_wheel(m, wheel, quarter_weight, curve, forces + static_cast<GuestAddr>(w) * 12, stale_slot);
  }
}

}  // namespace pod::blind::tyres
