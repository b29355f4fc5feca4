// The car step FUN_0041b66c (port/CHOICES.md "The car step and its functions"), its inline stages, and what the
// simulation step runs after it for each racer: upside-down, the drawn object's pose and the wheels'
// roll (F025).
//
// Stages in the original's order (F026):
//   1 step::catch_up               13 forces::grip               24 collide::track
//   2 the controller (a callback)  14 forces::wheel_drive        25 drive::wheel_spin
//   3 input bits (inline)          15 slope hold (inline)        26 step::skid_smoke
//   4 drive::automatic             16 suspension::springs        27 suspension::travel
//   5 drive::gears                 17 normal forces (inline)     28 body::push_out
//   6 frames::wheel_axes, turn     18 tyres::tyres               29 touching counters (inline)
//   7 drive::engine                19 touch-time scaling         30 the beacon test (race::beacon_test)
//   8 drive::torque                20 body::integrate            31 step::stuck
//   9 torque split (inline)        21 body::impacts (inside 20)  32 step::sound_state
//  10 drive::brakes                22 suspension::substeps
//  11 rolling resistance (inline)  23 suspension::place_points
//  12 forces::air
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "pod/addresses.hpp"
#include "pod/body.hpp"
#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::step {

/// The stuck timer (F129): 2 s nearly stopped (under 1 unit/s, chosen) with the throttle on, then −2 s.
inline constexpr Fixed kStuckTime = 0x20000;
inline constexpr Fixed kStuckSpeed = 0x10000;
/// Put back after 2.5 s upside down (F081): 640 in the timer's 1/256 s.
inline constexpr std::uint32_t kUpsideDownPutBack = 640;

/// Where the step keeps what the original keeps outside the car: its force array (six vec3:
/// forces[0..4] the points', forces[5] the outside force; the original's static block) and the
/// stack word the slip ratio lives in (the original's entry esp − 0x400 of forces::grip and
/// tyres::tyres). Both must be mapped guest memory.
struct Scratch {
  /// The C library block rand() keeps its seed in (the original's comes from the getter at
  /// [0x4ed728], the game thread's own): smoke_emit's draws. Must be mapped (0x40 bytes).
  GuestAddr thread_block = addr::kThreadBlockDefault;
  /// The force array, 0x48 bytes at 0x4f3320 (chosen, port/CHOICES.md "Data blocks"): a replay of
  /// a whole 0x41b66c case compares these bytes.
  GuestAddr forces = addr::kStepForces;
  /// The slip ratio's word. The original's is on its stack (forces::grip's and tyres::tyres' entry
  /// esp − 0x400), below the car step's entry esp, so a replay does not compare it: a binding passes
  /// an address below the case's entry esp; a game any free word (default: after the chassis move).
  GuestAddr stale_slot = addr::kChassisMove + addr::kChassisMoveSize;
  static constexpr std::uint32_t kForcesSize = addr::kStepForcesSize;
};

/// Maps the scratch words, the chassis move block, the smoke ring and the thread block in a FlatMemory
/// (for a game), unless mapped already.
void map_scratch(FlatMemory& m, const Scratch& s = Scratch{});

/// A smoke puff the original draws (smoke_emit 0x45d44c, from FUN_0041a714): position and amount.
/// Not car state (F169); the port reports it for a renderer.
struct Smoke {
  Vec3 position;
  Fixed amount;
};

/// What the step reports besides the state it writes.
struct Out {
  /// eax: the address of the chassis point's move (F036): two vec3 at 0x4f3368, its position at the
  /// step's entry and after stage 29, as the beacon test got them.
  GuestAddr chassis_move = addr::kChassisMove;
  /// True when the track pass put the car back (F080). Of the caller's share (000 "Putting a car
  /// back"), the tracker and the lane target are the simulation step's paths pass (paths::after_step,
  /// cued by the driver's put-back mark); the rest is the caller's.
  bool put_back = false;
  /// The damage calls of the wall impacts (stage 21, F099), for the damage module.
  std::vector<body::Impact> impacts;
  /// Sound slots the original plays through 0x4b8d64 (eax = car, edx = slot), in order.
  std::vector<std::int32_t> sound_slots;
  /// Smoke puffs, in order.
  std::vector<Smoke> smoke;
};

/// What the step does with its wall impacts' damage calls (stage 21, F099): report them in
/// Out::impacts only, or also apply them (damage::hit, which reads the damage option itself) after
/// the body's motion (F100). A game with the damage option on applies them; the two are the same
/// bytes when the option [0x63334c] is 0.
enum class Damage { kReported, kApplied };

/// The controller (stage 2): `call [driver+0xc]` with eax = driver, edx = car. It writes the
/// driver's input bits +0x34 and the analog amounts +0x40, +0x44, +0x48 (and may write car +0x4ec).
using Controller = std::function<void(Memory& m, GuestAddr driver, GuestAddr car)>;

/// FUN_00422be8 — a computer car's time scale (eax = car, edx = driver): moves the catch-up record's
/// scale towards the target racer's place and multiplies the frame time at 0x621b70 by it
/// (F123..F128): the distance along the race paths (the link values at the drivers' trackers), or
/// straight along the car's forward axis within 50 or without paths. The target racer's driver comes
/// through the function at [0x4f984c] (A07), which must be catch_up::target (the set-up stores it;
/// anything else is refused with an error); no such racer: nothing scaled.
void catch_up(Memory& m, GuestAddr car, GuestAddr driver);

/// FUN_0041b66c — the whole car step (eax = car, edx = driver): stage 1, the controller (none: the
/// driver's input is left as it is), then step_from_controls.
Out step(Memory& m, GuestAddr car, GuestAddr driver, const Scratch& scratch = Scratch{},
         const Controller& controller = {}, Damage damage = Damage::kReported);

/// The car step from right after the controller (0x41b6f6, the step log's CTRL point) to its end:
/// stages 3..32. A CTRL record's state through this gives the PHYS record's.
Out step_from_controls(Memory& m, GuestAddr car, GuestAddr driver, const Scratch& scratch = Scratch{},
                       Damage damage = Damage::kReported);

/// FUN_0041a714 — skid marks and smoke: each skidding wheel emits a puff (smoke_emit), then each
/// wheel's last sector +0x20 = its sector +0x1c. Puffs are also reported in `smoke` (drawing is the
/// renderer's).
void skid_smoke(Memory& m, GuestAddr car, GuestAddr thread_block, std::vector<Smoke>* smoke = nullptr);

/// 0x45d44c — smoke_emit (eax = the position's address, edx = amount): a particle in the smoke ring
/// at 0x5b0000, scattered by two rand() draws (F169: nothing reaches the car).
void smoke_emit(Memory& m, GuestAddr position, Fixed amount, GuestAddr thread_block);

/// 0x4c7f37 — the C library's rand(): a linear congruential step of the seed at the thread block's
/// +0x10; returns bits 16..30 (G22, chosen).
std::int32_t rand(Memory& m, GuestAddr thread_block);

/// FUN_004227bc — the stuck timer at driver +0x7c, computer drivers only (F129): counts the time
/// spent nearly stopped with the throttle on; past 2 s it becomes −2 s (the controller reverses while
/// it counts back up).
void stuck(Memory& m, GuestAddr car, GuestAddr driver);

/// FUN_004159d8 — upside-down (after the step, F025): the timer +0x4f0 counts the time (low half,
/// 1/256 s) and the steps (high half) the car lies upside down; after 2.5 s the car is put back
/// (F081). Returns true when it put the car back.
bool upside_down(Memory& m, GuestAddr car, GuestAddr driver);

/// FUN_004155b8 — the drawn object's pose from the car (F089: the matrix +0x48 with the forward,
/// left and up axes as columns, the position +0x6c the chassis point less up × the hull's z half
/// size), when the driver has one (+4), then the wheels' roll.
void pose(Memory& m, GuestAddr car, GuestAddr driver);

/// FUN_00415424 — the wheels' roll: each wheel's angle +0x5c turns by its spin × the step's time,
/// kept in (−π, π].
void wheel_roll(Memory& m, GuestAddr car);

/// One racer's turn in the simulation step (F025): the car step from its controls, upside-down, then
/// the pose and the wheels' roll (the stand-in keeps this per-racer body at 0x49a800).
Out racer_step_from_controls(Memory& m, GuestAddr car, GuestAddr driver, const Scratch& scratch = Scratch{},
                             Damage damage = Damage::kReported);

/// Stage 29 — the touching counters +0xd4 (F018): 1..16 while down, −1..−16 while off.
void touching_counters(Memory& m, GuestAddr car);

/// Stage 32 — the sound state +0x4f9 and the skid counter +0x4f8 (F022), with the slots to play.
/// `engine_at_entry` is +0x440 as the step found it.
void sound_state(Memory& m, GuestAddr car, Fixed engine_at_entry, std::vector<std::int32_t>* slots = nullptr);

}  // namespace pod::step

namespace pod::catch_up {

/// FUN_00422918 — the catch-up's target racer by number (eax = racer; called through [0x4f984c],
/// A07): that racer's driver (0x61f870 + 0xb0 × racer), or 0 when the number is negative or not below
/// [0x61d5bc] + [0x61d5c0] (the counts read only for a number >= 0).
GuestAddr target(Memory& m, std::int32_t racer);

}  // namespace pod::catch_up
