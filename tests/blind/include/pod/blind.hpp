// The twelve functions of the blind reading, in namespace pod::blind. Each has the port's signature
// (the same binding calls both). Inside pod::blind call the port's functions fully qualified
// (::pod::drive::ratio, ::pod::math::mul16) and the other blind functions as ::pod::blind::X::f.
#pragma once

#include <cstdint>
#include <vector>

#include "pod/body.hpp"
#include "pod/cars.hpp"
#include "pod/memory.hpp"
#include "pod/race.hpp"
#include "pod/step.hpp"
#include "pod/types.hpp"

namespace pod::blind {

namespace tyres {
/// FUN_0041af80 (stage 18).
void tyres(Memory& m, GuestAddr car, GuestAddr forces, GuestAddr stale_slot);
}  // namespace tyres

namespace body {
/// FUN_00419ad0 (stage 20, with stage 21 inside). `impacts` gets the damage calls of stage 21.
void integrate(Memory& m, GuestAddr car, GuestAddr forces, std::vector<::pod::body::Impact>* impacts = nullptr);
}  // namespace body

namespace collide {
/// FUN_00417988 (stage 24). Returns true when it put the car back.
bool track(Memory& m, GuestAddr car, GuestAddr driver);
}  // namespace collide

namespace drive {
/// FUN_00418010 (stage 7).
void engine(Memory& m, GuestAddr car, GuestAddr driver);
/// FUN_00418f0c (stage 5).
void gears(Memory& m, GuestAddr car);
}  // namespace drive

namespace suspension {
/// FUN_0041988c (stage 27).
void travel(Memory& m, GuestAddr car);
}  // namespace suspension

namespace step {
/// FUN_0041b66c from right after the controller (0x41b6f6) to its end: stages 3..32, the inline
/// stages written here, the others called.
::pod::step::Out step_from_controls(Memory& m, GuestAddr car, GuestAddr driver,
                                    const ::pod::step::Scratch& scratch = ::pod::step::Scratch{},
                                    ::pod::step::Damage damage = ::pod::step::Damage::kReported);
}  // namespace step

namespace cars {
/// FUN_0042127c — one pair of racers (their numbers).
::pod::cars::PairOut pair(Memory& m, int racer_a, int racer_b);
}  // namespace cars

namespace props {
/// FUN_00454a98 — a prop's motion (its number).
void motion(Memory& m, std::uint32_t prop);
}  // namespace props

namespace damage {
/// FUN_00420e54 — damage to a car (the parts mask, the strength).
void hit(Memory& m, GuestAddr car, std::uint32_t parts, Fixed strength);
}  // namespace damage

namespace paths {
/// FUN_004b0ec0 — moves a driver's tracker along (driver, car).
void track(Memory& m, GuestAddr driver, GuestAddr car);
}  // namespace paths

namespace race {
/// FUN_0049e63c — the race step (003 "One frame" row 3).
::pod::race::PassOut race_step(Memory& m, const ::pod::race::Racers& racers);
}  // namespace race

}  // namespace pod::blind
