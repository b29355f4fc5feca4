// The drivetrain: stages 4, 5, 7, 8, 10 and 25 of the car step (F019..F021,
// F037..F047). Formulas beyond the documented constants are the table of choices' (port/CHOICES.md,
// "drive::…" sections). Each function reads and writes the car at its guest address, as the
// original does; `dt` is the frame-time block's +0 (0x621b70) as it stands.
#pragma once

#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::drive {

/// A gear change lasts 15000/65536 s (F020).
inline constexpr Fixed kGearChangeTime = 15000;
/// Torque curve index: engine rad/s × 0x98c9e (60/2π in 16.16) >> 24 gives rpm / 256 in 16.16 (F042).
inline constexpr std::int32_t kRpmOver256 = 0x98c9e;
/// A human driver's torque scale, 0.70 (F043).
inline constexpr Fixed kHumanTorque = 0xb3b0;
/// Off the throttle in gear the torque is scaled "by 4 against the gear" (F044): × 4, negative.
inline constexpr Fixed kAgainstGear = 0x40000;
/// Gear-change request bits at car +0x449 (F019).
inline constexpr std::uint8_t kRequestUp = 0x20;
inline constexpr std::uint8_t kRequestDown = 0x40;
/// Automatic gearbox: car +0x448 bit 2 (F021).
inline constexpr std::uint8_t kAutomatic = 0x04;

/// The gear's ratio: +0x484 + 4(g − 1) for g >= 1, −ratio(1) for reverse, 0 in neutral (chosen).
Fixed ratio(Memory& m, GuestAddr car, int gear);

/// FUN_004191c4 — automatic gearbox (eax = car): asks for a change at the shift points.
void automatic(Memory& m, GuestAddr car);
/// FUN_00418f0c — gear changes (eax = car): the change timer, up from neutral's re-map (F046),
/// down-shifts skipping gears under +0x478 (F047).
void gears(Memory& m, GuestAddr car);
/// FUN_00418010 — engine speed (eax = car, edx = driver, not read): out of gear it rises by
/// rev_up·dt with the throttle (F038) and falls by rev_down·dt/2 without (F039); in gear it follows
/// the wheels; always 0 .. engine_max − 1 (F040).
void engine(Memory& m, GuestAddr car, GuestAddr driver);
/// FUN_004185ac — the wheels' engine speed +0x444 (F041) and the drive torque from the curve (F042,
/// F043, F044, F045); returns it (eax) and stores it at +0x464.
Fixed torque(Memory& m, GuestAddr car, GuestAddr driver);
/// FUN_004189c4 — brake hold time +0x52c and each wheel's brake torque +0x58.
void brakes(Memory& m, GuestAddr car, GuestAddr driver);
/// FUN_00418bd4 — wheel spin +0x50: rolling wheels from their speed, free ones from their torques;
/// clears car +0x404.
void wheel_spin(Memory& m, GuestAddr car, GuestAddr driver);

}  // namespace pod::drive
