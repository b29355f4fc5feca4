// The sparse guest memory a case replays in: the case's input bytes at their addresses, and nothing
// else. The port's loads and stores go through it (via pod::bindings); a load of a byte the original
// never read is recorded ("port read a byte the original never read"), since the case cannot vouch
// for its value.
//
// Every access of the port lands here, so it is built for speed: the guest space is cut into small
// pages, a page is filled from the case's inputs the first time the port touches it, and each byte
// carries a mark for "readable" (an input or the port's own write: a byte of 0xff beside the data,
// so a load tests its n marks with one compare) and a bit for "written" and "read from outside". A
// load or store is then a page lookup in a small table of the pages touched last and a copy; that
// path is inline (here), so a port access at a fixed width compiles to a dozen or two instructions,
// and everything else (a page not in the table, an access across a page, or across a bitmap word for
// a store, a byte that is not readable) goes to replay_memory.cpp. The pages and the page table are
// reused from case to case on the same thread, so a replayed case allocates nothing for its memory
// once the thread has run a case of its size.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "lockstep/cases/case.hpp"

namespace lockstep::cases {

namespace replay_detail {

/// One page of a case's replay memory.
struct Page {
  // 256 bytes: cheap to fill, and a car step's structures take a few dozen (128 and 512 measured
  // slower on the car step).
  static constexpr unsigned kBits = 8;
  static constexpr unsigned kSize = 1u << kBits;
  static constexpr unsigned kWords = kSize / 64;
  static constexpr std::uint32_t kNone = 0xffffffffu;  // page numbers are at most 2^24 - 1

  std::uint32_t number = kNone;
  std::array<std::uint64_t, kWords> written{};  // a bit per byte
  std::array<std::uint64_t, kWords> outside{};  // read while not readable, a bit per byte
  // The bytes, and each byte's readable mark: 0xff for an input or a byte the port wrote, else 0
  // (the byte's value is then left from an earlier case, and reads as 0). Both have 8 bytes of
  // slack past the page, so a load of up to 8 bytes anywhere in the page can copy whole 64-bit
  // words; the marks' slack stays 0, so a load that runs past the page finds a byte not readable
  // and goes the slow way, which splits it.
  alignas(8) std::array<std::uint8_t, kSize + 8> data{};
  alignas(8) std::array<std::uint8_t, kSize + 8> readable{};
};

/// The pages touched last, by the low bits of their number: the port moves between a few dozen
/// structures (a car, its wheels, track faces, tables), and each keeps its entry here. An entry
/// never holds null (an empty one points at a page whose number matches none).
inline constexpr std::size_t kRecentPages = 64;
using RecentPages = std::array<Page*, kRecentPages>;

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
    const Page* p = (*recent_)[(a >> Page::kBits) % replay_detail::kRecentPages];
    if (p->number == a >> Page::kBits) {
      // A page touched lately: the value and its bytes' marks as two 64-bit copies (the page's
      // slack keeps them inside it), cut to n bytes; every mark 0xff, and the value is read.
      const std::uint64_t keep = n == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n)) - 1;
      std::uint64_t v, marks;
      std::memcpy(&v, p->data.data() + off, 8);
      std::memcpy(&marks, p->readable.data() + off, 8);
      if ((marks & keep) == keep) return v & keep;
    }
    return load_le_slow(a, n);
  }
  void store_le(GuestAddr a, std::uint64_t value, unsigned n) {
    using replay_detail::Page;
    const unsigned off = a & (Page::kSize - 1);
    Page* p = (*recent_)[(a >> Page::kBits) % replay_detail::kRecentPages];
    if (p->number == a >> Page::kBits && off % 64 + n <= 64) {  // a page touched lately, one bitmap word
      std::memcpy(p->data.data() + off, &value, n);
      std::memset(p->readable.data() + off, 0xff, n);
      p->written[off / 64] |= ((std::uint64_t{1} << n) - 1) << (off % 64);
      wrote_ = true;
      return;
    }
    store_le_slow(a, value, n);
  }

  /// Every byte the port wrote, with its last value.
  ByteMap writes() const;
  /// Addresses the port read that were neither inputs nor its own writes, ascending, each once.
  std::vector<GuestAddr> outside_reads() const;

  struct Pages;  // the page store (replay_memory.cpp)

 private:
  std::uint64_t load_le_slow(GuestAddr a, unsigned n);
  void store_le_slow(GuestAddr a, std::uint64_t value, unsigned n);

  Pages* pages_;
  replay_detail::RecentPages* recent_;  // the page store's table of recent pages
  bool wrote_ = false;                  // any store at all (a case that only reads skips writes())
};

}  // namespace lockstep::cases
