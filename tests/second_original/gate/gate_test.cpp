// Crawl's gate: the checked-in corpus (captured from crawl.exe alone) replayed through Crawl's
// bindings, every case of every function of the profile matched, byte for byte; and the gate's power
// shown: ports broken the ways a porter breaks them must fail it, on the functions they break.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <iostream>
#include <optional>
#include <string>

#include "crawl/bindings.hpp"
#include "crawl/game.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/replay/replay.hpp"

namespace {

using namespace lockstep;

const char* const kCorpus = CRAWL_SOURCE_DIR "/corpus";
const char* const kProfile = CRAWL_SOURCE_DIR "/game.toml";

const cases::Corpus& corpus() {
  static const cases::Corpus c = [] {
    auto r = cases::read_corpus(kCorpus);
    if (!r.ok()) {
      ADD_FAILURE() << "reading " << kCorpus << ": " << r.error().message;
      return cases::Corpus{};
    }
    return std::move(*r);
  }();
  return c;
}

const harness::Profile& profile() {
  static const harness::Profile p = [] {
    auto r = harness::load_profile(kProfile);
    if (!r.ok()) {
      ADD_FAILURE() << r.error().message;
      return harness::Profile{};
    }
    return std::move(*r);
  }();
  return p;
}

// The bindings read their arguments by game.toml's names: the replay gives them the profile's signatures.
harness::ReplayResult replay_with(const cases::BindingSet& bindings) {
  auto r = harness::replay(corpus(), harness::with_signatures(bindings, profile()), {});
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? std::move(*r) : harness::ReplayResult{};
}

const harness::FunctionOutcome* outcome(const harness::ReplayResult& r, const std::string& name) {
  for (const auto& f : r.functions)
    if (f.name == name) return &f;
  return nullptr;
}

TEST(CrawlGate, EveryCaseOfEveryProfileFunctionMatches) {
  ASSERT_FALSE(corpus().files.empty());
  const harness::ReplayResult r = replay_with(crawl::bindings::all());
  harness::Labeler labels(profile());
  harness::Namer namer = harness::corpus_namer(corpus(), &labels, 200);
  harness::name_arguments(namer, profile());
  for (const auto& fn : profile().functions) {
    const harness::FunctionOutcome* f = outcome(r, fn.name);
    ASSERT_NE(f, nullptr) << fn.name << ": no cases in the corpus (calls.toml must reach it)";
    EXPECT_TRUE(f->bound) << fn.name << ": no binding";
    EXPECT_GT(f->cases, 0u) << fn.name;
    EXPECT_EQ(f->matched, f->cases) << fn.name;
    for (const auto& failure : f->failures) ADD_FAILURE() << harness::format_mismatch(*f, failure, namer);
  }
  EXPECT_EQ(r.functions.size(), profile().functions.size()) << "the corpus holds a function the profile does not";
  std::cout << harness::format_table(r);
}

TEST(CrawlGate, ThePortsClockIsTheProfilesStub) {
  const harness::StubSpec* tick = nullptr;
  for (const auto& s : profile().stubs)
    if (s.name == "KERNEL32.dll!GetTickCount") tick = &s;
  ASSERT_NE(tick, nullptr);
  EXPECT_EQ(tick->action, harness::StubSpec::Action::kValue);
  EXPECT_EQ(tick->value, crawl::bindings::kStubTickCount);
  // And the corpus shows it: world::update stamps the world's tick with it.
  const harness::InstanceSpec* world = profile().instance_by_name("world");
  ASSERT_NE(world, nullptr);
  const std::uint32_t tick_at = world->base + crawl::world::kTick;
  bool seen = false;
  for (const auto& file : corpus().files)
    for (const auto& c : file.cases)
      if (c.name == "world::update") {
        ASSERT_TRUE(c.writes.contains_all(tick_at, 4));
        std::uint32_t v = 0;
        for (int i = 3; i >= 0; --i) v = v << 8 | *c.writes.get(tick_at + static_cast<unsigned>(i));
        EXPECT_EQ(v, tick->value);
        seen = true;
      }
  EXPECT_TRUE(seen);
}

// --- The gate's power: one function's binding replaced by a plausible wrong port.

using crawl::Memory;
using crawl::bindings::Returned;
using lockstep::cases::Arguments;
namespace entity = crawl::entity;
namespace world = crawl::world;

/// The bindings with `name`'s body replaced.
cases::BindingSet with_broken(const std::string& name, crawl::bindings::Body body) {
  cases::BindingSet set = crawl::bindings::all();
  for (auto& b : set)
    if (b.name == name) b = crawl::bindings::bind(b.address, b.name, body);
  return set;
}

TEST(CrawlGatePower, FixedMulRoundingToNearestFails) {
  // The shift rounds toward minus infinity; a porter who rounds to nearest breaks -1 x 1 and more.
  const auto r = replay_with(with_broken("fixed::mul", [](Memory&, const Arguments& args) {
    const std::int64_t p = std::int64_t{args.i32("a")} * args.i32("b");
    return Returned{static_cast<std::uint32_t>((p + 0x8000) >> 16), std::nullopt};
  }));
  ASSERT_NE(outcome(r, "fixed::mul"), nullptr);
  EXPECT_GT(outcome(r, "fixed::mul")->mismatched, 0u);
}

TEST(CrawlGatePower, TileAtComparingSignedFails) {
  // tile_at compares its indices unsigned: a negative one is outside. Compared signed, it reads a
  // byte before the row, one the original never read.
  const auto r = replay_with(with_broken("map::tile_at", [](Memory& m, const Arguments& args) {
    const std::int32_t tx = args.i32("tx"), ty = args.i32("ty");
    const crawl::GuestAddr map = args.ptr("map");
    if (tx >= m.i32(map + crawl::map::kWidth) || ty >= m.i32(map + crawl::map::kHeight))
      return Returned{crawl::kWall, std::nullopt};
    return Returned{m.u8(map + crawl::map::kTiles + static_cast<std::uint32_t>(ty * 16 + tx)), std::nullopt};
  }));
  ASSERT_NE(outcome(r, "map::tile_at"), nullptr);
  EXPECT_GT(outcome(r, "map::tile_at")->mismatched, 0u);
  EXPECT_GT(outcome(r, "map::tile_at")->outside_reads, 0u);
}

TEST(CrawlGatePower, AngleWrapWithFloatConstantsFails) {
  // The original compares with and subtracts the 80-bit PI_F GCC keeps for `3.14159265f`; a port in
  // floats (what a C++ compiler on SSE makes of the same source) wraps pi's float the other way.
  const auto r = replay_with(with_broken("angle::wrap", [](Memory&, const Arguments& args) {
    float a = args.f32("angle");
    const float pi = 3.14159265f;
    for (int turns = 0; a > pi && turns < 4; ++turns) a -= 2.0f * pi;
    for (int turns = 0; a <= -pi && turns < 4; ++turns) a += 2.0f * pi;
    return Returned{0, a};
  }));
  ASSERT_NE(outcome(r, "angle::wrap"), nullptr);
  EXPECT_GT(outcome(r, "angle::wrap")->mismatched, 0u);
}

TEST(CrawlGatePower, MoveTestingTheUnroundedPositionFails) {
  // The new position is stored as a float before anything uses it; a port that keeps it in double
  // for the wall test and the odometer writes other odometer bytes.
  const auto r = replay_with(with_broken("motion::move", [](Memory& m, const Arguments& args) {
    const crawl::GuestAddr w = args.ptr("world"), e = args.ptr("entity");
    const double dt = args.f32("dt");
    const double x = m.f32(e + entity::kPosX), y = m.f32(e + entity::kPosY);
    const double nx = x + double{m.f32(e + entity::kVelX)} * dt, ny = y + double{m.f32(e + entity::kVelY)} * dt;
    const auto flags = m.u8(e + entity::kFlags);
    if (crawl::tile_blocked(m, w + world::kMap, crawl::x87_truncate(nx * 65536.0), crawl::x87_truncate(ny * 65536.0))) {
      m.put_u8(e + entity::kFlags, static_cast<std::uint8_t>(flags | entity::kBlocked));
      return Returned{};
    }
    m.put_f64(e + entity::kOdometer, m.f64(e + entity::kOdometer) + std::sqrt((nx - x) * (nx - x) + (ny - y) * (ny - y)));
    m.put_f32(e + entity::kPosX, static_cast<float>(nx));
    m.put_f32(e + entity::kPosY, static_cast<float>(ny));
    m.put_u8(e + entity::kFlags, static_cast<std::uint8_t>(flags & ~entity::kBlocked));
    return Returned{1, std::nullopt};
  }));
  ASSERT_NE(outcome(r, "motion::move"), nullptr);
  EXPECT_GT(outcome(r, "motion::move")->mismatched, 0u);
}

TEST(CrawlGatePower, WorldUpdateWithoutTheEightEntityLimitFails) {
  // world_update looks at no more than 8 entities whatever entity_count says (the corpus has a world
  // claiming 20); a port without the limit reads past the world, bytes the original never read.
  const auto r = replay_with(with_broken("world::update", [](Memory& m, const Arguments& args) {
    const crawl::GuestAddr w = args.ptr("world");
    const float dt = args.read_by_original("dt") ? args.f32("dt") : 0.0f;
    const std::int32_t n = m.i32(w + world::kEntityCount);
    m.put_u32(w + world::kTick, crawl::bindings::kStubTickCount);
    std::uint32_t alive = 0;
    for (std::int32_t i = 0; i < n; ++i) {
      const crawl::GuestAddr e = w + world::kEntities + static_cast<std::uint32_t>(i) * entity::kSize;
      if (!(m.u8(e + entity::kFlags) & entity::kAlive)) continue;
      if (m.u32(m.u32(e + entity::kVtbl) + crawl::vtbl::kThink) == crawl::code::kWalkerThink)
        crawl::walker_think(m, e, w, dt);
      else
        crawl::turret_think(m, e, w, dt);
      m.put_u32(e + entity::kLastTick, crawl::bindings::kStubTickCount);
      alive += m.u8(e + entity::kFlags) & entity::kAlive;
    }
    return Returned{alive, std::nullopt};
  }));
  ASSERT_NE(outcome(r, "world::update"), nullptr);
  EXPECT_GT(outcome(r, "world::update")->mismatched, 0u);
  EXPECT_GT(outcome(r, "world::update")->outside_reads, 0u);
}

// --- Arguments by name (lockstep/cases/arguments.hpp): read lazily, named in reports.

TEST(CrawlArguments, AnArgumentReadOnlyWhereThePortUsesItIsNoPortRead) {
  // world::update of a world with no live entity never loads dt. The shipped binding reads it only
  // where the original did; one that reads every argument up front reads 4 bytes the case cannot
  // vouch for, and the report names them as the argument, and lists the case's arguments.
  const auto r = replay_with(with_broken("world::update", [](Memory& m, const Arguments& args) {
    static const struct : crawl::Platform {
      std::uint32_t tick_count() const override { return crawl::bindings::kStubTickCount; }
    } clock;
    const float dt = args.f32("dt");
    return Returned{static_cast<std::uint32_t>(crawl::world_update(m, args.ptr("world"), dt, clock)), std::nullopt};
  }));
  const harness::FunctionOutcome* f = outcome(r, "world::update");
  ASSERT_NE(f, nullptr);
  ASSERT_GT(f->outside_reads, 0u);
  ASSERT_FALSE(f->failures.empty());
  harness::Labeler labels(profile());
  harness::Namer namer = harness::corpus_namer(corpus(), &labels, 200);
  harness::name_arguments(namer, profile());
  const std::string report = harness::format_mismatch(*f, f->failures.front(), namer);
  EXPECT_NE(report.find("the port read 4 byte(s) the original never read:"), std::string::npos) << report;
  // cdecl world_update(world, dt): dt is the second stack argument, at the entry esp + 8.
  const std::uint32_t esp = f->failures.front().c->in.esp;
  EXPECT_NE(report.find(fmt::format("0x{:08x} dt (esp+8)", esp + 8)), std::string::npos) << report;
  EXPECT_NE(report.find("  arguments:\n    world (esp+4) = 0x"), std::string::npos) << report;
  EXPECT_NE(report.find("    dt (esp+8) = (not read)\n"), std::string::npos) << report;
}

TEST(CrawlArguments, ANameTheProfileDoesNotGiveIsThePortsErrorListingTheNames) {
  const auto r = replay_with(with_broken("fixed::mul", [](Memory&, const Arguments& args) {
    return Returned{static_cast<std::uint32_t>(args.i32("factor")), std::nullopt};
  }));
  const harness::FunctionOutcome* f = outcome(r, "fixed::mul");
  ASSERT_NE(f, nullptr);
  ASSERT_FALSE(f->failures.empty());
  EXPECT_EQ(f->mismatched, f->cases);
  EXPECT_EQ(f->failures.front().comparison.port_error,
            "fixed::mul: no argument 'factor' in the profile's args (a:i32, b:i32)");
}

TEST(CrawlArguments, AReadOfTheWrongKindIsThePortsError) {
  const auto r = replay_with(with_broken("entity::damage", [](Memory&, const Arguments& args) {
    return Returned{static_cast<std::uint32_t>(args.f64("amount")), std::nullopt};
  }));
  const harness::FunctionOutcome* f = outcome(r, "entity::damage");
  ASSERT_NE(f, nullptr);
  ASSERT_FALSE(f->failures.empty());
  EXPECT_EQ(f->failures.front().comparison.port_error,
            "entity::damage: argument 'amount' is i32 in the profile; f64() does not read it");
}

TEST(CrawlArguments, WithoutTheProfileABindingByNameSaysWhatItNeeds) {
  auto r = harness::replay(corpus(), crawl::bindings::all(), {});
  ASSERT_TRUE(r.ok());
  const harness::FunctionOutcome* f = outcome(*r, "fixed::mul");
  ASSERT_NE(f, nullptr);
  ASSERT_FALSE(f->failures.empty());
  EXPECT_NE(f->failures.front().comparison.port_error.find("no profile gave the function's args"), std::string::npos);
}

}  // namespace
