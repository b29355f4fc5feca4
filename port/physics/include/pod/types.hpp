// Basic value types of the port: guest addresses and the original's 16.16 vectors.
#pragma once

#include <cstdint>

namespace pod {

/// A 32-bit address in the original's (the guest's) address space. Pointers inside the original's
/// records are kept as guest addresses; they are never host pointers.
using GuestAddr = std::uint32_t;

/// A 16.16 fixed-point number as the original keeps it (1.0 == 0x10000).
using Fixed = std::int32_t;

/// One 16.16 unit.
inline constexpr Fixed kOne = 0x10000;

/// Three 16.16 words laid out x, y, z (12 bytes), as every vector in the original's records is.
struct Vec3 {
  Fixed x = 0;
  Fixed y = 0;
  Fixed z = 0;

  constexpr Fixed operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
  constexpr Fixed& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
  friend constexpr bool operator==(const Vec3&, const Vec3&) = default;
};

}  // namespace pod
