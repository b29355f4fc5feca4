// The car step FUN_0041b66c (000 "The step"; inventory 1.1) and its inline stages, up to ground
// contact: the first slice of the port. Formulas beyond the documents: port/CHOICES.md ("step::step",
// "step::catch_up", "step::skid_smoke").
//
// Stages in the original's order (F026); "not yet ported" marks the later ones:
//   1 step::catch_up              13 forces::grip               24 collide::track (ground faces)
//   2 the controller (a callback)  14 forces::wheel_drive        25 drive::wheel_spin
//   3 input bits (inline)          15 slope hold (inline)        26 step::skid_smoke (sectors; smoke
//   4 drive::automatic             16 suspension::springs           reported, not drawn)
//   5 drive::gears                 17 normal forces (inline)     27 suspension::travel  — not yet ported
//   6 frames::wheel_axes, turn     18 tyres::tyres               28 body::push_out      — not yet ported
//   7 drive::engine                19 touch-time scaling         29 touching counters (inline)
//   8 drive::torque                20 body::integrate            30 beacon test (pod_race) — not yet ported
//   9 torque split (inline)        21 body::impacts (walls)      31 step::stuck         — not yet ported
//  10 drive::brakes                   — not yet ported           32 step::sound_state
//  11 rolling resistance (inline)  22 suspension::substeps
//  12 forces::air                  23 suspension::place_points
// The track pass's walls (FUN_00416be0), free wheels on the touching wheels' planes (F077) and the
// put-back (FUN_00415730) are not yet ported either.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "pod/addresses.hpp"
#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::step {

/// Where the step keeps what the original keeps outside the car: its force array (six vec3:
/// forces[0..4] the points', forces[5] the outside force; the original's static block) and the
/// stack word the slip ratio lives in (the original's entry esp − 0x400 of forces::grip and
/// tyres::tyres). Both must be mapped guest memory.
struct Scratch {
  /// The force array, 0x48 bytes at 0x4f3320 (chosen, port/CHOICES.md "Data blocks", answer A1 to
  /// the port's Q1): a replay of a whole 0x41b66c case compares these bytes.
  GuestAddr forces = addr::kStepForces;
  /// The slip ratio's word. The original's is on its stack (forces::grip's and tyres::tyres' entry
  /// esp − 0x400), below the car step's entry esp, so a replay does not compare it: a binding passes
  /// an address below the case's entry esp; a game any free word (default: right after the forces).
  GuestAddr stale_slot = addr::kStepForces + addr::kStepForcesSize;
  static constexpr std::uint32_t kForcesSize = addr::kStepForcesSize;
};

/// Maps the scratch words in a FlatMemory (for a game), unless mapped already.
void map_scratch(FlatMemory& m, const Scratch& s = Scratch{});

/// A smoke puff the original draws (smoke_emit 0x45d44c, from FUN_0041a714): position and amount.
/// Not car state (F169); the port reports it for a renderer.
struct Smoke {
  Vec3 position;
  Fixed amount;
};

/// What the step reports besides the state it writes.
struct Out {
  /// eax: length16 of the chassis point's move during the step (F036; as a length, chosen).
  Fixed chassis_move = 0;
  /// Sound slots the original plays through 0x4b8d64 (eax = car, edx = slot), in order.
  std::vector<std::int32_t> sound_slots;
  /// Smoke puffs, in order.
  std::vector<Smoke> smoke;
};

/// The controller (stage 2): `call [driver+0xc]` with eax = driver, edx = car. It writes the
/// driver's input bits +0x34 and the analog amounts +0x40, +0x44, +0x48 (and may write car +0x4ec).
using Controller = std::function<void(Memory& m, GuestAddr driver, GuestAddr car)>;

/// FUN_00422be8 — a computer car's time scale (eax = car, edx = driver): moves the catch-up record's
/// scale towards the target racer's place and multiplies the frame time at 0x621b70 by it
/// (F123..F128; the race-path distance replaced by the straight one along the car's forward axis,
/// chosen: the stand-in has no race paths).
void catch_up(Memory& m, GuestAddr car, GuestAddr driver);

/// FUN_0041b66c — the whole car step (eax = car, edx = driver): stage 1, the controller (none: the
/// driver's input is left as it is), then step_from_controls.
Out step(Memory& m, GuestAddr car, GuestAddr driver, const Scratch& scratch = Scratch{},
         const Controller& controller = {});

/// The car step from right after the controller (0x41b6f6, the step log's CTRL point) to its end:
/// stages 3..32. A CTRL record's state through this gives the PHYS record's.
Out step_from_controls(Memory& m, GuestAddr car, GuestAddr driver, const Scratch& scratch = Scratch{});

/// FUN_0041a714 — skid marks and smoke: each wheel's last sector +0x20 = its sector +0x1c; skidding
/// wheels' smoke is reported in `smoke` (drawing is the renderer's).
void skid_smoke(Memory& m, GuestAddr car, std::vector<Smoke>* smoke = nullptr);

/// Stage 29 — the touching counters +0xd4 (F018): 1..16 while down, −1..−16 while off.
void touching_counters(Memory& m, GuestAddr car);

/// Stage 32 — the sound state +0x4f9 and the skid counter +0x4f8 (F022), with the slots to play.
/// `engine_at_entry` is +0x440 as the step found it.
void sound_state(Memory& m, GuestAddr car, Fixed engine_at_entry, std::vector<std::int32_t>* slots = nullptr);

}  // namespace pod::step
