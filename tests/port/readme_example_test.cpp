// port/README.md's race example, compiled and run as written: CMake extracts the block after the
// "example: race" marker into readme_race_example.inc at configure time (the README is a configure
// dependency), and run_example() below is that block with the game's functions it calls defined
// here. The game: a straight flat track of three sectors, a human car holding the throttle key, a
// computer car with no controller (its input stays 0), passes of 17..45 ms.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "pod/pod.hpp"
#include "world.hpp"

namespace {

std::unique_ptr<podtest::World> world;
int passes = 0;
std::uint32_t ms_total = 0;
std::vector<bool> countdown_seen;
std::vector<pod::Fixed> clock_seen;
pod::Vec3 drawn_position;
pod::Fixed drawn_speed = 0;
int props_drawn = 0;

constexpr int kPasses = 150;
constexpr std::uint32_t kStart = 50000;

/// The game's loader: the track, two cars on it (racer 0 the human, racer 1 a computer car).
pod::FlatMemory& game_memory() {
  world = std::make_unique<podtest::World>();
  const pod::GuestAddr track = world->flat_track({0, 0, 0});
  for (int r = 0; r < 2; ++r) {
    const pod::Car c = world->standard_car(r, (r * 10) << 16, 0, 0, track);
    c.set(pod::Car::gearbox_flags, std::uint8_t{4});  // automatic (F021)
    c.set(pod::Car::gear, std::int8_t{1});
    const pod::Driver d = world->driver(r);
    d.set(pod::Driver::racer, r);
    d.set(pod::Driver::car, c.addr());
    d.set(pod::Driver::flags, r == 0 ? 1u : 2u);
  }
  return world->m;
}
std::uint32_t clock_ms() { return kStart; }
std::uint32_t keys_held() { return pod::input::kThrottle; }
bool playing() { return passes < kPasses; }
std::uint32_t ms_since_last_pass() {
  const std::uint32_t ms = 17 + static_cast<std::uint32_t>((passes * 7) % 29);
  ++passes;
  ms_total += ms;
  return ms;
}
void draw_car(const pod::Vec3& position, const pod::Vec3&, const pod::Vec3&, const pod::Vec3&) { drawn_position = position; }
void show_hud(pod::Fixed speed, int, pod::Fixed clock, bool countdown) {
  drawn_speed = speed;
  clock_seen.push_back(clock);
  countdown_seen.push_back(countdown);
}
void draw_prop(const pod::Vec3&, const std::array<pod::Fixed, 9>&) { ++props_drawn; }

void run_example() {
#include "readme_race_example.inc"
}

TEST(ReadmeExample, TheRaceExampleRunsAsWritten) {
  run_example();
  ASSERT_EQ(passes, kPasses);
  // The countdown lasts one second of the millisecond clock (F171), then "GO!" (F159: the clock 0).
  std::size_t go = 0;
  while (go < countdown_seen.size() && countdown_seen[go]) ++go;
  ASSERT_GT(go, 0u);
  ASSERT_LT(go, countdown_seen.size());
  for (std::size_t i = go; i < countdown_seen.size(); ++i) EXPECT_FALSE(countdown_seen[i]) << "pass " << i;
  for (std::size_t i = 0; i <= go; ++i) EXPECT_EQ(clock_seen[i], 0) << "pass " << i;
  // Frames of at most 45 ms (2925 < 3 × 0x888): one step a pass (F154).
  pod::Race race(world->m);
  EXPECT_EQ(race.steps(), kPasses);
  // After "GO!" the race clock gains each pass's whole frame time (F155): at most the clock's ms × 65.
  EXPECT_GT(clock_seen.back(), 0);
  EXPECT_LE(clock_seen.back(), static_cast<pod::Fixed>(ms_total * 65));
  // The human, throttle held, drove forward (+x, F166) after "GO!"; the computer car had no input.
  EXPECT_GT(drawn_position.x, 1 << 16);
  EXPECT_GT(drawn_speed, 0);
  EXPECT_EQ(race.car(0).position, drawn_position);
  EXPECT_LT(race.car(1).speed, drawn_speed);
  EXPECT_EQ(props_drawn, 0);  // no props on this track
  EXPECT_EQ(race.racers(), 2);
}

}  // namespace
