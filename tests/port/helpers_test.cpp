// The x87 vector helpers, length, sine, exp and the table division, against exact models of the
// documented (F005..F011) and chosen (port/CHOICES.md "Arithmetic layer and tables") formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "pod/body.hpp"
#include "exact.hpp"
#include "pod/math.hpp"
#include "pod/tables.hpp"
#include "world.hpp"

namespace {


std::int32_t low32(i128 q) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(q))); }

// fistp of d / 65536 for an exact integer d: nearest even, indefinite outside i32.
std::int32_t fistp_over_65536(i128 d) {
  const i128 q = div_round_even(d, 65536);
  if (q > INT32_MAX || q < INT32_MIN) return INT32_MIN;
  return static_cast<std::int32_t>(q);
}

// (p + M) − q on the 2^16 grid: each operation rounds once.
std::int32_t m_route_minus(i128 p, i128 q) {
  const i128 g = div_round_even(round53(p), 65536);
  return low32(div_round_even(g * 65536 - round53(q), 65536));
}

pod::Vec3 model_cross16(const pod::Vec3& a, const pod::Vec3& b) {
  pod::Vec3 r;
  r.x = m_route_minus(i128{a.y} * b.z, i128{a.z} * b.y);
  r.y = m_route_minus(i128{a.z} * b.x, i128{a.x} * b.z);
  r.z = fistp_over_65536(round53(round53(i128{a.x} * b.y) - round53(i128{a.y} * b.x)));
  return r;
}

std::int32_t rand_word(std::mt19937& rng) { return static_cast<std::int32_t>(rng()) >> (rng() % 24); }

TEST(Facts, F008_Cross16ZGoesThroughFistpXYThroughM) {
  std::mt19937 rng(5);
  for (int i = 0; i < 200000; ++i) {
    const pod::Vec3 a{rand_word(rng), rand_word(rng), rand_word(rng)};
    const pod::Vec3 b{rand_word(rng), rand_word(rng), rand_word(rng)};
    ASSERT_EQ(pod::math::cross16(a, b), model_cross16(a, b)) << i;
  }
  // Where the two routes part: z saturates to 0x80000000 where x and y wrap modulo 2^32.
  const pod::Vec3 big{0x40000000, 0x40000000, 0x40000000};
  const pod::Vec3 r = pod::math::cross16(big, pod::Vec3{0x40000000, -0x40000000, 0x40000000});
  EXPECT_EQ(r.z, INT32_MIN);                  // (-2^60 - 2^60) / 2^16 = -2^45: out of range
  EXPECT_EQ(r.x, low32(i128{1} << 45));       // (2^60 + 2^60) / 2^16 wraps: low word 0
  // Ties: z rounds half to even; 0.5 -> 0, 1.5 -> 2.
  EXPECT_EQ(pod::math::cross16(pod::Vec3{32768, 0, 0}, pod::Vec3{0, 1, 0}).z, 0);
  EXPECT_EQ(pod::math::cross16(pod::Vec3{98304, 0, 0}, pod::Vec3{0, 1, 0}).z, 2);
}

TEST(Helpers, Cross16AtTheOriginalInterfaceMayWriteOverItsInput) {
  podtest::World w;
  const pod::Vec3 a{0x10000, 0x20000, -0x30000};
  const pod::Vec3 b{-0x5000, 0x18000, 0x7000};
  const pod::GuestAddr pa = w.vec(a);
  const pod::GuestAddr pb = w.vec(b);
  pod::math::cross16(w.m, pa, pb, pa);  // out aliases a: all six inputs are read first (CHOICES)
  EXPECT_EQ(w.m.vec3(pa), model_cross16(a, b));
}

TEST(Helpers, Scale16ThroughMWrapsAndThroughFistpSaturates) {
  std::mt19937 rng(9);
  for (int i = 0; i < 100000; ++i) {
    const pod::Vec3 v{rand_word(rng), rand_word(rng), rand_word(rng)};
    const std::int32_t s = rand_word(rng);
    const pod::Vec3 m_route = pod::math::scale16(v, s);
    const pod::Vec3 f_route = pod::math::scale16_fistp(v, s);
    for (int k = 0; k < 3; ++k) {
      const i128 p = round53(i128{v[k]} * s);
      ASSERT_EQ(m_route[k], low32(div_round_even(p, 65536))) << i;
      ASSERT_EQ(f_route[k], fistp_over_65536(p)) << i;
    }
  }
  // F082: the put-back's triangle centre, three corners summed and scaled by 0x5555 (about 1/3).
  podtest::World w;
  const pod::GuestAddr v = w.vec(pod::Vec3{3 * 0x10000, 3 * 0x20000, -3 * 0x8000});
  pod::math::scale16(w.m, v, 0x5555);
  const pod::Vec3 third = w.m.vec3(v);
  EXPECT_EQ(third.x, fistp_over_65536(i128{3 * 0x10000} * 0x5555));
  EXPECT_NEAR(third.x, 0x10000, 2);
  EXPECT_NEAR(third.z, -0x8000, 2);
}

// F009, F012: length16 reads only entries 0x2000..0x7fff (13 to 15 bits kept) and is close to the
// true length; exact where the sum of squares is a perfect square at the table's scale.
TEST(Facts, F009_Length16KeepsThirteenToFifteenBitsOfTheSquareSum) {
  podtest::World w;
  podtest::RecordingMemory rec(w.m);
  EXPECT_EQ(pod::tables::length16(rec, pod::Vec3{3 << 16, 4 << 16, 0}), 5 << 16);
  EXPECT_EQ(pod::tables::length16(rec, pod::Vec3{0, 0, 0}), 0);
  EXPECT_EQ(pod::tables::length16(rec, pod::Vec3{0, -(12 << 16), 0}), 12 << 16);
  const pod::GuestAddr table = w.m.u32(pod::addr::kSqrtTablePtr);
  std::mt19937 rng(13);
  for (int i = 0; i < 50000; ++i) {
    const pod::Vec3 v{rand_word(rng), rand_word(rng), rand_word(rng)};
    rec.clear();
    const std::uint32_t got = static_cast<std::uint32_t>(pod::tables::length16(rec, v));
    // Exactly one table entry read, inside 0x2000..0x7fff.
    ASSERT_FALSE(rec.read_in(table, table + 0x2000 * 4)) << i;
    ASSERT_FALSE(rec.read_in(table + 0x8000 * 4, table + 0x10000 * 4)) << i;
    ASSERT_TRUE(rec.read_in(table + 0x2000 * 4, table + 0x8000 * 4)) << i;
    const long double exact =
        std::sqrt(static_cast<long double>(v.x) * v.x + static_cast<long double>(v.y) * v.y +
                  static_cast<long double>(v.z) * v.z);
    if (exact < 1) continue;  // tiny vectors: the result is 0 or 1 unit
    // 13 significant bits of the square sum give about 2^-13 relative precision on the root.
    ASSERT_LE(std::fabs(static_cast<long double>(got) - exact), exact * 0x1p-12L + 1) << i;
  }
}

// F010: the angle is brought into (−π, π] first: whole turns of the chosen 2π give the same sine.
TEST(Facts, F010_Sin16BringsTheAngleIntoMinusPiToPi) {
  podtest::World w;
  const std::int32_t two_pi = pod::tables::kTwoPi16;
  std::mt19937 rng(17);
  for (int i = 0; i < 20000; ++i) {
    const std::int32_t a = static_cast<std::int32_t>(rng() % 2000000) - 1000000;
    const std::int32_t s = pod::tables::sin16(w.m, a);
    ASSERT_EQ(s, pod::tables::sin16(w.m, a + two_pi)) << a;
    ASSERT_EQ(s, pod::tables::sin16(w.m, a - 3 * two_pi)) << a;
    // Within the table's resolution of the true sine of the reduced angle.
    const double reduced = std::remainder(static_cast<double>(a), static_cast<double>(two_pi)) / 65536.0;
    ASSERT_NEAR(s, std::sin(reduced) * 65536.0, 10.0) << a;
    ASSERT_NEAR(pod::tables::cos16(w.m, a), std::cos(reduced) * 65536.0, 10.0) << a;
  }
  EXPECT_EQ(pod::tables::sin16(w.m, 0), 0);
  EXPECT_EQ(pod::tables::sin16(w.m, pod::tables::kHalfPi16), 65536);
  EXPECT_EQ(pod::tables::sin16(w.m, -pod::tables::kHalfPi16), -65536);
  EXPECT_EQ(pod::tables::cos16(w.m, 0), 65536);
  // π itself is in the interval (−π, π]; −π is brought to π: both give sin(π) from entry 0.
  EXPECT_EQ(pod::tables::sin16(w.m, pod::tables::kPi16), 0);
  EXPECT_EQ(pod::tables::sin16(w.m, -pod::tables::kPi16), 0);
  // Reads go to the sine table at 0x72c704, entry (folded angle) >> 3.
  podtest::RecordingMemory rec(w.m);
  pod::tables::sin16(rec, 8 * 100 + 7);
  EXPECT_EQ(rec.reads, (std::set<pod::GuestAddr>{0x72c704 + 400, 0x72c705 + 400, 0x72c706 + 400, 0x72c707 + 400}));
}

// F011: exp16(x) ≈ 1 + x + x²/2.
TEST(Facts, F011_Exp16IsOnePlusXPlusHalfXSquared) {
  EXPECT_EQ(pod::body::exp16(0), 0x10000);
  EXPECT_EQ(pod::body::exp16(0x8000), 0x1a000);        // 1 + 0.5 + 0.125
  EXPECT_EQ(pod::body::exp16(-0x10000), 0x8000);       // 1 − 1 + 0.5
  EXPECT_EQ(pod::body::exp16(-0x3800), 52768);  // (1 − 0.21875 + 0.02392578125) · 65536
  for (std::int32_t x = -0x40000; x <= 0x40000; x += 97) {
    const double xd = x / 65536.0;
    ASSERT_NEAR(pod::body::exp16(x), (1 + xd + xd * xd / 2) * 65536.0, 1.0) << x;
  }
}

// F005: for |b| <= 32 the division goes through the reciprocal table at [0x4ed42c]; above, idiv.
TEST(Facts, F005_SmallDivisorsUseTheReciprocalTable) {
  podtest::World w;
  podtest::RecordingMemory rec(w.m);
  const pod::GuestAddr entry0 = w.m.u32(pod::addr::kRecipTablePtr);
  // a / b = a · 2^16 / b = a · (2^24 / b) / 2^8 in 16.16 units.
  // 0x30 / 3: 48 · 5592405 >> 8 = 1048575, one unit under the exact 16 · 65536 (the table truncates).
  EXPECT_EQ(pod::math::div16(rec, 0x30, 3), (0x30LL * (16777216 / 3)) >> 8);
  EXPECT_EQ(pod::math::div16(rec, 0x30, 3), 1048575);
  EXPECT_TRUE(rec.read_in(entry0 + 12, entry0 + 16));
  EXPECT_EQ(pod::math::div16(rec, 0x10000, -32), -(0x10000LL * 524288 >> 8));
  // The table is what is used: a poked entry changes the quotient.
  w.m.put_i32(entry0 + 4 * 7, 1 << 8);
  EXPECT_EQ(pod::math::div16(w.m, 12345, 7), 12345);
  w.m.put_i32(entry0 + 4 * 33, 1 << 8);
  EXPECT_EQ(pod::math::div16(w.m, 0x10000, 33), (0x10000LL << 16) / 33) << "33 goes through idiv";
  // recip[0] = 0 (chosen): a / 0 = 0.
  EXPECT_EQ(pod::math::div16(w.m, 0x12345, 0), 0);
  rec.clear();
  EXPECT_EQ(pod::math::div16(rec, -0x10000, 100), -(0x10000LL << 16) / 100);
  EXPECT_TRUE(rec.reads.empty()) << "idiv reads no table";
}

}  // namespace
