// The original's arithmetic, reproduced bit for bit (F001..F011).
//
// Integer code. 16.16 numbers are multiplied with imul (64-bit product) keeping bits 16..47
// (shrd eax, edx, 16) — mul16 — and divided as (a << 16) / b with idiv, truncating towards zero —
// div16 — or through the reciprocal table for small divisors (F005). These are plain integer
// operations: C++20 defines signed shifts and conversions as two's complement, so they give the same
// bits on every host.
//
// x87 routines (0x4d41a0..0x4d4769). The game thread's control word is 0x027f: 53-bit precision,
// round to nearest even (F001). With the precision control at 53 bits, every x87 arithmetic
// instruction (fild, fmul, fimul, fadd, fsub, fdiv) rounds its result exactly as the IEEE 754
// binary64 operation does (F002); the 80-bit registers' wider exponent range changes nothing for
// these magnitudes (no value here comes near 2^1023 or the subnormals). So each routine is written
// as the same sequence of IEEE double operations, in the original's order:
//   - x86-64 does double arithmetic in SSE2 registers and aarch64 in its FP unit: both round every
//     single operation to binary64, round to nearest even, with no excess precision
//     (FLT_EVAL_METHOD == 0; checked below);
//   - the target is compiled with -ffp-contract=off, so a*b + c is never fused into an FMA (aarch64
//     has fmadd and compilers contract by default there; a fused multiply-add would skip the
//     product's rounding and give different bits);
//   - no long double anywhere (it is 80-bit on x86-64 and 128-bit on aarch64);
//   - conversions back to integers never use the host's current rounding mode: the 1.5·2^68 trick
//     reads bits out of the double, and fistp's round-to-nearest-even is written out with a truncating
//     conversion, the exact remainder and comparisons (round_to_int32 below). Arithmetic assumes the default rounding mode,
//     round to nearest, which a C++ program starts in; the port never changes it.
// The 1.5·2^68 trick (F006): a double near M = 1.5·2^68 has an exponent of 68, so its last mantissa
// bit is worth 2^16. Adding M to a sum s (|s| < 2^67) therefore rounds s to a multiple of 65536,
// ties to even, and the double's low 32 bits, read as a two's-complement word, are s / 65536 rounded
// to nearest. Because each further addition to that double rounds again to the 2^16 grid, the order
// of the additions is part of the result (dot16, F007).
#pragma once

#include <bit>
#include <cfloat>
#include <cstdint>
#include <limits>

#include "pod/memory.hpp"
#include "pod/types.hpp"

static_assert(FLT_EVAL_METHOD == 0, "the port needs double arithmetic without excess precision");
static_assert(sizeof(double) == 8, "binary64 double");

namespace pod {

/// Raised where the original would fault: idiv by zero or with a quotient outside 32 bits (#DE).
class DivideFault : public std::exception {
 public:
  const char* what() const noexcept override { return "divide error (#DE) in a 16.16 division"; }
};

namespace math {

/// 1.5 × 2^68, the constant at 0x4ee0c0 (F006).
inline constexpr double kRound = 1.5 * 295147905179352825856.0;  // 2^68 = 295147905179352825856
/// 1.5 × 2^52: the same read-out with the last mantissa bit worth 1 (round_to_int32). The port's own
/// constant, not one of the original's.
inline constexpr double kRoundToInteger = 1.5 * 4503599627370496.0;  // 2^52 = 4503599627370496

/// 16.16 multiply: imul's 64-bit product, bits 16..47 (F003).
constexpr Fixed mul16(Fixed a, Fixed b) {
  const std::int64_t p = static_cast<std::int64_t>(a) * b;
  return static_cast<Fixed>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(p) >> 16));
}

/// 16.16 divide through idiv: the 64-bit dividend edx:eax = a × 65536, quotient truncated towards
/// zero (F004). Throws DivideFault where idiv would fault (b == 0, or a quotient outside 32 bits);
/// the original never divides where that can happen (CHOICES "The 16.16 multiply and divide").
Fixed idiv16(Fixed a, Fixed b);

/// 16.16 divide as the original's code does it (F004, F005; CHOICES): for -32 <= b <= 32 (0
/// included) through the reciprocal table, low32((a × recip[b]) >> 8) with recip[b] read at
/// [0x4ed42c] + 4·b (recip[0] = 0, so a / 0 = 0); otherwise idiv16.
Fixed div16(Memory& m, Fixed a, Fixed b);

/// The physics' 16.16 division (chosen, CHOICES "Notation"): where idiv
/// would overflow (|b| > 32 and |a| >= |b|·2^15) the result saturates to ±0x7fffffff by the signs;
/// otherwise div16 (so b == 0 gives 0 through recip[0]).
Fixed qdiv(Memory& m, Fixed a, Fixed b);

/// The x87 routines' read-out (F006): the low 32 bits of a double of the form M + s.
inline Fixed low_word(double m_plus_sum);

/// fistp under control word 0x027f: round to nearest, ties to even; a value outside 32 bits (or
/// NaN) stores the integer indefinite 0x80000000. Independent of the host's rounding mode.
inline std::int32_t round_to_int32(double x);

/// fild of a 32-bit integer (exact).
constexpr double fild(std::int32_t v) { return static_cast<double>(v); }

/// 2^-16, the constant at 0x4ee0c8 (chosen, CHOICES) for the "× 1/65536" routes.
inline constexpr double kInv65536 = 1.0 / 65536.0;

// --- Wrapping i32 arithmetic (the original's add/sub/neg wrap modulo 2^32). ---
constexpr Fixed wrap_add(Fixed a, Fixed b) {
  return static_cast<Fixed>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
constexpr Fixed wrap_sub(Fixed a, Fixed b) {
  return static_cast<Fixed>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
constexpr Fixed wrap_neg(Fixed a) { return static_cast<Fixed>(0u - static_cast<std::uint32_t>(a)); }
/// |v| as unsigned (|−2^31| = 2^31).
constexpr std::uint32_t uabs(Fixed v) {
  return v < 0 ? 0u - static_cast<std::uint32_t>(v) : static_cast<std::uint32_t>(v);
}
constexpr Fixed clamp(Fixed v, Fixed lo, Fixed hi) { return v < lo ? lo : (v > hi ? hi : v); }
constexpr Vec3 add(const Vec3& a, const Vec3& b) {
  return Vec3{wrap_add(a.x, b.x), wrap_add(a.y, b.y), wrap_add(a.z, b.z)};
}
constexpr Vec3 sub(const Vec3& a, const Vec3& b) {
  return Vec3{wrap_sub(a.x, b.x), wrap_sub(a.y, b.y), wrap_sub(a.z, b.z)};
}

// --- The x87 vector routines, on values. ---

/// FUN_004d41a0 — dot product, ((a0·b0 + M) + a1·b1) + a2·b2 read out as the low word (F007):
/// each addition rounds to a multiple of 65536, so the order is part of the result.
inline Fixed dot16(const Vec3& a, const Vec3& b);

/// FUN_004d41df — cross product (F008; CHOICES): x = (a1·b2 + M) − a2·b1 and y = (a2·b0 + M) − a0·b2
/// through M; z = fistp((a0·b1 − a1·b0) × 2^-16).
inline Vec3 cross16(const Vec3& a, const Vec3& b);

/// FUN_004d465d — vector × 16.16 scalar through M: out_i = low word of (v_i·s + M) (CHOICES).
inline Vec3 scale16(const Vec3& v, Fixed s);

/// FUN_004d4606 — vector × 16.16 scalar through fistp: v_i = fistp(v_i·s × 2^-16) (CHOICES); the
/// put-back passes 0x5555 (F082). Out of range saturates to 0x80000000 where scale16 wraps.
inline Vec3 scale16_fistp(const Vec3& v, Fixed s);

/// FUN_004d3e90 — the square root the hull radius is taken through (G11; chosen: eax = the low word,
/// edx = the high word of an unsigned 64-bit value, eax = its exact integer square root, rounded down).
std::uint32_t isqrt(std::uint64_t v);

// --- The same routines at the original's interface (Watcom registers: eax, edx, ebx). ---

/// FUN_004d41a0: eax = a, edx = b (addresses of three i32); returns eax.
Fixed dot16(Memory& m, GuestAddr a, GuestAddr b);
/// FUN_004d41df: eax = a, edx = b, ebx = out; all six inputs read before out is written (z, y, x).
void cross16(Memory& m, GuestAddr a, GuestAddr b, GuestAddr out);
/// FUN_004d465d: eax = v, edx = s, ebx = out.
void scale16(Memory& m, GuestAddr v, Fixed s, GuestAddr out);
/// FUN_004d4606: eax = v, scaled in place, edx = s.
void scale16(Memory& m, GuestAddr v, Fixed s);

// --- The value routines' definitions, inline: the car step and the collisions call them hundreds
// of times a step from every module, and a call each (with the vector packed into registers and
// read back through the stack) cost more than the arithmetic. ---

inline Fixed low_word(double m_plus_sum) {
  return static_cast<Fixed>(static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(m_plus_sum)));
}

inline std::int32_t round_to_int32(double x) {
  // fistp in round-to-nearest-even, without a branch: adding 1.5·2^52 gives a double whose last
  // mantissa bit is worth 1, so the addition itself rounds x to an integer, ties to even (the default
  // rounding mode, which the port never changes), and the double's low 32 bits are that integer as a
  // two's-complement word (|x| < 2^51). Outside int32 after rounding, and for NaN, fistp stores the
  // integer indefinite, 0x80000000: a select, not a branch.
  const bool in_range = x >= -2147483648.5 && x < 2147483647.5;
  const Fixed rounded = low_word(x + kRoundToInteger);
  return in_range ? rounded : std::numeric_limits<std::int32_t>::min();
}

// FUN_004d41a0
inline Fixed dot16(const Vec3& a, const Vec3& b) {
  double s = fild(a.x) * fild(b.x);
  s = s + kRound;
  s = s + fild(a.y) * fild(b.y);
  s = s + fild(a.z) * fild(b.z);
  return low_word(s);
}

// FUN_004d41df
inline Vec3 cross16(const Vec3& a, const Vec3& b) {
  Vec3 out;
  out.x = low_word((fild(a.y) * fild(b.z) + kRound) - fild(a.z) * fild(b.y));
  out.y = low_word((fild(a.z) * fild(b.x) + kRound) - fild(a.x) * fild(b.z));
  out.z = round_to_int32((fild(a.x) * fild(b.y) - fild(a.y) * fild(b.x)) * kInv65536);
  return out;
}

// FUN_004d465d
inline Vec3 scale16(const Vec3& v, Fixed s) {
  const double ds = fild(s);
  return Vec3{low_word(fild(v.x) * ds + kRound), low_word(fild(v.y) * ds + kRound),
              low_word(fild(v.z) * ds + kRound)};
}

// FUN_004d4606
inline Vec3 scale16_fistp(const Vec3& v, Fixed s) {
  const double ds = fild(s);
  return Vec3{round_to_int32(fild(v.x) * ds * kInv65536), round_to_int32(fild(v.y) * ds * kInv65536),
              round_to_int32(fild(v.z) * ds * kInv65536)};
}

}  // namespace math
}  // namespace pod
