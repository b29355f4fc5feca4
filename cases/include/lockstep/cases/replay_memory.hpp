// The sparse guest memory a case replays in: the case's input bytes at their addresses, and nothing
// else. The port's loads and stores go through it (via the game's bindings); a load of a byte the
// original never read is recorded ("port read a byte the original never read"), since the case cannot
// vouch for its value.
//
// Every access of the port lands here, so it is built for speed. The guest space is cut into 4 KiB
// pages, listed in a table of 2^20 entries (guest page -> host bytes), and each byte carries a mark
// for "readable" (an input or the port's own write: a byte of 0xff, kPageSize bytes after the data,
// so a load tests its n marks with one compare) and a bit for "written" and "read from outside". A
// load or store is an index into the table and a copy; that path is inline (here), and a game's
// memory with an inline path of its own may load straight from the table (page_table()) where every
// mark it needs is set. Everything else (a page not listed, an access across a page's end or, for a
// store, across a bitmap word, a byte that is not readable) goes to replay_memory.cpp.
//
// The pages, and the table, stay with the thread from case to case: a case's inputs are copied into
// their pages when the memory is made, and what a case marked (its inputs, its writes, its outside
// reads) is cleared when the next one starts, so a case costs what it reads and writes, not what
// the pages hold, and allocates nothing once its pages exist (the cases of one function lie at the
// same addresses).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "lockstep/cases/case.hpp"

namespace lockstep::cases {

namespace replay_detail {

/// One 4 KiB page of the guest space, kept from case to case.
struct Page {
  static constexpr unsigned kBits = 12;
  static constexpr unsigned kSize = 1u << kBits;
  static constexpr unsigned kWords = kSize / 64;

  // The bytes [0, kSize), then each byte's readable mark [kSize, 2 kSize): 0xff for an input or a
  // byte the port wrote, else 0 (the byte's value is then left from an earlier case, and reads as
  // 0). 8 bytes of slack past the marks, always 0, so that a load of up to 8 bytes anywhere in the
  // page copies whole 64-bit words. The first member: the table lists a page by this array's address.
  alignas(64) std::array<std::uint8_t, 2 * kSize + 8> bytes{};
  std::array<std::uint64_t, kWords> written{};  // a bit per byte
  std::array<std::uint64_t, kWords> outside{};  // read while not readable, a bit per byte
  std::uint64_t marked = 0;                     // a bit per 64 marks of which some may be set
  std::uint32_t number = 0;                     // the guest page: address >> kBits
  std::uint32_t stamp = 0;                      // the case that touched it last (see Pages::touch)
};

}  // namespace replay_detail

class ReplayMemory {
 public:
  explicit ReplayMemory(const Case& c);
  ~ReplayMemory();
  ReplayMemory(const ReplayMemory&) = delete;
  ReplayMemory& operator=(const ReplayMemory&) = delete;

  /// Reads n bytes at a: the port's own earlier writes first, then the case's inputs; any other byte
  /// reads as 0 and is recorded in outside_reads(). Addresses wrap at 4 GiB as the guest's do.
  void load(GuestAddr a, std::span<std::uint8_t> out);
  void store(GuestAddr a, std::span<const std::uint8_t> bytes);

  /// The same for one little-endian value of n bytes (1..8): the port's loads and stores.
  std::uint64_t load_le(GuestAddr a, unsigned n) {
    using replay_detail::Page;
    const unsigned off = a & (Page::kSize - 1);
    if (const std::uint8_t* p = table_[a >> Page::kBits]; p != nullptr && off + n <= Page::kSize) {
      // The value and its bytes' marks as two 64-bit copies (the slack keeps them inside the page),
      // cut to n bytes; every mark 0xff, and the value is read.
      const std::uint64_t keep = n == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n)) - 1;
      std::uint64_t v, marks;
      std::memcpy(&v, p + off, 8);
      std::memcpy(&marks, p + Page::kSize + off, 8);
      if ((marks & keep) == keep) return v & keep;
    }
    return load_le_slow(a, n);
  }
  void store_le(GuestAddr a, std::uint64_t value, unsigned n) {
    using replay_detail::Page;
    const unsigned off = a & (Page::kSize - 1);
    // A page this case has touched (so the next case clears what this one marks), one bitmap word.
    if (std::uint8_t* b = table_[a >> Page::kBits]; b != nullptr && off % 64 + n <= 64) {
      Page& p = *reinterpret_cast<Page*>(b);
      if (p.stamp == stamp_) {
        std::memcpy(b + off, &value, n);
        std::memset(b + Page::kSize + off, 0xff, n);
        p.written[off / 64] |= ((std::uint64_t{1} << n) - 1) << (off % 64);
        p.marked |= std::uint64_t{1} << (off / 64);
        wrote_ = true;
        return;
      }
    }
    store_le_slow(a, value, n);
  }

  /// The pages' table, for a game's memory with an inline load path: kPages entries, one per guest
  /// page (address >> kPageBits), each the host address of the page's kPageSize bytes, their readable
  /// marks the kPageSize bytes after them, or nullptr. Such a memory may load bytes from a listed
  /// page itself where each of their marks is 0xff (an input, or the port's own write: nothing to
  /// record); every other load, and every store, comes through load_le and store_le. The table
  /// stays where it is for the memory's life; an entry, once set, too.
  static constexpr unsigned kPageBits = replay_detail::Page::kBits;
  static constexpr std::uint32_t kPageSize = replay_detail::Page::kSize;
  static constexpr std::size_t kPages = std::size_t{1} << (32 - kPageBits);
  std::uint8_t* const* page_table() const { return table_; }

  /// Every byte the port wrote, with its last value.
  ByteMap writes() const;
  /// Addresses the port read that were neither inputs nor its own writes, ascending, each once.
  std::vector<GuestAddr> outside_reads() const;

  struct Pages;  // the page store (replay_memory.cpp)

 private:
  std::uint64_t load_le_slow(GuestAddr a, unsigned n);
  void store_le_slow(GuestAddr a, std::uint64_t value, unsigned n);

  Pages* pages_;
  std::uint8_t** table_;    // the page store's table (kPages entries)
  std::uint32_t stamp_;     // this case's stamp in the store
  bool wrote_ = false;      // any store at all (a case that only reads skips writes())
};

}  // namespace lockstep::cases
