// Putting a car back on the track (F080..F086), the sector searches it
// uses, and the race paths it heads along (F084, F144).
#pragma once

#include <optional>

#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::putback {

/// A triangle's middle: its three corners summed, then scaled by 0x5555 in place (F082).
inline constexpr Fixed kThird = 0x5555;
/// The body is placed 1 above the face's middle (F085).
inline constexpr Fixed kRaise = 0x10000;
/// car_reset's engine limit, 1000 rad/s, and its shift points 0.92, 0.46, 0.10, 0.20 of it (F048),
/// in the order of +0x474..+0x480.
inline constexpr Fixed kEngineLimit = 1000 << 16;
inline constexpr Fixed kShiftFractions[4] = {0xeb85, 0x75c3, 0x199a, 0x3333};

/// FUN_00415730 — puts the car back (eax = car, edx = driver): at the middle of the face wheel 0
/// last touched (F082), heading along the race path when the track has one (F083), the upside-down
/// timer cleared, car_reset, clear_pose, place (F086); last, the driver's put-back mark (+0x58 = 1),
/// by which the simulation step's paths pass finds the tracker again and sets the lane target. The
/// rest of the caller's share (the beacon test, the racer's record, the camera) is not done.
void put_back(Memory& m, GuestAddr car, GuestAddr driver);

/// FUN_0041c814 — car_reset: velocity, spin, carried force and torque, engine and gearbox, +0x4ec,
/// the brake hold, each point's skid flags, velocity and impulse, the steering, each wheel's roll,
/// spin and height (at rest), the engine limit and shift points (F048).
void car_reset(Memory& m, GuestAddr car);

/// FUN_004231b4 — clears the pose (+0x498..+0x4c7), then car_reset.
void clear_pose(Memory& m, GuestAddr car);

/// FUN_00423538 — places the car (eax = car, edx = the point's address, ebx = the heading's): the
/// body 1 above the point, forward the heading made level and of length 1, up the world's z, left
/// up × forward (F085); the points placed and each point's sector the first near it.
void place(Memory& m, GuestAddr car, GuestAddr point, GuestAddr heading);
/// place with the point and the heading as values (the original reads them from its caller's stack).
void place_at(Memory& m, GuestAddr car, const Vec3& point, const Vec3& heading);

/// FUN_0045ca78 — the first sector near a position (eax = its address, edx = a hint sector or 0):
/// the hint, its neighbours in order, else sector_any. Returns the sector's address.
GuestAddr sector_near(Memory& m, GuestAddr position, GuestAddr hint);

/// FUN_0045ccd8 — the first in-play sector (neighbour count >= 0) whose bounds hold the position,
/// in table order; none: the first sector.
GuestAddr sector_any(Memory& m, GuestAddr position);

/// True when the sector's bounds hold the position (at `position`): lo.x <= p.x, p.x <= hi.x,
/// lo.y <= p.y, ... in that order, each word (the bounds' and the position's) read when compared,
/// stopping at the first false.
bool within_bounds(Memory& m, GuestAddr sector, GuestAddr position);

}  // namespace pod::putback

namespace pod::paths {

/// FUN_004abd38 — the heading along the race path at the driver's tracker (eax = driver, edx = out):
/// the next point minus the tracker's (F083). Returns 1, or 0 (nothing written) without a link or a
/// next point.
int heading(Memory& m, GuestAddr driver, GuestAddr out);
/// heading as a value: none without a link or a next point.
std::optional<Vec3> heading_of(Memory& m, GuestAddr driver);

/// F143's distance between two points: the larger of |dx| and |dy|, or |4 dz| when that is larger
/// (|v| the 32-bit negation, 4 dz a shift that wraps).
Fixed distance(const Vec3& a, const Vec3& b);

/// FUN_004aa8a0 — places a driver's tracker (eax = driver, edx = car) on the path point nearest the
/// car's body centre (+0x498) by `distance`: over the link table [0x543258] in order, each link's
/// points in order, the first of equally near ones. Writes nothing when no link has a point.
void place(Memory& m, GuestAddr driver, GuestAddr car);

/// FUN_004b0b98 — the tracker past a link's end (eax = link): the end node's address, which is its
/// position (F172), or 0 without an end node.
GuestAddr track_node(Memory& m, GuestAddr link);

/// FUN_004b0ec0 — moves a driver's tracker along (eax = driver, edx = car), at most one point per
/// call, while a wheel touches: to the next point (past the link's end: the end node's position, then
/// the node's first link out) when that is nearer the body centre than the tracker's; not moved and
/// more than 8 from it, the tracker is lost and placed again (`place`).
void track(Memory& m, GuestAddr driver, GuestAddr car);

/// FUN_00455ed0 — a computer driver's lane target (eax = driver): the line point (+0x5c, an address)
/// is the point after its tracker's (past the link's end, track_node), or 0 without a tracker.
void lane_target(Memory& m, GuestAddr driver);

/// The paths' share of a simulation step for one racer, after the collision pass (003 Race::step,
/// Cars::retrack): a racer put back since (the driver's mark) has the mark cleared, its tracker
/// placed again when it had one, and, for a computer driver, its lane target; any other is tracked.
void after_step(Memory& m, GuestAddr driver, GuestAddr car);

/// FUN_004abae8 — the point after a link's last one (eax = link): the end node's position when more
/// than one link leaves it, the first point of its only link, or none (0) (F084, C19). Returns the
/// point's address.
GuestAddr next_point(Memory& m, GuestAddr link);

}  // namespace pod::paths
