// The game's memory as the port sees it: little-endian bytes at the original's 32-bit addresses. The
// port reads and writes the original's structures in place (the same bytes at the same addresses),
// so a replay can hand it a case's bytes and compare what it wrote. Pure C++20, no dependencies.
#pragma once

#include <bit>
#include <cstdint>

namespace crawl {

using GuestAddr = std::uint32_t;

class Memory {
 public:
  virtual ~Memory() = default;
  /// n (1..8) bytes at a, little-endian.
  virtual std::uint64_t load(GuestAddr a, unsigned n) = 0;
  virtual void store(GuestAddr a, std::uint64_t value, unsigned n) = 0;

  std::uint8_t u8(GuestAddr a) { return static_cast<std::uint8_t>(load(a, 1)); }
  std::uint32_t u32(GuestAddr a) { return static_cast<std::uint32_t>(load(a, 4)); }
  std::int32_t i32(GuestAddr a) { return static_cast<std::int32_t>(u32(a)); }
  float f32(GuestAddr a) { return std::bit_cast<float>(u32(a)); }
  double f64(GuestAddr a) { return std::bit_cast<double>(load(a, 8)); }

  void put_u8(GuestAddr a, std::uint8_t v) { store(a, v, 1); }
  void put_u32(GuestAddr a, std::uint32_t v) { store(a, v, 4); }
  void put_i32(GuestAddr a, std::int32_t v) { put_u32(a, static_cast<std::uint32_t>(v)); }
  void put_f32(GuestAddr a, float v) { put_u32(a, std::bit_cast<std::uint32_t>(v)); }
  void put_f64(GuestAddr a, double v) { store(a, std::bit_cast<std::uint64_t>(v), 8); }
};

}  // namespace crawl
