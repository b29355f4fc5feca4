// Blind reading: body::integrate (FUN_00419ad0, stage 20 with stage 21 inside). 000 "The body"
// (F057..F068), VALUES.md section 2. The axes' turning and squaring, the on-the-spot rule and the
// divisions are open (G09, G04); READING.md holds the choices.
#include <cstdint>
#include <vector>

#include "pod/blind.hpp"
#include "pod/body.hpp"
#include "pod/math.hpp"
#include "pod/memory.hpp"
#include "pod/tables.hpp"

namespace pod::blind::body {
namespace {

constexpr GuestAddr kPointSize = 0xd8;
constexpr int kWheels = 4;
constexpr int kPoints = 5;

// Point fields.
constexpr GuestAddr kPosition = 0x00;
constexpr GuestAddr kTouching = 0x3a;
constexpr GuestAddr kPointUp = 0x78;
constexpr GuestAddr kRadius = 0x4c;
constexpr GuestAddr kWallDepth = 0xc0;
constexpr GuestAddr kTouchCount = 0xd4;

// Car fields (000 "The race car").
constexpr GuestAddr kCentre = 0x498;
constexpr GuestAddr kAxes = 0x4a4;  // forward, left, up, 12 bytes apart
constexpr GuestAddr kVelocity = 0x4c8;
constexpr GuestAddr kCarriedForce = 0x4d4;
constexpr GuestAddr kCarriedTorque = 0x4e0;
constexpr GuestAddr kSpin = 0x4fc;
constexpr GuestAddr kInertia = 0x508;
constexpr GuestAddr kMass = 0x520;
constexpr GuestAddr kWeight = 0x53c;
constexpr GuestAddr kSteering = 0x454;
constexpr GuestAddr kFrameDt = 0x621b70;

constexpr Fixed kYawKept = 0xf000;      // F061: 0xf000/65536 of the yaw torque subtracted
constexpr Fixed kStepScale = 0x131b7;   // 1.1942 (F063)
constexpr Fixed kSpinLimit = 0x24a3d;   // 2.29 rad/s (F064)
constexpr Fixed kAirDecay = 0x38000;    // 3.5 (F065)
constexpr Fixed kNoseTurn = 0x107ae;    // 1.03 (F066)
constexpr Fixed kAirSteer = 0x5a0000;   // F067
constexpr Fixed kAirSteerSpeed = 0x1e0000;  // 30 units/s (F067)
constexpr Fixed kAtSpeed = 0xa0000;     // 10 units/s (chosen, G09)
constexpr Fixed kNearlyStopped = 0x10000;  // 1 unit/s (chosen)
constexpr Fixed kSpotYaw = 0x20000;     // yaw spin per radian of steering (chosen)

struct Frame {
  Vec3 axis[3];  // forward, left, up
};

Frame read_frame(Memory& m, GuestAddr car) {
  Frame f;
  for (int k = 0; k < 3; ++k) f.axis[k] = m.vec3(car + kAxes + static_cast<GuestAddr>(k) * 12);
  return f;
}

Vec3 unit(Memory& m, const Vec3& v) {
  const Fixed len = ::pod::tables::length16(m, v);
  if (len == 0) return v;
  return Vec3{math::qdiv(m, v.x, len), math::qdiv(m, v.y, len), math::qdiv(m, v.z, len)};
}

// F057/F058: the touching points' forces and their torques r x F, r reaching the contact a radius
// below the point along its up axis. forces[5] is the outside force; weight goes on z.
void sum_points(Memory& m, GuestAddr car, GuestAddr forces, const Vec3& centre, Vec3& force, Vec3& torque) {
  for (int p = 0; p < kPoints; ++p) {
    const GuestAddr point = car + static_cast<GuestAddr>(p) * kPointSize;
    if (m.u8(point + kTouching) == 0) continue;
    const Vec3 f = m.vec3(forces + static_cast<GuestAddr>(p) * 12);
    const Vec3 contact = math::sub(m.vec3(point + kPosition),
                                   math::scale16(m.vec3(point + kPointUp), m.i32(point + kRadius)));
    force = math::add(force, f);
    torque = math::add(torque, math::cross16(math::sub(contact, centre), f));
  }
}

// Stage-21-then-yaw part: F061 "15/16 of all the yaw torque is taken away again".
Vec3 without_yaw(const Vec3& torque, const Vec3& up) {
  const Fixed yaw = math::dot16(torque, up);
  return math::sub(torque, math::scale16(up, math::mul16(yaw, kYawKept)));
}

// F064: spin per axis through the inertia about forward, left, up (+0x508), world-axis spin kept.
Vec3 spin_up(Memory& m, GuestAddr car, const Frame& f, Vec3 spin, const Vec3& torque, Fixed dt) {
  for (int k = 0; k < 3; ++k) {
    const Fixed inertia = m.i32(car + kInertia + static_cast<GuestAddr>(k) * 4);
    const Fixed about = math::dot16(torque, f.axis[k]);
    const Fixed gain = math::qdiv(m, math::mul16(about, dt), inertia);
    spin = math::add(spin, math::scale16(f.axis[k], gain));
  }
  return spin;
}

// "Held to 2.29 rad/s on its largest axis" (F064): the largest component scaled down to 2.29.
Vec3 hold_spin(Memory& m, Vec3 spin) {
  std::uint32_t largest = 0;
  for (int k = 0; k < 3; ++k)
    if (math::uabs(spin[k]) > largest) largest = math::uabs(spin[k]);
  if (largest <= static_cast<std::uint32_t>(kSpinLimit)) return spin;
  const Fixed scale = math::qdiv(m, kSpinLimit, static_cast<Fixed>(largest));
  return math::scale16(spin, scale);
}

// How many wheels have been off (count <= -n) and how many are down now.
int wheels_off_for(Memory& m, GuestAddr car, Fixed steps) {
  int n = 0;
  for (int w = 0; w < kWheels; ++w)
    if (m.i32(car + static_cast<GuestAddr>(w) * kPointSize + kTouchCount) <= -steps) ++n;
  return n;
}

int wheels_down(Memory& m, GuestAddr car) {
  int n = 0;
  for (int w = 0; w < kWheels; ++w)
    if (m.u8(car + static_cast<GuestAddr>(w) * kPointSize + kTouching) != 0) ++n;
  return n;
}

bool against_wall(Memory& m, GuestAddr car) {
  for (int p = 0; p < kPoints; ++p)
    if (m.i32(car + static_cast<GuestAddr>(p) * kPointSize + kWallDepth) > 0) return true;
  return false;
}

// F068 chosen: the yaw part of the spin replaced by 0x20000 per radian of steering.
Vec3 spot_turn(const Vec3& spin, const Vec3& up, Fixed steering) {
  const Vec3 flat = math::sub(spin, math::scale16(up, math::dot16(spin, up)));
  return math::add(flat, math::scale16(up, math::mul16(kSpotYaw, steering)));
}

// An axis turned by the spin: a + (w x a) dt.
Vec3 turned(const Vec3& axis, const Vec3& spin, Fixed dt) {
  return math::add(axis, math::scale16(math::cross16(spin, axis), dt));
}

// Squared again (chosen): forward made unit, left made square to it and unit, up = forward x left.
Frame square(Memory& m, const Vec3& forward, const Vec3& left) {
  Frame t;
  t.axis[0] = unit(m, forward);
  t.axis[1] = unit(m, math::sub(left, math::scale16(t.axis[0], math::dot16(left, t.axis[0]))));
  t.axis[2] = math::cross16(t.axis[0], t.axis[1]);
  return t;
}

// F066: the nose turned into the velocity, forward = dir + (forward - dir) e^(-1.03 dt).
Vec3 nose_into(Memory& m, const Vec3& forward, const Vec3& velocity, Fixed dt) {
  const Vec3 dir = unit(m, velocity);
  const Fixed keep = ::pod::body::exp16(math::wrap_neg(math::mul16(kNoseTurn, dt)));
  return math::add(dir, math::scale16(math::sub(forward, dir), keep));
}

Vec3 move_velocity(Memory& m, const Vec3& v, const Vec3& force, Fixed mass, Fixed dt) {
  Vec3 out;
  for (int k = 0; k < 3; ++k) out[k] = math::wrap_add(v[k], math::qdiv(m, math::mul16(force[k], dt), mass));
  return out;
}

// F063: the mean of the old and new velocity x dt x 1.1942.
Vec3 move_position(const Vec3& centre, const Vec3& v_old, const Vec3& v_new, Fixed dt) {
  Vec3 mean;
  for (int k = 0; k < 3; ++k)
    mean[k] = static_cast<Fixed>((static_cast<std::int64_t>(v_old[k]) + v_new[k]) >> 1);
  return math::add(centre, math::scale16(math::scale16(mean, dt), kStepScale));
}

}  // namespace

void integrate(Memory& m, GuestAddr car, GuestAddr forces, std::vector<::pod::body::Impact>* impacts) {
  const Fixed dt = m.i32(kFrameDt);
  const Vec3 centre = m.vec3(car + kCentre);
  const Frame frame = read_frame(m, car);
  // F057: outside force (forces[5]) with the weight on z, and the force carried from collisions.
  Vec3 force = math::add(m.vec3(forces + 5 * 12), m.vec3(car + kCarriedForce));
  force.z = math::wrap_sub(force.z, m.i32(car + kWeight));
  Vec3 torque = m.vec3(car + kCarriedTorque);
  sum_points(m, car, forces, centre, force, torque);
  ::pod::body::impacts(m, car, force, torque, impacts);  // stage 21 (A24 chosen place)
  torque = without_yaw(torque, frame.axis[2]);
  m.put_vec3(car + kCarriedForce, Vec3{});  // carried into this step, now used (chosen)
  m.put_vec3(car + kCarriedTorque, Vec3{});

  const Vec3 v_old = m.vec3(car + kVelocity);
  Vec3 v_new = move_velocity(m, v_old, force, m.i32(car + kMass), dt);
  const bool airborne = wheels_off_for(m, car, 3) == kWheels;  // "more than two steps" (F065)
  const Fixed speed = ::pod::tables::length16(m, v_new);
  const Fixed steering = m.i32(car + kSteering);
  if (airborne && speed > kAirSteerSpeed)  // F067
    v_new = math::add(v_new, math::scale16(frame.axis[1], math::mul16(math::mul16(kAirSteer, dt), steering)));
  m.put_vec3(car + kVelocity, v_new);
  m.put_vec3(car + kCentre, move_position(centre, v_old, v_new, dt));

  Vec3 spin = hold_spin(m, spin_up(m, car, frame, m.vec3(car + kSpin), torque, dt));
  if (airborne) spin = math::scale16(spin, ::pod::body::exp16(math::wrap_neg(math::mul16(kAirDecay, dt))));  // F065
  if (speed < kNearlyStopped && wheels_down(m, car) >= 3 && against_wall(m, car))
    spin = spot_turn(spin, frame.axis[2], steering);  // F068
  m.put_vec3(car + kSpin, spin);

  // The axes turned by the spin (the up axis follows from the other two when squared).
  Vec3 forward = turned(frame.axis[0], spin, dt);
  const Vec3 left = turned(frame.axis[1], spin, dt);
  if (wheels_off_for(m, car, 4) == kWheels && speed > kAtSpeed)  // F066 "after four steps at speed"
    forward = nose_into(m, forward, v_new, dt);
  const Frame out = square(m, forward, left);
  for (int k = 0; k < 3; ++k) m.put_vec3(car + kAxes + static_cast<GuestAddr>(k) * 12, out.axis[k]);
}

}  // namespace pod::blind::body
