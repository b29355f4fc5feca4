// The race: the beacon test the car step calls, and the race loop around the simulation (port/CHOICES.md
// "The race loop", "The car step and its functions").
//
// One pass of the race loop FUN_0049d4c0 runs, of 003's eleven rows, the four that touch the
// simulation, in this order (F153): 3 race_step (0, 1 or n simulation steps), 4 the race clock
// += the pass's frame time, 8 frame_clock (the next pass's frame time), 10 the countdown while the
// phase is not 0. The rest (keys, network, wrong-way, sound, drawing, the HUD) is the game's.
//
// The beacons' layout is the stand-in's own (chosen; the documents give the call, not the records):
// the race block's +0x620 holds their count, +0x624 the beacons (0x18 bytes each: a point and a
// normal); each racer's record (race block +0x40 + 0xbc × racer, F087) holds +0x08 the next beacon
// and +0x0c the beacons passed.
#pragma once

#include <cstdint>
#include <vector>

#include "pod/cars.hpp"
#include "pod/memory.hpp"
#include "pod/step.hpp"
#include "pod/types.hpp"

namespace pod::race {

inline constexpr std::uint32_t kBeaconCount = 0x620;   // in the race block
inline constexpr std::uint32_t kBeacons = 0x624;       // in the race block
inline constexpr std::uint32_t kBeaconSize = 0x18;
inline constexpr std::uint32_t kNextBeacon = 0x08;     // in the racer's record
inline constexpr std::uint32_t kBeaconsPassed = 0x0c;  // in the racer's record

/// frame_clock's factor: the frame time is the milliseconds × 65 (F156), 16.16 s (65.536 = 1 ms).
inline constexpr std::int32_t kTicksPerMillisecond = 65;
/// The frame time's clamp: at most 30000 (F157); at least one millisecond (chosen, G19: no step of
/// dt 0, which the collisions' impulse divides by).
inline constexpr Fixed kLongestFrame = 30000;
inline constexpr Fixed kShortestFrame = kTicksPerMillisecond;
/// The step unit the stand-in's race sets at 0x60bdfc (1/30 s; chosen, G19).
inline constexpr Fixed kStepUnit = 0x888;

/// FUN_0041cf2c — the beacon test (eax = driver, edx = the move: two vec3, before and after): a move
/// from behind the next beacon's plane to on or past it passes the beacon.
void beacon_test(Memory& m, GuestAddr driver, GuestAddr move);

/// What the game gives the simulation besides memory: each racer's controller (stage 2 of the car
/// step; an empty one leaves the driver's input as it stands) and the car step's scratch words.
struct Racers {
  std::vector<step::Controller> controllers;  // by racer number; missing = none
  step::Scratch scratch;
};

/// What one simulation step reports besides the state it writes.
struct SimOut {
  std::vector<step::Out> turns;          // per racer, in order: the car step's report
  std::vector<cars::PairOut> contacts;   // the collision pass's pairs that touched
};

/// What one pass reports.
struct PassOut {
  std::int32_t frame_time = 0;  // the frame time its steps split (0x60be0c as the pass found it)
  std::vector<SimOut> steps;    // one per simulation step run (0, 1 or n)
};

/// FUN_00456dd4 — the zones (003's race_zones, C07): undocumented (G20) and, measured, they changed no
/// car (000). A named seam that reads and writes nothing.
void zones(Memory& m);

/// FUN_0049a89c — one simulation step (F025; C04, C05, A32): for each racer r of [0x61d5bc] +
/// [0x61d5c0], the frame block's +0 set to its +8 (the step's unscaled time), the car step with the
/// racer's controller (the catch-up first; the wall impacts' damage applied, which damage::hit gates
/// on the option itself), upside-down, the pose and the wheels' roll; after all racers the zones,
/// then +0 set back to +8 (a computer car's turn left its scaled time there) and the collision pass.
SimOut sim_step(Memory& m, const Racers& racers);

/// FUN_0049e63c — the race step (003 row 3; F154, F161): F = [0x60be0c]; none while a time trial
/// ([0x61d5c8] ≠ 0) counts down (phase ≠ 0); else the frame-time sum (frame block +4) += F, and n
/// simulation steps of dt = F / n, n = F / [0x60bdfc] when F > 3 × [0x60bdfc], else one of dt = F;
/// before each the frame block's +8 = dt, after each its +0xc += 1.
PassOut race_step(Memory& m, const Racers& racers);

/// FUN_004ae894 — the frame clock (003 row 8; F156, F157): `now` is the millisecond clock the original
/// reads from timeGetTime (the game passes its own). [0x60be10] = now; [0x60be0c] = (now − the last
/// value) × 65, clamped to [65, 30000]. Returns the frame time.
Fixed frame_clock(Memory& m, std::uint32_t now);

/// FUN_0047b98c — the countdown (003 row 10; F130, F159), which the pass runs while the phase (race
/// block +0) is not 0: every racer's driver +0x7c = 0, the race clock 0x502740 = 0, and "GO!" (the
/// phase 0) once frame_clock's millisecond value reaches the race block's +0x08.
void countdown(Memory& m);

/// One pass of the race loop FUN_0049d4c0's body (003 rows 3, 4, 8, 10; F153, F155, F158): the race
/// step, the race clock += [0x60be0c], frame_clock(now), the countdown while the phase is not 0.
PassOut pass(Memory& m, std::uint32_t now, const Racers& racers);

}  // namespace pod::race
