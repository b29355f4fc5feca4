// Forces on the body and the points: stages 12, 13, 14 (F030, F031; port/CHOICES.md
// "forces::…"). `forces` is the step's force array: six vec3, forces[0..4] the points', forces[5]
// the outside force.
#pragma once

#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::forces {

/// FUN_00417c2c — air drag and downforce ∝ (forward speed / 256)² (F030), written to `force`.
void air(Memory& m, GuestAddr car, GuestAddr force);

/// FUN_00417cec — each touching wheel's sideways grip, overwriting forces[i]. First it leaves the
/// force array's address in `stale_slot` (the original's stack word at entry esp − 0x400), where the
/// tyres' low-speed path reads it as a slip ratio (F056, G08).
void grip(Memory& m, GuestAddr car, GuestAddr forces, GuestAddr stale_slot);

/// FUN_00417f48 — each touching wheel's torque / radius along its rolling direction (F031), added.
void wheel_drive(Memory& m, GuestAddr car, GuestAddr forces);

}  // namespace pod::forces
