// The sparse guest memory a case replays in: the case's input bytes at their addresses, and nothing
// else. The port's loads and stores go through it (via pod::bindings); a load of a byte the original
// never read is recorded ("port read a byte the original never read"), since the case cannot vouch
// for its value.
//
// Every access of the port lands here, so it is built for speed: the guest space is cut into small
// pages, a page is filled from the case's inputs the first time the port touches it, and each byte
// carries a bit for "readable" (an input or the port's own write), "written" and "read from outside".
// A load or store is then a page lookup (the last page is remembered) and a copy. The pages and the
// page table are reused from case to case on the same thread, so a replayed case allocates nothing
// for its memory once the thread has run a case of its size.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lockstep/cases/case.hpp"

namespace lockstep::cases {

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
  std::uint64_t load_le(GuestAddr a, unsigned n);
  void store_le(GuestAddr a, std::uint64_t value, unsigned n);

  /// Every byte the port wrote, with its last value.
  ByteMap writes() const;
  /// Addresses the port read that were neither inputs nor its own writes, ascending, each once.
  std::vector<GuestAddr> outside_reads() const;

  struct Pages;  // the page store (replay_memory.cpp)

 private:
  std::uint64_t load_le_slow(GuestAddr a, unsigned n);
  Pages* pages_;
};

}  // namespace lockstep::cases
