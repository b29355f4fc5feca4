// Blind reading: damage::hit (FUN_00420e54). 000 "Damage" (F098, F101..F105), VALUES.md
// section 10 (modes chosen for G15/A31). Choices: READING.md.
#include <cstdint>

#include "pod/blind.hpp"
#include "pod/damage.hpp"
#include "pod/memory.hpp"

namespace pod::blind::damage {
namespace {

constexpr GuestAddr kCars = 0x630838;     // C01: 000's base chosen
constexpr GuestAddr kCarSize = 0x558;
constexpr GuestAddr kDrivers = 0x61f870;
constexpr GuestAddr kDriverSize = 0xb0;
constexpr GuestAddr kDriverObject = 0x04;

constexpr GuestAddr kOption = 0x63334c;   // damage option: 2 = mode 2, other non-zero = mode 1
constexpr GuestAddr kVeto = 0x633314;     // must be 0 (F098)

constexpr GuestAddr kObjectParts = 0x04;  // address of the list of part addresses
constexpr GuestAddr kPartChain = 0x38;
constexpr GuestAddr kPartHealth = 0x3c;

constexpr int kBodyParts = 6;             // "the first six parts ... carry a health" (F101)
constexpr std::uint32_t kAllBody = 0x3f;
constexpr Fixed kThreshold = 50000;       // "when half the impulse reaches 50,000" (F102)

int count_bits(std::uint32_t mask) {
  int n = 0;
  for (int i = 0; i < kBodyParts; ++i)
    if ((mask >> i) & 1u) ++n;
  return n;
}

// One part takes its share. F103/F104: one that runs out keeps 0 without a chain; with one it
// becomes its template and keeps template health + the (negative) excess, at least 0. A part that
// breaks (from above 0 to 0 or less) hurts its wheels (F105).
void hurt_part(Memory& m, GuestAddr car, GuestAddr part, int index, Fixed share) {
  const Fixed before = m.i32(part + kPartHealth);
  const Fixed after = static_cast<Fixed>(static_cast<std::uint32_t>(before) - static_cast<std::uint32_t>(share));
  if (after > 0) {
    m.put_i32(part + kPartHealth, after);
    return;
  }
  const GuestAddr chain = m.u32(part + kPartChain);
  if (chain == 0) {
    m.put_i32(part + kPartHealth, 0);
  } else {
    ::pod::damage::run_chain(m, part, chain);
    const Fixed renewed = static_cast<Fixed>(static_cast<std::uint32_t>(m.i32(part + kPartHealth)) +
                                             static_cast<std::uint32_t>(after));
    m.put_i32(part + kPartHealth, renewed < 0 ? 0 : renewed);
  }
  if (before > 0) ::pod::damage::wheels_hurt(m, car, 1u << index);
}

}  // namespace

void hit(Memory& m, GuestAddr car, std::uint32_t parts, Fixed strength) {
  const std::int32_t option = m.i32(kOption);
  if (option == 0 || m.i32(kVeto) != 0) return;  // F098
  const Fixed half = strength / 2;
  if (half < kThreshold) return;                 // F102 "reaches": >= 50,000
  const GuestAddr racer = (car - kCars) / kCarSize;
  const GuestAddr object = m.u32(kDrivers + kDriverSize * racer + kDriverObject);
  if (object == 0) return;
  const std::uint32_t mask = option == 2 ? (parts & kAllBody) : kAllBody;  // A31 chosen
  const int shared_by = count_bits(mask);
  if (shared_by == 0) return;
  const Fixed share = half / shared_by;          // "shared by idiv" (F102)
  const GuestAddr list = m.u32(object + kObjectParts);
  for (int i = 0; i < kBodyParts; ++i) {
    if (((mask >> i) & 1u) == 0) continue;
    hurt_part(m, car, m.u32(list + static_cast<GuestAddr>(i) * 4), i, share);
  }
}

}  // namespace pod::blind::damage
