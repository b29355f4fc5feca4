// The tyres: stage 18 of the car step (F049..F056; port/CHOICES.md "tyres::tyres").
#pragma once

#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::tyres {

/// Below this speed (0.92 units/s) the side limit is load × traction × surface grip (F050).
inline constexpr Fixed kSlowSpeed = 0xeb85;
/// Skid flag +0x39 past |slip| 0x4240, slide flag +0x38 past 0x9470 (F055).
inline constexpr std::uint32_t kSkidSlip = 0x4240;
inline constexpr std::uint32_t kSlideSlip = 0x9470;
/// The rolling limit is reduced once (limit / 256) × side limit passes this (F054).
inline constexpr Fixed kCircleKnee = 0x1dcd65;

/// The slip ratio the low-speed path tests for the first point, when nothing earlier in the call set
/// it (F056, G08). In the original it is what forces::grip left in the stack slot: the address of the
/// step's force array. The port reproduces that (grip stores the address, the tyres read the slot);
/// STALE_RATIO is the value a caller puts in the slot when no grip call ran before: above both
/// thresholds, as any force array address above 0x9470 is.
inline constexpr std::int32_t STALE_RATIO = 0x7fffffff;

/// The slip curve at 0x4e9a78 (F052; four i32 words: peak, offset, curvature below, above).
inline constexpr std::uint32_t kCurvePeak = 0x0;
inline constexpr std::uint32_t kCurveOffset = 0x4;
inline constexpr std::uint32_t kCurveBelow = 0x8;
inline constexpr std::uint32_t kCurveAbove = 0xc;

/// The curve's value at |slip ratio| x (unsigned), reading the words at 0x4e9a78 as needed.
Fixed slip_curve(Memory& m, std::uint32_t x);

/// FUN_0041af80 — each touching wheel's force split into rolling and side parts (F049), each held to
/// its limit (F050..F054); the skid and slide flags (F055). `stale_slot` is the stack word the slip
/// ratio lives in (entry esp − 0x400; see forces::grip).
void tyres(Memory& m, GuestAddr car, GuestAddr forces, GuestAddr stale_slot);

}  // namespace pod::tyres
