// The one function lockstep_add_gate() needs from the game: its bindings.
#include "bindings/bindings.hpp"
#include "lockstep/testing/gate.hpp"

lockstep::cases::BindingSet lockstep::testing::gate_bindings() { return gliders::bindings(); }
