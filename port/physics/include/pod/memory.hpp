// pod::Memory — the one interface through which the port reads and writes the game's state, at the
// original's addresses. A game uses FlatMemory; the replay gives the port a case's sparse memory (its
// own Memory) and sees every access.
//
// Every field the port touches is a load or a store here, so the common access is inline and plain:
// a table from guest page (4 KiB) to the host bytes that hold it, and a load or store of a page
// listed there is an index, an add and a copy at the original's width. Everything else goes out of
// line, to the Memory's own virtual load_slow/store_slow: a page not in the table (unmapped, partly
// mapped), an access that runs past its page's end, and, in a Memory that must observe what the port
// touches (the replay's), every store and every load of a byte not marked readable. Such a Memory
// lists its pages with a mark per byte beside them (MarkedPages): a load whose bytes are all marked
// is still inline (an index, two copies and a compare), and the rest is seen. One concrete class, not
// a template: the port's functions keep their one source, compiled once, taking `pod::Memory&`
// (docs/benchmarks.md "The memory" says why).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
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
  static constexpr unsigned kPageBits = 12;
  static constexpr std::uint32_t kPageSize = std::uint32_t{1} << kPageBits;
  static constexpr std::size_t kPages = std::size_t{1} << (32 - kPageBits);

  virtual ~Memory();
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  // The primitives: one per access, at the original's width.
  std::uint8_t load8(GuestAddr a) { return static_cast<std::uint8_t>(fast_load<1>(a)); }
  std::uint16_t load16(GuestAddr a) { return static_cast<std::uint16_t>(fast_load<2>(a)); }
  std::uint32_t load32(GuestAddr a) { return static_cast<std::uint32_t>(fast_load<4>(a)); }
  std::uint64_t load64(GuestAddr a) { return fast_load<8>(a); }
  void store8(GuestAddr a, std::uint8_t v) { fast_store<1>(a, v); }
  void store16(GuestAddr a, std::uint16_t v) { fast_store<2>(a, v); }
  void store32(GuestAddr a, std::uint32_t v) { fast_store<4>(a, v); }
  void store64(GuestAddr a, std::uint64_t v) { fast_store<8>(a, v); }
  /// One access of `size` bytes (1, 2, 4 or 8) as the primitive of that width: what a Memory that
  /// wraps another one forwards.
  std::uint64_t load(GuestAddr a, unsigned size);
  void store(GuestAddr a, unsigned size, std::uint64_t value);

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

 protected:
  /// No page served inline: every access goes to the slow path (a Memory that observes them all).
  Memory();
  /// With a page table of its own (zeroed: no page listed yet), for set_fast_page.
  struct OwnPageTable {};
  explicit Memory(OwnPageTable);
  /// With a table kept by someone else (kPages entries, each nullptr or the host address of a
  /// page's kPageSize bytes), whose pages carry a mark per byte kPageSize bytes after the bytes:
  /// 0xff where a load may read the byte inline. A load that finds any of its bytes' marks not 0xff,
  /// and every store, go to the slow path (which keeps the table and the marks up to date). The
  /// table must outlive the Memory; entries may change while it runs.
  struct MarkedPages {
    std::uint8_t* const* table;
  };
  explicit Memory(MarkedPages pages);

  // The accesses the page table does not serve, one per width (the value little-endian in the low
  // bytes). The inline path never calls them for an access inside a listed page.
  virtual std::uint8_t load8_slow(GuestAddr a) = 0;
  virtual std::uint16_t load16_slow(GuestAddr a) = 0;
  virtual std::uint32_t load32_slow(GuestAddr a) = 0;
  virtual std::uint64_t load64_slow(GuestAddr a) = 0;
  virtual void store8_slow(GuestAddr a, std::uint8_t v) = 0;
  virtual void store16_slow(GuestAddr a, std::uint16_t v) = 0;
  virtual void store32_slow(GuestAddr a, std::uint32_t v) = 0;
  virtual void store64_slow(GuestAddr a, std::uint64_t v) = 0;

  /// Serves guest page `page` (its number: address >> kPageBits) inline from the kPageSize bytes at
  /// `host`, or, with nullptr, no longer. Only for a Memory made with OwnPageTable.
  void set_fast_page(std::uint32_t page, std::uint8_t* host);

 private:
  // The table's address with its low bit set when the pages carry marks: one member read (which the
  // compiler must repeat after each store, as a store of guest bytes may alias the Memory) gives both
  // the table and the memory's kind, and the kind is a test of a register, not a second load.
  static constexpr std::uintptr_t kMarkedBit = 1;
  template <unsigned N>
  std::uint64_t fast_load(GuestAddr a) {
    const unsigned off = a & (kPageSize - 1);
    const std::uintptr_t tagged = tagged_pages_;
    const std::uint8_t* p = reinterpret_cast<std::uint8_t* const*>(tagged & ~kMarkedBit)[a >> kPageBits];
    if (p != nullptr && off <= kPageSize - N) {
      if ((tagged & kMarkedBit) != 0) {
        std::uint64_t marks = 0;
        std::memcpy(&marks, p + kPageSize + off, N);
        if (marks != (N == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * N)) - 1)) return slow_load<N>(a);
      }
      std::uint64_t v = 0;
      std::memcpy(&v, p + off, N);  // the guest's byte order is the host's (memory.cpp checks)
      return v;
    }
    return slow_load<N>(a);
  }
  template <unsigned N>
  std::uint64_t slow_load(GuestAddr a) {
    if constexpr (N == 1) return load8_slow(a);
    if constexpr (N == 2) return load16_slow(a);
    if constexpr (N == 4) return load32_slow(a);
    if constexpr (N == 8) return load64_slow(a);
  }
  template <unsigned N>
  void fast_store(GuestAddr a, std::uint64_t v) {
    const unsigned off = a & (kPageSize - 1);
    const std::uintptr_t tagged = tagged_pages_;
    if ((tagged & kMarkedBit) == 0) {
      std::uint8_t* p = reinterpret_cast<std::uint8_t* const*>(tagged)[a >> kPageBits];
      if (p != nullptr && off <= kPageSize - N) {
        std::memcpy(p + off, &v, N);
        return;
      }
    }
    if constexpr (N == 1) store8_slow(a, static_cast<std::uint8_t>(v));
    if constexpr (N == 2) store16_slow(a, static_cast<std::uint16_t>(v));
    if constexpr (N == 4) store32_slow(a, static_cast<std::uint32_t>(v));
    if constexpr (N == 8) store64_slow(a, v);
  }

  struct FreePages {
    void operator()(std::uint8_t** p) const;
  };
  std::unique_ptr<std::uint8_t*[], FreePages> own_pages_;  // the table, when the Memory has one
  // The table (kPages entries: host bytes or nullptr), its address | kMarkedBit when its pages carry
  // readable marks (entries are pointers, so the address is even).
  std::uintptr_t tagged_pages_ = 0;
};

/// Memory for a game (and for unit tests): a set of mapped ranges, each backed by its own bytes,
/// zero-filled when mapped. Accesses outside every range throw MemoryFault; an access may span two
/// adjacent ranges. Every page a range covers whole is served inline (Memory's page table); the
/// pages a range covers in part (a range not page-aligned) and the accesses across a page's end go
/// the slow way, through the ranges.
class FlatMemory final : public Memory {
 public:
  FlatMemory();

  /// Maps [base, base + size) and returns its bytes (zeroed; they stay where they are for the
  /// memory's life). Throws std::invalid_argument when the range is empty, wraps past 2^32, or
  /// overlaps a range already mapped.
  std::span<std::uint8_t> map(GuestAddr base, std::uint32_t size);
  /// True when every byte of [address, address + size) is mapped.
  bool mapped(GuestAddr address, std::uint32_t size) const;
  /// Copies bytes in or out (for loading a world or a saved state); throws MemoryFault when unmapped.
  void write_bytes(GuestAddr address, const std::uint8_t* bytes, std::size_t size);
  void read_bytes(GuestAddr address, std::uint8_t* bytes, std::size_t size) const;

 private:
  std::uint8_t load8_slow(GuestAddr a) override;
  std::uint16_t load16_slow(GuestAddr a) override;
  std::uint32_t load32_slow(GuestAddr a) override;
  std::uint64_t load64_slow(GuestAddr a) override;
  void store8_slow(GuestAddr a, std::uint8_t v) override;
  void store16_slow(GuestAddr a, std::uint16_t v) override;
  void store32_slow(GuestAddr a, std::uint32_t v) override;
  void store64_slow(GuestAddr a, std::uint64_t v) override;

  struct Range {
    GuestAddr base;
    std::uint32_t size;
    std::unique_ptr<std::uint8_t[]> bytes;  // never moves once mapped: the page table points into it
  };
  // The range holding address, or nullptr.
  const Range* find(GuestAddr address) const;
  std::uint64_t load_le(GuestAddr address, unsigned size) const;
  void store_le(GuestAddr address, unsigned size, std::uint64_t value);

  std::vector<Range> ranges_;  // sorted by base, disjoint
  // The range that held an address of each recently used page the table does not serve, by page
  // number modulo the slot count (a game whose ranges are not page-aligned reaches a car, its driver,
  // track faces and tables in turn through here). A slot only remembers: the range is still checked
  // for the address (a page can hold the end of one range and the start of another). A slot holds
  // its page number + 1 (page numbers are below 2^20), so 0 is an empty slot.
  static constexpr std::size_t kPageSlots = 64;
  mutable std::array<std::uint32_t, kPageSlots> slot_page_{};
  mutable std::array<std::uint32_t, kPageSlots> slot_range_{};
};

}  // namespace pod
