// pod::Race's own contract: what it refuses (racer counts and indexes out of range, a prop that is not
// there) with a message naming the value, and that laying a race out twice maps nothing twice.
#include <gtest/gtest.h>

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

}  // namespace
