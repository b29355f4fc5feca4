// What the consumer's gate replays (lockstep_add_gate's BINDINGS).
#include "bindings.hpp"
#include "lockstep/testing/gate.hpp"

lockstep::cases::BindingSet lockstep::testing::gate_bindings() { return sum_game::bindings(); }
