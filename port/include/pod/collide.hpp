// Track contact on ground faces: stage 24 of the car step (000 "The track"; F069..F075; port/
// CHOICES.md "collide::…"). Walls (FUN_00416be0), the push-out, the free wheels on the touching
// wheels' planes (F077) and the put-back (F080) are not yet ported.
#pragma once

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

/// FUN_00417988 — the track pass (eax = car, edx = driver, not read): each point re-tests last step's
/// face (F069), else searches its sector and neighbours, or every sector each fourth call (F070), for
/// the first ground face it is over (F071) within the band (F072); wheels are lifted into the
/// suspension (F073), the chassis point gets a depth and a bounce (F074).
void track(Memory& m, GuestAddr car, GuestAddr driver);

}  // namespace pod::collide
