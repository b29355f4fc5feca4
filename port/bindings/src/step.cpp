// Bindings of the car step and its own helpers (port/CHOICES.md "step::step", "step::catch_up",
// "step::skid_smoke").
#include "pod/step.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

namespace {
/// The step's slip-ratio word: below the step's entry esp, where grip's and the tyres' entry
/// esp − 0x400 lies (their frames are deeper than the step's).
GuestAddr step_stale_slot(const Case& c) { return c.in.esp - 0x800; }
}  // namespace

void add_step(lockstep::cases::BindingSet& set) {
  // FUN_0041b66c: eax = car, edx = driver → eax (the chassis point's move). The capture's driver
  // runs the step with the catch-up and the controllers stubbed by a ret (harness/profiles/pod.toml
  // [[driver]] car_step: the CTRL record holds what they wrote), so a case is the step from the
  // controller on: step_from_controls. The force array is the pinned block at 0x4f3320; the slip
  // ratio's stack word is one below the case's entry esp (as the original's is, at grip's and the
  // tyres' entry esp − 0x400), its writes the step's own frame.
  set.push_back(make(
      0x41b66c, "step::step",
      [](pod::Memory& m, const Case& c) {
        step::Scratch scratch;
        scratch.stale_slot = step_stale_slot(c);
        const step::Out out = step::step_from_controls(m, c.in.eax, c.in.edx, scratch);
        return ret_eax(out.chassis_move);
      },
      step_stale_slot));
  set.push_back(make(0x422be8, "step::catch_up", [](pod::Memory& m, const Case& c) {
    step::catch_up(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  set.push_back(make(0x41a714, "step::skid_smoke", [](pod::Memory& m, const Case& c) {
    step::skid_smoke(m, c.in.eax);
    return ret_none();
  }));
}

}  // namespace pod::bindings::detail
