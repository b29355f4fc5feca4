// A wrong port (one too many) for a gate that must fail: the install test runs it expecting failures.
#include "bindings.hpp"
#include "lockstep/testing/gate.hpp"

lockstep::cases::BindingSet lockstep::testing::gate_bindings() { return sum_game::bindings(/*off_by_one=*/true); }
