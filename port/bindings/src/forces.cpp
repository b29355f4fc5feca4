// Bindings of the forces, the tyres and the springs (port/CHOICES.md "forces::…", "tyres::tyres",
// "suspension::springs"): eax = car, edx = the force array (or the one force for forces::air).
#include "pod/forces.hpp"
#include "pod/suspension.hpp"
#include "pod/tyres.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

void add_forces(lockstep::cases::BindingSet& set) {
  set.push_back(declare(0x417c2c, "forces::air", &forces::air));
  // grip leaves the force array's address in the stale slot at its entry esp − 0x400, a word of the
  // original's stack below the case's entry esp: the port is given the same word and its write
  // there is the callee's frame, as the original's is. Written out: that word is no argument.
  set.push_back(make(
      0x417cec, "forces::grip",
      [](pod::Memory& m, const Case& c) {
        forces::grip(m, c.in.eax, c.in.edx, stale_slot(c));
        return ret_none();
      },
      stale_slot));
  set.push_back(declare(0x417f48, "forces::wheel_drive", &forces::wheel_drive));
  set.push_back(declare(0x4194c8, "suspension::springs", &suspension::springs));
  // The tyres' slip ratio lives in the same slot; a low-speed first point reads what the case holds
  // there (a stale-stack input below in.esp: the force array's address grip left), so the port gets
  // exactly the original's stale word, not tyres::STALE_RATIO. Written out, as grip is.
  set.push_back(make(
      0x41af80, "tyres::tyres",
      [](pod::Memory& m, const Case& c) {
        tyres::tyres(m, c.in.eax, c.in.edx, stale_slot(c));
        return ret_none();
      },
      stale_slot));
}

}  // namespace pod::bindings::detail
