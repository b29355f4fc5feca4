// The blind reading's bindings (bindings.cpp): one per original address the blind reading covers
// and a case can replay (race::race_step runs the racers' controllers, so it has no cases: the
// whole-race follow checks it).
#pragma once

#include <vector>

#include "lockstep/cases/binding.hpp"
#include "pod/types.hpp"

namespace pod::blind {

/// The blind reading's bindings, each calling the blind function as the port's binding of the same
/// address calls the port's.
lockstep::cases::BindingSet bindings();
/// Their addresses.
std::vector<GuestAddr> addresses();

}  // namespace pod::blind
