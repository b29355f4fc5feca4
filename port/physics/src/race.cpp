// The beacon test of stage 30.
#include "pod/race.hpp"

#include "common.hpp"

namespace pod::race {

using namespace pod::detail;

// FUN_0041cf2c
void beacon_test(Memory& m, GuestAddr driver, GuestAddr move) {
  const std::int32_t count = m.i32(addr::kRaceBlock + kBeaconCount);
  if (count <= 0) return;
  const GuestAddr record = addr::kRaceBlock + RaceBlock::record(Driver(m, driver).get(Driver::racer));
  const std::int32_t next = m.i32(record + kNextBeacon);
  const GuestAddr beacon = addr::kRaceBlock + kBeacons + kBeaconSize * static_cast<std::uint32_t>(next);
  const Vec3 at = m.vec3(beacon);
  const Vec3 normal = m.vec3(beacon + 12);
  if (math::dot16(sub(m.vec3(move), at), normal) >= 0) return;  // not behind it before the move
  if (math::dot16(sub(m.vec3(move + 12), at), normal) < 0) return;
  m.put_i32(record + kNextBeacon, next + 1 == count ? 0 : next + 1);
  m.put_i32(record + kBeaconsPassed, wrap_add(m.i32(record + kBeaconsPassed), 1));
}

}  // namespace pod::race
