// Bindings of the car step, its own helpers, and what runs after it for each racer.
#include "pod/race.hpp"
#include "pod/step.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

namespace {
/// The step's slip-ratio word: below the step's entry esp, where grip's and the tyres' entry
/// esp − 0x400 lies (their frames are deeper than the step's).
GuestAddr step_stale_slot(const Case& c) { return c.in.esp - 0x800; }
/// The wall impacts' damage, applied where the original's step consulted the option.
step::Damage step_damage(const Case& c) { return damage_consulted(c) ? step::Damage::kApplied : step::Damage::kReported; }
}  // namespace

void add_step(lockstep::cases::BindingSet& set) {
  // FUN_0041b66c: eax = car, edx = driver → eax (the chassis point's move). The capture's driver
  // runs the step with the catch-up and the controllers stubbed by a ret (harness/profiles/pod.toml
  // [[driver]] car_step: the CTRL record holds what they wrote), so a case is the step from the
  // controller on: step_from_controls. The force array is the pinned block at 0x4f3320; the slip
  // ratio's stack word is one below the case's entry esp (as the original's is, at grip's and the
  // tyres' entry esp − 0x400), its writes the step's own frame. Written out: the slot, rand()'s thread
  // block and whether the damage applies come from the case, and eax is one field of the step's outcome.
  set.push_back(make(
      0x41b66c, "step::step",
      [](pod::Memory& m, const Case& c) {
        step::Scratch scratch;
        scratch.stale_slot = step_stale_slot(c);
        scratch.thread_block = thread_block(c);
        const step::Out out = step::step_from_controls(m, c.in.eax, c.in.edx, scratch, step_damage(c));
        return ret_eax(static_cast<std::int32_t>(out.chassis_move));
      },
      step_stale_slot));
  // The stand-in's per-racer body of the simulation step (0x49a800, not a POD function): the car
  // step from its controls, upside-down, the pose and the wheels' roll. Named as the profile names it
  // (the port's function is step::racer_step_from_controls). Written out, as step::step is.
  set.push_back(make(
      0x49a800, "race::racer_step",
      [](pod::Memory& m, const Case& c) {
        step::Scratch scratch;
        scratch.stale_slot = step_stale_slot(c);
        scratch.thread_block = thread_block(c);
        step::racer_step_from_controls(m, c.in.eax, c.in.edx, scratch, step_damage(c));
        return ret_none();
      },
      step_stale_slot));
  set.push_back(declare(0x4227bc, "step::stuck", &step::stuck));
  // Written out: the port's result (whether it put the car back) is for the port's own step; the
  // original returns nothing (the profile's returns = "none"), so nothing of it is compared.
  set.push_back(make(0x4159d8, "step::upside_down", [](pod::Memory& m, const Case& c) {
    step::upside_down(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  set.push_back(declare(0x4155b8, "step::pose", &step::pose));
  set.push_back(declare(0x415424, "step::wheel_roll", &step::wheel_roll));
  // 0x45d44c: eax = the position's address, edx = amount. Written out here and below: the port is
  // given rand()'s thread block, which the case shows (thread_block) and no argument carries.
  set.push_back(make(0x45d44c, "smoke::emit", [](pod::Memory& m, const Case& c) {
    step::smoke_emit(m, c.in.eax, static_cast<Fixed>(c.in.edx), thread_block(c));
    return ret_none();
  }));
  set.push_back(make(0x4c7f37, "rand", [](pod::Memory& m, const Case& c) {
    return ret_eax(step::rand(m, thread_block(c)));
  }));
  // FUN_0041cf2c: eax = driver, edx = the move (two vec3).
  set.push_back(declare(0x41cf2c, "race::beacon_test", &race::beacon_test));
  set.push_back(declare(0x422be8, "step::catch_up", &step::catch_up));
  // FUN_00422918: eax = the racer's number → eax = its driver, or 0.
  set.push_back(declare(0x422918, "catch_up::target", &catch_up::target));
  set.push_back(make(0x41a714, "step::skid_smoke", [](pod::Memory& m, const Case& c) {
    step::skid_smoke(m, c.in.eax, thread_block(c));
    return ret_none();
  }));
}

}  // namespace pod::bindings::detail
