// The three tables against their formulas on every entry (F012..F014). Each check
// is an exact property of the formula, computed independently of the port's builder.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "pod/tables.hpp"

namespace {

__extension__ typedef __int128 i128;

// F012: entry i = floor(sqrt(i) × 65536), i.e. the n with n² <= i·2^32 < (n+1)². Every entry up to
// 0x7fff (the read range is 0x2000..0x7fff).
TEST(Facts, F012_SqrtTableIsFloorOfSqrtTimes65536) {
  for (std::uint32_t i = 0; i <= 0x7fff; ++i) {
    const i128 n = pod::tables::sqrt_entry(i);
    const i128 target = i128{i} << 32;
    ASSERT_LE(n * n, target) << i;
    ASSERT_GT((n + 1) * (n + 1), target) << i;
  }
  EXPECT_EQ(pod::tables::sqrt_entry(0x4000), 128 * 65536);  // sqrt(16384) = 128 exactly
  EXPECT_EQ(pod::tables::kSqrtReadMin, 0x2000u);
  EXPECT_EQ(pod::tables::kSqrtReadMax, 0x7fffu);
}

// F013: entry i = 2^24 / i truncated, i from -16384 to 16383 (0 excluded: no formula).
TEST(Facts, F013_ReciprocalTableIsTwoTo24OverITruncated) {
  const i128 top = i128{1} << 24;
  for (std::int32_t i = pod::tables::kRecipMin; i <= pod::tables::kRecipMax; ++i) {
    if (i == 0) continue;
    const i128 q = pod::tables::recip_entry(i);
    const i128 ai = i < 0 ? -i : i;
    const i128 aq = q < 0 ? -q : q;
    // Truncation towards zero: |q·i| <= 2^24 < (|q| + 1)·|i|, q carrying the sign of i.
    ASSERT_LE(aq * ai, top) << i;
    ASSERT_GT((aq + 1) * ai, top) << i;
    ASSERT_EQ(q < 0, i < 0) << i;
  }
  EXPECT_EQ(pod::tables::recip_entry(3), 5592405);
  EXPECT_EQ(pod::tables::recip_entry(-3), -5592405);
  EXPECT_EQ(pod::tables::recip_entry(-16384), -1024);
}

// F014: entry i = round(sin(i × 8/65536) × 65536) from 0 to pi/2, checked against an independent
// long-double sine. The margin check makes the table independent of the libm that builds it: no
// entry's scaled sine lies within 1e-6 of a rounding boundary.
TEST(Facts, F014_SineTableIsRoundedSineAtStep8Over65536) {
  long double worst = 1;
  for (std::uint32_t i = 0; i < pod::tables::kSineEntriesToHalfPi; ++i) {
    const long double x = static_cast<long double>(i) * 8.0L / 65536.0L;
    const long double s = std::sin(x) * 65536.0L;
    const long double fl = std::floor(s);
    const long double frac = s - fl;
    const long double margin = std::fabs(frac - 0.5L);
    if (margin < worst) worst = margin;
    const auto expect = static_cast<std::int32_t>(frac >= 0.5L ? fl + 1 : fl);
    ASSERT_EQ(pod::tables::sine_entry(i), expect) << i;
  }
  EXPECT_GT(worst, 1e-6L) << "an entry sits too near a rounding boundary for every libm to agree";
  // The table covers 0..pi/2: its last entry is within one step of pi/2, the next beyond it.
  const long double half_pi = std::acos(-1.0L) / 2;
  EXPECT_LE((pod::tables::kSineEntriesToHalfPi - 1) * 8.0L / 65536.0L, half_pi);
  EXPECT_GT(pod::tables::kSineEntriesToHalfPi * 8.0L / 65536.0L, half_pi);
  EXPECT_EQ(pod::tables::sine_entry(pod::tables::kSineEntriesToHalfPi - 1), 65536);
}

}  // namespace
