// The car step FUN_0041b66c and its inline stages.
#include "pod/step.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "common.hpp"
#include "pod/body.hpp"
#include "pod/collide.hpp"
#include "pod/damage.hpp"
#include "pod/drive.hpp"
#include "pod/forces.hpp"
#include "pod/frames.hpp"
#include "pod/putback.hpp"
#include "pod/race.hpp"
#include "pod/suspension.hpp"
#include "pod/tables.hpp"
#include "pod/tyres.hpp"

namespace pod::step {

using namespace pod::detail;
using math::mul16;

void map_scratch(FlatMemory& m, const Scratch& s) {
  if (!m.mapped(s.forces, Scratch::kForcesSize)) m.map(s.forces, Scratch::kForcesSize);
  if (!m.mapped(s.stale_slot, 4)) m.map(s.stale_slot, 4);
  if (!m.mapped(addr::kChassisMove, addr::kChassisMoveSize)) m.map(addr::kChassisMove, addr::kChassisMoveSize);
  if (!m.mapped(addr::kSmokeRing, addr::kSmokeRingSize)) m.map(addr::kSmokeRing, addr::kSmokeRingSize);
  if (!m.mapped(s.thread_block, addr::kThreadBlockSize)) m.map(s.thread_block, addr::kThreadBlockSize);
}

// 0x4c7f37
std::int32_t rand(Memory& m, GuestAddr thread_block) {
  const GuestAddr seed_at = thread_block + addr::kRandSeedOffset;
  const std::uint32_t seed = m.u32(seed_at) * 1103515245u + 12345u;
  m.put_u32(seed_at, seed);
  return static_cast<std::int32_t>((seed >> 16) & 0x7fffu);
}

// 0x45d44c
void smoke_emit(Memory& m, GuestAddr position, Fixed amount, GuestAddr thread_block) {
  const std::int32_t r1 = rand(m, thread_block);
  const std::int32_t r2 = rand(m, thread_block);
  const std::uint32_t count = m.u32(addr::kSmokeRing);
  const GuestAddr slot = addr::kSmokeRing + 0x10 + 16 * (count & 63u);
  m.put_i32(slot + 0, wrap_add(m.i32(position + 0), 64 * ((r1 & 0xff) - 128)));
  m.put_i32(slot + 4, wrap_add(m.i32(position + 4), 64 * ((r2 & 0xff) - 128)));
  m.put_i32(slot + 8, m.i32(position + 8));
  m.put_i32(slot + 12, amount);
  m.put_u32(addr::kSmokeRing, count + 1);
  m.put_u32(addr::kSmokeRing + 4, m.u32(addr::kSmokeRing + 4) + 1);
}

// FUN_00422be8
void catch_up(Memory& m, GuestAddr car, GuestAddr driver) {
  const Driver d(m, driver);
  const GuestAddr rec = d.get(Driver::catch_up);
  if ((d.get(Driver::flags_low) & 2u) == 0 || rec == 0) return;
  // The target through the function at 0x4f984c (A07): the port runs the one the set-up stores there.
  const GuestAddr fn = RaceBlock(m).get(RaceBlock::catch_up_target_fn);
  if (fn != addr::kCatchUpTarget) {
    std::ostringstream o;
    o << "step::catch_up: the catch-up's target function [0x4f984c] is 0x" << std::hex << fn
      << ", not catch_up::target (0x422918), the only one the port runs (the race's set-up stores it: "
         "pod::Race::start)";
    throw std::runtime_error(o.str());
  }
  const GuestAddr target = pod::catch_up::target(m, m.i32(rec + 0));
  if (target == 0) return;  // no such racer: no scaling
  const Driver them(m, target);
  const Car c(m, car);
  const Car other(m, them.get(Driver::car));
  // The straight distance, along the car's forward axis.
  const auto straight = [&] { return math::dot16(sub(other.get(Car::centre), c.get(Car::centre)), c.get(Car::forward)); };
  // Along the race paths (F123): the difference of the link values at the two drivers' trackers.
  const auto path_value = [&](const Driver& of) {
    return m.i32(m.u32(of.get(Driver::tracker_link) + 0x14) + 4u * static_cast<std::uint32_t>(of.get(Driver::tracker_point)));
  };
  Fixed dist;
  if (m.u32(addr::kRacePaths) != 0 && d.get(Driver::tracker_link) != 0 && them.get(Driver::tracker_link) != 0) {
    dist = wrap_sub(path_value(them), path_value(d));
    if (uabs(dist) < 0x320000u) dist = straight();  // within 50: straight
  } else {
    dist = straight();
  }
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

// FUN_0041a714
void skid_smoke(Memory& m, GuestAddr car, GuestAddr thread_block, std::vector<Smoke>* smoke) {
  const Car c(m, car);
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    if (p.get(Point::skidding) != 0) {
      const Fixed amount = p.get(Point::sliding) != 0 ? 0x10000 : 0x8000;
      smoke_emit(m, p.addr(Point::position), amount, thread_block);
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

// Stage 9: the torque shared by the drive layout (F028).
void share_torque(Memory& m, const Car& c, Fixed torque) {
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
}

// Stage 11: rolling resistance −(+0x90 × spin) >> 16 (F029).
void rolling_resistance(const Car& c) {
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    p.set(Point::drive_torque, wrap_sub(p.get(Point::drive_torque), mul16(p.get(Point::rolling_resistance), p.get(Point::spin))));
  }
}

// Stage 15: under 10 units/s with no throttle, hold the car on a slope (F032).
void hold_on_slope(Memory& m, const Car& c, GuestAddr forces, Fixed speed) {
  int down = 0;
  for (int i = 0; i < Car::kWheels; ++i) {
    if (c.point(i).get(Point::touching) != 0) ++down;
  }
  if (speed >= 0xa0000 || c.get(Car::throttle) != 0 || down == 0) return;
  const Vec3 up = c.get(Car::up);
  const Vec3 w{0, 0, wrap_neg(c.get(Car::weight))};
  Vec3 t = math::scale16(up, math::dot16(w, up));
  const Vec3 along = sub(w, t);
  t = math::scale16(along, down << 14);
  const GuestAddr f5 = force_at(forces, 5);
  m.put_vec3(f5, sub(m.vec3(f5), t));
}

// Stage 17: normal forces along each contact normal.
void normal_forces(Memory& m, const Car& c, GuestAddr forces) {
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
}

// Stage 19: forces scaled by how long the wheels have been down.
void scale_by_touch_time(Memory& m, const Car& c, GuestAddr forces) {
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
}

}  // namespace

Out step_from_controls(Memory& m, GuestAddr car, GuestAddr driver, const Scratch& scratch, Damage damage) {
  const Car c(m, car);
  const Driver d(m, driver);
  Out out;
  const Vec3 chassis_before = c.point(Car::kChassis).get(Point::position);  // the move's start (F036)
  const Fixed engine_at_entry = c.get(Car::engine_speed);
  const GuestAddr forces = scratch.forces;

  const Controls ctl = input_bits(m, c, d);                      // 3
  if ((c.get(Car::gearbox_flags) & drive::kAutomatic) != 0) {  // 4 (F021)
    drive::automatic(m, car);
  }
  drive::gears(m, car);                                          // 5
  frames::wheel_axes(m, car);                                    // 6
  if (ctl.steer != 0) frames::turn(m, car, ctl.steer);
  drive::engine(m, car, driver);                                 // 7
  const Fixed torque = drive::torque(m, car, driver);            // 8

  share_torque(m, c, torque);                                    // 9
  drive::brakes(m, car, driver);                                 // 10
  rolling_resistance(c);                                         // 11
  for (int i = 0; i < 6; ++i) m.put_vec3(force_at(forces, i), Vec3{});  // 12
  forces::air(m, car, force_at(forces, 5));
  forces::grip(m, car, forces, scratch.stale_slot);              // 13
  forces::wheel_drive(m, car, forces);                           // 14
  hold_on_slope(m, c, forces, ctl.speed);                        // 15
  suspension::springs(m, car, forces);                           // 16
  normal_forces(m, c, forces);                                   // 17
  tyres::tyres(m, car, forces, scratch.stale_slot);              // 18
  scale_by_touch_time(m, c, forces);                             // 19
  body::integrate(m, car, forces, &out.impacts);                 // 20, with 21 (wall impacts) inside
  // 21's damage calls, after the body's motion (F100): nothing before the step's end reads what
  // they change (part health, the wheels' grips, rolling resistance and radius).
  if (damage == Damage::kApplied) pod::damage::impacts(m, car, out.impacts);
  suspension::substeps(m, car);                                  // 22
  suspension::place_points(m, car);                              // 23
  out.put_back = collide::track(m, car, driver);                 // 24
  drive::wheel_spin(m, car, driver);                             // 25
  skid_smoke(m, car, scratch.thread_block, &out.smoke);          // 26
  suspension::travel(m, car);                                    // 27
  body::push_out(m, car);                                        // 28
  touching_counters(m, car);                                     // 29
  // 30: the chassis point's move, its two ends, for the beacon test and the step's caller (F036).
  m.put_vec3(addr::kChassisMove, chassis_before);
  m.put_vec3(addr::kChassisMove + 12, c.point(Car::kChassis).get(Point::position));
  race::beacon_test(m, driver, addr::kChassisMove);
  stuck(m, car, driver);                                         // 31
  sound_state(m, car, engine_at_entry, &out.sound_slots);        // 32
  out.chassis_move = addr::kChassisMove;
  return out;
}

// FUN_004227bc
void stuck(Memory& m, GuestAddr car, GuestAddr driver) {
  const Driver d(m, driver);
  if ((d.get(Driver::flags_low) & 2u) == 0) return;  // computer drivers only
  Fixed t = d.get(Driver::stuck_timer);
  if (t < 0) return;  // the controller's count back up (F129)
  const Car c(m, car);
  if (tables::length16(m, c.get(Car::velocity)) < kStuckSpeed && c.get(Car::throttle) != 0) {
    t = wrap_add(t, dt(m));
  } else {
    t = 0;
  }
  if (t > kStuckTime) t = -kStuckTime;
  d.set(Driver::stuck_timer, t);
}

// FUN_004159d8
bool upside_down(Memory& m, GuestAddr car, GuestAddr driver) {
  const Car c(m, car);
  if (m.i32(c.addr(Car::up) + 8) >= 0) {  // only the up axis's z is read
    c.set(Car::upside_down, 0u);
    return false;
  }
  const std::uint32_t lo = std::min<std::uint32_t>(c.get(Car::upside_down_lo) + static_cast<std::uint32_t>(FrameTime(m).get(FrameTime::step_dt) >> 8), 0xffffu);
  const std::uint32_t hi = std::min<std::uint32_t>(c.get(Car::upside_down_hi) + 1u, 0xffffu);
  c.set(Car::upside_down_lo, static_cast<std::uint16_t>(lo));
  c.set(Car::upside_down_hi, static_cast<std::uint16_t>(hi));
  if (lo < kUpsideDownPutBack) return false;
  putback::put_back(m, car, driver);  // F081
  return true;
}

// FUN_00415424
void wheel_roll(Memory& m, GuestAddr car) {
  const Car c(m, car);
  const Fixed t = FrameTime(m).get(FrameTime::step_dt);
  for (int i = 0; i < Car::kWheels; ++i) {
    const Point p = c.point(i);
    Fixed a = wrap_add(p.get(Point::roll_angle), mul16(p.get(Point::spin), t));
    if (a > tables::kPi16) {
      a = wrap_sub(a, tables::kTwoPi16);
    } else if (a <= -tables::kPi16) {
      a = wrap_add(a, tables::kTwoPi16);
    }
    p.set(Point::roll_angle, a);
  }
}

// FUN_004155b8
void pose(Memory& m, GuestAddr car, GuestAddr driver) {
  if (const GuestAddr at = Driver(m, driver).get(Driver::object); at != 0) {
    const RaceObject object(m, at);
    const Car c(m, car);
    const Vec3 u = c.get(Car::up);
    object.put_axes(c.get(Car::forward), c.get(Car::left), u);
    const GuestAddr hull = object.get(RaceObject::hull);
    const Fixed half_z = hull != 0 ? Hull(m, hull).get(Hull::half_z) : 0;
    object.set(RaceObject::position, sub(c.point(Car::kChassis).get(Point::position), math::scale16(u, half_z)));
  }
  wheel_roll(m, car);
}

Out racer_step_from_controls(Memory& m, GuestAddr car, GuestAddr driver, const Scratch& scratch, Damage damage) {
  Out out = step_from_controls(m, car, driver, scratch, damage);
  if (upside_down(m, car, driver)) out.put_back = true;
  pose(m, car, driver);
  return out;
}

// FUN_0041b66c
Out step(Memory& m, GuestAddr car, GuestAddr driver, const Scratch& scratch, const Controller& controller,
         Damage damage) {
  catch_up(m, car, driver);                      // 1
  if (controller) controller(m, driver, car);    // 2
  return step_from_controls(m, car, driver, scratch, damage);
}

}  // namespace pod::step

namespace pod::catch_up {

using namespace pod::detail;

// FUN_00422918
GuestAddr target(Memory& m, std::int32_t racer) {
  if (racer < 0) return 0;
  const std::int32_t n = wrap_add(m.i32(addr::kHumanRacers), m.i32(addr::kComputerRacers));
  if (racer >= n) return 0;
  return addr::kDrivers + addr::kDriverSize * static_cast<std::uint32_t>(racer);
}

}  // namespace pod::catch_up
