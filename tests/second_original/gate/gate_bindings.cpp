// The bindings lockstep_add_gate's generated main() replays Crawl's corpus with (built when the
// installed lockstep provides lockstep::gate).
#include "crawl/bindings.hpp"
#include "lockstep/testing/gate.hpp"

lockstep::cases::BindingSet lockstep::testing::gate_bindings() { return crawl::bindings::all(); }
