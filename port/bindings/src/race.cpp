// Bindings of the race loop's functions the port can run on a case alone: the zones, the frame clock
// and the countdown. The simulation step, the race step and the pass run the racers' controllers,
// which are the stand-in's scripted ones (not POD's, not ported): their cases are not bound; the
// whole-race follow (tests/pipeline/port_race_test) checks them with each controller's output laid
// from its CTRL record.
#include "pod/addresses.hpp"
#include "pod/race.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

namespace {

/// The millisecond value frame_clock read: the original asks the system clock (timeGetTime; the
/// stand-in's scripted clock, stubbed under the emulator), which no memory byte holds before the call.
/// The case shows it as the word frame_clock stored at [0x60be10]; the frame time [0x60be0c] the port
/// computes from it and the last value is compared as ever.
std::uint32_t clock_value(const Case& c) {
  std::uint32_t v = 0;
  for (std::uint32_t i = 0; i < 4; ++i) {
    const auto b = c.writes.get(pod::addr::kLastClock + i);
    if (!b) return 0;
    v |= std::uint32_t{*b} << (8 * i);
  }
  return v;
}

}  // namespace

void add_race(lockstep::cases::BindingSet& set) {
  set.push_back(make(0x456dd4, "race::zones", [](pod::Memory& m, const Case&) {
    race::zones(m);
    return ret_none();
  }));
  set.push_back(make(0x4ae894, "race::frame_clock", [](pod::Memory& m, const Case& c) {
    race::frame_clock(m, clock_value(c));
    return ret_none();
  }));
  set.push_back(make(0x47b98c, "race::countdown", [](pod::Memory& m, const Case&) {
    race::countdown(m);
    return ret_none();
  }));
}

}  // namespace pod::bindings::detail
