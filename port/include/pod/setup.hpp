// The race's set-up that the documents give (002 "The track world", "The race cars and the grid"):
// each quad's half normals, the surfaces' defaults and a car on its grid slot. The rest of the
// set-up (the car file, the garage settings, the track file, the settling) is not ported:
// port/README.md, "Not ported".
#pragma once

#include <cstdint>

#include "pod/memory.hpp"
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

}  // namespace pod::setup
