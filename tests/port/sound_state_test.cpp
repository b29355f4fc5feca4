// Stage 32's sound state (F022; port/CHOICES.md "step::step", stage 32) in every case of its rule:
// the bits kept from the later stages (0x20 car contact, 0x40 crash) and no other old bit; the skid
// counter +0x4f8 = skid ? min(counter + 1, 255) : 0; the sound slots the step asks for: 1 when the
// counter becomes 1, 2 when the airborne bit 8 was set and is now clear. The slots are what the
// port reports for sound::play (0x4b8d64, a bare ret under the stand-in), so only this test sees them.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "pod/step.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Point;
using podtest::World;

struct SoundState : ::testing::Test {
  World w;
  Car car = w.standard_car(0, 0, 0, 0, w.flat_track({0}));
  // Wheels down (or not), nobody skidding, the engine steady at 100 rad/s.
  void set(bool down, std::uint8_t old_bits, std::uint8_t counter) {
    for (int i = 0; i < 5; ++i) {
      car.point(i).set(Point::touching, std::uint8_t{down && i < 4});
      car.point(i).set(Point::skidding, std::uint8_t{0});
    }
    car.set(Car::sound_state, old_bits);
    car.set(Car::skid_sound, counter);
    car.set(Car::engine_speed, 100 << 16);
  }
  std::vector<std::int32_t> run() {
    std::vector<std::int32_t> slots;
    pod::step::sound_state(w.m, car.addr(), 100 << 16, &slots);
    return slots;
  }
};

TEST_F(SoundState, F022_OnlyTheLaterStagesBitsAreKept) {
  for (int old = 0; old < 0x80; ++old) {
    set(true, static_cast<std::uint8_t>(old), 0);
    run();
    EXPECT_EQ(car.get(Car::sound_state), old & 0x60) << old;
  }
}

TEST_F(SoundState, SkidCounterCountsToTwoFiftyFiveAndStops) {
  set(true, 0, 253);
  car.point(3).set(Point::skidding, std::uint8_t{1});
  EXPECT_TRUE(run().empty());
  EXPECT_EQ(car.get(Car::skid_sound), 254);
  EXPECT_EQ(car.get(Car::sound_state), 0x01);
  run();
  EXPECT_EQ(car.get(Car::skid_sound), 255);
  run();
  EXPECT_EQ(car.get(Car::skid_sound), 255) << "held at 255";
  car.point(3).set(Point::skidding, std::uint8_t{0});
  run();
  EXPECT_EQ(car.get(Car::skid_sound), 0) << "no skid: 0";
  EXPECT_EQ(car.get(Car::sound_state), 0);
}

TEST_F(SoundState, SlotOneWhenTheSkidStartsOnly) {
  set(true, 0, 0);
  car.point(0).set(Point::skidding, std::uint8_t{1});
  EXPECT_EQ(run(), std::vector<std::int32_t>{1});
  EXPECT_TRUE(run().empty()) << "the counter at 2: no slot";
  set(true, 0, 0);
  EXPECT_TRUE(run().empty()) << "no skid: no slot";
}

TEST_F(SoundState, SlotTwoOnLandingOnly) {
  set(true, 0x08, 0);  // in the air last step, down now
  EXPECT_EQ(run(), std::vector<std::int32_t>{2});
  EXPECT_EQ(car.get(Car::sound_state), 0);
  set(true, 0, 0);  // down then, down now
  EXPECT_TRUE(run().empty());
  set(false, 0, 0);  // taking off
  EXPECT_TRUE(run().empty());
  EXPECT_EQ(car.get(Car::sound_state), 0x08);
  set(false, 0x08, 0);  // still in the air
  EXPECT_TRUE(run().empty());
  set(true, 0x7f, 0);  // every old bit: landing, the later stages' bits kept
  EXPECT_EQ(run(), std::vector<std::int32_t>{2});
  EXPECT_EQ(car.get(Car::sound_state), 0x60);
  set(true, 0x77, 0);  // every old bit but 8: no landing
  EXPECT_TRUE(run().empty());
}

}  // namespace
