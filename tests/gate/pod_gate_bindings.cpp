// The bindings POD's gates replay (lockstep_add_gate's BINDINGS): the whole port.
#include "lockstep/testing/gate.hpp"
#include "pod/bindings/bindings.hpp"

lockstep::cases::BindingSet lockstep::testing::gate_bindings() { return pod::bindings::all(); }
