// The port of Gliders (game/gliders.c): plain C++20, no dependencies. It reads and writes the
// original's structures in place, at the original's addresses, through Memory, so a replay can hand
// it a case's bytes and compare what it wrote.
#pragma once

#include <bit>
#include <cstdint>

namespace gliders {

using GuestAddr = std::uint32_t;

/// The game's memory: little-endian bytes at the original's 32-bit addresses.
class Memory {
 public:
  virtual ~Memory() = default;
  virtual std::uint32_t load32(GuestAddr a) = 0;
  virtual void store32(GuestAddr a, std::uint32_t value) = 0;

  std::int32_t i32(GuestAddr a) { return static_cast<std::int32_t>(load32(a)); }
  void put_i32(GuestAddr a, std::int32_t v) { store32(a, static_cast<std::uint32_t>(v)); }
  float f32(GuestAddr a) { return std::bit_cast<float>(load32(a)); }
  void put_f32(GuestAddr a, float v) { store32(a, std::bit_cast<std::uint32_t>(v)); }
};

/// 16.16 fixed point, as the original keeps positions, velocities and the wind.
using Fixed = std::int32_t;

/// The layout of the original's structures (gliders.toml names the same bytes).
namespace glider {
inline constexpr GuestAddr kX = 0x00, kY = 0x04, kVx = 0x08, kVy = 0x0c, kLift = 0x10, kAlive = 0x14;
inline constexpr GuestAddr kSize = 0x18;
}  // namespace glider
namespace world {
inline constexpr GuestAddr kGliders = 0x00, kWind = 0x60, kGust = 0x64, kTicks = 0x68, kLanded = 0x6c;
inline constexpr int kGliderCount = 4;
}  // namespace world

/// fx_mul at 0x08049850: the 16.16 product through a 64-bit intermediate.
Fixed fx_mul(Fixed a, Fixed b);
/// glider_push at 0x08049860: thrust added to vx (a quarter of it taken from vy), speeds clamped at
/// +-4.0 units per tick (vy only downwards).
void glider_push(Memory& m, GuestAddr glider, Fixed thrust);
/// glider_lift at 0x080498a0: lift = density * (vx^2 + vy^2) / 2, computed as the x87 does it.
void glider_lift(Memory& m, GuestAddr glider, float density);
/// world_step at 0x08049900: one tick of every live glider.
void world_step(Memory& m, GuestAddr world);

}  // namespace gliders
