// pod::Race: the race loop over the game's memory, and what a game reads back.
#include "pod/game.hpp"

#include <stdexcept>
#include <string>

#include "common.hpp"
#include "pod/putback.hpp"
#include "pod/setup.hpp"
#include "pod/tables.hpp"

namespace pod {

using namespace pod::detail;

namespace {

/// Maps whatever of [base, base + size) is not mapped yet (a game may have mapped part of a block).
void ensure(FlatMemory& m, GuestAddr base, std::uint32_t size) {
  if (m.mapped(base, size)) return;
  std::uint32_t i = 0;
  while (i < size) {
    if (m.mapped(base + i, 1)) {
      ++i;
      continue;
    }
    std::uint32_t n = 1;
    while (i + n < size && !m.mapped(base + i + n, 1)) ++n;
    m.map(base + i, n);
    i += n;
  }
}

}  // namespace

Race::Race(Memory& memory, const step::Scratch& scratch) : m_(&memory) { racers_.scratch = scratch; }

void Race::map_blocks(FlatMemory& m) {
  ensure(m, 0x4e9000, 0x6000);  // the slip curve 0x4e9a78, the table pointers, the constants
  tables::install(m);
  ensure(m, addr::kRaceCars, 8 * addr::kRaceCarSize);
  ensure(m, addr::kDrivers, 8 * addr::kDriverSize);
  ensure(m, addr::kRaceObjects, 8 * addr::kRaceObjectSize);
  ensure(m, addr::kRaceBlock, RaceBlock::kSize);
  ensure(m, addr::kFrameTime, addr::kFrameTimeSize);
  ensure(m, addr::kChassisSearchCounter, 4);
  ensure(m, addr::kContact, addr::kContactSize);
  ensure(m, addr::kSectorCount, 8);
  ensure(m, addr::kSurfaces, addr::kSurfaceCount * addr::kSurfaceSize);
  ensure(m, addr::kRacePaths, 4);
  ensure(m, addr::kPathLinks, addr::kPathLinksSize);
  ensure(m, addr::kHumanRacers, 0x10);  // humans, computers, extra objects, the time-trial word
  ensure(m, addr::kStepUnit, addr::kLastClock + 4 - addr::kStepUnit);
  ensure(m, addr::kRaceClock, 4);
  ensure(m, addr::kDamageBlock, addr::kDamageOption + 4 - addr::kDamageBlock);  // options, difficulty
  ensure(m, addr::kPropCount, addr::kPropHitFlags + addr::kMaxProps - addr::kPropCount);  // count, list, hit flags
  step::map_scratch(m, default_scratch());
}

step::Scratch Race::default_scratch() {
  step::Scratch s;
  s.stale_slot = addr::kContact + addr::kContactSize;
  return s;
}

void Race::load(GuestAddr address, std::span<const std::uint8_t> bytes) {
  for (std::size_t i = 0; i < bytes.size(); ++i) m_->put_u8(address + static_cast<GuestAddr>(i), bytes[i]);
}

void Race::start(int humans, int computers, std::uint32_t now_ms, std::uint32_t countdown_ms, Settling settling) {
  if (humans < 0 || computers < 0 || humans + computers > 8)
    throw std::invalid_argument("a race has 0 to 8 racers (" + std::to_string(humans) + " humans and " +
                                std::to_string(computers) + " computer cars asked)");
  Memory& m = *m_;
  m.put_i32(addr::kHumanRacers, humans);
  m.put_i32(addr::kComputerRacers, computers);
  m.put_i32(addr::kStepUnit, race::kStepUnit);
  m.put_i32(addr::kTimeTrial, 0);
  m.put_i32(addr::kRaceClock, 0);
  if (settling == Settling::kSettle) setup::settle(m, racers_);  // 003: race_setup settles, then phase 1
  const RaceBlock block(m);
  block.set(RaceBlock::phase, 1);
  m.put_u32(addr::kLastClock, now_ms);
  race::frame_clock(m, now_ms);  // the loop measures one frame before its first pass
  block.set(RaceBlock::go_time, m.u32(addr::kLastClock) + countdown_ms);
  block.set(RaceBlock::catch_up_target_fn, addr::kCatchUpTarget);  // the catch-up's target (A07)
  // Each racer with a drawn object on the path point nearest its body (002: after the settling).
  for (int r = 0; r < humans + computers; ++r) {
    const GuestAddr driver = addr::kDrivers + static_cast<std::uint32_t>(r) * addr::kDriverSize;
    if (Driver(m, driver).get(Driver::object) != 0) paths::place(m, driver, Car::at(addr::kRaceCars, r));
  }
}

void Race::set_controller(int racer, step::Controller controller) {
  if (racer < 0 || racer >= 8) throw std::out_of_range("racer " + std::to_string(racer) + " is not 0..7");
  const auto i = static_cast<std::size_t>(racer);
  if (racers_.controllers.size() <= i) racers_.controllers.resize(i + 1);
  racers_.controllers[i] = std::move(controller);
}

race::PassOut Race::pass(std::uint32_t ms) { return race::pass(*m_, m_->u32(addr::kLastClock) + ms, racers_); }

int Race::racers() const { return wrap_add(m_->i32(addr::kHumanRacers), m_->i32(addr::kComputerRacers)); }

CarState Race::car(int racer) const {
  if (racer < 0 || racer >= 8) throw std::out_of_range("racer " + std::to_string(racer) + " is not 0..7");
  const Car c(*m_, Car::at(addr::kRaceCars, racer));
  CarState s;
  s.position = c.point(Car::kChassis).get(Point::position);
  s.centre = c.get(Car::centre);
  s.forward = c.get(Car::forward);
  s.left = c.get(Car::left);
  s.up = c.get(Car::up);
  s.speed = tables::length16(*m_, c.get(Car::velocity));
  s.gear = c.get(Car::gear);
  s.engine_speed = c.get(Car::engine_speed);
  s.steer = c.get(Car::steer);
  s.sound_state = c.get(Car::sound_state);
  return s;
}

int Race::props() const { return m_->i32(addr::kPropCount); }

PropState Race::prop(int index) const {
  if (index < 0 || index >= props())
    throw std::out_of_range("prop " + std::to_string(index) + " is not 0.." + std::to_string(props() - 1));
  const Prop p(*m_, Prop::at(m_->u32(addr::kProps), static_cast<std::uint32_t>(index)));
  PropState s;
  s.position = p.get(Prop::position);
  for (std::uint32_t k = 0; k < 9; ++k) s.matrix[k] = p.get(Field<Fixed>{Prop::kMatrix + 4 * k});
  return s;
}

Fixed Race::race_clock() const { return m_->i32(addr::kRaceClock); }
Phase Race::phase() const { return RaceBlock(*m_).get(RaceBlock::phase) != 0 ? Phase::kCountdown : Phase::kRacing; }
std::int32_t Race::steps() const { return FrameTime(*m_).get(FrameTime::step); }
Fixed Race::frame_time() const { return m_->i32(addr::kPassFrameTime); }
std::uint32_t Race::clock_ms() const { return m_->u32(addr::kLastClock); }

}  // namespace pod
