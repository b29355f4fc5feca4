// The arithmetic layer: see math.hpp for why these give the same bytes on every host.
#include "pod/math.hpp"

#include "pod/addresses.hpp"

#include <bit>
#include <cmath>
#include <limits>

namespace pod::math {

Fixed idiv16(Fixed a, Fixed b) {
  if (b == 0) throw DivideFault();
  const std::int64_t dividend = static_cast<std::int64_t>(a) * 65536;  // edx:eax
  const std::int64_t q = dividend / b;                                  // idiv truncates towards 0
  if (q > std::numeric_limits<std::int32_t>::max() || q < std::numeric_limits<std::int32_t>::min()) {
    throw DivideFault();
  }
  return static_cast<Fixed>(q);
}

Fixed div16(Memory& m, Fixed a, Fixed b) {
  if (b >= -32 && b <= 32) {
    const GuestAddr table = m.u32(addr::kRecipTablePtr);
    const std::int32_t recip = m.i32(table + static_cast<std::uint32_t>(b) * 4u);
    const std::int64_t p = static_cast<std::int64_t>(a) * recip;  // imul
    return static_cast<Fixed>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(p) >> 8));  // shrd 8
  }
  return idiv16(a, b);
}

Fixed qdiv(Memory& m, Fixed a, Fixed b) {
  if (b < -32 || b > 32) {
    if (std::uint64_t{uabs(a)} >= (std::uint64_t{uabs(b)} << 15)) return (a < 0) == (b < 0) ? 0x7fffffff : -0x7fffffff;
  }
  return div16(m, a, b);
}

// FUN_004d41a0
Fixed dot16(Memory& m, GuestAddr a, GuestAddr b) { return dot16(m.vec3(a), m.vec3(b)); }

// FUN_004d41df
void cross16(Memory& m, GuestAddr a, GuestAddr b, GuestAddr out) {
  const Vec3 r = cross16(m.vec3(a), m.vec3(b));
  m.put_i32(out + 8, r.z);
  m.put_i32(out + 4, r.y);
  m.put_i32(out, r.x);
}

// FUN_004d465d
void scale16(Memory& m, GuestAddr v, Fixed s, GuestAddr out) { m.put_vec3(out, scale16(m.vec3(v), s)); }

// FUN_004d4606
void scale16(Memory& m, GuestAddr v, Fixed s) { m.put_vec3(v, scale16_fistp(m.vec3(v), s)); }

// FUN_004d3e90: the digit-by-digit (binary restoring) square root, exact on every 64-bit value.
std::uint32_t isqrt(std::uint64_t v) {
  std::uint64_t root = 0;
  std::uint64_t bit = std::uint64_t{1} << 62;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= root + bit) {
      v -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return static_cast<std::uint32_t>(root);
}

}  // namespace pod::math
