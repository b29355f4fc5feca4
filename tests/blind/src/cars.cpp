// Blind reading: cars::pair (FUN_0042127c). 000 "Car against car" (F088..F097) and "Damage",
// VALUES.md section 8. Which car takes the negative impulse and the order of the two cars' work
// are open (A25, G14); choices in READING.md.
#include <cstdint>

#include "pod/blind.hpp"
#include "pod/cars.hpp"
#include "pod/math.hpp"
#include "pod/memory.hpp"
#include "pod/step.hpp"
#include "pod/suspension.hpp"

namespace pod::blind::cars {
namespace {

constexpr GuestAddr kCars = 0x630838;  // C01: 000's base chosen
constexpr GuestAddr kCarSize = 0x558;
constexpr GuestAddr kDrivers = 0x61f870;
constexpr GuestAddr kDriverSize = 0xb0;
constexpr GuestAddr kDriverObject = 0x04;

// The contact record hull_test fills (VALUES.md).
constexpr GuestAddr kContact = 0x4f3380;
constexpr GuestAddr kContactNormal = kContact + 0x00;
constexpr GuestAddr kContactOverlap = kContact + 0x0c;
constexpr GuestAddr kContactPoint = kContact + 0x10;

constexpr GuestAddr kCentre = 0x498;    // the body's centre
constexpr GuestAddr kSoundState = 0x4f9;
constexpr std::uint8_t kContactBit = 0x20;  // F022
constexpr Fixed kLoud = 0x2000;             // F097
constexpr std::int32_t kContactSlot = 7;    // F097

struct Racer {
  GuestAddr car;
  GuestAddr driver;
  GuestAddr object;
};

Racer racer_of(Memory& m, int r) {
  const GuestAddr driver = kDrivers + kDriverSize * static_cast<GuestAddr>(r);
  return Racer{kCars + kCarSize * static_cast<GuestAddr>(r), driver, m.u32(driver + kDriverObject)};
}

// F095: a car moved along the normal by `distance`, its points placed again, then its drawn object
// (F096: which turns the wheels one more frame).
void push(Memory& m, const Racer& r, const Vec3& normal, Fixed distance) {
  m.put_vec3(r.car + kCentre, math::add(m.vec3(r.car + kCentre), math::scale16(normal, distance)));
  ::pod::suspension::place_points(m, r.car);
  ::pod::step::pose(m, r.car, r.driver);
}

// F097: over 0x2000 both cars get the contact bit when neither has it, and the first plays slot 7;
// a weaker one clears it when both have it.
void contact_sound(Memory& m, const Racer& a, const Racer& b, Fixed impulse, ::pod::cars::PairOut& out) {
  const std::uint8_t sa = m.u8(a.car + kSoundState);
  const std::uint8_t sb = m.u8(b.car + kSoundState);
  const bool in_a = (sa & kContactBit) != 0;
  const bool in_b = (sb & kContactBit) != 0;
  if (impulse > kLoud) {
    if (in_a || in_b) return;
    m.put_u8(a.car + kSoundState, static_cast<std::uint8_t>(sa | kContactBit));
    m.put_u8(b.car + kSoundState, static_cast<std::uint8_t>(sb | kContactBit));
    out.sounds.emplace_back(a.car, kContactSlot);
  } else if (in_a && in_b) {
    m.put_u8(a.car + kSoundState, static_cast<std::uint8_t>(sa & ~kContactBit));
    m.put_u8(b.car + kSoundState, static_cast<std::uint8_t>(sb & ~kContactBit));
  }
}

}  // namespace

::pod::cars::PairOut pair(Memory& m, int racer_a, int racer_b) {
  ::pod::cars::PairOut out;
  out.racer_a = racer_a;
  out.racer_b = racer_b;
  const Racer a = racer_of(m, racer_a);
  const Racer b = racer_of(m, racer_b);
  if (a.object == 0 || b.object == 0) return out;
  if (::pod::cars::hull_test(m, a.object, b.object, kContact) == 0) return out;
  const std::uint32_t parts_a = ::pod::cars::mark_parts(m, a.object, a.car, kContact);
  const std::uint32_t parts_b = ::pod::cars::mark_parts(m, b.object, b.car, kContact);
  if (parts_a == 0 || parts_b == 0) return out;  // F092
  out.contact = true;
  // The normal runs from a's centre to b's: b takes +impulse, a -impulse (A25/G14 chosen); each
  // car's damage right after its impulse (000 "Damage": "after each car's impulse").
  const Fixed impulse = ::pod::cars::impulse(m, a.car, b.car, kContactNormal);
  out.impulse = impulse;
  if (impulse != 0) {
    ::pod::cars::carry(m, a.car, kContactNormal, math::wrap_neg(impulse), kContactPoint);
    ::pod::blind::damage::hit(m, a.car, parts_a, impulse);
    ::pod::cars::carry(m, b.car, kContactNormal, impulse, kContactPoint);
    ::pod::blind::damage::hit(m, b.car, parts_b, impulse);
  }
  // F095: the second car by half the overlap along the normal, the first back by the same half.
  const Vec3 normal = m.vec3(kContactNormal);
  const Fixed half = m.i32(kContactOverlap) >> 1;
  push(m, b, normal, half);
  push(m, a, normal, math::wrap_neg(half));
  contact_sound(m, a, b, impulse, out);
  return out;
}

}  // namespace pod::blind::cars
