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

/// The stand-in's scripted millisecond clock (its timeGetTime, profile label scripted_clock): +0 the
/// last value it returned, +4 its number of readings. It is the system's part, outside the port.
constexpr GuestAddr kScriptedClock = 0x7f1000;
constexpr std::uint32_t kScriptedClockSize = 8;

/// The clock frame_clock reads (timeGetTime) is the system's, not POD's: no memory byte holds its
/// value before the call. The binding plays its part from the case: the clock's own writes (the stand-
/// in's scripted clock keeps the value it returned at its +0) are laid as the call's effects, and
/// that value is the port's `now`. The port computes [0x60be10] and the frame time [0x60be0c] itself.
/// A case whose clock wrote nothing there (another clock) gives `now` = 0, and the comparison fails.
std::uint32_t play_clock(pod::Memory& m, const Case& c) {
  for (std::uint32_t i = 0; i < kScriptedClockSize; ++i)
    if (!c.writes.contains(kScriptedClock + i)) return 0;
  std::uint32_t now = 0;
  for (std::uint32_t i = 0; i < kScriptedClockSize; ++i) {
    const std::uint8_t b = *c.writes.get(kScriptedClock + i);
    m.put_u8(kScriptedClock + i, b);
    if (i < 4) now |= std::uint32_t{b} << (8 * i);
  }
  return now;
}

}  // namespace

void add_race(lockstep::cases::BindingSet& set) {
  set.push_back(declare(0x456dd4, "race::zones", &race::zones));
  // Written out: the clock's value is played from the case (play_clock), not an argument.
  set.push_back(make(0x4ae894, "race::frame_clock", [](pod::Memory& m, const Case& c) {
    race::frame_clock(m, play_clock(m, c));
    return ret_none();
  }));
  set.push_back(declare(0x47b98c, "race::countdown", &race::countdown));
}

}  // namespace pod::bindings::detail
