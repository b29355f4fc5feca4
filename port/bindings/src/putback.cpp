// Bindings of putting a car back, the sector searches and the race paths (the put-back's heading, the
// race trackers, the lane target).
#include "pod/putback.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

void add_putback(lockstep::cases::BindingSet& set) {
  set.push_back(declare(0x415730, "putback::put_back", &putback::put_back));
  // Named as the profile names FUN_0041c814 (and the corpora's files after it): the port's function is
  // putback::car_reset.
  set.push_back(declare(0x41c814, "putback::car_reset", &putback::car_reset));
  set.push_back(declare(0x4231b4, "putback::clear_pose", &putback::clear_pose));
  // FUN_00423538: eax = car, edx = the point's address, ebx = the heading's.
  set.push_back(declare(0x423538, "putback::place", &putback::place));
  // FUN_0045ca78: eax = the position's address, edx = the hint sector → eax.
  set.push_back(declare(0x45ca78, "world::sector_near", &putback::sector_near));
  set.push_back(declare(0x45ccd8, "world::sector_any", &putback::sector_any));
  // FUN_004abd38: eax = driver, edx = out → eax 1 / 0.
  set.push_back(declare(0x4abd38, "paths::heading", &paths::heading));
  set.push_back(declare(0x4abae8, "paths::next_point", &paths::next_point));
  // FUN_004aa8a0, FUN_004b0ec0: eax = driver, edx = car.
  set.push_back(declare(0x4aa8a0, "paths::place", &paths::place));
  set.push_back(declare(0x4b0ec0, "paths::track", &paths::track));
  // FUN_004b0b98: eax = link → eax = the end node (its position), or 0.
  set.push_back(declare(0x4b0b98, "paths::track_node", &paths::track_node));
  // FUN_00455ed0: eax = driver.
  set.push_back(declare(0x455ed0, "paths::lane_target", &paths::lane_target));
}

}  // namespace pod::bindings::detail
