// What the original's x87 arithmetic means, in host doubles. The original evaluates every float
// expression in the x87's registers at 53-bit precision (main() sets it) and rounds to float only
// where it stores: an assignment, an argument, a return (C's FLT_EVAL_METHOD 2, which the build's
// -fexcess-precision=standard makes exact). At 53 bits each x87 operation rounds as binary64 does
// (for every value this game makes), so the port computes in double and calls to_float() at exactly
// the stores. Two things no double holds are here too: the float literals, which GCC keeps in 80
// bits, and fistp's answer for a value it cannot convert.
#pragma once

#include <cstdint>

namespace crawl {

/// A float store of an expression evaluated in double.
inline float to_float(double v) { return static_cast<float>(v); }

/// The x87's fistp under truncation (C's (int) of a float or double): toward zero, and the "integer
/// indefinite" 0x80000000 for a NaN or a value outside int32 (where C++'s own cast is undefined).
std::int32_t x87_truncate(double v);

/// A float literal as the original holds it: under FLT_EVAL_METHOD 2 GCC evaluates `3.14159265f` in
/// long double, so the EXE loads an 80-bit constant (fld tbyte) with a 64-bit significand that no
/// float or double equals. Kept exactly as hi + lo (hi the nearest double, lo the rest).
struct Extended {
  double hi, lo;
};

/// a + c rounded once to 53 bits, as fadd of the 80-bit constant at 53-bit precision does (hi + lo
/// + a exactly, then one rounding: the sum's error term is exact for every |a| this game makes).
double add_extended(double a, Extended c);
/// a > c and a <= c, exactly (fcomi compares a double with the 80-bit constant without rounding).
bool greater(double a, Extended c);
inline bool less_equal(double a, Extended c) { return !greater(a, c); }
inline Extended negate(Extended c) { return {-c.hi, -c.lo}; }

/// The constants of Crawl's code, from the EXE's .rdata (0x40a050, 0x40a060, 0x40a0a0): each is the
/// decimal literal of game/crawl.h rounded to a 64-bit significand.
inline constexpr Extended kPi{0x1.921fb53c8d4f1p+1, -0x1.e1p-53};        // PI_F = 3.14159265
inline constexpr Extended kTwoPi{0x1.921fb53c8d4f1p+2, -0x1.e1p-52};     // 2.0f * PI_F
inline constexpr Extended kHalfPi{0x1.921fb55206ddfp+0, -0x1.55p-54};    // HALF_PI_F = 1.57079633

}  // namespace crawl
