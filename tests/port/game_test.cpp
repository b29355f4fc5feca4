// pod::Race's own contract: what it refuses (racer counts and indexes out of range, a prop that is not
// there) with a message naming the value, what map_blocks maps (eight racers' records, the track's
// count and pointer words and no more), that laying a race out twice maps nothing twice, and that
// load and the readers move the bytes as stored.
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
// (0x630838 + 2 × 0x558, F015), the body's centre at +0x498 (the track point the race order and the
// trackers use).
TEST(Race, ReadsTheSteerAndTheCentreAsStored) {
  pod::FlatMemory m;
  pod::Race::map_blocks(m);
  pod::Race race(m);
  m.put_i32(0x630838 + 2 * 0x558 + 0x454, -0x1234);
  EXPECT_EQ(race.car(2).steer, -0x1234);
  m.put_vec3(0x630838 + 2 * 0x558 + 0x498, pod::Vec3{0x10000, -0x23456, 0x789});
  EXPECT_EQ(race.car(2).centre, (pod::Vec3{0x10000, -0x23456, 0x789}));
}

// map_blocks lays out room for eight racers (a race has 0 to 8): eight race car records of 0x558
// bytes at 0x630838 (F015), eight drivers of 0xb0 at 0x61f870 and eight drawn objects of 0x80 at
// 0x61a6d0 (F167); the last racer's car reads back through car(7).
TEST(Race, MapsEveryRecordOfEightRacers) {
  pod::FlatMemory m;
  pod::Race::map_blocks(m);
  EXPECT_TRUE(m.mapped(0x630838, 8 * 0x558));
  EXPECT_TRUE(m.mapped(0x61f870, 8 * 0xb0));
  EXPECT_TRUE(m.mapped(0x61a6d0, 8 * 0x80));
  pod::Race race(m);
  m.put_i32(0x630838 + 7 * 0x558 + 0x454, 0x777);
  EXPECT_EQ(race.car(7).steer, 0x777);
}

// The track is the game's to map (map_blocks maps only the race's fixed blocks): of the track's
// globals it maps the sector count [0x57bf74] and the sector table's pointer [0x57bf78] (000, 002),
// and not the byte after them, where a game may map its own data.
TEST(Race, MapsTheSectorWordsAndLeavesWhatFollowsToTheGame) {
  pod::FlatMemory m;
  pod::Race::map_blocks(m);
  EXPECT_TRUE(m.mapped(0x57bf74, 8));
  EXPECT_FALSE(m.mapped(0x57bf7c, 1));
  EXPECT_NO_THROW(m.map(0x57bf7c, 4));
}

// load() copies every byte to its address, the first one included, and nothing around them.
TEST(Race, LoadCopiesEveryByteFromTheFirst) {
  pod::FlatMemory m;
  pod::Race::map_blocks(m);
  constexpr pod::GuestAddr kAt = 0x700000;
  m.map(kAt, 0x10);
  for (std::uint32_t i = 0; i < 0x10; ++i) m.put_u8(kAt + i, 0xee);
  pod::Race race(m);
  const std::uint8_t bytes[] = {0x11, 0x22, 0x33, 0x44, 0x55};
  race.load(kAt + 4, bytes);
  const std::uint8_t want[0x10] = {0xee, 0xee, 0xee, 0xee, 0x11, 0x22, 0x33, 0x44,
                                   0x55, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee};
  for (std::uint32_t i = 0; i < 0x10; ++i) EXPECT_EQ(m.u8(kAt + i), want[i]) << "byte " << i;
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
  m.put_i32(kList + 0x40, -0x55);  // prop 0's first matrix word
  pod::Race race(m);
  const pod::PropState s = race.prop(1);
  for (std::uint32_t k = 0; k < 9; ++k) EXPECT_EQ(s.matrix[k], static_cast<std::int32_t>(0x100 * (k + 1))) << "word " << k;
  EXPECT_EQ(race.prop(0).matrix[0], -0x55) << "the first prop is index 0";
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
