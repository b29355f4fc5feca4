// The car step FUN_0041b66c and its inline stages.
#include "pod/step.hpp"

#include <algorithm>

#include "common.hpp"
#include "pod/body.hpp"
#include "pod/collide.hpp"
#include "pod/drive.hpp"
#include "pod/forces.hpp"
#include "pod/frames.hpp"
#include "pod/suspension.hpp"
#include "pod/tables.hpp"
#include "pod/tyres.hpp"

namespace pod::step {

using namespace pod::detail;
using math::mul16;

void map_scratch(FlatMemory& m, const Scratch& s) {
  if (!m.mapped(s.forces, Scratch::kForcesSize)) m.map(s.forces, Scratch::kForcesSize);
  if (!m.mapped(s.stale_slot, 4)) m.map(s.stale_slot, 4);
}

// FUN_00422be8
void catch_up(Memory& m, GuestAddr car, GuestAddr driver) {
  const Driver d(m, driver);
  const GuestAddr rec = d.get(Driver::catch_up);
  if ((d.get(Driver::flags_low) & 2u) == 0 || rec == 0) return;
  const Car c(m, car);
  const std::int32_t target = m.i32(rec + 0);
  const Car other(m, Car::at(addr::kRaceCars, target));
  const Vec3 gap = sub(other.get(Car::centre), c.get(Car::centre));
  const Fixed dist = math::dot16(gap, c.get(Car::forward));
  const Fixed move = math::qdiv(m, 800, m.i32(rec + 8));  // F124
  Fixed scale = wrap_add(m.i32(rec + 4), dist > 0 ? move : wrap_neg(move));
  if (uabs(dist) < 0x320000u) {  // within 50: the speed ratio that would close the gap (F125)
    scale = wrap_add(wrap_add(scale, 0x10000), math::qdiv(m, dist, 0x320000)) >> 1;
  }
  const Fixed base = m.i32(addr::kCatchUpBase);
  const Fixed low = wrap_sub(wrap_add(base, 0xe666), static_cast<Fixed>(400u * static_cast<std::uint32_t>(m.i32(rec + 0xc))));  // F126, F128
  const Fixed high = wrap_add(base, 0x1020c);
  scale = clamp(scale, low, high);
  m.put_i32(rec + 4, scale);
  m.put_i32(addr::kFrameTime, mul16(m.i32(addr::kFrameTime), scale));
}

// FUN_0041a714 (the car-state part)
void skid_smoke(Memory& m, GuestAddr car, std::vector<Smoke>* smoke) {
  const Car c(m, car);
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    if (p.get(Point::skidding) != 0) {
      const Fixed amount = p.get(Point::sliding) != 0 ? 0x10000 : 0x8000;
      if (smoke != nullptr) smoke->push_back(Smoke{p.get(Point::position), amount});
    }
    p.set(Point::last_sector, p.get(Point::sector));
  }
}

void touching_counters(Memory& m, GuestAddr car) {
  const Car c(m, car);
  for (int i = 0; i < Car::kPoints; ++i) {
    const Point p = c.point(i);
    std::int32_t n = p.get(Point::touch_count);
    if (p.get(Point::touching) != 0) {
      n = n > 0 ? std::min(n + 1, 16) : 1;
    } else {
      n = n < 0 ? std::max(n - 1, -16) : -1;
    }
    p.set(Point::touch_count, n);
  }
}

void sound_state(Memory& m, GuestAddr car, Fixed engine_at_entry, std::vector<std::int32_t>* slots) {
  const Car c(m, car);
  const std::uint8_t old = c.get(Car::sound_state);
  std::uint8_t st = old & (sound::kCarContact | sound::kCrash);  // later stages' bits
  bool skid = false;
  bool any_down = false;
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    if (p.get(Point::skidding) != 0) skid = true;
  }
  if (skid) st |= sound::kSkid;
  const Fixed e = c.get(Car::engine_speed);
  if (e > engine_at_entry) st |= sound::kEngineRising;
  if (e < engine_at_entry) st |= sound::kEngineFalling;
  for (int i = 0; i < Car::kWheels; ++i) {
    if (c.point(i).get(Point::touching) != 0) any_down = true;
  }
  if (!any_down) st |= sound::kAirborne;
  if (c.point(Car::kChassis).get(Point::touching) != 0) st |= sound::kScraping;
  const std::uint8_t counter = skid ? static_cast<std::uint8_t>(std::min(c.get(Car::skid_sound) + 1, 255)) : 0;
  c.set(Car::skid_sound, counter);
  c.set(Car::sound_state, st);
  if (slots != nullptr) {
    if (counter == 1) slots->push_back(1);
    if ((old & sound::kAirborne) != 0 && (st & sound::kAirborne) == 0) slots->push_back(2);  // landing
  }
}

namespace {

// Stage 3: the input bits and the controls they set (returns the steering angle and the speed).
struct Controls {
  Fixed steer;
  Fixed speed;
};

Controls input_bits(Memory& m, const Car& c, const Driver& d) {
  const Fixed t = dt(m);
  std::uint32_t in = d.get(Driver::input) & 0xfff7u;  // A04 read as "bit 3 removed" (chosen)
  if (RaceBlock(m).get(RaceBlock::phase) != 0) in |= input::kBrake;  // held countdown (F027)
  c.set(Car::step_input, static_cast<std::uint16_t>(in));
  c.set(Car::throttle, (in & input::kThrottle) != 0 ? 0x10000 : clamp(d.get(Driver::throttle), 0, 0x10000));
  c.set(Car::brake, (in & input::kBrake) != 0 ? 0x10000 : clamp(d.get(Driver::brake), 0, 0x10000));
  const Fixed speed = tables::length16(m, c.get(Car::velocity));
  const Fixed lim = math::qdiv(m, c.get(Car::steer_limit), wrap_add(0x10000, speed >> 6));
  Fixed target;
  if ((in & input::kLeft) != 0) {
    target = lim;
  } else if ((in & input::kRight) != 0) {
    target = wrap_neg(lim);
  } else {
    target = mul16(clamp(d.get(Driver::steering), -0x10000, 0x10000), lim);
  }
  const Fixed rate = mul16(c.get(Car::steer_rate), t);
  Fixed steer = c.get(Car::steer);
  steer = steer < target ? std::min(wrap_add(steer, rate), target) : std::max(wrap_sub(steer, rate), target);
  c.set(Car::steer, steer);
  c.set(Car::gear_request, static_cast<std::uint8_t>(c.get(Car::gear_request) | (in & 0x60u)));
  return Controls{steer, speed};
}

}  // namespace

Out step_from_controls(Memory& m, GuestAddr car, GuestAddr driver, const Scratch& scratch) {
  const Car c(m, car);
  const Driver d(m, driver);
  Out out;
  const Vec3 chassis_before = c.point(Car::kChassis).get(Point::position);
  const Fixed engine_at_entry = c.get(Car::engine_speed);
  const GuestAddr forces = scratch.forces;

  const Controls ctl = input_bits(m, c, d);                     // 3
  if ((c.get(Car::gearbox_flags) & drive::kAutomatic) != 0) {  // 4 (F021)
    drive::automatic(m, car);
  }
  drive::gears(m, car);                                          // 5
  frames::wheel_axes(m, car);                                    // 6
  if (ctl.steer != 0) frames::turn(m, car, ctl.steer);
  drive::engine(m, car, driver);                                 // 7
  const Fixed torque = drive::torque(m, car, driver);            // 8

  // 9: the torque shared by the drive layout (F028).
  const std::int32_t layout = c.get(Car::drive_layout);
  Fixed radii = 0;
  for (int i = 0; i < Car::kWheels; ++i) radii = wrap_add(radii, c.point(i).get(Point::radius));
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    Fixed share;
    if (layout == 1) {
      share = math::qdiv(m, mul16(torque, p.get(Point::radius)), radii);
    } else if (layout == 2) {
      share = (i == 0 || i == 2) ? torque >> 1 : 0;
    } else {
      share = (i == 1 || i == 3) ? torque >> 1 : 0;
    }
    p.set(Point::drive_torque, share);
  }
  drive::brakes(m, car, driver);  // 10
  // 11: rolling resistance −(+0x90 × spin) >> 16 (F029).
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    p.set(Point::drive_torque, wrap_sub(p.get(Point::drive_torque), mul16(p.get(Point::rolling_resistance), p.get(Point::spin))));
  }
  // 12
  for (int i = 0; i < 6; ++i) m.put_vec3(force_at(forces, i), Vec3{});
  forces::air(m, car, force_at(forces, 5));
  forces::grip(m, car, forces, scratch.stale_slot);  // 13
  forces::wheel_drive(m, car, forces);               // 14
  // 15: under 10 units/s with no throttle, hold the car on a slope (F032).
  int down = 0;
  for (int i = 0; i < Car::kWheels; ++i) {
    if (c.point(i).get(Point::touching) != 0) ++down;
  }
  if (ctl.speed < 0xa0000 && c.get(Car::throttle) == 0 && down > 0) {
    const Vec3 up = c.get(Car::up);
    const Vec3 w{0, 0, wrap_neg(c.get(Car::weight))};
    Vec3 t = math::scale16(up, math::dot16(w, up));
    const Vec3 along = sub(w, t);
    t = math::scale16(along, down << 14);
    const GuestAddr f5 = force_at(forces, 5);
    m.put_vec3(f5, sub(m.vec3(f5), t));
  }
  suspension::springs(m, car, forces);  // 16
  // 17: normal forces along each contact normal.
  const Fixed quarter = c.get(Car::weight) >> 2;
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    Fixed load = 0;
    if (p.get(Point::touching) != 0) {
      const Fixed spring = p.get(Point::spring_out);
      if (spring > 0) load = mul16(spring, quarter);
    }
    p.set(Point::load, load);
    if (load != 0) {
      const GuestAddr fi = force_at(forces, i);
      m.put_vec3(fi, add(m.vec3(fi), math::scale16(p.get(Point::contact_normal), load)));
    }
  }
  tyres::tyres(m, car, forces, scratch.stale_slot);  // 18
  // 19: forces scaled by how long the wheels have been down.
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    if (p.get(Point::touching) == 0) continue;
    const std::int32_t count = p.get(Point::touch_count);
    if (count >= 4) continue;
    const Fixed k = count <= 0 ? 0x4000 : static_cast<Fixed>(static_cast<std::uint32_t>(count) << 14);
    const GuestAddr fi = force_at(forces, i);
    const Vec3 n = math::scale16(p.get(Point::contact_normal), p.get(Point::load));
    const Vec3 tang = math::scale16(sub(m.vec3(fi), n), k);
    m.put_vec3(fi, add(n, tang));
  }
  body::integrate(m, car, forces);     // 20 (21, wall impacts: not yet ported)
  suspension::substeps(m, car);        // 22
  suspension::place_points(m, car);    // 23
  collide::track(m, car, driver);      // 24
  drive::wheel_spin(m, car, driver);   // 25
  skid_smoke(m, car, &out.smoke);      // 26
  // 27 suspension::travel, 28 body::push_out: not yet ported.
  touching_counters(m, car);           // 29
  // 30 the beacon test, 31 step::stuck: not yet ported.
  sound_state(m, car, engine_at_entry, &out.sound_slots);  // 32
  out.chassis_move = tables::length16(m, sub(c.point(Car::kChassis).get(Point::position), chassis_before));
  return out;
}

// FUN_0041b66c
Out step(Memory& m, GuestAddr car, GuestAddr driver, const Scratch& scratch, const Controller& controller) {
  catch_up(m, car, driver);                      // 1
  if (controller) controller(m, driver, car);    // 2
  return step_from_controls(m, car, driver, scratch);
}

}  // namespace pod::step
