// The race's set-up that the documents give (port/CHOICES.md "Track", "The race's set-up (the stand-in's race_setup; chosen)"):
// each quad's half normals, the surfaces' defaults, a car on its grid slot and the settling before the
// countdown. The rest of the set-up (the car file, the garage settings, the track file, which start
// record each racer takes) is not ported: port/README.md, "Not yet ported".
#pragma once

#include <cstdint>

#include "pod/memory.hpp"
#include "pod/race.hpp"
#include "pod/types.hpp"

namespace pod::setup {

/// FUN_004247f8 — a quad's half normals (eax = quad, edx = its mesh; F133): +0x0c the unit normal of
/// half a b c, (b − a) × (c − a), and +0x18 that of half c d a, (d − c) × (a − c); each cross16 of
/// the corners (the mesh's vertices, F071's corners) divided component by component by its length16
/// (div16; a zero length leaves the cross product as it is). The face's own normal +0 is the file's
/// and is not touched (002).
void quad_halves(Memory& m, GuestAddr quad, GuestAddr mesh);

/// The surfaces' grips FUN_004985e8 writes (A08 read as successive surfaces' grips, F136): surface 0
/// 1.0, 1 50000, 2 40000, 3 25000 (raw 16.16 words), the rest 1.0.
inline constexpr Fixed kSurfaceGrips[4] = {0x10000, 50000, 40000, 25000};

/// FUN_004985e8 — the surface defaults (F136, A08): the 16 records of 12 bytes at 0x62bc0c, each
/// +0 its grip (kSurfaceGrips, then 1.0), +4 its number and +8 0 (chosen: port/CHOICES.md "Track").
void surface_defaults(Memory& m);

/// FUN_004236f0 — a car on its grid slot (eax = car, edx = the track's start record, 0x24 bytes:
/// the position at +0, then the heading at +0xc; F141): placed there as putback::place places a car
/// (FUN_00423538: the body at the point raised by 1, forward the heading made level, each point's
/// sector the first near it, a point outside every sector's bounds taking world::sector_any's
/// answer, FUN_0045ccd8). The start record's last 12 bytes are not read (G25).
void grid_slot(Memory& m, GuestAddr car, GuestAddr start_record);

/// The settling's step: this many step units [0x60bdfc] (F142).
inline constexpr std::int32_t kSettleUnits = 3;
/// How long the cars settle: 0x20000, 2 s in 16.16 (F142; 003's "two seconds of settling").
inline constexpr Fixed kSettleTime = 0x20000;
/// The input bits each car is given as it settles (F142): the brake bit (A05; "Racers, drivers and
/// controllers" in port/CHOICES.md).
inline constexpr std::uint32_t kSettleInput = 0x10;

/// FUN_0049b9d4 — the settling (F142; 003's race_setup FUN_0049f75c runs it, C03; port/CHOICES.md
/// G25): steps of kSettleUnits × [0x60bdfc] (the frame block's +0 and +8) while the time settled is
/// below kSettleTime; in each, for every racer of [0x61d5bc] + [0x61d5c0] in order, the input
/// kSettleInput at driver +0x34, its controller (`racers.controllers`; none leaves the input as set),
/// the car step from the controls (stages 3..32: no catch-up), FUN_004155b8 (the pose, then the
/// wheels' roll), FUN_0041e0d0, then the stuck timer +0x7c cleared. Nothing else of the simulation
/// step runs (upside-down, the zones, the collisions, the race paths). The time settled is the loop's
/// own count, in no memory word. Returns the number of steps run; a step unit that is not positive,
/// or one so small the loop would run away, is refused with an error naming it.
std::int32_t settle(Memory& m, const race::Racers& racers);

/// FUN_0041e0d0 — called in the settling (002's row), its purpose not given (G25): a named seam
/// that reads and writes nothing, called after each racer's pose (where the port calls it is chosen).
void settle_seam(Memory& m);

}  // namespace pod::setup
