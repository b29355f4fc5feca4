// Damage (F098..F107): when the option is on, an impulse from a car contact or a wall
// impact takes health off the drawn object's first six parts; a part that runs out becomes its
// damaged template (its macro chain) and hurts the wheels beside it. The damage record for the race
// display (FUN_0047ed1c) is the display's and is not ported.
#pragma once

#include <cstdint>
#include <vector>

#include "pod/body.hpp"
#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::damage {

/// F102: damage happens when half the impulse reaches 50,000.
inline constexpr Fixed kHalfImpulseThreshold = 50000;
/// F101: a part's health at the start ([0x61ea68]).
inline constexpr std::int32_t kStartHealth = 2000000;
/// The option's value for mode 2 (only the parts in the contact's mask; A31, chosen): any other
/// non-zero value is mode 1, all six.
inline constexpr std::int32_t kModeMask = 2;
/// F106: one wheel hurt, grips × 0.95 and rolling resistance + radius² × 15.26 (16.16, nearest).
inline constexpr Fixed kWheelGrip = 0xf333;
inline constexpr Fixed kWheelResistance = 0xf428f;
/// F107: a wheel pair hurt, grips × 0.97 and each rolling resistance + radius² × 7.63.
inline constexpr Fixed kAxleGrip = 0xf852;
inline constexpr Fixed kAxleResistance = 0x7a148;
/// A chain longer than this is a loop in the data (the original would run it for ever).
inline constexpr int kChainLimit = 4096;

/// FUN_00420e54 — damage to a car (eax = car, edx = the parts near the hit, a mask with bit i for
/// part i, ebx = the strength: a contact's impulse, or a quarter of a wall impact's). Only when the
/// option [0x63334c] is on and [0x633314] is 0 (F098), and half the strength reaches 50,000 (F102):
/// the half is shared by idiv among the parts hit (mode 2: those of the six in the mask; mode 1: all
/// six); a part that runs out becomes its template through its chain (F103, F104) and hurts its
/// wheels (F105).
void hit(Memory& m, GuestAddr car, std::uint32_t parts, Fixed strength);

/// FUN_004545a8 — the chain's macro (eax = part, edx = template): the part takes the template's hull,
/// chain and health, keeping its offsets and placement (F104).
void to_template(Memory& m, GuestAddr part, GuestAddr templ);

/// Runs a macro chain on a part (or a prop, whose hull, chain and health lie where a part's do): each
/// element's macro with (part, argument), the next element as read before the call. The port knows
/// the one macro the documents name (to_template); another does nothing here.
void run_chain(Memory& m, GuestAddr part, GuestAddr chain);

/// FUN_00415318 — the wheels a broken part hurts (eax = car, edx = the part bits), each set bit in
/// ascending order: 1 wheel 1, 2 wheel 3, 4 wheels 0 and 1, 8 wheels 2 and 3, 0x10 wheel 0, 0x20
/// wheel 2 (F105).
void wheels_hurt(Memory& m, GuestAddr car, std::uint32_t bits);

/// FUN_00415270 — one wheel hurt (eax = car, edx = the wheel, F106).
void wheel(Memory& m, GuestAddr car, int wheel);

/// FUN_004152ac — a wheel pair hurt (eax = car, edx = the first wheel; it and the next, F107; the
/// pairs F105 names are 0 and 1, 2 and 3: one side each, C18).
void axle(Memory& m, GuestAddr car, int first);

/// The car step's wall impacts' damage calls (body::Impact, F099), in order: what the original's
/// stage 21 calls at 0x4164a4 and 0x4166de. The port runs them after the body's motion (F100).
void impacts(Memory& m, GuestAddr car, const std::vector<body::Impact>& calls);

}  // namespace pod::damage
