// The stand-in's scripted controllers are not POD's and are not ported: a follower of its recorded race
// lays each controller's output instead, recovered from the state log as the bytes that differ between
// the step's STEP record and the racer's CTRL record (the controllers write only their driver and car
// +0x4ec: port/CHOICES.md, "The stand-in's scripts around the loop").
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "lockstep/capture/state_log.hpp"

namespace standin_test {

/// One controller's output: the bytes it changed, (address, value).
using ControllerOutput = std::vector<std::pair<std::uint32_t, std::uint8_t>>;

/// Appends the bytes of [address, address + size) that differ between two records' blocks (nothing
/// when either record lacks them).
inline void add_changed_bytes(const lockstep::capture::Record& before, const lockstep::capture::Record& after,
                              std::uint32_t address, std::uint32_t size, ControllerOutput& out) {
  const auto a = before.bytes_at(address, size);
  const auto b = after.bytes_at(address, size);
  if (!a.ok() || !b.ok()) return;
  for (std::uint32_t i = 0; i < size; ++i)
    if ((*a)[i] != (*b)[i]) out.emplace_back(address + i, (*b)[i]);
}

}  // namespace standin_test
