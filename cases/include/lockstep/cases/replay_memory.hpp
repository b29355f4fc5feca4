// The sparse guest memory a case replays in: the case's input bytes at their addresses, and nothing
// else. The port's loads and stores go through it (via pod::bindings); a load of a byte the original
// never read is recorded ("port read a byte the original never read"), since the case cannot vouch
// for its value.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lockstep/cases/case.hpp"

namespace lockstep::cases {

class ReplayMemory {
 public:
  explicit ReplayMemory(const Case& c);

  /// Reads n bytes at a: the port's own earlier writes first, then the case's inputs; any other byte
  /// reads as 0 and is recorded in outside_reads().
  void load(GuestAddr a, std::span<std::uint8_t> out);
  void store(GuestAddr a, std::span<const std::uint8_t> bytes);

  const ByteMap& writes() const noexcept { return writes_; }
  /// Addresses the port read that were neither inputs nor its own writes, ascending, each once.
  std::vector<GuestAddr> outside_reads() const;

 private:
  const ByteMap& inputs_;
  ByteMap writes_;
  ByteMap outside_;  // address → 0 (a set)
};

}  // namespace lockstep::cases
