// The props (000 "Props", 002 "Props"; F110..F121, F150): a track's cones, drums and boxes that cars
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
/// F120: "slow" (chosen): the velocity's length under 1 unit/s.
inline constexpr Fixed kSettleSpeed = 0x10000;
/// F120: a prop settles resting on three points or more.
inline constexpr int kSettlePoints = 3;
/// F121: a prop 8 below its sector's low bound is removed.
inline constexpr Fixed kFallDepth = 0x80000;

/// The environment's bytes (chosen format, port/CHOICES.md "Props"): a type is 0x40 + 0x14 × n bytes,
/// a prop 0x38.
inline constexpr std::uint32_t kTypeHeaderSize = 0x40;
inline constexpr std::uint32_t kTypePointSize = 0x14;
inline constexpr std::uint32_t kPropEntrySize = 0x38;

/// What props::faces found: bit 0 a ground face, bit 1 a wall face.
inline constexpr int kFoundGround = 1;
inline constexpr int kFoundWall = 2;

/// FUN_0046a780 — reads a prop type (eax = the 0xd0 record to fill, edx = the type's bytes → eax = the
/// bytes after it): its object, hull, mass, inertia, health, friction, chain and contact points, each
/// point in the first sector (002). The hull and the points take memory from the heap word [0x6212e0].
GuestAddr kind(Memory& m, GuestAddr record, GuestAddr bytes);

/// FUN_00454654 — the centre of mass (eax = a type's or a prop's record; F150, A29): Σ point offset ×
/// point mass, scaled by 2^32 / the prop's mass, taken off every point's offset and the hull's centre.
void centre(Memory& m, GuestAddr record);

/// FUN_00468cfc — builds the global prop list from the environment's bytes (eax): the types (kind,
/// centre) at 0x650000, then each prop a copy of its type with its own points, its position, matrix
/// and macro list from the file, every point in the first in-play sector whose bounds hold the position
/// (else the first sector); [0x62129c], [0x621298], the hit flags cleared. Memory from [0x6212e0].
void build(Memory& m, GuestAddr bytes);

/// FUN_004547a4 — the faces the prop touches in its sector and the sector's neighbours (eax = the
/// prop's record → eax = kFoundGround | kFoundWall): the first ground face whose corners' x and y
/// boxes hold its position (+0x70, +0x64; left as they are when none, so a plane handed on stays), the
/// first wall face within its hull's radius (+0xc0, +0xc4).
int faces(Memory& m, GuestAddr prop);

/// FUN_004214b4 — gives prop i an impulse (eax = i, edx = the normal, ebx = the signed impulse, ecx =
/// the contact point; F112): force along the normal, its torque about the position, the last impulse
/// (+0xbc), its hit flag, half the impulse off the health, the macro chain when the health runs out.
void impulse(Memory& m, std::uint32_t prop, GuestAddr normal, Fixed j, GuestAddr point);

/// FUN_004215a8 — a car against a prop (eax = the racer, edx = the prop's number → eax = the impulse;
/// F111): the hull test with the prop as the second hull, the car's parts test, the impulse; the prop
/// pushed by half the overlap and given the impulse; the car pushed back, given its impulse and its
/// damage, its drawn object placed again.
Fixed car_hit(Memory& m, int racer, std::uint32_t prop);

/// FUN_00421750 — a hit prop pushes each prop it touches (eax = the prop's number; F113, F114): a quarter
/// of its last impulse, and the two hand on what they rest on.
void knock(Memory& m, std::uint32_t prop);

/// FUN_00454a98 — the prop's motion (eax = the prop's number → eax 1 when it was removed; F115..F121):
/// its faces, gravity and the planes' pushes on each point, the force along the ground cancelled while
/// small, velocity, position by the half step's velocity, spin by the inertia, the axes turned and
/// squared again; on the ground the spin dies and a slow prop on three points settles; a prop fallen 8
/// below its sector, resting on nothing, is removed.
int motion(Memory& m, std::uint32_t prop);

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
