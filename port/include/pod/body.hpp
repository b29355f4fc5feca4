// The body: stage 20 of the car step (000 "The body"; F057, F058, F061..F067; port/CHOICES.md
// "body::integrate"), and its helper exp16.
#pragma once

#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::body {

/// 15/16 of the yaw torque is taken away: the original subtracts 0xf000/65536 of it (F061).
inline constexpr Fixed kYawRemoved = 0xf000;
/// Position moves by the mean velocity × dt × step_scale, 1.1942 (F063).
inline constexpr Fixed kStepScale = 0x131b7;
/// Spin held to 2.29 rad/s on its largest axis (F064).
inline constexpr Fixed kSpinLimit = 0x24a3d;
/// In the air: spin decays by e^(−3.5 dt) (F065), the nose turns into the velocity by e^(−1.03 dt)
/// (F066), the steering moves the car sideways by 0x5a0000 × dt × steer above 30 units/s (F067).
inline constexpr Fixed kAirSpinDecay = 0x38000;
inline constexpr Fixed kAirNoseTurn = 0x107ae;
inline constexpr Fixed kAirSteer = 0x5a0000;
inline constexpr Fixed kAirSteerSpeed = 0x1e0000;
/// "At speed" for the nose turn: 10 units/s (chosen, G09).
inline constexpr Fixed kNoseTurnSpeed = 0xa0000;

/// FUN_004c5ed8 — e^x ≈ 1 + x + x²/2 (F011) in 16.16 integers (chosen, CHOICES "exp16"):
/// low32(0x10000 + x + (mul16(x, x) >> 1)).
Fixed exp16(Fixed x);

/// FUN_00419ad0 — the body (eax = car, edx = forces): sums the touching points' forces with the
/// outside force, the weight and the carried force (F057), their torques about the centre (F058),
/// takes 15/16 of the yaw away (F061), integrates velocity (F062), position (F063), spin (F064) and
/// the axes, with the air behaviour (F065..F067). Wall impacts (FUN_00416284, stage 21) and the
/// nearly-stopped turn on the spot (F068) are not yet ported.
void integrate(Memory& m, GuestAddr car, GuestAddr forces);

}  // namespace pod::body
