// Bindings of putting a car back, the sector searches and the race paths (the put-back's heading, the
// race trackers, the lane target).
#include "pod/putback.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

void add_putback(lockstep::cases::BindingSet& set) {
  set.push_back(make(0x415730, "putback::put_back", [](pod::Memory& m, const Case& c) {
    putback::put_back(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  // Named as the profile names FUN_0041c814 (and the corpora's files after it): the port's function is
  // putback::car_reset.
  set.push_back(make(0x41c814, "putback::car_reset", [](pod::Memory& m, const Case& c) {
    putback::car_reset(m, c.in.eax);
    return ret_none();
  }));
  set.push_back(make(0x4231b4, "putback::clear_pose", [](pod::Memory& m, const Case& c) {
    putback::clear_pose(m, c.in.eax);
    return ret_none();
  }));
  // FUN_00423538: eax = car, edx = the point's address, ebx = the heading's.
  set.push_back(make(0x423538, "putback::place", [](pod::Memory& m, const Case& c) {
    putback::place(m, c.in.eax, c.in.edx, c.in.ebx);
    return ret_none();
  }));
  // FUN_0045ca78: eax = the position's address, edx = the hint sector → eax.
  set.push_back(make(0x45ca78, "world::sector_near", [](pod::Memory& m, const Case& c) {
    return ret_eax(static_cast<std::int32_t>(putback::sector_near(m, c.in.eax, c.in.edx)));
  }));
  set.push_back(make(0x45ccd8, "world::sector_any", [](pod::Memory& m, const Case& c) {
    return ret_eax(static_cast<std::int32_t>(putback::sector_any(m, c.in.eax)));
  }));
  // FUN_004abd38: eax = driver, edx = out → eax 1 / 0.
  set.push_back(make(0x4abd38, "paths::heading", [](pod::Memory& m, const Case& c) {
    return ret_eax(paths::heading(m, c.in.eax, c.in.edx));
  }));
  set.push_back(make(0x4abae8, "paths::next_point", [](pod::Memory& m, const Case& c) {
    return ret_eax(static_cast<std::int32_t>(paths::next_point(m, c.in.eax)));
  }));
  // FUN_004aa8a0, FUN_004b0ec0: eax = driver, edx = car.
  set.push_back(make(0x4aa8a0, "paths::place", [](pod::Memory& m, const Case& c) {
    paths::place(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  set.push_back(make(0x4b0ec0, "paths::track", [](pod::Memory& m, const Case& c) {
    paths::track(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  // FUN_004b0b98: eax = link → eax = the end node (its position), or 0.
  set.push_back(make(0x4b0b98, "paths::track_node", [](pod::Memory& m, const Case& c) {
    return ret_eax(static_cast<std::int32_t>(paths::track_node(m, c.in.eax)));
  }));
  // FUN_00455ed0: eax = driver.
  set.push_back(make(0x455ed0, "paths::lane_target", [](pod::Memory& m, const Case& c) {
    paths::lane_target(m, c.in.eax);
    return ret_none();
  }));
}

}  // namespace pod::bindings::detail
