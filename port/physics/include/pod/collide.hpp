// Track contact: stage 24 of the car step (F069..F077, F080): ground faces, the
// free wheels on the touching wheels' planes, the walls of the sectors found, the fall test.
#pragma once

#include <cstdint>

#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::collide {

/// A point counts as on a face from 2.29 below to one radius above (F072).
inline constexpr Fixed kBandBelow = 0x24a3d;
/// A floor more than 0.195 off the car's up axis (dot16 <= this) lifts no wheel (F073, chosen reading).
inline constexpr Fixed kFloorUpMin = 0x31ec;
/// The chassis point searches every 17th call of the counter at 0x4f3310 (F075).
inline constexpr std::int32_t kChassisEvery = 17;
/// A wheel's normal "points away from the car's up axis" below this dot product (chosen, ~20°).
inline constexpr Fixed kWheelNormalMin = 0xf000;

/// FUN_00424ba4 — is the point (eax, its +0x00) over the quad (edx) of the mesh (ebx)? By the side of
/// the A–C diagonal (F071): 1 over half a b c, 2 over half c d a, 0 not.
int over_quad(Memory& m, GuestAddr point, GuestAddr quad, GuestAddr mesh);

/// FUN_00424ee4 — is the point over the triangle? 1 or 0.
int over_triangle(Memory& m, GuestAddr point, GuestAddr triangle, GuestAddr mesh);

/// FUN_004174f8 — the point touches the face: its surface +0x18, contact normal +0x24, face +0x30 /
/// +0x34 / +0x3b and touching +0x3a. kind: 0 triangle, 1 quad half a b c, 2 half c d a.
void touch_face(Memory& m, GuestAddr point, GuestAddr face, GuestAddr mesh, int kind);

/// FUN_00417884 — does the chassis point search this call (F075)? Advances the counter at 0x4f3310.
bool chassis_searches(Memory& m, GuestAddr car);

/// A wall's bounce, written with its depth (chosen: 0.5 for every face).
inline constexpr Fixed kBounce = 0x8000;
/// The fall test: nothing found and wheel 0 more than 10 below its sector's low bound (F080).
inline constexpr Fixed kFallDepth = 0xa0000;

/// FUN_004167ec — a wall's push on the point (eax = point, edx = the face normal's address, ebx =
/// depth): kept when deeper than the point's +0xc0 so far, with the normal as direction +0xc4 and
/// the bounce +0xd0 (F074).
void wall_depth(Memory& m, GuestAddr point, GuestAddr normal, Fixed depth);

/// FUN_004168dc — the point against the sector's faces (eax = point, edx = sector, ebx = car): walls
/// for every point, walls and floors for the chassis point; a face it reaches into (its radius,
/// grown by the lift factor +0x3c, F024) gives wall_depth.
void push_faces(Memory& m, GuestAddr point, GuestAddr sector, GuestAddr car);

/// FUN_00416be0 — the walls of the sectors found (eax = car, edx = a list of sector addresses, ebx =
/// their number; the track pass gives each distinct sector of points 0..4 in point order, F076):
/// push_faces for each sector and each point.
void sector_walls(Memory& m, GuestAddr car, GuestAddr sectors, std::int32_t count);

/// FUN_00417988 — the track pass (eax = car, edx = driver): each point re-tests last step's face
/// (F069), else searches its sector and neighbours, or every sector each fourth call (F070), for the
/// first ground face it is over (F071) within the band (F072); wheels are lifted into the suspension
/// (F073). With two or three wheels down the free wheels try the touching wheels' planes (F077); then
/// the walls of the sectors found (F076); when nothing was found and wheel 0 is 10 below its sector,
/// the car is put back (F080). Returns true when it put the car back.
bool track(Memory& m, GuestAddr car, GuestAddr driver);

}  // namespace pod::collide
