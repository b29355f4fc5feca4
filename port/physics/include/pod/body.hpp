// The body: stage 20 of the car step (F057, F058, F061..F067; port/CHOICES.md
// "body::integrate"), and its helper exp16.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

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

/// Wall impacts (F059, F060): the closing speed's allowance 0.264 and the friction's 0.15.
inline constexpr Fixed kImpactAllowance = 0x4396;
inline constexpr Fixed kImpactFriction = 0x2666;
/// The turn on the spot (F068): nearly stopped is under 1 unit/s; the yaw spin per radian of
/// steering (chosen, G09).
inline constexpr Fixed kSpotTurnSpeed = 0x10000;
inline constexpr Fixed kSpotTurnRate = 0x20000;
/// The parts a point's impact hands to the damage, by point (wheels 0..3 as the broken-part bits of
/// F105 name them, the chassis the middle parts; chosen).
inline constexpr std::uint32_t kImpactParts[5] = {0x10, 0x01, 0x20, 0x02, 0x0c};

/// One call of the damage (FUN_00420e54 from FUN_00416284, F099): the parts hit and the strength, a
/// quarter of the impulse. Damage is applied by its own module; the body reports the calls.
struct Impact {
  std::uint32_t parts = 0;
  Fixed strength = 0;
  friend bool operator==(const Impact&, const Impact&) = default;
};

/// FUN_00416284 — wall impulses (eax = car, edx = the body's force sum, ebx = its torque sum, world
/// axes): every point's impulse +0x84 cleared, then each point pushed into a wall (+0xc0 > 0) and
/// closing on it faster than 0.264 takes (−v·n − 0.264) × mass / dt × its bounce along the wall's
/// direction, shared among the points hit (halved for two); a single point also friction up to 0.15
/// of it (F059, F060). The impulses join the force and torque sums; `calls` gets the damage calls.
/// Returns the number of points hit.
int impacts(Memory& m, GuestAddr car, Vec3& force, Vec3& torque, std::vector<Impact>* calls = nullptr);

/// FUN_00416030 — out of the walls (stage 28): the points' wall pushes combined (each only by what
/// the ones before did not already cover) move the body and its points.
void push_out(Memory& m, GuestAddr car);

/// FUN_004c5ed8 — e^x ≈ 1 + x + x²/2 (F011) in 16.16 integers (chosen, CHOICES "exp16"):
/// low32(0x10000 + x + (mul16(x, x) >> 1)).
Fixed exp16(Fixed x);

/// FUN_00419ad0 — the body (eax = car, edx = forces): sums the touching points' forces with the
/// outside force, the weight and the carried force (F057), their torques about the centre (F058),
/// adds the wall impacts (stage 21, F034), takes 15/16 of the yaw away (F061), integrates velocity
/// (F062), position (F063), spin (F064), the turn on the spot (F068) and the axes, with the air
/// behaviour (F065..F067). `impacts` gets the damage calls of stage 21.
void integrate(Memory& m, GuestAddr car, GuestAddr forces, std::vector<Impact>* impacts = nullptr);

}  // namespace pod::body
