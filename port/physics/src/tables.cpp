// Tables built by their documented formulas (F012..F014).
#include "pod/tables.hpp"

#include "pod/math.hpp"

#include <bit>
#include <cmath>

namespace pod::tables {

std::int32_t sqrt_entry(std::uint32_t i) {
  // floor(sqrt(i × 2^32)): exact integer square root by Newton's method on 64-bit integers.
  const std::uint64_t n = std::uint64_t{i} << 32;
  if (n == 0) return 0;
  std::uint64_t x = std::uint64_t{1} << ((64 - std::countl_zero(n) + 1) / 2);  // >= sqrt(n)
  while (true) {
    const std::uint64_t y = (x + n / x) / 2;
    if (y >= x) break;
    x = y;
  }
  return static_cast<std::int32_t>(x);
}

std::int32_t recip_entry(std::int32_t i) {
  return static_cast<std::int32_t>((std::int64_t{1} << 24) / i);  // C++ division truncates towards 0
}

std::int32_t sine_entry(std::uint32_t i) {
  const double angle = static_cast<double>(i) * kSineStep;  // exact: i < 2^53, step a power of two
  const double scaled = std::sin(angle) * 65536.0;         // exact scaling by a power of two
  return static_cast<std::int32_t>(std::floor(scaled + 0.5));  // round half up; no ties occur (tested)
}

void build(Memory& m) {
  m.put_u32(addr::kSqrtTablePtr, kSqrtStorage);
  for (std::uint32_t i = 0; i < kSqrtEntries; ++i) m.put_i32(kSqrtStorage + 4 * i, sqrt_entry(i));
  m.put_u32(addr::kRecipTablePtr, kRecipEntry0);
  for (std::int32_t i = kRecipMin; i <= kRecipMax; ++i) {
    m.put_i32(kRecipEntry0 + static_cast<std::uint32_t>(i) * 4u, i == 0 ? 0 : recip_entry(i));  // recip[0] = 0, chosen
  }
  for (std::uint32_t i = 0; i < kSineEntries; ++i) m.put_i32(addr::kSineTable + 4 * i, sine_entry(i));
  m.put_f64(addr::kRoundingConstant, math::kRound);
  m.put_f64(addr::kInv65536Constant, math::kInv65536);
}

void install(FlatMemory& m) {
  const auto ensure = [&m](GuestAddr base, std::uint32_t size) {
    if (!m.mapped(base, size)) m.map(base, size);
  };
  ensure(kSqrtStorage, kSqrtEntries * 4);
  ensure(kRecipStorage, static_cast<std::uint32_t>(kRecipMax - kRecipMin + 1) * 4);
  ensure(addr::kSineTable, kSineEntries * 4);
  build(m);
}

// FUN_004d43ad
Fixed length16(Memory& m, const Vec3& v) {
  // The sum of squares, exact in 64 bits (each square by imul, added with adc).
  const auto sq = [](Fixed c) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(c) * c); };
  const std::uint64_t s = sq(v.x) + sq(v.y) + sq(v.z);
  if (s == 0) return 0;
  const int b = 63 - std::countl_zero(s);
  const GuestAddr table = m.u32(addr::kSqrtTablePtr);
  if (b >= 13) {
    const int k = (b - 13) >> 1;
    const auto i = static_cast<std::uint32_t>(s >> (2 * k));
    const std::uint32_t r = m.u32(table + 4 * i);
    return static_cast<Fixed>(k <= 16 ? r >> (16 - k) : static_cast<std::uint32_t>(std::uint64_t{r} << (k - 16)));
  }
  const int sh = (14 - b) >> 1;
  const auto i = static_cast<std::uint32_t>(s << (2 * sh));
  const std::uint32_t r = m.u32(table + 4 * i);
  return static_cast<Fixed>(r >> (16 + sh));
}

Fixed length16(Memory& m, GuestAddr v) { return length16(m, m.vec3(v)); }

// 0x4c5e6c
Fixed sin16(Memory& m, Fixed angle) {
  std::int32_t r = angle % kTwoPi16;  // idiv remainder: a's sign
  if (r > kPi16) r -= kTwoPi16;
  if (r <= -kPi16) r += kTwoPi16;
  const bool neg = r < 0;
  if (neg) r = -r;
  if (r > kHalfPi16) r = kPi16 - r;
  const std::int32_t t = m.i32(addr::kSineTable + 4 * static_cast<std::uint32_t>(r >> 3));
  return neg ? static_cast<Fixed>(0u - static_cast<std::uint32_t>(t)) : t;
}

// 0x4c5e64
Fixed cos16(Memory& m, Fixed angle) {
  return sin16(m, static_cast<Fixed>(static_cast<std::uint32_t>(angle) + static_cast<std::uint32_t>(kHalfPi16)));
}

}  // namespace pod::tables
