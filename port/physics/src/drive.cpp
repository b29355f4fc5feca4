// The drivetrain (stages 4, 5, 7, 8, 10, 25). Formulas: port/CHOICES.md, "drive::…" sections.
#include "pod/drive.hpp"

#include <algorithm>

#include "common.hpp"

namespace pod::drive {

using namespace pod::detail;
using math::mul16;

Fixed ratio(Memory& m, GuestAddr car, int gear) {
  const Car c(m, car);
  if (gear >= 1) return c.get(Car::ratios[static_cast<std::uint32_t>(gear - 1)]);
  if (gear < 0) return wrap_neg(c.get(Car::ratios[0]));
  return 0;
}

// FUN_004191c4
void automatic(Memory& m, GuestAddr car) {
  const Car c(m, car);
  if (c.get(Car::gear_timer) > 0 || c.get(Car::gear_request) != 0) return;
  const int g = c.get(Car::gear);
  const Fixed w = c.get(Car::wheel_engine_speed);
  if (g <= 0) {
    if (c.get(Car::engine_speed) > c.get(Car::shift_from_neutral)) c.set(Car::gear_request, kRequestUp);
  } else if (g < c.get(Car::top_gear) && w > c.get(Car::shift_up)) {
    c.set(Car::gear_request, kRequestUp);
  } else if (g > 1 && w < c.get(Car::shift_down)) {
    c.set(Car::gear_request, kRequestDown);
  }
}

// FUN_00418f0c
void gears(Memory& m, GuestAddr car) {
  const Car c(m, car);
  Fixed timer = c.get(Car::gear_timer);
  if (timer > 0) {
    timer = wrap_sub(timer, dt(m));
    if (timer < 0) timer = 0;
    c.set(Car::gear_timer, timer);
    c.set(Car::gear_request, std::uint8_t{0});  // a request during a change is dropped
    return;
  }
  const std::uint8_t req = c.get(Car::gear_request);
  int g = c.get(Car::gear);
  if ((req & kRequestUp) != 0) {
    if (g < c.get(Car::top_gear)) {
      if (g == 0) {
        // Up from neutral: the engine speed re-mapped through a two-piece line (F046).
        const Fixed e = c.get(Car::engine_speed);
        const Fixed knee = c.get(Car::shift_down);
        if (e > knee) c.set(Car::engine_speed, wrap_add(knee, wrap_sub(e, knee) >> 1));
      }
      g += 1;
      c.set(Car::gear_timer, kGearChangeTime);
    }
  } else if ((req & kRequestDown) != 0) {
    if (g > -1) {
      g -= 1;
      const Fixed spin = wrap_add(c.point(0).get(Point::spin), c.point(2).get(Point::spin)) >> 1;
      // Down may skip gears while the engine stays under +0x478 (F047).
      while (g > 1 && mul16(spin, ratio(m, car, g - 1)) < c.get(Car::shift_down)) g -= 1;
      c.set(Car::gear_timer, kGearChangeTime);
    }
  }
  c.set(Car::gear, static_cast<std::int8_t>(g));
  c.set(Car::gear_request, std::uint8_t{0});
}

// FUN_00418010
void engine(Memory& m, GuestAddr car, GuestAddr /*driver: not read*/) {
  const Car c(m, car);
  Fixed e = c.get(Car::engine_speed);
  const Fixed max = c.get(Car::engine_max);
  const Fixed thr = c.get(Car::throttle);
  const int g = c.get(Car::gear);
  if (g == 0 || c.get(Car::gear_timer) > 0) {
    const Fixed t = dt(m);
    const Fixed up = mul16(c.get(Car::rev_up), t);
    const Fixed down = mul16(c.get(Car::rev_down), t) >> 1;
    if (thr >= 0x10000) {
      e = wrap_add(e, up);  // F038
    } else if (thr > 0) {
      // Analog throttle: towards its share of the limit.
      const Fixed target = mul16(thr, max);
      if (e < target) {
        e = std::min(wrap_add(e, up), target);
      } else {
        e = std::max(wrap_sub(e, down), target);
      }
    } else {
      e = wrap_sub(e, down);  // F039
    }
  } else {
    e = c.get(Car::wheel_engine_speed);
    e = std::max(e, c.get(Car::idle));
  }
  e = std::min(e, wrap_sub(max, 1));  // F040
  e = std::max(e, 0);
  c.set(Car::engine_speed, e);
}

// FUN_004185ac
Fixed torque(Memory& m, GuestAddr car, GuestAddr driver) {
  const Car c(m, car);
  const int g = c.get(Car::gear);
  const Fixed r = ratio(m, car, g);
  Fixed w;
  if (g != 0) {
    w = mul16(wrap_add(c.point(0).get(Point::spin), c.point(2).get(Point::spin)) >> 1, r);  // F041
  } else {
    w = c.get(Car::engine_speed);
  }
  c.set(Car::wheel_engine_speed, w);
  Fixed t = 0;
  if (g != 0 && c.get(Car::gear_timer) <= 0) {
    const Fixed e = c.get(Car::engine_speed);
    // rpm / 256 in 16.16: × 60/2π (0x98c9e), bits 24..55 (F042).
    Fixed pos = static_cast<Fixed>(static_cast<std::uint32_t>(
        static_cast<std::uint64_t>(static_cast<std::int64_t>(e) * kRpmOver256) >> 24));
    pos = std::max(pos, 0);
    std::int32_t i = pos >> 16;
    Fixed f = pos & 0xffff;
    if (i >= 39) {
      i = 38;
      f = 0x10000;
    }
    const GuestAddr curve = c.get(Car::torque_curve);
    const Fixed lo = m.i32(curve + 4u * static_cast<std::uint32_t>(i));
    const Fixed hi = m.i32(curve + 4u * static_cast<std::uint32_t>(i + 1));
    Fixed cv = wrap_add(lo, mul16(wrap_sub(hi, lo), f));
    // The smooth factor of how far the engine runs ahead of the wheels (F045; 100 rad/s knee, chosen).
    const Fixed ahead = std::max(wrap_sub(e, w), 0);
    cv = mul16(cv, math::qdiv(m, 0x640000, wrap_add(0x640000, ahead)));
    if (w >= wrap_sub(c.get(Car::engine_max), 1)) cv = 0;
    const Fixed thr = c.get(Car::throttle);
    if (thr > 0) {
      t = mul16(mul16(cv, thr), r);
    } else if (w > c.get(Car::idle)) {
      t = wrap_neg(mul16(mul16(cv, r), kAgainstGear));  // F044: by 4, against the gear
    }
    if ((Driver(m, driver).get(Driver::flags_low) & 1u) != 0) t = mul16(t, kHumanTorque);  // F043
  }
  c.set(Car::torque_out, t);
  return t;
}

// FUN_004189c4
void brakes(Memory& m, GuestAddr car, GuestAddr /*driver: not read*/) {
  const Car c(m, car);
  const Fixed b = c.get(Car::brake);
  Fixed hold = c.get(Car::brake_hold);
  hold = b > 0 ? std::min(wrap_add(hold, dt(m)), 0x10000) : 0;
  c.set(Car::brake_hold, hold);
  const Fixed tb = mul16(mul16(c.get(Car::brake_max), b), wrap_add(0x8000, hold >> 1));
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    const Fixed t = (i == 0 || i == 2) ? tb : mul16(tb, 0xc000);
    const Fixed want = wrap_neg(static_cast<Fixed>(static_cast<std::uint32_t>(p.get(Point::spin)) << 3));
    p.set(Point::brake_torque, clamp(want, wrap_neg(t), t));
  }
}

// FUN_00418bd4
void wheel_spin(Memory& m, GuestAddr car, GuestAddr /*driver: not read*/) {
  const Car c(m, car);
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    Fixed spin;
    if (p.get(Point::touching) != 0) {
      spin = math::qdiv(m, math::dot16(p.get(Point::velocity), p.get(Point::rolling_dir)), p.get(Point::radius));
    } else {
      const Fixed torque = wrap_add(p.get(Point::drive_torque), p.get(Point::brake_torque));
      spin = wrap_add(p.get(Point::spin), math::qdiv(m, mul16(torque, dt(m)), c.get(Car::wheel_inertia)));
      spin = clamp(spin, -0x1900000, 0x1900000);  // 400 rad/s (chosen)
    }
    p.set(Point::spin, spin);
  }
  c.set(Car::unknown_404, 0);
}

}  // namespace pod::drive
