// The arithmetic layer against the documents' statements (F002..F007). Expected
// values come from independent exact-integer models of the documented operations, never from the
// port.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "exact.hpp"
#include "pod/math.hpp"

namespace {


// The documented dot16 (F006, F007): products rounded as IEEE doubles (F002), then the running sum
// kept on the 2^16 grid after M is added: ((p0 + M) + p1) + p2, each addition rounding once.
std::int32_t model_dot16(const pod::Vec3& a, const pod::Vec3& b) {
  i128 q = div_round_even(round53(i128{a.x} * b.x), 65536);
  q = div_round_even(q * 65536 + round53(i128{a.y} * b.y), 65536);
  q = div_round_even(q * 65536 + round53(i128{a.z} * b.z), 65536);
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(q)));
}

TEST(Facts, F003_Mul16KeepsBits16To47OfTheProduct) {
  EXPECT_EQ(pod::math::mul16(0x10000, 0x10000), 0x10000);
  EXPECT_EQ(pod::math::mul16(0x18000, 0x20000), 0x30000);
  // Negative products: bits 16..47 of the two's-complement product, i.e. floor(p / 65536).
  EXPECT_EQ(pod::math::mul16(-1, 1), -1);
  EXPECT_EQ(pod::math::mul16(-0x8000, 0x10001), -0x8001);
  // Bits above 47 are dropped (shrd keeps only eax).
  EXPECT_EQ(pod::math::mul16(0x40000000, 0x40000000), 0);
  std::mt19937 rng(3);
  for (int i = 0; i < 100000; ++i) {
    const auto a = static_cast<std::int32_t>(rng());
    const auto b = static_cast<std::int32_t>(rng());
    const i128 p = i128{a} * b;
    const auto expect = static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(p >> 16)));
    ASSERT_EQ(pod::math::mul16(a, b), expect) << a << " * " << b;
  }
}

TEST(Facts, F004_Idiv16IsIdivOfAShiftedLeft16) {
  EXPECT_EQ(pod::math::idiv16(0x10000, 0x20000), 0x8000);
  EXPECT_EQ(pod::math::idiv16(1, 3), 21845);    // 65536 / 3 = 21845.33, truncated
  EXPECT_EQ(pod::math::idiv16(-1, 3), -21845);  // idiv truncates towards zero, not down
  EXPECT_EQ(pod::math::idiv16(0x7fff, 1), 0x7fff0000);
  EXPECT_THROW(pod::math::idiv16(1, 0), pod::DivideFault);
  EXPECT_THROW(pod::math::idiv16(0x8000, 1), pod::DivideFault) << "quotient 2^31 does not fit: #DE";
  EXPECT_EQ(pod::math::idiv16(-0x8000, 1), INT32_MIN);
}

TEST(Facts, F006_RoundingConstantGivesSumOver65536RoundedToNearest) {
  const double m = 1.5 * 0x1p68;
  EXPECT_EQ(pod::math::kRound, m);
  // Read-out of M + s for s a multiple of 65536 (exact), and for halves (ties to even).
  for (std::int64_t k : {0LL, 1LL, -1LL, 12345LL, -70000LL, 2147483647LL, -2147483648LL}) {
    EXPECT_EQ(pod::math::low_word(m + static_cast<double>(k * 65536)), static_cast<std::int32_t>(k));
  }
  EXPECT_EQ(pod::math::low_word(m + 32768.0), 0);       // 0.5 -> 0 (even)
  EXPECT_EQ(pod::math::low_word(m + 98304.0), 2);       // 1.5 -> 2
  EXPECT_EQ(pod::math::low_word(m - 32768.0), 0);       // -0.5 -> 0
  EXPECT_EQ(pod::math::low_word(m + 32769.0), 1);       // above the half
  EXPECT_EQ(pod::math::low_word(m - 98304.0), -2);      // -1.5 -> -2
}

TEST(Facts, F007_Dot16AddsMRightAfterTheFirstProductThenInOrder) {
  using pod::Vec3;
  const Vec3 ones{1, 1, 1};
  // Products 0.5, 0.5, 0.61 (in 16.16 units of the result). In the documented order the two halves
  // each round to even (0) before 0.61 rounds up: 1. Rounded once, the sum (1.61) gives 2; summed
  // in the reverse order, 0.61 -> 1, +0.5 -> 2 (even), +0.5 -> 2.
  const Vec3 a{32768, 32768, 40000};
  EXPECT_EQ(model_dot16(a, ones), 1);
  EXPECT_EQ(pod::math::dot16(a, ones), 1);
  EXPECT_EQ(pod::math::dot16(Vec3{40000, 32768, 32768}, ones), 2) << "the order of the terms matters";
  // M added after the first product, not after the sum of the first two: 0.5 + 0.5 would be 1.
  EXPECT_EQ(pod::math::dot16(Vec3{32768, 32768, 0}, ones), 0);
  // Products above 2^53 are rounded to a double before they are added (F002): random large
  // inputs, against the exact model.
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const auto r = [&] { return static_cast<std::int32_t>(rng()) >> (rng() % 24); };
    const Vec3 x{r(), r(), r()};
    const Vec3 y{r(), r(), r()};
    ASSERT_EQ(pod::math::dot16(x, y), model_dot16(x, y)) << i;
  }
}

// F002: under control word 0x027f the x87 rounds as IEEE doubles. On an x86 host, run the x87
// sequence itself and compare.
#if defined(__x86_64__) || defined(__i386__)
std::int32_t x87_dot16(const pod::Vec3& a, const pod::Vec3& b, std::uint16_t cw = 0x027f) {
  const double m = 1.5 * 0x1p68;
  double out = 0;
  std::uint16_t saved = 0;
  asm volatile(
      "fnstcw %[saved]\n\t"
      "fldcw %[cw]\n\t"
      "fildl %[a0]\n\t"
      "fimull %[b0]\n\t"
      "faddl %[m]\n\t"
      "fildl %[a1]\n\t"
      "fimull %[b1]\n\t"
      "faddp\n\t"
      "fildl %[a2]\n\t"
      "fimull %[b2]\n\t"
      "faddp\n\t"
      "fstpl %[out]\n\t"
      "fldcw %[saved]\n\t"
      : [out] "=m"(out), [saved] "=m"(saved)
      : [cw] "m"(cw), [a0] "m"(a.x), [a1] "m"(a.y), [a2] "m"(a.z), [b0] "m"(b.x), [b1] "m"(b.y),
        [b2] "m"(b.z), [m] "m"(m)
      : "st", "st(1)", "memory");
  return pod::math::low_word(out);
}

TEST(Facts, F001_F002_X87At027fRoundsAsIeeeDoubles) {
  std::mt19937 rng(11);
  for (int i = 0; i < 200000; ++i) {
    const auto r = [&] { return static_cast<std::int32_t>(rng()) >> (rng() % 20); };
    const pod::Vec3 x{r(), r(), r()};
    const pod::Vec3 y{r(), r(), r()};
    ASSERT_EQ(pod::math::dot16(x, y), x87_dot16(x, y)) << i;
  }
  // The control word matters: under Watcom's 0x037f (64-bit precision) the products are not
  // rounded to 53 bits, and large products give other results (G32). Shows the check can fail.
  int differ = 0;
  for (int i = 0; i < 20000; ++i) {
    const pod::Vec3 x{static_cast<std::int32_t>(rng()), static_cast<std::int32_t>(rng()), static_cast<std::int32_t>(rng())};
    const pod::Vec3 y{static_cast<std::int32_t>(rng()), static_cast<std::int32_t>(rng()), static_cast<std::int32_t>(rng())};
    if (x87_dot16(x, y, 0x037f) != x87_dot16(x, y, 0x027f)) ++differ;
  }
  EXPECT_GT(differ, 0);
}
#endif

TEST(Math, RoundToInt32IsFistpUnder027f) {
  using pod::math::round_to_int32;
  EXPECT_EQ(round_to_int32(0.5), 0);
  EXPECT_EQ(round_to_int32(1.5), 2);
  EXPECT_EQ(round_to_int32(2.5), 2);
  EXPECT_EQ(round_to_int32(-0.5), 0);
  EXPECT_EQ(round_to_int32(-1.5), -2);
  EXPECT_EQ(round_to_int32(-2.4999), -2);
  EXPECT_EQ(round_to_int32(2147483647.4), 2147483647);
  EXPECT_EQ(round_to_int32(2147483647.5), INT32_MIN) << "rounds to 2^31: integer indefinite";
  EXPECT_EQ(round_to_int32(-2147483648.5), INT32_MIN);
  EXPECT_EQ(round_to_int32(1e300), INT32_MIN);
}

}  // namespace
