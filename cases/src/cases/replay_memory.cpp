#include "lockstep/cases/replay_memory.hpp"

namespace lockstep::cases {

ReplayMemory::ReplayMemory(const Case& c) : inputs_(c.inputs) {}

void ReplayMemory::load(GuestAddr a, std::span<std::uint8_t> out) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    const GuestAddr addr = static_cast<GuestAddr>(a + i);
    if (auto w = writes_.get(addr)) {
      out[i] = *w;
    } else if (auto in = inputs_.get(addr)) {
      out[i] = *in;
    } else {
      out[i] = 0;
      outside_.set(addr, 0);
    }
  }
}

void ReplayMemory::store(GuestAddr a, std::span<const std::uint8_t> bytes) { writes_.set(a, bytes); }

std::vector<GuestAddr> ReplayMemory::outside_reads() const {
  std::vector<GuestAddr> out;
  outside_.for_each([&](GuestAddr a, std::uint8_t) { out.push_back(a); });
  return out;
}

}  // namespace lockstep::cases
