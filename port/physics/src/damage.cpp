// Damage: FUN_00420e54, the chain's macro FUN_004545a8, and the wheels: FUN_00415318, FUN_00415270,
// FUN_004152ac (port/CHOICES.md "Car against car and damage").
#include "pod/damage.hpp"

#include <bit>
#include <stdexcept>

#include "common.hpp"

namespace pod::damage {

using namespace pod::detail;
using math::mul16;

namespace {

/// The drawn object of the car's racer: its driver's +4 (racer = the car's place in the array).
GuestAddr object_of(Memory& m, GuestAddr car) {
  const std::uint32_t racer = (car - addr::kRaceCars) / addr::kRaceCarSize;
  return Driver(m, addr::kDrivers + racer * addr::kDriverSize).get(Driver::object);
}

/// grip × k for both of a wheel's grips, then its rolling resistance + radius² × r.
void hurt(Memory& m, GuestAddr car, int w, Fixed grip_factor, Fixed resistance_factor) {
  const Point p = Car(m, car).point(w);
  p.set(Point::side_grip, mul16(p.get(Point::side_grip), grip_factor));
  p.set(Point::traction, mul16(p.get(Point::traction), grip_factor));
  const Fixed r = p.get(Point::radius);
  p.set(Point::rolling_resistance, wrap_add(p.get(Point::rolling_resistance), mul16(mul16(r, r), resistance_factor)));
}

}  // namespace

void run_chain(Memory& m, GuestAddr part, GuestAddr chain) {
  int steps = 0;
  for (GuestAddr e = chain; e != 0;) {
    if (++steps > kChainLimit) throw std::runtime_error("damage: a macro chain loops (more than 4096 elements)");
    const ChainElement el(m, e);
    const GuestAddr macro = el.get(ChainElement::macro);
    const GuestAddr argument = el.get(ChainElement::argument);
    const GuestAddr next = el.get(ChainElement::next);
    if (macro == addr::kToTemplate) to_template(m, part, argument);
    e = next;
  }
}

// FUN_004545a8
void to_template(Memory& m, GuestAddr part, GuestAddr templ) {
  const Part p(m, part), t(m, templ);
  p.set(Part::hull, t.get(Part::hull));
  p.set(Part::chain, t.get(Part::chain));
  p.set(Part::health, t.get(Part::health));
}

// FUN_00420e54
void hit(Memory& m, GuestAddr car, std::uint32_t parts, Fixed strength) {
  const std::int32_t option = m.i32(addr::kDamageOption);
  if (option == 0) return;  // F098
  if (m.i32(addr::kDamageBlock) != 0) return;
  const Fixed half = strength >> 1;
  if (half < kHalfImpulseThreshold) return;  // F102
  const GuestAddr object = object_of(m, car);
  if (object == 0) return;
  const std::uint32_t six = (1u << RaceObject::kBodyParts) - 1;
  const std::uint32_t chosen = option == kModeMask ? parts & six : six;
  const int n = std::popcount(chosen);
  if (n == 0) return;
  const Fixed share = half / n;  // idiv
  const RaceObject o(m, object);
  for (int i = 0; i < RaceObject::kBodyParts; ++i) {
    if ((chosen & (1u << i)) == 0) continue;
    const Part p(m, o.part(i));
    const std::int32_t old = p.get(Part::health);
    const std::int32_t left = wrap_sub(old, share);
    if (left > 0) {
      p.set(Part::health, left);
      continue;
    }
    if (old <= 0) {  // broken already
      p.set(Part::health, 0);
      continue;
    }
    const GuestAddr chain = p.get(Part::chain);
    if (chain == 0) {
      p.set(Part::health, 0);  // F103: without a chain it stays at 0
    } else {
      run_chain(m, p.addr(), chain);
      const std::int32_t h = wrap_add(p.get(Part::health), left);  // F103: the template's + the excess
      p.set(Part::health, h < 0 ? 0 : h);
    }
    wheels_hurt(m, car, 1u << i);  // F105
  }
}

// FUN_00415318
void wheels_hurt(Memory& m, GuestAddr car, std::uint32_t bits) {
  if (bits & 0x01) wheel(m, car, 1);
  if (bits & 0x02) wheel(m, car, 3);
  if (bits & 0x04) axle(m, car, 0);
  if (bits & 0x08) axle(m, car, 2);
  if (bits & 0x10) wheel(m, car, 0);
  if (bits & 0x20) wheel(m, car, 2);
}

// FUN_00415270
void wheel(Memory& m, GuestAddr car, int w) { hurt(m, car, w, kWheelGrip, kWheelResistance); }

// FUN_004152ac
void axle(Memory& m, GuestAddr car, int first) {
  hurt(m, car, first, kAxleGrip, kAxleResistance);
  hurt(m, car, first + 1, kAxleGrip, kAxleResistance);
}

void impacts(Memory& m, GuestAddr car, const std::vector<body::Impact>& calls) {
  for (const body::Impact& c : calls) hit(m, car, c.parts, c.strength);
}

}  // namespace pod::damage
