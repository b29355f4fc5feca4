// The three tables the game builds at start-up (F012..F014), and the functions
// that read them. Each entry is built by its documented formula, computed exactly.
#pragma once

#include <cstdint>

#include "pod/addresses.hpp"
#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::tables {

/// Square-root table entry: floor(sqrt(i) × 65536) (F012), computed as the exact integer square
/// root of i × 2^32 (no floating point, so no host can round it differently).
std::int32_t sqrt_entry(std::uint32_t i);

/// Reciprocal table entry: 2^24 / i truncated towards zero, i in -16384..16383 (F013). i == 0 has
/// no formula; the caller decides (see kRecipZero).
std::int32_t recip_entry(std::int32_t i);

/// Sine table entry: round(sin(i × 8/65536) × 65536) (F014). The angle i × 8/65536 is exact in a
/// double. The result does not depend on which libm computes sin: tests/port checks that no entry's
/// sin(x) × 65536 lies within 1e-6 of a rounding boundary, far more than any libm's error (< 1 ulp,
/// about 1e-16 relative), so every faithful sin gives the same integers on every host.
std::int32_t sine_entry(std::uint32_t i);

/// Entries the stand-in builds (CHOICES "The three tables"): 0..12868 = HALF_PI16 >> 3, so every
/// index sin16 forms exists (chosen).
inline constexpr std::uint32_t kSineEntries = 12869;
/// Square-root entries 0..0x7fff (CHOICES).
inline constexpr std::uint32_t kSqrtEntries = 0x8000;
/// Where the tables' storage lives when the port builds them for a game (chosen, CHOICES: POD
/// allocates them at start-up; the pointers at [0x4ed434] and [0x4ed42c] say where).
inline constexpr GuestAddr kSqrtStorage = 0x7c0000;
inline constexpr GuestAddr kRecipStorage = 0x7a0000;
inline constexpr GuestAddr kRecipEntry0 = 0x7b0000;

/// The angle constants of sin16 / cos16 (chosen, CHOICES "sin16"): round(pi·65536), twice that,
/// round(pi/2·65536).
inline constexpr std::int32_t kPi16 = 205887;
inline constexpr std::int32_t kTwoPi16 = 2 * kPi16;
inline constexpr std::int32_t kHalfPi16 = 102944;

/// Maps the tables' storage (where not mapped yet), fills all three tables by their formulas and
/// sets the pointers [0x4ed434] and [0x4ed42c], and the constants at 0x4ee0c0 (1.5·2^68) and 0x4ee0c8
/// (2^-16). The pointer words and 0x72c704 must be mappable. For a game: call once at start-up.
void install(FlatMemory& m);
/// Writes the three tables and the pointers into memory that is already mapped.
void build(Memory& m);

/// FUN_004d43ad — length of a 16.16 vector through the square-root table at [0x4ed434], at a shift
/// that keeps 14 or 15 significant bits of the sum of squares (F009; shift rule chosen, CHOICES).
Fixed length16(Memory& m, const Vec3& v);
/// FUN_004d43ad at the original's interface: eax = v (address of three i32); returns eax.
Fixed length16(Memory& m, GuestAddr v);

/// 0x4c5e6c — sine of a 16.16 angle in radians: brought into (−pi, pi] (F010), folded into 0..pi/2,
/// read from the table at 0x72c704 without interpolation (CHOICES "sin16"). Result 16.16.
Fixed sin16(Memory& m, Fixed angle);
/// 0x4c5e64 — cosine: sin16 of the angle plus HALF_PI16 (wrapping; CHOICES, A11).
Fixed cos16(Memory& m, Fixed angle);

/// The sine table's step: 8/65536 rad per entry (F014).
inline constexpr double kSineStep = 8.0 / 65536.0;
/// Entries covering 0..pi/2: i × 8/65536 <= pi/2 for i <= 12867 (arithmetic on F014).
inline constexpr std::uint32_t kSineEntriesToHalfPi = 12868;
/// The reciprocal table's index range (F013).
inline constexpr std::int32_t kRecipMin = -16384;
inline constexpr std::int32_t kRecipMax = 16383;
/// The square-root table's read range (F012).
inline constexpr std::uint32_t kSqrtReadMin = 0x2000;
inline constexpr std::uint32_t kSqrtReadMax = 0x7fff;

}  // namespace pod::tables
