// Blind reading: the car step FUN_0041b66c from right after the controller (0x41b6f6): stages
// 3..32 (000 "The step", F026..F036), the inline ones written here, the others called in F026's
// order (VALUES.md section 7). Rules of the inline stages are open (A04, G07, G21); choices in
// READING.md.
#include <cstdint>

#include "pod/blind.hpp"
#include "pod/body.hpp"
#include "pod/damage.hpp"
#include "pod/drive.hpp"
#include "pod/forces.hpp"
#include "pod/frames.hpp"
#include "pod/math.hpp"
#include "pod/memory.hpp"
#include "pod/race.hpp"
#include "pod/step.hpp"
#include "pod/suspension.hpp"
#include "pod/tables.hpp"

namespace pod::blind::step {
namespace {

constexpr GuestAddr kPointSize = 0xd8;
constexpr int kWheels = 4;
constexpr GuestAddr kChassis = 0x360;

// Point fields.
constexpr GuestAddr kPosition = 0x00;
constexpr GuestAddr kNormal = 0x24;
constexpr GuestAddr kTouching = 0x3a;
constexpr GuestAddr kRadius = 0x4c;
constexpr GuestAddr kSpin = 0x50;
constexpr GuestAddr kDriveTorque = 0x54;
constexpr GuestAddr kRollingResistance = 0x90;
constexpr GuestAddr kSpring = 0x9c;  // quarter weights
constexpr GuestAddr kLoad = 0xa0;
constexpr GuestAddr kTouchCount = 0xd4;

// Car fields.
constexpr GuestAddr kEngine = 0x440;
constexpr GuestAddr kFlags = 0x448;
constexpr GuestAddr kRequest = 0x449;
constexpr GuestAddr kThrottle = 0x44c;
constexpr GuestAddr kBrake = 0x450;
constexpr GuestAddr kSteering = 0x454;
constexpr GuestAddr kTorque = 0x464;
constexpr GuestAddr kSteeringLimit = 0x468;
constexpr GuestAddr kVelocity = 0x4c8;
constexpr GuestAddr kUp = 0x4bc;
constexpr GuestAddr kInputBits = 0x4fa;
constexpr GuestAddr kSteeringRate = 0x528;
constexpr GuestAddr kWeight = 0x53c;
constexpr GuestAddr kLayout = 0x54c;

// Driver fields.
constexpr GuestAddr kDriverBits = 0x34;
constexpr GuestAddr kAnalogSteer = 0x40;
constexpr GuestAddr kAnalogThrottle = 0x44;
constexpr GuestAddr kAnalogBrake = 0x48;

constexpr GuestAddr kCountdownPhase = 0x4f8d44;
constexpr GuestAddr kFrameDt = 0x621b70;
constexpr GuestAddr kMoveBlock = 0x4f3368;

// Input bits (G21, VALUES.md).
constexpr std::uint16_t kBitThrottle = 0x01, kBitLeft = 0x02, kBitRight = 0x04, kBitBrake = 0x10;
constexpr std::uint16_t kGearBits = 0x60;
constexpr Fixed kHoldSpeed = 0xa0000;  // 10 units/s (F032)
constexpr std::int32_t kCountMax = 16;  // F018

GuestAddr wheel_at(GuestAddr car, int w) { return car + static_cast<GuestAddr>(w) * kPointSize; }

Fixed amount(bool key, Fixed analog) { return key ? kOne : math::clamp(analog, 0, kOne); }

// The steering angle moves towards its target by at most rate x dt (G07/G21 chosen).
Fixed steer_towards(Fixed angle, Fixed target, Fixed step) {
  if (angle < target) return math::wrap_add(angle, step) > target ? target : math::wrap_add(angle, step);
  if (angle > target) return math::wrap_sub(angle, step) < target ? target : math::wrap_sub(angle, step);
  return angle;
}

// Stage 3 (F027, A04 chosen: the value-8 bit taken out of the low 16 bits; the brake bit 0x10
// forced while the countdown holds the car).
void controls(Memory& m, GuestAddr car, GuestAddr driver) {
  std::uint16_t bits = static_cast<std::uint16_t>(m.u32(driver + kDriverBits) & 0xfff7u);
  if (m.i32(kCountdownPhase) != 0) bits = static_cast<std::uint16_t>(bits | kBitBrake);
  const std::uint16_t before = m.u16(car + kInputBits);
  m.put_u16(car + kInputBits, bits);
  m.put_i32(car + kThrottle, amount((bits & kBitThrottle) != 0, m.i32(driver + kAnalogThrottle)));
  m.put_i32(car + kBrake, amount((bits & kBitBrake) != 0, m.i32(driver + kAnalogBrake)));
  const Fixed limit = m.i32(car + kSteeringLimit);
  const bool left = (bits & kBitLeft) != 0, right = (bits & kBitRight) != 0;
  const Fixed target = left != right ? (left ? limit : math::wrap_neg(limit))
                                     : math::mul16(math::clamp(m.i32(driver + kAnalogSteer), -kOne, kOne), limit);
  const Fixed step = math::mul16(m.i32(car + kSteeringRate), m.i32(kFrameDt));
  m.put_i32(car + kSteering, steer_towards(m.i32(car + kSteering), target, step));
  // A gear key counts once, when it goes down (chosen); a pending request is kept for gears.
  const std::uint8_t pressed = static_cast<std::uint8_t>(bits & ~before & kGearBits);
  if (pressed != 0) m.put_u8(car + kRequest, static_cast<std::uint8_t>(m.u8(car + kRequest) | pressed));
}

// Stage 9 (F028): 1 all wheels by radius, 2 the front (0, 2), else the rear (1, 3).
void share_torque(Memory& m, GuestAddr car, Fixed torque) {
  const std::int32_t layout = m.i32(car + kLayout);
  Fixed share[kWheels] = {0, 0, 0, 0};
  if (layout == 1) {
    Fixed radii[kWheels];
    Fixed sum = 0;
    for (int w = 0; w < kWheels; ++w) sum = math::wrap_add(sum, radii[w] = m.i32(wheel_at(car, w) + kRadius));
    for (int w = 0; w < kWheels; ++w) share[w] = math::qdiv(m, math::mul16(torque, radii[w]), sum);
  } else {
    const int first = layout == 2 ? 0 : 1;
    share[first] = share[first + 2] = torque >> 1;
  }
  for (int w = 0; w < kWheels; ++w) m.put_i32(wheel_at(car, w) + kDriveTorque, share[w]);
}

// Stage 11 (F029): the torque gains -(+0x90 x spin) >> 16.
void rolling_resistance(Memory& m, GuestAddr car) {
  for (int w = 0; w < kWheels; ++w) {
    const GuestAddr wheel = wheel_at(car, w);
    const std::int64_t product = static_cast<std::int64_t>(m.i32(wheel + kRollingResistance)) * m.i32(wheel + kSpin);
    const Fixed resist = static_cast<Fixed>((-product) >> 16);
    m.put_i32(wheel + kDriveTorque, math::wrap_add(m.i32(wheel + kDriveTorque), resist));
  }
}

// Stage 15 (F032, rule chosen): under 10 units/s with no throttle, the weight's pull along the
// car's up plane is cancelled in the outside force.
void hold_on_slope(Memory& m, GuestAddr car, GuestAddr outside) {
  if (::pod::tables::length16(m, m.vec3(car + kVelocity)) >= kHoldSpeed) return;
  if (m.i32(car + kThrottle) != 0) return;
  const Vec3 up = m.vec3(car + kUp);
  const Fixed weight = m.i32(car + kWeight);
  const Vec3 gravity{0, 0, math::wrap_neg(weight)};
  const Vec3 along = math::sub(gravity, math::scale16(up, math::dot16(gravity, up)));
  m.put_vec3(outside, math::sub(m.vec3(outside), along));
}

// Stage 17 (G07 chosen): load = spring output (quarter weights) x weight / 4, not below 0, along
// the contact normal of each touching wheel.
void normal_forces(Memory& m, GuestAddr car, GuestAddr forces) {
  const Fixed quarter = m.i32(car + kWeight) >> 2;
  for (int w = 0; w < kWheels; ++w) {
    const GuestAddr wheel = wheel_at(car, w);
    Fixed load = 0;
    if (m.u8(wheel + kTouching) != 0) {
      load = math::mul16(m.i32(wheel + kSpring), quarter);
      if (load < 0) load = 0;
      const GuestAddr f = forces + static_cast<GuestAddr>(w) * 12;
      m.put_vec3(f, math::add(m.vec3(f), math::scale16(m.vec3(wheel + kNormal), load)));
    }
    m.put_i32(wheel + kLoad, load);
  }
}

// Stage 19 (G07 chosen): a wheel down for c steps (1..16) has its force scaled by c / 16.
void landing(Memory& m, GuestAddr car, GuestAddr forces) {
  for (int w = 0; w < kWheels; ++w) {
    const std::int32_t count = m.i32(wheel_at(car, w) + kTouchCount);
    if (count <= 0 || count >= kCountMax) continue;
    const GuestAddr f = forces + static_cast<GuestAddr>(w) * 12;
    m.put_vec3(f, math::scale16(m.vec3(f), count * (kOne / kCountMax)));
  }
}

// Stage 29 (F018): 1..16 while down, -1..-16 while off.
void touch_counts(Memory& m, GuestAddr car) {
  for (int w = 0; w < kWheels; ++w) {
    const GuestAddr wheel = wheel_at(car, w);
    const std::int32_t c = m.i32(wheel + kTouchCount);
    std::int32_t next;
    if (m.u8(wheel + kTouching) != 0)
      next = c > 0 ? (c < kCountMax ? c + 1 : kCountMax) : 1;
    else
      next = c < 0 ? (c > -kCountMax ? c - 1 : -kCountMax) : -1;
    if (next != c) m.put_i32(wheel + kTouchCount, next);
  }
}

// Stages 4..11: gearbox, axes, engine, torque and its share, brakes, rolling resistance.
void drivetrain(Memory& m, GuestAddr car, GuestAddr driver) {
  if ((m.u8(car + kFlags) & 0x04) != 0) ::pod::drive::automatic(m, car);      // 4 (F021)
  ::pod::blind::drive::gears(m, car);                                         // 5
  ::pod::frames::wheel_axes(m, car);                                          // 6
  ::pod::frames::turn(m, car, m.i32(car + kSteering));
  ::pod::blind::drive::engine(m, car, driver);                                // 7
  const Fixed torque = ::pod::drive::torque(m, car, driver);                  // 8
  m.put_i32(car + kTorque, torque);
  share_torque(m, car, torque);                                               // 9
  ::pod::drive::brakes(m, car, driver);                                       // 10
  rolling_resistance(m, car);                                                 // 11
}

// Stages 12..19: the forces on the five points and the outside force.
void forces_on(Memory& m, GuestAddr car, const ::pod::step::Scratch& scratch) {
  const GuestAddr forces = scratch.forces;
  for (GuestAddr i = 0; i < 6; ++i) m.put_vec3(forces + 12 * i, Vec3{});     // 12: cleared first
  ::pod::forces::air(m, car, forces + 5 * 12);
  ::pod::forces::grip(m, car, forces, scratch.stale_slot);                    // 13
  ::pod::forces::wheel_drive(m, car, forces);                                 // 14
  hold_on_slope(m, car, forces + 5 * 12);                                     // 15
  ::pod::suspension::springs(m, car, forces);                                 // 16
  normal_forces(m, car, forces);                                              // 17
  ::pod::blind::tyres::tyres(m, car, forces, scratch.stale_slot);             // 18
  landing(m, car, forces);                                                    // 19
}

}  // namespace

::pod::step::Out step_from_controls(Memory& m, GuestAddr car, GuestAddr driver, const ::pod::step::Scratch& scratch,
                                    ::pod::step::Damage damage) {
  ::pod::step::Out out;
  const Fixed engine_at_entry = m.i32(car + kEngine);
  const Vec3 chassis_at_entry = m.vec3(car + kChassis + kPosition);
  controls(m, car, driver);                                                   // 3
  drivetrain(m, car, driver);                                                 // 4..11
  forces_on(m, car, scratch);                                                 // 12..19
  ::pod::blind::body::integrate(m, car, scratch.forces, &out.impacts);        // 20, 21
  if (damage == ::pod::step::Damage::kApplied) ::pod::damage::impacts(m, car, out.impacts);
  ::pod::suspension::substeps(m, car);                                        // 22
  ::pod::suspension::place_points(m, car);                                    // 23
  out.put_back = ::pod::blind::collide::track(m, car, driver);                // 24
  ::pod::drive::wheel_spin(m, car, driver);                                   // 25
  ::pod::step::skid_smoke(m, car, scratch.thread_block, &out.smoke);          // 26
  ::pod::blind::suspension::travel(m, car);                                   // 27
  ::pod::body::push_out(m, car);                                              // 28
  touch_counts(m, car);                                                       // 29
  m.put_vec3(kMoveBlock, chassis_at_entry);                                   // 30 (F036)
  m.put_vec3(kMoveBlock + 12, m.vec3(car + kChassis + kPosition));
  ::pod::race::beacon_test(m, driver, kMoveBlock);
  ::pod::step::stuck(m, car, driver);                                         // 31
  ::pod::step::sound_state(m, car, engine_at_entry, &out.sound_slots);        // 32
  out.chassis_move = kMoveBlock;
  return out;
}

}  // namespace pod::blind::step
