// Stage 18: the tyres.
#include "pod/tyres.hpp"

#include <algorithm>

#include "common.hpp"
#include "pod/tables.hpp"

namespace pod::tyres {

using namespace pod::detail;
using math::mul16;

Fixed slip_curve(Memory& m, std::uint32_t x) {
  const Fixed peak = m.i32(addr::kSlipCurve + kCurvePeak);
  Fixed y;
  if (x <= static_cast<std::uint32_t>(peak)) {
    const Fixed d = static_cast<Fixed>(static_cast<std::uint32_t>(peak) - x);
    y = wrap_sub(0x10000, mul16(m.i32(addr::kSlipCurve + kCurveBelow), mul16(d, d)));
  } else {
    const Fixed d = static_cast<Fixed>(std::min(x - static_cast<std::uint32_t>(peak), 0x10000u));
    y = wrap_sub(0x10000, mul16(m.i32(addr::kSlipCurve + kCurveAbove), mul16(d, d)));
    y = std::max(y, m.i32(addr::kSlipCurve + kCurveOffset));
  }
  return std::max(y, 0);
}

// FUN_0041af80
void tyres(Memory& m, GuestAddr car, GuestAddr forces, GuestAddr stale_slot) {
  const Car c(m, car);
  const Fixed quarter = c.get(Car::weight) >> 2;  // F053
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    if (p.get(Point::touching) == 0) {
      p.set(Point::sliding, std::uint8_t{0});
      p.set(Point::skidding, std::uint8_t{0});
      continue;
    }
    const GuestAddr fa = force_at(forces, i);
    const Vec3 roll_dir = p.get(Point::rolling_dir);
    const Vec3 side = math::cross16(p.get(Point::contact_normal), roll_dir);  // F049
    const Vec3 f = m.vec3(fa);
    const Fixed fs = math::dot16(f, side);
    const Fixed fr = math::dot16(f, roll_dir);
    const Fixed grip = m.i32(p.get(Point::surface));
    const Vec3 vel = p.get(Point::velocity);
    const Fixed speed = tables::length16(m, vel);
    Fixed side_limit;
    Fixed slip;
    if (speed < kSlowSpeed) {
      side_limit = mul16(mul16(p.get(Point::load), p.get(Point::traction)), grip);  // F050
      // The slip ratio as the slot holds it: an earlier point's of this call, or what forces::grip
      // left there, the force array's address (F056). Read on every low-speed point.
      slip = m.i32(stale_slot);
    } else {
      const Fixed ratio = math::qdiv(m, math::dot16(vel, p.get(Point::axle)), speed);  // F051
      m.put_i32(stale_slot, ratio);
      slip = ratio;
      side_limit = mul16(slip_curve(m, uabs(ratio)), quarter);  // F053: the curve × a quarter of the weight
    }
    Fixed roll_limit = mul16(mul16(quarter, p.get(Point::side_grip)), grip);  // F054
    const Fixed circle = mul16(roll_limit >> 8, side_limit);
    if (circle > kCircleKnee) roll_limit = mul16(roll_limit, math::qdiv(m, kCircleKnee, circle));
    const Fixed fr2 = clamp(fr, wrap_neg(roll_limit), roll_limit);
    Fixed fs2 = fs;
    std::uint8_t skid = 0;
    std::uint8_t slide = 0;
    if (static_cast<std::int64_t>(uabs(fs)) > static_cast<std::int64_t>(side_limit)) {
      fs2 = fs < 0 ? wrap_neg(side_limit) : side_limit;
      const std::uint32_t x = uabs(slip);
      skid = x > kSkidSlip ? 1 : 0;    // F055
      slide = x > kSlideSlip ? 1 : 0;
    }
    p.set(Point::skidding, skid);
    p.set(Point::sliding, slide);
    Vec3 out = add(f, math::scale16(side, wrap_sub(fs2, fs)));
    out = add(out, math::scale16(roll_dir, wrap_sub(fr2, fr)));
    m.put_vec3(fa, out);
  }
}

}  // namespace pod::tyres
