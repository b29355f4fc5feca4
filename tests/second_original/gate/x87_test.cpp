// The port's x87 arithmetic (crawl/x87.hpp) against an independent model: the expected values are
// exact rational arithmetic (Python's fractions, one correct rounding to binary64 at the end) on the
// 80-bit constants of crawl.exe. The corpus alone cannot tell a port that drops the constants' low
// parts (their effect rarely survives the store to float), so they are checked here; and the
// constants themselves against the EXE's bytes when it is built.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "crawl/x87.hpp"
#include "lockstep/readers/pe32.hpp"

namespace {

float f32(std::uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(CrawlX87, AddingAnEightyBitConstantRoundsOnce) {
  // 6.3f - 2 PI_F: the nearest double to 2 PI_F alone gives ...0f00p-6.
  EXPECT_EQ(crawl::add_extended(f32(0x40c9999a), crawl::negate(crawl::kTwoPi)), 0x1.137ec372b0f78p-6);
  EXPECT_EQ(crawl::add_extended(f32(0x40c90fdb), crawl::negate(crawl::kTwoPi)), 0x1.86e561ef08000p-23);
  EXPECT_EQ(crawl::add_extended(f32(0x40ca0000), crawl::negate(crawl::kTwoPi)), 0x1.e04ac372b0f78p-6);
  // 1 + HALF_PI_F and 0.5 + HALF_PI_F: ...36efp+1, not ...36f0p+1.
  EXPECT_EQ(crawl::add_extended(1.0, crawl::kHalfPi), 0x1.490fdaa9036efp+1);
  EXPECT_EQ(crawl::add_extended(0.5, crawl::kHalfPi), 0x1.090fdaa9036efp+1);
  // Far from the constant its low part cannot matter: 1 - 2 PI_F.
  EXPECT_EQ(crawl::add_extended(1.0, crawl::negate(crawl::kTwoPi)), -0x1.521fb53c8d4f1p+2);
  // An infinite angle stays infinite.
  EXPECT_EQ(crawl::add_extended(std::numeric_limits<double>::infinity(), crawl::negate(crawl::kTwoPi)),
            std::numeric_limits<double>::infinity());
}

TEST(CrawlX87, ComparisonsSeeTheWholeConstant) {
  // PI_F's 80-bit value lies just below its nearest double (lo < 0).
  EXPECT_TRUE(crawl::greater(crawl::kPi.hi, crawl::kPi));
  EXPECT_FALSE(crawl::greater(std::nextafter(crawl::kPi.hi, 0.0), crawl::kPi));
  EXPECT_TRUE(crawl::less_equal(-crawl::kPi.hi, crawl::negate(crawl::kPi)));
  EXPECT_FALSE(crawl::greater(-crawl::kPi.hi, crawl::negate(crawl::kPi)));
  EXPECT_TRUE(crawl::greater(f32(0x40490fdb), crawl::kPi)) << "pi's float is above PI_F";
  EXPECT_FALSE(crawl::greater(f32(0x40490fda), crawl::kPi));
}

TEST(CrawlX87, FistpTruncatesAndGivesTheIndefiniteOutsideInt32) {
  EXPECT_EQ(crawl::x87_truncate(2147483647.9), 2147483647);
  EXPECT_EQ(crawl::x87_truncate(-2147483648.9), INT32_MIN);
  EXPECT_EQ(crawl::x87_truncate(-1.9), -1);
  EXPECT_EQ(crawl::x87_truncate(2147483648.0), INT32_MIN);
  EXPECT_EQ(crawl::x87_truncate(-2147483649.0), INT32_MIN);
  EXPECT_EQ(crawl::x87_truncate(std::numeric_limits<double>::quiet_NaN()), INT32_MIN);
  EXPECT_EQ(crawl::x87_truncate(1e10 * 65536.0), INT32_MIN);
}

#ifdef CRAWL_EXE
/// hi + lo of the 80-bit value at `address` in the EXE: the significand's top 53 bits rounded to
/// nearest (ties to even), the rest exactly.
crawl::Extended constant_in_exe(const lockstep::harness::Snapshot& s, std::uint32_t address) {
  auto b = s.read(address, 10);
  EXPECT_TRUE(b.ok());
  if (!b.ok()) return {};
  std::uint64_t mant = 0;
  for (int i = 7; i >= 0; --i) mant = mant << 8 | (*b)[static_cast<std::size_t>(i)];
  const int se = (*b)[8] | (*b)[9] << 8;
  const int exp = (se & 0x7fff) - 16383 - 63;
  const double sign = (se & 0x8000) ? -1.0 : 1.0;
  std::uint64_t top = mant >> 11;
  std::int64_t rest = static_cast<std::int64_t>(mant & 0x7ff);
  if (rest > 0x400 || (rest == 0x400 && (top & 1))) {
    ++top;
    rest -= 0x800;
  }
  return {sign * std::ldexp(static_cast<double>(top), exp + 11), sign * std::ldexp(static_cast<double>(rest), exp)};
}

TEST(CrawlX87, ThePortsConstantsAreTheExesBytes) {
  auto image = lockstep::harness::load_pe32(CRAWL_EXE);
  ASSERT_TRUE(image.ok()) << image.error().message;
  const auto snap = lockstep::harness::snapshot_from_image(*image);
  const std::pair<std::uint32_t, crawl::Extended> constants[] = {
      {0x40a050, crawl::kPi}, {0x40a060, crawl::kTwoPi}, {0x40a070, crawl::negate(crawl::kPi)}, {0x40a0a0, crawl::kHalfPi}};
  for (const auto& [address, port] : constants) {
    const crawl::Extended exe = constant_in_exe(snap, address);
    EXPECT_EQ(exe.hi, port.hi) << std::hex << address;
    EXPECT_EQ(exe.lo, port.lo) << std::hex << address;
  }
}
#else
TEST(CrawlX87, ThePortsConstantsAreTheExesBytes) {
  GTEST_SKIP() << "i686-w64-mingw32-gcc/nm not found at configure time: crawl.exe is not built";
}
#endif

}  // namespace
