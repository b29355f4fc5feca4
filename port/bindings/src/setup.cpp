// Bindings of the race's set-up: the quad halves, the surface defaults, the grid slot, the settling.
#include "pod/setup.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

namespace {
/// The settling's slip-ratio word: below the settling's entry esp, as deep as the car step's is below
/// its own (the original's lies in a callee's frame, which a case does not compare).
GuestAddr settle_stale_slot(const Case& c) { return c.in.esp - 0x1000; }
}  // namespace

void add_setup(lockstep::cases::BindingSet& set) {
  // FUN_004247f8: eax = quad, edx = its mesh.
  set.push_back(declare(0x4247f8, "setup::quad_halves", &setup::quad_halves));
  // FUN_004985e8: no arguments.
  set.push_back(declare(0x4985e8, "setup::surface_defaults", &setup::surface_defaults));
  // FUN_004236f0: eax = car, edx = the start record.
  set.push_back(declare(0x4236f0, "setup::grid_slot", &setup::grid_slot));
  // FUN_0041e0d0: called in the settling, its purpose not given (G25): a seam.
  set.push_back(declare(0x41e0d0, "setup::settle_seam", &setup::settle_seam));
  // FUN_0049b9d4: no arguments. A case is captured with the profile's stubs on (the controllers and
  // the catch-up a `ret`), so the port settles with no controller: each car keeps the input 0x10.
  // Written out: the racers' scratch (the stale slot, rand()'s thread block) comes from the case.
  set.push_back(make(
      0x49b9d4, "setup::settle",
      [](pod::Memory& m, const Case& c) {
        race::Racers racers;
        racers.scratch.stale_slot = settle_stale_slot(c);
        racers.scratch.thread_block = thread_block(c);
        setup::settle(m, racers);
        return ret_none();
      },
      settle_stale_slot));
}

}  // namespace pod::bindings::detail
