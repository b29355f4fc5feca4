// The port plays the level alone: from the bytes of crawl.exe (its .data holds the level), the port's
// world_update and the original's, under Unicorn on the EXE's snapshot, run the same 600 updates side
// by side, each from its own state. After every update the world's 0x258 bytes and the live count
// must be the same. No case is involved: the port carries its own state through the whole game (the
// gate checks each call from the original's state; this checks that nothing drifts over a run).
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>

#include "crawl/bindings.hpp"
#include "crawl/game.hpp"
#include "lockstep/machine/machine.hpp"
#include "lockstep/readers/pe32.hpp"
#include "lockstep/profile/profile.hpp"

namespace {

#ifdef CRAWL_EXE

using namespace lockstep;

/// crawl::Memory over a copy of the snapshot's regions; an unmapped address is an error.
class SnapshotMemory final : public crawl::Memory {
 public:
  explicit SnapshotMemory(const harness::Snapshot& s) {
    for (const auto& r : s.regions) regions_.emplace(r.base, r.bytes);
  }
  std::uint64_t load(crawl::GuestAddr a, unsigned n) override {
    std::uint64_t v = 0;
    for (unsigned i = n; i-- > 0;) v = v << 8 | *at(a + i);
    return v;
  }
  void store(crawl::GuestAddr a, std::uint64_t value, unsigned n) override {
    for (unsigned i = 0; i < n; ++i) *at(a + i) = static_cast<std::uint8_t>(value >> (8 * i));
  }

 private:
  std::uint8_t* at(crawl::GuestAddr a) {
    auto it = regions_.upper_bound(a);
    if (it != regions_.begin()) {
      --it;
      if (a - it->first < it->second.size()) return &it->second[a - it->first];
    }
    throw std::out_of_range("the port touched unmapped 0x" + std::to_string(a));
  }
  std::map<crawl::GuestAddr, std::vector<std::uint8_t>> regions_;
};

class StubClock final : public crawl::Platform {
 public:
  std::uint32_t tick_count() const override { return crawl::bindings::kStubTickCount; }
};

TEST(CrawlWholeGame, ThePortPlaysSixHundredUpdatesAloneAndStaysByteIdentical) {
  auto image = harness::load_pe32(CRAWL_EXE);
  ASSERT_TRUE(image.ok()) << image.error().message;
  const harness::Snapshot snap = harness::snapshot_from_image(*image);
  auto profile = harness::load_profile(CRAWL_SOURCE_DIR "/game.toml");
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  const harness::FunctionSpec* update = profile->function_by_name("world::update");
  const harness::InstanceSpec* world_spec = profile->instance_by_name("world");
  ASSERT_TRUE(update != nullptr && world_spec != nullptr);
  const crawl::GuestAddr world = world_spec->base;

  auto machine = harness::Machine::create(snap, harness::config_from_profile(*profile));
  ASSERT_TRUE(machine.ok()) << machine.error().message;
  SnapshotMemory port_memory(snap);
  const StubClock clock;
  const float dt = 0.1f;

  harness::CallSpec spec;
  spec.function = update->address;
  spec.convention = {harness::Convention::kCdecl, {}};
  spec.args = {harness::Arg::u32(world), harness::Arg::u32(std::bit_cast<std::uint32_t>(dt))};
  spec.returns = harness::ReturnKind::kEax;

  std::uint32_t first_alive = 0, last_alive = 0;
  for (int update_index = 0; update_index < 600; ++update_index) {
    auto original = (*machine)->call(spec);  // no reset: the original's state carries over too
    ASSERT_TRUE(original.ok()) << original.error().message;
    ASSERT_TRUE(original->returned()) << "update " << update_index << ": " << harness::format_fault(*original->fault);
    const std::int32_t port_alive = crawl::world_update(port_memory, world, dt, clock);
    ASSERT_EQ(static_cast<std::int32_t>(original->value.eax), port_alive) << "update " << update_index;

    auto original_world = (*machine)->read(world, 0x258);
    ASSERT_TRUE(original_world.ok()) << original_world.error().message;
    for (std::uint32_t i = 0; i < 0x258; ++i)
      ASSERT_EQ((*original_world)[i], port_memory.load(world + i, 1))
          << "update " << update_index << ": world byte +0x" << std::hex << i;
    if (update_index == 0) first_alive = original->value.eax;
    last_alive = original->value.eax;
  }
  // Not a still life: in the original's own run the four walkers walk (their odometers) and die on
  // the way (lava, turrets); the two turrets sweep on.
  EXPECT_EQ(first_alive, 6u);
  EXPECT_EQ(last_alive, 2u);
  for (std::uint32_t walker = 0; walker < 4; ++walker)
    EXPECT_GT(port_memory.f64(world + crawl::world::kEntities + walker * crawl::entity::kSize + crawl::entity::kOdometer),
              1.0)
        << "walker " << walker;
}

#else
TEST(CrawlWholeGame, NeedsTheMingwBuild) {
  GTEST_SKIP() << "i686-w64-mingw32-gcc/nm not found at configure time: crawl.exe is not built";
}
#endif

}  // namespace
