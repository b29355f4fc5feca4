// The points' frames: stage 6 of the car step (port/CHOICES.md "frames::…").
#pragma once

#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::frames {

/// FUN_0041b3d4 — each point's axes (+0x60 rolling direction, +0x6c axle, +0x78 up) become the car's
/// forward, left and up (the 36 bytes at +0x4a4 copied, as the original's memmove does).
void wheel_axes(Memory& m, GuestAddr car);

/// FUN_00424704 — turns front wheels 0 and 2's rolling direction and axle by `angle` (16.16 rad,
/// positive left) about their up axis, with cos16 and sin16.
void turn(Memory& m, GuestAddr car, Fixed angle);

}  // namespace pod::frames
