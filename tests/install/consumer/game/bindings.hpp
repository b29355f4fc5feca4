// The consumer's port of sum() (game/sum.toml) and its binding: what a game's bindings look like.
#pragma once

#include "lockstep/cases/binding.hpp"

namespace sum_game {

/// The port's functions, one per original address. `off_by_one` gives a wrong port (the install test
/// checks that the gate fails on it).
lockstep::cases::BindingSet bindings(bool off_by_one = false);

}  // namespace sum_game
