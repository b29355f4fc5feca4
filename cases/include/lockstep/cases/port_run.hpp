// What every binding does around its call of the port: the case's replay memory, the port's own
// memory over it, the call, the port's exception as the effects' error, and what the replay memory
// saw (the port's writes, the bytes it read that the original never read).
#pragma once

#include <exception>

#include "lockstep/cases/compare.hpp"
#include "lockstep/cases/replay_memory.hpp"

namespace lockstep::cases {

/// Runs `body(memory, replay_memory, effects)` on the case: `memory` is a PortMemory built over the
/// case's ReplayMemory; `body` sets the effects' registers. Never throws: whatever the body throws
/// becomes the effects' error, and the writes and outside reads up to then are kept.
template <class PortMemory, class Body>
PortEffects run_port(const Case& c, Body&& body) {
  ReplayMemory rm(c);
  PortMemory memory(rm);
  PortEffects fx;
  try {
    body(memory, rm, fx);
  } catch (const std::exception& e) {
    fx.error = e.what();
  } catch (...) {
    fx.error = "unknown exception";
  }
  fx.writes = rm.writes();
  fx.outside_reads = rm.outside_reads();
  return fx;
}

}  // namespace lockstep::cases
