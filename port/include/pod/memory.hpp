// pod::Memory — the one interface through which the port reads and writes the game's state, at the
// original's addresses. A game uses FlatMemory; the replay gives the port a case's sparse memory (its
// own Memory) and sees every access, so each load and store goes through one virtual call at the
// width the original uses.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "pod/types.hpp"

namespace pod {

/// Thrown by FlatMemory for an access outside every mapped range. Another Memory may report such
/// accesses in its own way (the replay records them).
class MemoryFault : public std::runtime_error {
 public:
  MemoryFault(GuestAddr address, unsigned size, bool write);
  GuestAddr address() const { return address_; }
  unsigned size() const { return size_; }
  bool write() const { return write_; }

 private:
  GuestAddr address_;
  unsigned size_;
  bool write_;
};

/// Little-endian guest memory, 32-bit addresses. Multi-byte values are little-endian as on x86.
/// Accesses wrap nowhere: an access is [address, address + size) in the guest space.
class Memory {
 public:
  virtual ~Memory() = default;
  Memory() = default;
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  // The primitives: one call per access, at the original's width.
  virtual std::uint8_t load8(GuestAddr address) = 0;
  virtual std::uint16_t load16(GuestAddr address) = 0;
  virtual std::uint32_t load32(GuestAddr address) = 0;
  virtual std::uint64_t load64(GuestAddr address) = 0;
  virtual void store8(GuestAddr address, std::uint8_t value) = 0;
  virtual void store16(GuestAddr address, std::uint16_t value) = 0;
  virtual void store32(GuestAddr address, std::uint32_t value) = 0;
  virtual void store64(GuestAddr address, std::uint64_t value) = 0;

  // Typed helpers (two's complement for the signed ones; f64 is the IEEE bit pattern).
  std::uint8_t u8(GuestAddr a) { return load8(a); }
  std::int8_t i8(GuestAddr a) { return static_cast<std::int8_t>(load8(a)); }
  std::uint16_t u16(GuestAddr a) { return load16(a); }
  std::int16_t i16(GuestAddr a) { return static_cast<std::int16_t>(load16(a)); }
  std::uint32_t u32(GuestAddr a) { return load32(a); }
  std::int32_t i32(GuestAddr a) { return static_cast<std::int32_t>(load32(a)); }
  double f64(GuestAddr a);
  /// Three i32 words x, y, z.
  Vec3 vec3(GuestAddr a) { return Vec3{i32(a), i32(a + 4), i32(a + 8)}; }

  void put_u8(GuestAddr a, std::uint8_t v) { store8(a, v); }
  void put_i8(GuestAddr a, std::int8_t v) { store8(a, static_cast<std::uint8_t>(v)); }
  void put_u16(GuestAddr a, std::uint16_t v) { store16(a, v); }
  void put_i16(GuestAddr a, std::int16_t v) { store16(a, static_cast<std::uint16_t>(v)); }
  void put_u32(GuestAddr a, std::uint32_t v) { store32(a, v); }
  void put_i32(GuestAddr a, std::int32_t v) { store32(a, static_cast<std::uint32_t>(v)); }
  void put_f64(GuestAddr a, double v);
  void put_vec3(GuestAddr a, const Vec3& v) {
    put_i32(a, v.x);
    put_i32(a + 4, v.y);
    put_i32(a + 8, v.z);
  }
};

/// Memory for a game (and for unit tests): a set of mapped ranges, each backed by a byte vector,
/// zero-filled when mapped. Accesses outside every range throw MemoryFault; an access may span two
/// adjacent ranges.
class FlatMemory final : public Memory {
 public:
  FlatMemory() = default;

  /// Maps [base, base + size) and returns its bytes (zeroed). Throws std::invalid_argument when the
  /// range is empty, wraps past 2^32, or overlaps a range already mapped.
  std::vector<std::uint8_t>& map(GuestAddr base, std::uint32_t size);
  /// True when every byte of [address, address + size) is mapped.
  bool mapped(GuestAddr address, std::uint32_t size) const;
  /// Copies bytes in or out (for loading a world or a saved state); throws MemoryFault when unmapped.
  void write_bytes(GuestAddr address, const std::uint8_t* bytes, std::size_t size);
  void read_bytes(GuestAddr address, std::uint8_t* bytes, std::size_t size) const;

  std::uint8_t load8(GuestAddr address) override;
  std::uint16_t load16(GuestAddr address) override;
  std::uint32_t load32(GuestAddr address) override;
  std::uint64_t load64(GuestAddr address) override;
  void store8(GuestAddr address, std::uint8_t value) override;
  void store16(GuestAddr address, std::uint16_t value) override;
  void store32(GuestAddr address, std::uint32_t value) override;
  void store64(GuestAddr address, std::uint64_t value) override;

 private:
  struct Range {
    GuestAddr base;
    std::vector<std::uint8_t> bytes;
  };
  // The range holding address, or nullptr.
  const Range* find(GuestAddr address) const;
  std::uint64_t load_le(GuestAddr address, unsigned size) const;
  void store_le(GuestAddr address, unsigned size, std::uint64_t value);
  std::uint64_t load_spanning(GuestAddr address, unsigned size) const;  // across ranges, or a fault
  void store_spanning(GuestAddr address, unsigned size, std::uint64_t value);

  std::vector<Range> ranges_;  // sorted by base, disjoint
  // The range that held an address of each recently used 4 KiB page, by page number modulo the slot
  // count: a step reads a car, its driver, track faces and tables in turn, so one "last range" missed
  // often and every miss searched the ranges. A slot only remembers: the range is still checked for
  // the address (a page can hold the end of one range and the start of another). A slot holds its
  // page number + 1 (page numbers are below 2^20), so 0 is an empty slot.
  static constexpr std::size_t kPageSlots = 64;
  mutable std::array<std::uint32_t, kPageSlots> slot_page_{};
  mutable std::array<std::uint32_t, kPageSlots> slot_range_{};
};

}  // namespace pod
