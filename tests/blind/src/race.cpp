// Blind reading: race::race_step (FUN_0049e63c), 003 "One frame" row 3 (F154, F160, F161) and
// VALUES.md section 12. The n-steps formula and what the sum gets are open (G19); see READING.md.
#include <cstdint>

#include "pod/blind.hpp"
#include "pod/memory.hpp"
#include "pod/race.hpp"

namespace pod::blind::race {
namespace {

constexpr GuestAddr kPassFrameTime = 0x60be0c;
constexpr GuestAddr kStepUnit = 0x60bdfc;
constexpr GuestAddr kTimeTrial = 0x61d5c8;
constexpr GuestAddr kCountdownPhase = 0x4f8d44;  // race block +0
constexpr GuestAddr kFrameBlock = 0x621b70;
constexpr GuestAddr kFrameSum = kFrameBlock + 0x4;
constexpr GuestAddr kStepDt = kFrameBlock + 0x8;
constexpr GuestAddr kStepNumber = kFrameBlock + 0xc;

// F154: one step, or n equal steps when the frame is longer than 3 x the unit. Chosen: n = the
// frame over the unit rounded up, each step frame / n (the remainder is not stepped).
std::int32_t step_count(std::int32_t frame, std::int32_t unit) {
  if (unit <= 0 || frame <= 3 * unit) return 1;
  return (frame + unit - 1) / unit;
}

}  // namespace

::pod::race::PassOut race_step(Memory& m, const ::pod::race::Racers& racers) {
  ::pod::race::PassOut out;
  const std::int32_t frame = m.i32(kPassFrameTime);
  out.frame_time = frame;
  // F161: the steps of one pass all see one value of the sum; it gains the frame time once,
  // before them (chosen), also in a pass that runs no step.
  m.put_i32(kFrameSum, static_cast<std::int32_t>(static_cast<std::uint32_t>(m.i32(kFrameSum)) +
                                                 static_cast<std::uint32_t>(frame)));
  // F154: none while a time trial counts down.
  if (m.i32(kTimeTrial) != 0 && m.i32(kCountdownPhase) != 0) return out;
  const std::int32_t n = step_count(frame, m.i32(kStepUnit));
  const std::int32_t dt = frame / n;
  for (std::int32_t i = 0; i < n; ++i) {
    m.put_i32(kStepDt, dt);
    out.steps.push_back(::pod::race::sim_step(m, racers));
    m.put_i32(kStepNumber, m.i32(kStepNumber) + 1);
  }
  return out;
}

}  // namespace pod::blind::race
