// The race's beacon test as the car step calls it (stage 30, FUN_0041cf2c; F036). The beacons'
// layout is the stand-in's own (chosen; the documents give the call, not the records): the race
// block's +0x620 holds their count, +0x624 the beacons (0x18 bytes each: a point and a normal); each
// racer's record (race block +0x40 + 0xbc × racer, F087) holds +0x08 the next beacon and +0x0c the
// beacons passed.
#pragma once

#include <cstdint>

#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod::race {

inline constexpr std::uint32_t kBeaconCount = 0x620;   // in the race block
inline constexpr std::uint32_t kBeacons = 0x624;       // in the race block
inline constexpr std::uint32_t kBeaconSize = 0x18;
inline constexpr std::uint32_t kNextBeacon = 0x08;     // in the racer's record
inline constexpr std::uint32_t kBeaconsPassed = 0x0c;  // in the racer's record

/// FUN_0041cf2c — the beacon test (eax = driver, edx = the move: two vec3, before and after): a move
/// from behind the next beacon's plane to on or past it passes the beacon.
void beacon_test(Memory& m, GuestAddr driver, GuestAddr move);

}  // namespace pod::race
