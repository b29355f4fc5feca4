// Blind reading: drive::engine (FUN_00418010, stage 7) and drive::gears (FUN_00418f0c, stage 5).
// Sources: 000 "Engine and gears" (F037..F048), VALUES.md sections 4 and 5. Choices: READING.md.
#include <cstdint>

#include "pod/blind.hpp"
#include "pod/drive.hpp"
#include "pod/math.hpp"
#include "pod/memory.hpp"

namespace pod::blind::drive {
namespace {

// Car fields (VALUES.md "Race car fields beyond the documents'"; 000's table for +0x440..+0x470).
constexpr GuestAddr kEngine = 0x440;      // engine speed, rad/s (F037)
constexpr GuestAddr kWheelEngine = 0x444; // engine speed the wheels imply (F041)
constexpr GuestAddr kRequest = 0x449;     // gear change asked: 0x20 up, 0x40 down (F019)
constexpr GuestAddr kGear = 0x44a;        // i8: -1 reverse, 0 neutral, 1..top
constexpr GuestAddr kTopGear = 0x44b;     // u8
constexpr GuestAddr kThrottle = 0x44c;    // 0..0x10000
constexpr GuestAddr kEngineMax = 0x458;   // the engine limit
constexpr GuestAddr kRevUp = 0x45c;
constexpr GuestAddr kRevDown = 0x460;
constexpr GuestAddr kGearTimer = 0x470;   // 15000/65536 s per change (F020)
constexpr GuestAddr kShiftSkip = 0x478;   // the 0.46 shift point: skipping limit (F047)
constexpr GuestAddr kShiftIdle = 0x47c;   // the 0.10 shift point

constexpr GuestAddr kFrameDt = 0x621b70;  // this car step's dt
constexpr Fixed kChangeTime = 15000;      // F020
constexpr std::uint8_t kUp = 0x20;        // F019
constexpr std::uint8_t kDown = 0x40;

// Wheel spin (+0x50) of the front wheels 0 and 2 (003 "the steered wheels 0 and 2", F041).
constexpr GuestAddr kSpin = 0x50;
constexpr GuestAddr kPointSize = 0xd8;

// F040: the engine stays between 0 and engine_max - 1 (raw 1: see READING.md).
Fixed hold_in_range(Fixed speed, Fixed engine_max) {
  const Fixed top = math::wrap_sub(engine_max, 1);
  if (speed > top) speed = top;
  if (speed < 0) speed = 0;
  return speed;
}

// Out of gear (neutral, or during a gear change, the clutch open): F038/F039, plus the analog
// throttle (000 stage 7 "or from an analog throttle"): a part throttle revs towards its share of
// the limit and no further.
Fixed free_revving(Fixed speed, Fixed throttle, Fixed engine_max, Fixed rev_up, Fixed rev_down, Fixed dt) {
  const Fixed rise = math::mul16(rev_up, dt);         // rev_up x dt (F038)
  const Fixed fall = math::mul16(rev_down, dt) >> 1;  // rev_down x dt / 2 (F039)
  if (throttle <= 0) return math::wrap_sub(speed, fall);
  if (throttle >= kOne) return math::wrap_add(speed, rise);
  const Fixed target = math::mul16(throttle, engine_max);
  if (speed < target) {
    const Fixed up = math::wrap_add(speed, rise);
    return up > target ? target : up;
  }
  const Fixed down = math::wrap_sub(speed, fall);
  return down < target ? target : down;
}

// The front wheels' mean spin (F041's "front wheels' mean spin").
Fixed front_spin(Memory& m, GuestAddr car) {
  const Fixed s0 = m.i32(car + 0 * kPointSize + kSpin);
  const Fixed s2 = m.i32(car + 2 * kPointSize + kSpin);
  return static_cast<Fixed>((static_cast<std::int64_t>(s0) + s2) / 2);
}

// Up from neutral: F046's two-piece line. Chosen: the speed is kept up to the 0.46 shift point,
// above it only half the excess is kept (the clutch takes the rest).
Fixed neutral_remap(Fixed speed, Fixed knee) {
  if (speed <= knee) return speed;
  return math::wrap_add(knee, math::wrap_sub(speed, knee) >> 1);
}

}  // namespace

void engine(Memory& m, GuestAddr car, GuestAddr /*driver*/) {
  const Fixed dt = m.i32(kFrameDt);
  const std::int8_t gear = m.i8(car + kGear);
  const Fixed timer = m.i32(car + kGearTimer);
  const Fixed engine_max = m.i32(car + kEngineMax);
  Fixed speed = m.i32(car + kEngine);
  const bool out_of_gear = gear == 0 || timer > 0;  // G06 chosen
  if (out_of_gear) {
    const Fixed throttle = m.i32(car + kThrottle);
    speed = free_revving(speed, throttle, engine_max, m.i32(car + kRevUp), m.i32(car + kRevDown), dt);
  } else {
    // In gear it follows the wheels (000): last step's +0x444, no lower than the idle point.
    speed = m.i32(car + kWheelEngine);
    const Fixed idle = m.i32(car + kShiftIdle);
    if (speed < idle) speed = idle;
  }
  m.put_i32(car + kEngine, hold_in_range(speed, engine_max));
}

void gears(Memory& m, GuestAddr car) {
  // A change in progress counts down by the step's time; requests wait until it ends (G06 chosen).
  const Fixed timer = m.i32(car + kGearTimer);
  if (timer > 0) {
    m.put_i32(car + kGearTimer, math::wrap_sub(timer, m.i32(kFrameDt)));
    return;
  }
  const std::uint8_t request = m.u8(car + kRequest);
  if ((request & (kUp | kDown)) == 0) return;
  const int top = m.u8(car + kTopGear);
  int gear = m.i8(car + kGear);
  const int before = gear;
  if ((request & kUp) != 0) {
    if (gear < top) {
      if (gear == 0) {
        const Fixed knee = m.i32(car + kShiftSkip);
        m.put_i32(car + kEngine, neutral_remap(m.i32(car + kEngine), knee));
      }
      ++gear;
    }
  } else if (gear > -1) {
    --gear;
    // F047: a down-shift skips on while the engine, in the next lower gear, stays under +0x478.
    const Fixed skip_limit = m.i32(car + kShiftSkip);
    const Fixed wheels = front_spin(m, car);
    while (gear > 1 && math::mul16(wheels, ::pod::drive::ratio(m, car, gear - 1)) < skip_limit) --gear;
  }
  m.put_u8(car + kRequest, static_cast<std::uint8_t>(request & ~(kUp | kDown)));
  if (gear != before) {
    m.put_i8(car + kGear, static_cast<std::int8_t>(gear));
    m.put_i32(car + kGearTimer, kChangeTime);
  }
}

}  // namespace pod::blind::drive
