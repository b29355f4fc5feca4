// The props (F110..F121, F150): a track's cones, drums and boxes that cars
// knock about. The environment reader builds the global list (props::kind, props::centre,
// props::build); the collision pass, after the car pairs, tests every car against every prop
// (props::car_hit) and lets each hit prop push the props it touches and move (props::knock,
// props::motion, props::faces, props::impulse, props::remove). The documents name the steps and a few
// constants; every formula, offset and threshold they leave open is in port/CHOICES.md "Props".
#pragma once

#include <cstdint>
#include <vector>

#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::props {

/// F115: a contact point's gravity is its mass × 0x2d (an integer multiply).
inline constexpr std::int32_t kGravity = 0x2d;
/// F114: a contact whose normal's slant (its z) passes 0.885 puts one prop on the other (16.16, nearest).
inline constexpr Fixed kRestSlant = 0xe28f;
/// F119: on the ground the spin dies × 0.916 a step (16.16, nearest).
inline constexpr Fixed kSpinDecay = 0xea7f;
/// F120: "slow" (chosen): the velocity's and the spin's lengths under 0.5.
inline constexpr Fixed kSettleSpeed = 0x8000;
/// F120: a prop settles resting on three points or more.
inline constexpr int kSettlePoints = 3;
/// F121: a prop 8 below its sector's low bound is removed.
inline constexpr Fixed kFallDepth = 0x80000;
/// The ground face counts from 2.29 below the prop's position (as the wheels' band, F072) to its hull's
/// radius above (chosen).
inline constexpr Fixed kGroundBandBelow = 0x24a3d;

/// The environment's bytes (chosen format, port/CHOICES.md "Props"): a type is 0x40 + 0x14 × n bytes,
/// a prop 0x38.
inline constexpr std::uint32_t kTypeHeaderSize = 0x40;
inline constexpr std::uint32_t kTypePointSize = 0x14;
inline constexpr std::uint32_t kPropEntrySize = 0x38;

/// FUN_0046a780 — reads a prop type (eax = the type's bytes, edx = the 0xd0 record to fill, ebx = free
/// memory → eax = free memory after it): its object, hull (copied to free memory, +0x34 its address),
/// mass, inertia, health, friction, chain and contact points (copied to free memory, +0xb8), each
/// point in the first sector (002).
GuestAddr kind(Memory& m, GuestAddr bytes, GuestAddr record, GuestAddr free);

/// FUN_00454654 — the centre of mass (eax = a type's or a prop's record; F150, A29): Σ point offset ×
/// point mass, scaled by 2^32 / the prop's mass, taken off every point's offset and the hull's centre.
void centre(Memory& m, GuestAddr record);

/// FUN_00468cfc — builds the global prop list from the environment's bytes (eax = the bytes, edx =
/// free memory → eax = free memory after it): the types (kind, centre), then each prop a copy of its
/// type with its own points, its macro list, position and matrix from the file, every point in the
/// first in-play sector whose bounds hold the position (else the first sector); [0x62129c], [0x621298],
/// hit flags cleared. At most 32 props.
GuestAddr build(Memory& m, GuestAddr bytes, GuestAddr free);

/// FUN_004547a4 — the faces the prop's hull touches in its sector and the sector's neighbours (eax =
/// the prop): the first ground face it is over, within the band, into +0x70 and +0x64; the first wall
/// face within its hull's radius in front, into +0xb4 and +0xbc (0 and 0, 0, 0 when none, F122).
void faces(Memory& m, GuestAddr prop);

/// FUN_004214b4 — gives the prop an impulse (eax = the prop, edx = the normal, ebx = the signed
/// impulse, ecx = the contact point; F112): force along the normal, its torque about the position,
/// half the impulse off the health, the macro chain when the health runs out.
void impulse(Memory& m, GuestAddr prop, GuestAddr normal, Fixed j, GuestAddr point);

/// FUN_004215a8 — a car against a prop (eax = the racer, edx = the prop's number → eax 1 contact, 0
/// none; F111): the hull test with the prop second, the car's parts test, the impulse; the prop pushed
/// by half the overlap and given the impulse, its hit flag set; the car pushed back, given its impulse
/// and its damage, its drawn object placed again.
int car_hit(Memory& m, int racer, std::uint32_t prop);

/// FUN_00421750 — a hit prop pushes each prop it touches (eax = the prop's number; F113, F114): a quarter
/// of the impulse each way, the touched prop's hit flag set, and the two hand on what they rest on.
void knock(Memory& m, std::uint32_t prop);

/// FUN_00454a98 — the prop's motion (eax = the prop's number; F115..F121): its faces, gravity and the
/// planes' pushes on each point, the force along the ground cancelled while small, velocity, position
/// by the half step's velocity, spin by the inertia, the axes turned and squared again; on the ground
/// the spin dies and a slow prop on three points settles; a prop fallen 8 below its sector, held by no
/// neighbour, is removed.
void motion(Memory& m, std::uint32_t prop);

/// FUN_004adab0 — removes a prop from the list (eax = its number; F121): the records and hit flags
/// after it close up, the count drops by one.
void remove(Memory& m, std::uint32_t prop);

/// The props' part of the collision pass (FUN_0042196c after the car pairs): every car against every
/// prop, then each hit prop, in list order, knocking and moving (a removal skips the prop that moves
/// into its place, F121). `racers` is the pass's racer count.
void pass(Memory& m, std::int32_t racers);

/// Where a prop is, for drawing: its record's address, position and matrix (axes as columns).
struct Pose {
  GuestAddr record = 0;
  GuestAddr object = 0;  // the type's drawn object (+0x00)
  Vec3 position;
  Vec3 axes[3];
};

/// Every prop of the list, in order, as a renderer draws them.
std::vector<Pose> poses(Memory& m);

}  // namespace pod::props
