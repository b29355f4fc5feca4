// The suspension: stages 16, 22, 23, 27 (F033, F035; port/CHOICES.md "suspension::…").
#pragma once

#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::suspension {

/// The spring and damper output's limit, ±7.63 quarter weights (F033).
inline constexpr Fixed kSpringLimit = 0x7a148;
/// Sub-steps of at most 0x444 (F035).
inline constexpr Fixed kSubStep = 0x444;

/// FUN_004194c8 — each wheel's spring and damper output +0x9c, held to ±7.63 (F033). `forces` (edx)
/// is not read.
void springs(Memory& m, GuestAddr car, GuestAddr forces);

/// FUN_00419564 — the free wheels' heights +0x94 and rates +0x98, in n equal sub-steps of at most
/// 0x444 (F035).
void substeps(Memory& m, GuestAddr car);

/// FUN_00419680 — every point's position +0x00 and velocity +0x0c from the body (centre, axes,
/// velocity, spin) and the point's hang offset and suspension extension.
void place_points(Memory& m, GuestAddr car);

/// FUN_0041988c — wheel travel limits (stage 27): each wheel's height held to [0, droop]; when a
/// touching wheel bottoms out (the track pass found it past the top of its travel, +0xa4), the body
/// and its points are pushed up the car's up axis by the most any did, and the velocity into the
/// ground along up is taken away.
void travel(Memory& m, GuestAddr car);

}  // namespace pod::suspension
