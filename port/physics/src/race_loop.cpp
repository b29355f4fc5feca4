// The race loop: the simulation step FUN_0049a89c, the race step FUN_0049e63c, the frame clock
// FUN_004ae894, the countdown FUN_0047b98c and one pass of FUN_0049d4c0 (003; port/CHOICES.md "The
// race loop").
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common.hpp"
#include "pod/putback.hpp"
#include "pod/race.hpp"

namespace pod::race {

using namespace pod::detail;

namespace {

GuestAddr car_of(std::int32_t racer) { return Car::at(addr::kRaceCars, racer); }
GuestAddr driver_of(std::int32_t racer) {
  return addr::kDrivers + static_cast<std::uint32_t>(racer) * addr::kDriverSize;
}
/// [0x61d5bc] + [0x61d5c0]: the racers (humans first; A35 read as the collision pass reads it).
std::int32_t racer_count(Memory& m) { return wrap_add(m.i32(addr::kHumanRacers), m.i32(addr::kComputerRacers)); }

/// More steps than any clamped frame time asks of any sane unit (30000 / 1): a runaway, refused.
constexpr std::int32_t kMostSteps = 30000;

/// A 32-bit idiv (truncated towards zero); DivideFault where the original's would fault (#DE).
std::int32_t idiv32(std::int32_t a, std::int32_t b) {
  if (b == 0 || (a == INT32_MIN && b == -1)) throw DivideFault();
  return a / b;
}

}  // namespace

// FUN_00456dd4
void zones(Memory&) {}

// FUN_0049a89c
SimOut sim_step(Memory& m, const Racers& racers) {
  SimOut out;
  const FrameTime frame(m);
  const std::int32_t n = racer_count(m);
  for (std::int32_t r = 0; r < n; ++r) {
    frame.set(FrameTime::dt, frame.get(FrameTime::step_dt));
    const GuestAddr car = car_of(r);
    const GuestAddr driver = driver_of(r);
    const auto i = static_cast<std::size_t>(r);
    static const step::Controller kNone;
    const step::Controller& controller = i < racers.controllers.size() ? racers.controllers[i] : kNone;
    step::Out turn = step::step(m, car, driver, racers.scratch, controller, step::Damage::kApplied);
    if (step::upside_down(m, car, driver)) turn.put_back = true;
    step::pose(m, car, driver);
    out.turns.push_back(std::move(turn));
  }
  zones(m);
  frame.set(FrameTime::dt, frame.get(FrameTime::step_dt));
  out.contacts = cars::collisions(m);
  // The race's paths (003 Race::step after the cars' step; Cars::retrack): each racer's tracker moved
  // along, or, after a put-back, found again and a computer driver's lane target set.
  for (std::int32_t r = 0; r < n; ++r) paths::after_step(m, driver_of(r), car_of(r));
  return out;
}

// FUN_0049e63c
PassOut race_step(Memory& m, const Racers& racers) {
  PassOut out;
  const Fixed f = m.i32(addr::kPassFrameTime);
  out.frame_time = f;
  if (m.i32(addr::kTimeTrial) != 0 && RaceBlock(m).get(RaceBlock::phase) != 0) return out;  // F154
  const FrameTime frame(m);
  frame.set(FrameTime::sum, wrap_add(frame.get(FrameTime::sum), f));  // F161
  const Fixed unit = m.i32(addr::kStepUnit);
  std::int32_t n = 1;
  Fixed dt = f;
  if (f > wrap_add(wrap_add(unit, unit), unit)) {  // F154: n equal steps
    n = idiv32(f, unit);
    if (n > kMostSteps)
      throw std::runtime_error("race_step: a frame time of " + std::to_string(f) + " over a step unit of " +
                               std::to_string(unit) + " asks " + std::to_string(n) +
                               " steps (frame_clock keeps the frame time at most 30000; is 0x60be0c or 0x60bdfc "
                               "from another build?)");
    dt = idiv32(f, n);
  }
  for (std::int32_t i = 0; i < n; ++i) {
    frame.set(FrameTime::step_dt, dt);
    out.steps.push_back(sim_step(m, racers));
    frame.set(FrameTime::step, wrap_add(frame.get(FrameTime::step), 1));
  }
  return out;
}

// FUN_004ae894
Fixed frame_clock(Memory& m, std::uint32_t now) {
  const std::uint32_t last = m.u32(addr::kLastClock);
  m.put_u32(addr::kLastClock, now);
  Fixed f = static_cast<Fixed>((now - last) * static_cast<std::uint32_t>(kTicksPerMillisecond));
  if (f > kLongestFrame) f = kLongestFrame;  // F157
  if (f < kShortestFrame) f = kShortestFrame;
  m.put_i32(addr::kPassFrameTime, f);
  return f;
}

// FUN_0047b98c
void countdown(Memory& m) {
  const std::int32_t n = racer_count(m);
  for (std::int32_t r = 0; r < n; ++r) Driver(m, driver_of(r)).set(Driver::stuck_timer, 0);  // F130
  m.put_i32(addr::kRaceClock, 0);  // F159: 0 at "GO!"
  const RaceBlock race(m);
  if (static_cast<std::int32_t>(m.u32(addr::kLastClock) - race.get(RaceBlock::go_time)) >= 0) race.set(RaceBlock::phase, 0);
}

// FUN_0049d4c0, rows 3, 4, 8, 10
PassOut pass(Memory& m, std::uint32_t now, const Racers& racers) {
  PassOut out = race_step(m, racers);                                                              // 3
  m.put_i32(addr::kRaceClock, wrap_add(m.i32(addr::kRaceClock), m.i32(addr::kPassFrameTime)));     // 4 (F155)
  frame_clock(m, now);                                                                             // 8
  if (RaceBlock(m).get(RaceBlock::phase) != 0) countdown(m);                                       // 10
  return out;
}

}  // namespace pod::race
