// The x87's 80-bit extended value, for a port and for lockstep alike. Header-only and standard C++
// only: a port that returns or stores an x87 register's value includes it (CMake target
// lockstep::x87) without linking lockstep, and the replay compares the port's value with the
// original's ST(0) as these ten bytes.
//
// A port produces the value the original's x87 held at the precision its control word selects
// (the PC field, bits 8..9):
//   24 bits (PC 0): compute in float, then Extended(f): exact.
//   53 bits (PC 2, POD's 0x027f, Windows' default): compute in double, then Extended(d): exact. At 53
//     bits every x87 operation rounds as binary64 does, except where the result leaves double's
//     exponent range (the x87 keeps 15 exponent bits at every precision): an overflow or an underflow
//     a double gives as inf or a subnormal.
//   64 bits (PC 3, 0x037f, fninit's and Linux's default): compute in long double on a host where it is
//     the x87's own format (x86 and x86-64 with GCC or clang: kHostLongDoubleIsExtended), then
//     Extended(ld): exact. Under those compilers the host's x87 runs at 64 bits with round to nearest,
//     as 0x037f says, so each long double operation rounds as the original's did. Rounding a double
//     or a long double result to fewer bits afterwards is not the same (it rounds twice).
// round_to() rounds an exact value (an integer loaded by fild, a product of few bits) to a precision.
#pragma once

#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

namespace lockstep::x87 {

/// Whether the host's long double is the x87's 80-bit format (64-bit significand, 15-bit exponent).
inline constexpr bool kHostLongDoubleIsExtended = LDBL_MANT_DIG == 64 && LDBL_MAX_EXP == 16384;

/// The significand bits the control word's precision field selects: 24, 53 or 64 (the reserved
/// value 1 is taken as 64, as no compiler writes it).
constexpr int significand_bits(std::uint16_t control_word) noexcept {
  switch ((control_word >> 8) & 3) {
    case 0: return 24;
    case 2: return 53;
    default: return 64;
  }
}

/// One 80-bit extended value: 64-bit significand with its explicit integer bit, 15-bit exponent
/// (bias 16383), sign; stored as FSTP m80 stores it (10 bytes, little-endian).
class Extended {
 public:
  using Bytes = std::array<std::uint8_t, 10>;

  constexpr Extended() = default;
  /// Exact: every float and double is an extended value.
  constexpr Extended(double v) noexcept : bytes_(from_double(v)) {}  // NOLINT: implicit, exact
  constexpr Extended(float v) noexcept : Extended(static_cast<double>(v)) {}  // NOLINT: implicit, exact
  /// Exact, where the host's long double is the x87's format (x86 with GCC or clang).
  template <typename T>
    requires(std::is_same_v<T, long double> && kHostLongDoubleIsExtended)
  Extended(T v) noexcept {  // NOLINT: implicit, exact
    std::memcpy(bytes_.data(), &v, 10);
  }
  static constexpr Extended from_bytes(const Bytes& b) noexcept {
    Extended e;
    e.bytes_ = b;
    return e;
  }
  static constexpr Extended from_parts(bool negative, std::uint16_t exponent, std::uint64_t significand) noexcept {
    Bytes b{};
    for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(significand >> (8 * i));
    const std::uint16_t se = static_cast<std::uint16_t>((exponent & 0x7fff) | (negative ? 0x8000 : 0));
    b[8] = static_cast<std::uint8_t>(se);
    b[9] = static_cast<std::uint8_t>(se >> 8);
    return from_bytes(b);
  }

  constexpr const Bytes& bytes() const noexcept { return bytes_; }
  constexpr std::uint64_t significand() const noexcept {
    std::uint64_t m = 0;
    for (int i = 7; i >= 0; --i) m = (m << 8) | bytes_[i];
    return m;
  }
  constexpr std::uint16_t exponent() const noexcept { return static_cast<std::uint16_t>((bytes_[8] | (bytes_[9] << 8)) & 0x7fff); }
  constexpr bool negative() const noexcept { return (bytes_[9] & 0x80) != 0; }
  constexpr bool is_nan() const noexcept { return exponent() == 0x7fff && (significand() << 1) != 0; }

  /// The nearest double (round to nearest even; inf past double's range, subnormals below it).
  double to_double() const noexcept;
  /// The value itself, where the host's long double is the x87's format.
  template <typename T = long double>
    requires(std::is_same_v<T, long double> && kHostLongDoubleIsExtended)
  T to_long_double() const noexcept {
    T v = 0;
    std::memcpy(&v, bytes_.data(), 10);
    return v;
  }
  /// "4005ba1f9f432a274400": sign and exponent, then the significand, most significant first.
  std::string hex() const;
  /// A decimal with enough digits to tell any two extended values apart (21 significant), or, on a
  /// host without the format, the nearest double's 17 marked "~".
  std::string decimal() const;

  friend constexpr bool operator==(const Extended&, const Extended&) = default;

 private:
  static constexpr Bytes from_double(double v) noexcept;
  Bytes bytes_{};
};

/// `v` rounded to `bits` significand bits (24, 53 or 64) to nearest even, as the x87 rounds a result
/// at that precision: the exponent keeps its 15 bits.
constexpr Extended round_to(Extended v, int bits) noexcept {
  if (bits >= 64 || v.exponent() == 0x7fff || v.significand() == 0) return v;
  const int drop = 64 - bits;
  std::uint64_t top = v.significand() >> drop;
  const std::uint64_t rest = v.significand() & ((std::uint64_t{1} << drop) - 1), half = std::uint64_t{1} << (drop - 1);
  if (rest > half || (rest == half && (top & 1))) ++top;
  std::uint16_t exponent = v.exponent();
  if (top >> bits) {  // carried into a new leading bit
    top >>= 1;
    if (++exponent == 0x7fff) return Extended::from_parts(v.negative(), 0x7fff, std::uint64_t{1} << 63);
  }
  return Extended::from_parts(v.negative(), exponent, top << drop);
}

constexpr Extended::Bytes Extended::from_double(double v) noexcept {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
  const bool neg = (bits >> 63) != 0;
  const int exp = static_cast<int>((bits >> 52) & 0x7ff);
  std::uint64_t frac = bits & ((std::uint64_t{1} << 52) - 1);
  std::uint64_t mant = 0;
  int e = 0;
  if (exp == 0x7ff) {
    e = 0x7fff;
    mant = (std::uint64_t{1} << 63) | (frac << 11);
  } else if (exp == 0) {
    if (frac != 0) {  // a double's subnormal is a normal extended value
      const int shift = std::countl_zero(frac) - 11;  // the leading 1 to bit 52
      frac <<= shift;
      e = 1 - 1023 + 16383 - shift;
      mant = frac << 11;
    }
  } else {
    e = exp - 1023 + 16383;
    mant = (std::uint64_t{1} << 63) | (frac << 11);
  }
  return from_parts(neg, static_cast<std::uint16_t>(e), mant).bytes_;
}

inline double Extended::to_double() const noexcept {
  const int e = exponent();
  std::uint64_t mant = significand();
  double r;
  if (e == 0x7fff) {
    r = (mant << 1) == 0 ? HUGE_VAL : std::nan("");
  } else if (mant == 0) {
    r = 0.0;
  } else {
    // value = mant * 2^exp2; normalised so that bit 63 leads, its weight 2^lead.
    int exp2 = (e == 0 ? 1 : e) - 16383 - 63;
    const int lz = std::countl_zero(mant);
    mant <<= lz;
    exp2 -= lz;
    const int lead = exp2 + 63;
    // Bits a double keeps: 53, fewer below its normal range (then the result is subnormal).
    const int keep = lead >= -1022 ? 53 : 53 - (-1022 - lead);
    if (lead > 1023) {
      r = HUGE_VAL;
    } else if (keep < 0) {
      r = 0.0;
    } else {
      const int drop = 64 - keep;  // 11..64
      std::uint64_t top = drop >= 64 ? 0 : mant >> drop;
      const std::uint64_t rest = drop >= 64 ? mant : mant & ((std::uint64_t{1} << drop) - 1);
      const std::uint64_t half = std::uint64_t{1} << (drop - 1);
      if (rest > half || (rest == half && (top & 1))) ++top;
      r = std::ldexp(static_cast<double>(top), exp2 + drop);  // exact: top has at most 54 bits
    }
  }
  return negative() ? -r : r;
}

inline std::string Extended::hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (int i = 9; i >= 0; --i) {
    s += kDigits[bytes_[i] >> 4];
    s += kDigits[bytes_[i] & 15];
  }
  return s;
}

inline std::string Extended::decimal() const {
  char buf[64];
  if constexpr (kHostLongDoubleIsExtended) {
    std::snprintf(buf, sizeof buf, "%.21Lg", to_long_double());
  } else {
    std::snprintf(buf, sizeof buf, "~%.17g", to_double());
  }
  return buf;
}

}  // namespace lockstep::x87
