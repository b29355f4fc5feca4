// Blind reading: props::motion (FUN_00454a98). 000 "Props", "Its motion" (F115..F122), VALUES.md
// section 9. When faces runs, what +0xc8 does, the "small" rule and the turning of the axes are
// open (G16); choices in READING.md.
#include <cstdint>

#include "pod/blind.hpp"
#include "pod/math.hpp"
#include "pod/memory.hpp"
#include "pod/props.hpp"
#include "pod/tables.hpp"

namespace pod::blind::props {
namespace {

constexpr GuestAddr kList = 0x62129c;
constexpr GuestAddr kPropSize = 0xd0;
constexpr GuestAddr kHitFlags = 0x6212a0;
constexpr GuestAddr kStepDt = 0x621b70 + 8;  // the step's unscaled dt

// Prop fields (000 "Props", VALUES.md).
constexpr GuestAddr kMass = 0x1c;
constexpr GuestAddr kFriction = 0x20;
constexpr GuestAddr kInertia = 0x24;
constexpr GuestAddr kPointCount = 0x30;
constexpr GuestAddr kMatrix = 0x40;  // 3 x 3 row by row, axis k = column k
constexpr GuestAddr kGroundPoint = 0x64;
constexpr GuestAddr kGroundFace = 0x70;
constexpr GuestAddr kForce = 0x74;
constexpr GuestAddr kTorque = 0x80;
constexpr GuestAddr kVelocity = 0x8c;
constexpr GuestAddr kPosition = 0x98;
constexpr GuestAddr kSpin = 0xa4;
constexpr GuestAddr kWallFace = 0xb4;
constexpr GuestAddr kPoints = 0xb8;
constexpr GuestAddr kWallPoint = 0xbc;
constexpr GuestAddr kHeld = 0xc8;

// Contact point (0x40).
constexpr GuestAddr kCpSize = 0x40;
constexpr GuestAddr kCpRadius = 0x00;
constexpr GuestAddr kCpOffset = 0x04;
constexpr GuestAddr kCpPlace = 0x10;
constexpr GuestAddr kCpMass = 0x1c;
constexpr GuestAddr kCpForce = 0x20;
constexpr GuestAddr kCpPush = 0x2c;
constexpr GuestAddr kCpSector = 0x38;
constexpr GuestAddr kCpFlags = 0x3c;

constexpr std::int32_t kGravity = 0x2d;  // F115: an integer multiply of the point mass
constexpr Fixed kSpinDies = 0xea7f;      // 0.916 (F119)
constexpr Fixed kSlow = 0x8000;          // 0.5 (chosen)
constexpr Fixed kFall = 0x80000;         // 8 below the sector's low corner (A13 chosen)

struct Plane {
  bool present = false;
  Vec3 normal;
  Vec3 point;
};

struct Motion {
  Vec3 axis[3];
  Vec3 force;
  Vec3 torque;
  Vec3 ground_push;  // the ground pushes' sum, for the "small" rule
  int on_ground = 0;
};

Plane plane(Memory& m, GuestAddr prop, GuestAddr face_field, GuestAddr point_field) {
  Plane p;
  const GuestAddr face = m.u32(prop + face_field);
  if (face == 0) return p;
  p.present = true;
  p.normal = m.vec3(face);
  p.point = m.vec3(prop + point_field);
  return p;
}

Vec3 to_world(const Motion& mo, const Vec3& v) {
  return math::add(math::add(math::scale16(mo.axis[0], v.x), math::scale16(mo.axis[1], v.y)),
                   math::scale16(mo.axis[2], v.z));
}

// F116: a point below a plane is pushed out by depth x mass / dt^2 along its normal.
Vec3 plane_push(Memory& m, const Plane& pl, const Vec3& place, Fixed radius, Fixed mass, Fixed dt, bool& under) {
  under = false;
  if (!pl.present) return Vec3{};
  const Fixed depth = math::wrap_sub(radius, math::dot16(math::sub(place, pl.point), pl.normal));
  if (depth <= 0) return Vec3{};
  under = true;
  return math::scale16(pl.normal, math::qdiv(m, math::mul16(depth, mass), math::mul16(dt, dt)));
}

// One contact point: its place, gravity (F115), the planes' pushes; force and torque summed.
void contact_point(Memory& m, GuestAddr cp, const Vec3& centre, const Plane& ground, const Plane& wall, Fixed dt,
                   Motion& mo) {
  const Vec3 arm = to_world(mo, m.vec3(cp + kCpOffset));
  const Vec3 place = math::add(centre, arm);
  const Fixed mass = m.i32(cp + kCpMass);
  const Fixed radius = m.i32(cp + kCpRadius);
  const Vec3 gravity{0, 0, static_cast<Fixed>(static_cast<std::uint32_t>(mass) * static_cast<std::uint32_t>(-kGravity))};
  bool under_ground = false;
  bool under_wall = false;
  const Vec3 push_ground = plane_push(m, ground, place, radius, mass, dt, under_ground);
  const Vec3 push_wall = plane_push(m, wall, place, radius, mass, dt, under_wall);
  const Vec3 push = math::add(push_ground, push_wall);
  m.put_vec3(cp + kCpPlace, place);
  m.put_vec3(cp + kCpForce, gravity);
  m.put_vec3(cp + kCpPush, push);
  m.put_u32(cp + kCpFlags, (under_ground ? 1u : 0u) | (under_wall ? 2u : 0u));
  const Vec3 total = math::add(gravity, push);
  mo.force = math::add(mo.force, total);
  mo.torque = math::add(mo.torque, math::cross16(arm, total));
  mo.ground_push = math::add(mo.ground_push, push_ground);
  if (under_ground) ++mo.on_ground;
}

// F117 chosen: on the ground the force along the ground is cancelled while it is no more than the
// friction (+0x20) x the ground's push.
Vec3 ground_friction(Memory& m, GuestAddr prop, const Plane& ground, const Motion& mo) {
  const Vec3 along = math::sub(mo.force, math::scale16(ground.normal, math::dot16(mo.force, ground.normal)));
  const Fixed grip = math::mul16(m.i32(prop + kFriction), ::pod::tables::length16(m, mo.ground_push));
  if (::pod::tables::length16(m, along) > grip) return mo.force;
  return math::sub(mo.force, along);
}

Vec3 unit(Memory& m, const Vec3& v) {
  const Fixed len = ::pod::tables::length16(m, v);
  if (len == 0) return v;
  return Vec3{math::qdiv(m, v.x, len), math::qdiv(m, v.y, len), math::qdiv(m, v.z, len)};
}

// Axes turned by the world spin and squared again (axis 0 unit, axis 1 square to it, 2 = 0 x 1).
void turn_axes(Memory& m, Motion& mo, const Vec3& spin_body, Fixed dt) {
  const Vec3 w = to_world(mo, spin_body);
  Vec3 a[3];
  for (int k = 0; k < 3; ++k) a[k] = math::add(mo.axis[k], math::scale16(math::cross16(w, mo.axis[k]), dt));
  mo.axis[0] = unit(m, a[0]);
  mo.axis[1] = unit(m, math::sub(a[1], math::scale16(mo.axis[0], math::dot16(a[1], mo.axis[0]))));
  mo.axis[2] = math::cross16(mo.axis[0], mo.axis[1]);
}

void read_axes(Memory& m, GuestAddr prop, Motion& mo) {
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) mo.axis[k][r] = m.i32(prop + kMatrix + static_cast<GuestAddr>(12 * r + 4 * k));
}

void write_axes(Memory& m, GuestAddr prop, const Motion& mo) {
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) m.put_i32(prop + kMatrix + static_cast<GuestAddr>(12 * r + 4 * k), mo.axis[k][r]);
}

// F118: spin per axis by the inertia, from the torque about the body axes.
Vec3 spin_up(Memory& m, GuestAddr prop, const Motion& mo, Vec3 spin, Fixed dt) {
  for (int k = 0; k < 3; ++k) {
    const Fixed about = math::dot16(mo.torque, mo.axis[k]);
    spin[k] = math::wrap_add(spin[k], math::qdiv(m, math::mul16(about, dt), m.i32(prop + kInertia + 4u * static_cast<GuestAddr>(k))));
  }
  return spin;
}

}  // namespace

void motion(Memory& m, std::uint32_t prop_number) {
  const GuestAddr prop = m.u32(kList) + kPropSize * prop_number;
  const Fixed dt = m.i32(kStepDt);
  const bool held = m.u32(prop + kHeld) != 0;
  if (!held) ::pod::props::faces(m, prop);  // G16 chosen: a handed ground is kept this pass
  const Plane ground = plane(m, prop, kGroundFace, kGroundPoint);
  const Plane wall = plane(m, prop, kWallFace, kWallPoint);
  Motion mo{};
  read_axes(m, prop, mo);
  const Vec3 centre = m.vec3(prop + kPosition);
  const std::int32_t count = m.i32(prop + kPointCount);
  const GuestAddr points = m.u32(prop + kPoints);
  for (std::int32_t i = 0; i < count; ++i)
    contact_point(m, points + kCpSize * static_cast<GuestAddr>(i), centre, ground, wall, dt, mo);
  // What impulses gave it (000 "A car against a prop") joins in, then is used up (chosen).
  mo.force = math::add(mo.force, m.vec3(prop + kForce));
  mo.torque = math::add(mo.torque, m.vec3(prop + kTorque));
  m.put_vec3(prop + kForce, Vec3{});
  m.put_vec3(prop + kTorque, Vec3{});
  if (mo.on_ground > 0) mo.force = ground_friction(m, prop, ground, mo);
  // F118: velocity, then the position by the half step's velocity, spin, axes.
  const Fixed mass = m.i32(prop + kMass);
  const Vec3 v_old = m.vec3(prop + kVelocity);
  Vec3 v_new;
  for (int k = 0; k < 3; ++k) v_new[k] = math::wrap_add(v_old[k], math::qdiv(m, math::mul16(mo.force[k], dt), mass));
  Vec3 mean;
  for (int k = 0; k < 3; ++k) mean[k] = static_cast<Fixed>((static_cast<std::int64_t>(v_old[k]) + v_new[k]) >> 1);
  const Vec3 position = math::add(centre, math::scale16(mean, dt));
  Vec3 spin = spin_up(m, prop, mo, m.vec3(prop + kSpin), dt);
  turn_axes(m, mo, spin, dt);
  if (mo.on_ground > 0) spin = math::scale16(spin, kSpinDies);  // F119
  m.put_vec3(prop + kVelocity, v_new);
  m.put_vec3(prop + kPosition, position);
  m.put_vec3(prop + kSpin, spin);
  write_axes(m, prop, mo);
  // F120: slow, resting on three points or more: settled, its hit flag cleared.
  if (mo.on_ground >= 3 && ::pod::tables::length16(m, v_new) < kSlow && ::pod::tables::length16(m, spin) < kSlow)
    m.put_u8(kHitFlags + prop_number, 0);
  if (held) m.put_u32(prop + kHeld, 0);
  // F121: 8 below contact point 0's sector, with no neighbour holding it: removed.
  if (held || count <= 0) return;
  const GuestAddr sector = m.u32(points + kCpSector);
  if (sector != 0 && position.z < math::wrap_sub(m.i32(sector + 0x10 + 8), kFall)) ::pod::props::remove(m, prop_number);
}

}  // namespace pod::blind::props
