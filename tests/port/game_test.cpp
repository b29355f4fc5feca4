// pod::Race's own contract: what it refuses (racer counts and indexes out of range, a prop that is not
// there) with a message naming the value, and that laying a race out twice maps nothing twice.
#include <gtest/gtest.h>

#include <cstdint>
#include <ios>
#include <stdexcept>
#include <string>

#include "pod/game.hpp"

namespace {

TEST(Race, RefusesWhatIsNotThereWithTheValueNamed) {
  pod::FlatMemory m;
  pod::Race::map_blocks(m);
  pod::Race::map_blocks(m);  // idempotent: everything already mapped
  pod::Race race(m);
  try {
    race.start(5, 4, 1000);
    FAIL() << "9 racers accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("5 humans and 4 computer cars"), std::string::npos) << e.what();
  }
  EXPECT_THROW(race.start(-1, 2, 1000), std::invalid_argument);
  race.start(1, 7, 1000, 500);
  EXPECT_EQ(race.racers(), 8);
  EXPECT_EQ(race.phase(), pod::Phase::kCountdown);
  EXPECT_EQ(race.clock_ms(), 1000u);
  EXPECT_EQ(race.frame_time(), 65);  // the first measure: no millisecond yet, the lower clamp (chosen)
  EXPECT_THROW(race.car(8), std::out_of_range);
  EXPECT_THROW(race.car(-1), std::out_of_range);
  EXPECT_THROW(race.set_controller(8, {}), std::out_of_range);
  EXPECT_EQ(race.props(), 0);
  try {
    race.prop(0);
    FAIL() << "a prop read where there is none";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("prop 0"), std::string::npos) << e.what();
  }
}

// A controller may be given to any racer 0..7, the first one included (a racer's controller is kept at
// its index however many came before).
TEST(Race, TakesAControllerForRacersZeroToSeven) {
  pod::FlatMemory m;
  pod::Race::map_blocks(m);
  pod::Race race(m);
  EXPECT_NO_THROW(race.set_controller(0, {}));
  EXPECT_NO_THROW(race.set_controller(7, {}));
  EXPECT_NO_THROW(race.set_controller(3, {}));
}

// start() lays out an ordinary race: the time-trial word 0x61d5c8 is cleared whatever it held (F154: a
// time trial's countdown runs no steps).
TEST(Race, StartClearsTheTimeTrialWord) {
  pod::FlatMemory m;
  pod::Race::map_blocks(m);
  m.put_i32(0x61d5c8, 1);
  pod::Race race(m);
  race.start(1, 1, 0);
  EXPECT_EQ(m.i32(0x61d5c8), 0);
}

// What car() reads back is the car record's words as stored: the steer at +0x454 of racer 2's record
// (0x630838 + 2 × 0x558, F015).
TEST(Race, ReadsTheSteerAsStored) {
  pod::FlatMemory m;
  pod::Race::map_blocks(m);
  pod::Race race(m);
  m.put_i32(0x630838 + 2 * 0x558 + 0x454, -0x1234);
  EXPECT_EQ(race.car(2).steer, -0x1234);
}

// prop(i) reads record i of the list at [0x62129c] (0xd0 bytes each, F110): its matrix, the nine words
// at +0x40 as stored; an index past the count is refused naming the range 0..count − 1.
TEST(Race, ReadsAPropsMatrixAsStored) {
  pod::FlatMemory m;
  pod::Race::map_blocks(m);
  constexpr pod::GuestAddr kList = 0x700000;
  m.map(kList, 3 * 0xd0);
  m.put_u32(0x62129c, kList);
  m.put_i32(0x621298, 3);
  for (std::uint32_t k = 0; k < 9; ++k) m.put_i32(kList + 0xd0 + 0x40 + 4 * k, static_cast<std::int32_t>(0x100 * (k + 1)));
  pod::Race race(m);
  const pod::PropState s = race.prop(1);
  for (std::uint32_t k = 0; k < 9; ++k) EXPECT_EQ(s.matrix[k], static_cast<std::int32_t>(0x100 * (k + 1))) << "word " << k;
  try {
    race.prop(3);
    FAIL() << "prop 3 of 3 read";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("is not 0..2"), std::string::npos) << e.what();
  }
}

// The slip ratio's word of a game's step scratch is a free word: outside the force array (0x48 bytes
// at the scratch's forces), the chassis move (0x18 bytes at 0x4f3368) and the contact block (0x2c
// bytes at 0x4f3380), all of which the step writes and reads for their own meaning; map_blocks maps it.
TEST(Race, TheSlipSlotIsAFreeWordOutsideTheStepsBlocks) {
  const pod::step::Scratch s = pod::Race::default_scratch();
  const auto clear_of = [&](pod::GuestAddr base, std::uint32_t size) {
    return s.stale_slot + 4 <= base || s.stale_slot >= base + size;
  };
  EXPECT_TRUE(clear_of(s.forces, 0x48)) << std::hex << s.stale_slot;
  EXPECT_TRUE(clear_of(0x4f3368, 0x18)) << std::hex << s.stale_slot;
  EXPECT_TRUE(clear_of(0x4f3380, 0x2c)) << std::hex << s.stale_slot;
  pod::FlatMemory m;
  pod::Race::map_blocks(m);
  EXPECT_TRUE(m.mapped(s.stale_slot, 4));
}

}  // namespace
