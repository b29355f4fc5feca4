#include "bindings.hpp"

#include "lockstep/cases/replay_memory.hpp"

namespace sum_game {
namespace {

constexpr lockstep::cases::GuestAddr kSum = 0x00401000, kBias = 0x00600000, kLast = 0x00600004;

// The port: last = a + b + bias (wrapping as the original's 32-bit add does); returns it.
std::uint32_t sum(std::uint32_t a, std::uint32_t b, std::uint32_t bias) { return a + b + bias; }

}  // namespace

lockstep::cases::BindingSet bindings(bool off_by_one) {
  auto run = [off_by_one](const lockstep::cases::Case& c) {
    lockstep::cases::ReplayMemory m(c);  // the case's input bytes; records what the port writes and reads
    const auto a = static_cast<std::uint32_t>(m.load_le(c.in.esp + 4, 4));
    const auto b = static_cast<std::uint32_t>(m.load_le(c.in.esp + 8, 4));
    const std::uint32_t last = sum(a, b, static_cast<std::uint32_t>(m.load_le(kBias, 4))) + (off_by_one ? 1 : 0);
    m.store_le(kLast, last, 4);
    lockstep::cases::PortEffects fx;
    fx.eax = last;
    fx.writes = m.writes();
    fx.outside_reads = m.outside_reads();
    return fx;
  };
  return {lockstep::cases::Binding{kSum, "sum::sum", run}};
}

}  // namespace sum_game
