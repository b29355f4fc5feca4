// The port over the stand-in's memory, as the whole-step follow, the whole-race follow and the race
// benchmark run it: the snapshot's regions as a pod::FlatMemory, plus two zeroed pages for what the
// original keeps where the snapshot has no place for the port — the slip ratio's word (on the
// original's stack, below the car step's frame) and rand()'s C library block (the original's is its
// thread's own; the smoke it draws is in no PHYS or FRAME block).
#pragma once

#include <algorithm>
#include <cstdint>

#include "lockstep/snapshot/snapshot.hpp"
#include "pod/memory.hpp"
#include "pod/step.hpp"

namespace standin_test {

inline constexpr pod::GuestAddr kSlipSlot = 0x00010000;
inline constexpr pod::GuestAddr kThreadBlock = 0x00011000;
inline constexpr std::uint32_t kScratchPagesSize = 0x2000;  // both pages, from kSlipSlot

/// True when a region of the snapshot lies on the scratch pages (the memory cannot be made then).
inline bool scratch_pages_taken(const lockstep::harness::Snapshot& snapshot) {
  return std::any_of(snapshot.regions.begin(), snapshot.regions.end(), [](const auto& r) {
    return r.base < kSlipSlot + kScratchPagesSize && kSlipSlot < r.base + r.bytes.size();
  });
}

/// Maps into an empty memory the snapshot's regions with their bytes and the two scratch pages, zeroed.
inline void map_port_memory(pod::FlatMemory& m, const lockstep::harness::Snapshot& snapshot) {
  for (const auto& r : snapshot.regions) {
    auto bytes = m.map(r.base, static_cast<std::uint32_t>(r.bytes.size()));
    std::copy(r.bytes.begin(), r.bytes.end(), bytes.begin());
  }
  m.map(kSlipSlot, 0x1000);
  m.map(kThreadBlock, 0x1000);
}

/// The step's scratch on those pages.
inline pod::step::Scratch port_scratch() {
  pod::step::Scratch s;
  s.stale_slot = kSlipSlot;
  s.thread_block = kThreadBlock;
  return s;
}

}  // namespace standin_test
