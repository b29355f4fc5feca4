// The original's (WINPOD.EXE's) data addresses the port reads and writes, each with the document
// and inventory id it comes from (000 = the physics document, 002 = the track-world document, 003 =
// the main-loop document; F/G/C/A ids: port/FACTS.md and port/CHOICES.md). A bracketed name in a comment ("[0x4ed434]") means the word at
// that address holds a pointer, as the documents bracket it. Values the documents do not give are
// marked "chosen" and come from port/CHOICES.md.
#pragma once

#include <cstdint>

#include "pod/types.hpp"

namespace pod::addr {

// --- Race state (port/CHOICES.md "Race car fields", "Data blocks") ---

/// Race cars, one 0x558-byte record per racer (F015). The main-loop page gives 0x61aad0 (C01);
/// the physics page's address is the one measured against the running game's physics, and the
/// documents' README says to take it.
inline constexpr GuestAddr kRaceCars = 0x630838;
inline constexpr std::uint32_t kRaceCarSize = 0x558;  // F015
/// Drivers, 0xb0 each (003 gives the base; 000 the size; F167).
inline constexpr GuestAddr kDrivers = 0x61f870;
inline constexpr std::uint32_t kDriverSize = 0xb0;
/// The race block saved by the step log: beacons, race records, order, clock, catch-up records
/// (000, port/CHOICES.md "Data blocks"): [0x4f8d44, 0x4f9854).
inline constexpr GuestAddr kRaceBlock = 0x4f8d44;
inline constexpr GuestAddr kRaceBlockEnd = 0x4f9854;
/// Racer records in the race block: +0x40 + 0xbc × racer (F087).
inline constexpr std::uint32_t kRaceRecordsOffset = 0x40;
inline constexpr std::uint32_t kRaceRecordSize = 0xbc;
/// Catch-up records, four words each, reached from driver +0x90 (F123..F128).
inline constexpr GuestAddr kCatchUpRecords = 0x4f97c8;
/// Catch-up base: 0, 3000 or 6000 by difficulty (F127).
inline constexpr GuestAddr kCatchUpBase = 0x4f9848;
/// "The function at 0x4f984c" through which the catch-up target comes (A07).
inline constexpr GuestAddr kCatchUpTargetFn = 0x4f984c;
/// What the race's set-up stores there: catch_up::target's address (A07 read as a code pointer).
inline constexpr GuestAddr kCatchUpTarget = 0x422918;
/// The chassis search's call counter: the chassis point searches every 17th call (F075).
inline constexpr GuestAddr kChassisSearchCounter = 0x4f3310;
/// The car step's force array: 6 vec3, the five points' forces then the outside force (chosen,
/// CHOICES "Data blocks": the original keeps it in a static block, which a replay compares).
inline constexpr GuestAddr kStepForces = 0x4f3320;
inline constexpr std::uint32_t kStepForcesSize = 0x48;
/// Where the car step leaves the chassis point's move for the beacon test and its caller: two vec3,
/// the position at the step's entry and after stage 29 (chosen: right after the force array, F036).
inline constexpr GuestAddr kChassisMove = 0x4f3368;
inline constexpr std::uint32_t kChassisMoveSize = 0x18;
/// Difficulty (F127).
inline constexpr GuestAddr kDifficulty = 0x633334;
/// [0x63334c] damage option, [0x633314] must be 0 for damage (F098).
inline constexpr GuestAddr kDamageOption = 0x63334c;
inline constexpr GuestAddr kDamageBlock = 0x633314;

/// The frame-time block (G31; chosen, CHOICES "Race, controls and frame time"): +0 this car step's
/// dt (16.16 s; the catch-up scales it in place), +4 the frame-time sum (003's 0x621b74), +8 the
/// step's unscaled dt, +0xc the simulation step's number.
inline constexpr GuestAddr kFrameTime = 0x621b70;
inline constexpr std::uint32_t kFrameTimeSize = 0x10;

// --- Car against car and damage (port/CHOICES.md "Car against car and damage") ---

/// The racers' drawn objects, 0x80 each (003); the driver's +4 points at its racer's (000, 002).
inline constexpr GuestAddr kRaceObjects = 0x61a6d0;
inline constexpr std::uint32_t kRaceObjectSize = 0x80;
/// The contact record hull_test fills and the pair reads (chosen: a static block after the chassis
/// move, so a replay compares it).
inline constexpr GuestAddr kContact = 0x4f3380;
inline constexpr std::uint32_t kContactSize = 0x2c;
/// [0x61d5bc] human racers, [0x61d5c0] computer racers (which is which chosen, A35).
inline constexpr GuestAddr kHumanRacers = 0x61d5bc;
inline constexpr GuestAddr kComputerRacers = 0x61d5c0;
/// The part-chain macro that turns a part into its template (port/CHOICES.md "Car against car and damage"): the only macro the
/// chains hold.
inline constexpr GuestAddr kToTemplate = 0x4545a8;
/// Sound effects (eax = car, edx = slot); the car contact plays slot 7 (F097).
inline constexpr GuestAddr kSoundEffect = 0x4b8d64;

// --- The race loop and its clocks (port/CHOICES.md "The race loop") ---

/// The race clock (003 row 4: + [0x60be0c] once a pass; 0 at "GO!", F155, F159).
inline constexpr GuestAddr kRaceClock = 0x502740;
/// The pass's frame time: frame_clock writes it (row 8), the next pass's steps and its race clock read
/// it (chosen reading of G19: the word the race clock adds is the frame time the steps split).
inline constexpr GuestAddr kPassFrameTime = 0x60be0c;
/// frame_clock's last millisecond value (chosen: the word after 0x60be0c; G19). The countdown counts
/// on it (003: "the countdown counts on wall_ms").
inline constexpr GuestAddr kLastClock = 0x60be10;
/// The step unit: a frame longer than 3 × this splits into steps (003 row 3; F154; value chosen, G19).
inline constexpr GuestAddr kStepUnit = 0x60bdfc;
/// 1 in a time trial, 0 in a race (chosen address: the word after the racer counts, the STEP record's
/// "race modes"; F154).
inline constexpr GuestAddr kTimeTrial = 0x61d5c8;
/// The simulation step, the race step, the frame clock, the countdown, the zones (003, 000).
inline constexpr GuestAddr kSimStep = 0x49a89c;
inline constexpr GuestAddr kRaceStep = 0x49e63c;
inline constexpr GuestAddr kFrameClock = 0x4ae894;
inline constexpr GuestAddr kCountdown = 0x47b98c;
inline constexpr GuestAddr kZones = 0x456dd4;

// --- Track world (002, port/CHOICES.md "Track") ---

/// [0x57bf74] number of sectors; [0x57bf78] pointer to the 0x3c-byte sector records (000, 002).
inline constexpr GuestAddr kSectorCount = 0x57bf74;
inline constexpr GuestAddr kSectorTable = 0x57bf78;
inline constexpr std::uint32_t kSectorSize = 0x3c;
/// 16 surfaces of 12 bytes; a point's +0x18 holds 0x62bc0c + 12 × n; the first word is the grip
/// (F017, F136).
inline constexpr GuestAddr kSurfaces = 0x62bc0c;
inline constexpr std::uint32_t kSurfaceSize = 12;
inline constexpr std::uint32_t kSurfaceCount = 16;
/// [0x543254] non-zero when the track has race paths (000, 002).
inline constexpr GuestAddr kRacePaths = 0x543254;
/// The paths' link table (chosen; 002 names no list of all links): +0 the count n, +4 the n links'
/// addresses in the track's order, room for 32 (port/CHOICES.md "The race's paths").
inline constexpr GuestAddr kPathLinks = 0x543258;
inline constexpr std::uint32_t kMaxPathLinks = 32;
inline constexpr std::uint32_t kPathLinksSize = 4 + 4 * kMaxPathLinks;

// --- The props (G16, A18, A30 chosen: port/CHOICES.md "Props") ---

/// [0x62129c] the prop records ("Objets Collisionnables", 0xd0 each), [0x621298] their number (F110).
inline constexpr GuestAddr kProps = 0x62129c;
inline constexpr GuestAddr kPropCount = 0x621298;
/// One hit-flag byte per prop at 0x6212a0 (an array, A18; a byte each, chosen), room for 32 props.
inline constexpr GuestAddr kPropHitFlags = 0x6212a0;
inline constexpr std::uint32_t kMaxProps = 32;
/// The record keeping a prop contact's normal when the slant passes 0.885 (F114, A30; 0x18 bytes chosen).
inline constexpr GuestAddr kPropRest = 0x4f9440;
inline constexpr std::uint32_t kPropRestSize = 0x18;

// --- The C library and the smoke (G20, G22 chosen) ---

/// [0x4ed728] the getter (TlsGetValue) of the game thread's C library block; rand() keeps its seed
/// there (000). The seed is the block's word +0x10 (chosen).
inline constexpr GuestAddr kThreadBlockGetter = 0x4ed728;
inline constexpr std::uint32_t kRandSeedOffset = 0x10;
/// A thread block for a game that runs the port on its own memory (chosen; any free 0x40 bytes do).
inline constexpr GuestAddr kThreadBlockDefault = 0x7f1000;
inline constexpr std::uint32_t kThreadBlockSize = 0x40;
/// The smoke ring (chosen): +0 the next slot's count, +4 the number of puffs, 64 particles of 16 bytes
/// (x, y, z, amount) from +0x10.
inline constexpr GuestAddr kSmokeRing = 0x5b0000;
inline constexpr std::uint32_t kSmokeRingSize = 0x410;

// --- Arithmetic tables and constants (port/CHOICES.md "Arithmetic layer and tables") ---

/// [0x4ed434] pointer to the square-root table, entry i = floor(sqrt(i) × 65536) (F012).
inline constexpr GuestAddr kSqrtTablePtr = 0x4ed434;
/// [0x4ed42c] pointer to the reciprocal table, entry i = 2^24 / i truncated, i in -16384..16383
/// (F013). Used instead of idiv where |b| <= 32 (F005).
inline constexpr GuestAddr kRecipTablePtr = 0x4ed42c;
/// The sine table itself (unbracketed): entry i = round(sin(i × 8/65536) × 65536), 0..pi/2 (F014).
inline constexpr GuestAddr kSineTable = 0x72c704;
/// The double 1.5 × 2^68 the x87 routines add to round a sum to a multiple of 65536 (F006).
inline constexpr GuestAddr kRoundingConstant = 0x4ee0c0;
/// The double 2^-16 for the "× 1/65536" routes of cross16 and scale16 (chosen, CHOICES: next to M).
inline constexpr GuestAddr kInv65536Constant = 0x4ee0c8;
/// The tyre slip curve's parameters: peak 0.342, offset 0.523, curvatures 8.55 and 2.37 (F052).
inline constexpr GuestAddr kSlipCurve = 0x4e9a78;

// --- Code addresses named by the step (port/CHOICES.md "The car step and its functions") ---

/// The car (physics) step.
inline constexpr GuestAddr kCarStep = 0x41b66c;
/// Right after the controller returns: the step log's CTRL hook; the input bits (F027).
inline constexpr GuestAddr kAfterController = 0x41b6f6;

}  // namespace pod::addr
