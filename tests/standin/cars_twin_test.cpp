// The stand-in's car against car and damage functions, called one by one under lockstep's machine on the
// stand-in's own snapshot, against the documents' formulas computed here independently (the test never
// reads the stand-in's source): the hull's box and radius (F147, F148) and the square root under it,
// the contact impulse (F093), the damage's gating, threshold and sharing (F098, F102), a part running
// out with and without its chain (F103, F104), and the wheels each broken part hurts (F105) by how much.
// Values the documents leave open (argument lists, 16.16 constants, record layouts) are port/CHOICES.md's
// ("Car against car and damage"), as harness/profiles/pod.toml records them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "lockstep/machine/machine.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/snapshot/snapshot.hpp"
#include "twin_machine.hpp"

namespace {

using namespace lockstep::harness;
using lockstep::harness::GuestAddr;

// Documented addresses and offsets (port/CHOICES.md "Race car fields", "Car against car and damage"; F098) and the profile's chosen ones.
constexpr GuestAddr kCars = 0x630838, kCarSize = 0x558, kPoint = 0xd8, kDrivers = 0x61f870, kDriverSize = 0xb0;
constexpr GuestAddr kFrame = 0x621b70, kDamageVeto = 0x633314, kDamageOption = 0x63334c;
constexpr GuestAddr kHulls = 0x648000, kHullSize = 0x1c, kScratchHull = kHulls + 170 * kHullSize;
constexpr std::uint32_t kVelocity = 0x4c8, kMass = 0x520, kRolling = 0x90, kRadius = 0x4c, kSideGrip = 0xb8,
                        kTraction = 0xbc, kObjectParts = 0x04, kPartHull = 0x34, kPartChain = 0x38, kPartHealth = 0x3c;

constexpr GuestAddr kSqrt = 0x4d3e90, kHullBox = 0x4713c8, kHullRadius = 0x423b48, kImpulse = 0x420adc,
                    kHit = 0x420e54, kWheelsHurt = 0x415318;

struct Twin : standin_test::TwinMachine {
  static GuestAddr car(int racer) { return kCars + static_cast<GuestAddr>(racer) * kCarSize; }
  static GuestAddr part(int racer, int i) {  // the object's i-th part, from its list (3.10)
    GuestAddr object = static_cast<GuestAddr>(get(kDrivers + static_cast<GuestAddr>(racer) * kDriverSize + 4));
    return static_cast<GuestAddr>(get(static_cast<GuestAddr>(get(object + kObjectParts)) + 4 * i));
  }
};

// 16.16 multiply as the documents' arithmetic takes it: bits 16..47 of the 64-bit product.
std::int32_t mul16(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint64_t>(static_cast<std::int64_t>(a) * b) >> 16);
}

std::uint32_t isqrt(std::uint64_t n) {  // floor(sqrt(n)) by the long double root, then corrected
  auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<long double>(n)));
  while (r * r > n) --r;
  while ((r + 1) <= 0xffffffffull && (r + 1) * (r + 1) <= n) ++r;
  return static_cast<std::uint32_t>(r);
}

TEST_F(Twin, SquareRootIsTheFlooredRootOfTheSixtyFourBitValue) {
  std::mt19937_64 rng(14);
  std::vector<std::uint64_t> values = {0, 1, 2, 3, 4, 0xffffffffull, 0x100000000ull, ~0ull, 0xfffffffe00000001ull};
  for (int i = 0; i < 1500; ++i) values.push_back(rng() >> (rng() % 64));
  for (std::uint64_t v : values)
    EXPECT_EQ(call(kSqrt, {Arg::u32(static_cast<std::uint32_t>(v)), Arg::u32(static_cast<std::uint32_t>(v >> 32))},
                   ReturnKind::kEax)
                  .value_or(0),
              isqrt(v))
        << "value " << v;
}

TEST_F(Twin, HullBoxAndRadiusFollowF147AndF148) {
  std::mt19937 rng(147);
  for (int round = 0; round < 300; ++round) {
    machine->reset();
    int count = static_cast<int>(rng() % 10);
    std::vector<std::int32_t> words;
    std::int32_t lo[3] = {0x7fffffff, 0x7fffffff, 0x7fffffff};
    std::int32_t hi[3] = {static_cast<std::int32_t>(0x80000001), static_cast<std::int32_t>(0x80000001),
                          static_cast<std::int32_t>(0x80000001)};
    for (int i = 0; i < count * 3; ++i) {
      auto w = static_cast<std::int32_t>(rng()) >> (rng() % 16);
      words.push_back(w);
      lo[i % 3] = std::min(lo[i % 3], w);
      hi[i % 3] = std::max(hi[i % 3], w);
    }
    std::vector<std::uint8_t> block(std::max<std::size_t>(words.size(), 1) * 4);
    std::memcpy(block.data(), words.data(), words.size() * 4);
    put(kScratchHull + 0xc, 0x1234567);  // the radius: the box leaves it
    call(kHullBox, {Arg::bytes(block), Arg::u32(static_cast<std::uint32_t>(count)), Arg::u32(kScratchHull)},
         ReturnKind::kNone);
    for (int k = 0; k < 3; ++k) {
      auto half = static_cast<std::int32_t>(static_cast<std::uint32_t>(hi[k]) - static_cast<std::uint32_t>(lo[k])) >> 1;
      auto centre = static_cast<std::int32_t>(static_cast<std::uint32_t>(hi[k]) + static_cast<std::uint32_t>(lo[k])) >> 1;
      EXPECT_EQ(get(kScratchHull + 4 * k), half) << "round " << round << " axis " << k;
      EXPECT_EQ(get(kScratchHull + 0x10 + 4 * k), centre) << "round " << round << " axis " << k;
    }
    EXPECT_EQ(get(kScratchHull + 0xc), 0x1234567);
    // F148: sqrt(x^2 + y^2) of the x and y half sizes; z does not count.
    std::int64_t x = get(kScratchHull), y = get(kScratchHull + 4);
    put(kScratchHull + 8, static_cast<std::int32_t>(rng()));
    std::uint32_t r = call(kHullRadius, {Arg::u32(kScratchHull)}, ReturnKind::kEax).value_or(0);
    EXPECT_EQ(r, isqrt(static_cast<std::uint64_t>(x * x) + static_cast<std::uint64_t>(y * y))) << "round " << round;
    EXPECT_EQ(static_cast<std::uint32_t>(get(kScratchHull + 0xc)), r);
  }
}

TEST_F(Twin, ContactImpulseFollowsF093) {
  std::mt19937 rng(93);
  const std::int32_t normal[3] = {0x10000, 0, 0};
  std::vector<std::uint8_t> n(12);
  std::memcpy(n.data(), normal, 12);
  for (int round = 0; round < 300; ++round) {
    machine->reset();
    std::int32_t va = static_cast<std::int32_t>(rng() % (200 << 16)) - (100 << 16);
    std::int32_t vb = static_cast<std::int32_t>(rng() % (200 << 16)) - (100 << 16);
    std::int32_t ma = static_cast<std::int32_t>(rng() % (100 << 16)) + (1 << 16);
    std::int32_t mb = static_cast<std::int32_t>(rng() % (100 << 16)) + (1 << 16);
    std::int32_t dt = 0x400 + static_cast<std::int32_t>(rng() % 0x1000);
    put(car(0) + kVelocity, va);
    put(car(1) + kVelocity, vb);
    put(car(0) + kMass, ma);
    put(car(1) + kMass, mb);
    put(kFrame + 8, dt);  // the frame's (unscaled) time
    // closing speed along the normal x ((2 ma mb / (ma + mb)) >> 8) / (dt << 8); 0 when they part
    std::int32_t closing = va - vb, expected = 0;
    if (closing > 0) {
      auto reduced = static_cast<std::int32_t>((2 * static_cast<std::int64_t>(ma) * mb / (ma + mb)) >> 8);
      std::int64_t num = static_cast<std::int64_t>(mul16(closing, reduced)) * 65536, den = static_cast<std::int64_t>(dt) << 8;
      expected = num / den > 0x7fffffff ? 0x7fffffff : static_cast<std::int32_t>(num / den);
    }
    EXPECT_EQ(static_cast<std::int32_t>(
                  call(kImpulse, {Arg::u32(car(0)), Arg::u32(car(1)), Arg::bytes(n)}, ReturnKind::kEax).value_or(0)),
              expected)
        << "round " << round << ": va " << va << " vb " << vb << " ma " << ma << " mb " << mb << " dt " << dt;
  }
}

TEST_F(Twin, DamageOnlyWithTheOptionOnTheVetoClearAndHalfTheImpulseFromFiftyThousand) {
  struct Case { std::int32_t option, veto, strength; bool damages; };
  const Case cases[] = {{0, 0, 400000, false}, {1, 1, 400000, false}, {2, 7, 400000, false},
                        {1, 0, 99998, false},  {1, 0, 99999, false},  {1, 0, 100000, true},
                        {1, 0, 100002, true},  {2, 0, 100000, true},  {1, 0, -400000, false}};
  for (const Case& c : cases) {
    machine->reset();
    put(kDamageOption, c.option);
    put(kDamageVeto, c.veto);
    std::int32_t before[6];
    for (int i = 0; i < 6; ++i) before[i] = get(part(0, i) + kPartHealth);
    call(kHit, {Arg::u32(car(0)), Arg::u32(0x3f), Arg::i32(c.strength)}, ReturnKind::kNone);
    for (int i = 0; i < 6; ++i) {
      std::int32_t want = c.damages ? before[i] - (c.strength >> 1) / 6 : before[i];
      EXPECT_EQ(get(part(0, i) + kPartHealth), want)
          << "option " << c.option << " veto " << c.veto << " strength " << c.strength << " part " << i;
    }
  }
}

TEST_F(Twin, DamageIsSharedAmongTheContactsPartsInModeTwoAndAllSixInModeOne) {
  for (std::uint32_t mask : {0x01u, 0x30u, 0x0du, 0x3c0u}) {
    for (std::int32_t option : {1, 2}) {
      machine->reset();
      put(kDamageOption, option);
      std::int32_t before[6];
      for (int i = 0; i < 6; ++i) before[i] = get(part(0, i) + kPartHealth);
      call(kHit, {Arg::u32(car(0)), Arg::u32(mask), Arg::i32(600000)}, ReturnKind::kNone);
      std::uint32_t chosen = option == 2 ? (mask & 0x3f) : 0x3f;
      int n = __builtin_popcount(chosen);
      for (int i = 0; i < 6; ++i) {
        bool hit = (chosen >> i) & 1;
        EXPECT_EQ(get(part(0, i) + kPartHealth), hit ? before[i] - 300000 / n : before[i])
            << "mask " << mask << " option " << option << " part " << i;
      }
    }
  }
}

TEST_F(Twin, APartRunningOutTakesItsTemplateAndTheExcessOrStaysAtZero) {
  put(kDamageOption, 2);
  GuestAddr p = part(0, 0);
  GuestAddr chain = static_cast<GuestAddr>(get(p + kPartChain));
  ASSERT_NE(chain, 0u) << "body set 0's parts have a chain (002)";
  GuestAddr tmpl = static_cast<GuestAddr>(get(chain + 4));
  std::int32_t tmpl_health = get(tmpl + kPartHealth), tmpl_hull = get(tmpl + kPartHull), tmpl_chain = get(tmpl + kPartChain);
  put(p + kPartHealth, 10000);
  call(kHit, {Arg::u32(car(0)), Arg::u32(0x01), Arg::i32(120000)}, ReturnKind::kNone);  // share 60,000
  EXPECT_EQ(get(p + kPartHealth), tmpl_health - 50000);  // F103: the template's plus the excess
  EXPECT_EQ(get(p + kPartHull), tmpl_hull);               // F104: its hull and chain
  EXPECT_EQ(get(p + kPartChain), tmpl_chain);

  machine->reset();
  put(kDamageOption, 2);
  put(tmpl + kPartHealth, 5000);
  put(p + kPartHealth, 10000);
  call(kHit, {Arg::u32(car(0)), Arg::u32(0x01), Arg::i32(120000)}, ReturnKind::kNone);
  EXPECT_EQ(get(p + kPartHealth), 0);  // at least 0

  machine->reset();
  put(kDamageOption, 2);
  put(p + kPartChain, 0);
  put(p + kPartHealth, 10000);
  std::int32_t hull = get(p + kPartHull);
  call(kHit, {Arg::u32(car(0)), Arg::u32(0x01), Arg::i32(120000)}, ReturnKind::kNone);
  EXPECT_EQ(get(p + kPartHealth), 0);  // without a chain it stays at 0
  EXPECT_EQ(get(p + kPartHull), hull);
}

TEST_F(Twin, EachPartBitHurtsItsWheelsByF105) {
  // F105: 0x10 wheel 0, 4 wheels 0 and 1, 1 wheel 1, 0x20 wheel 2, 8 wheels 2 and 3, 2 wheel 3; one
  // wheel: grips x 0.95, rolling resistance + radius^2 x 15.26; a pair: x 0.97, + radius^2 x 7.63.
  struct Hurt { std::uint32_t bit; int wheels[2]; bool pair; };
  const Hurt hurts[] = {{0x10, {0, -1}, false}, {0x04, {0, 1}, true}, {0x01, {1, -1}, false},
                        {0x20, {2, -1}, false}, {0x08, {2, 3}, true}, {0x02, {3, -1}, false}};
  const std::int32_t kept[2] = {0xf333, 0xf852}, per_square[2] = {0xf428f, 0x7a148};  // 0.95, 0.97; 15.26, 7.63
  for (const Hurt& h : hurts) {
    machine->reset();
    std::int32_t side[4], traction[4], rolling[4], radius[4];
    for (int w = 0; w < 4; ++w) {
      GuestAddr p = car(2) + static_cast<GuestAddr>(w) * kPoint;
      side[w] = get(p + kSideGrip), traction[w] = get(p + kTraction), rolling[w] = get(p + kRolling);
      radius[w] = get(p + kRadius);
    }
    call(kWheelsHurt, {Arg::u32(car(2)), Arg::u32(h.bit)}, ReturnKind::kNone);
    for (int w = 0; w < 4; ++w) {
      GuestAddr p = car(2) + static_cast<GuestAddr>(w) * kPoint;
      bool hurt = w == h.wheels[0] || w == h.wheels[1];
      int k = h.pair ? 1 : 0;
      EXPECT_EQ(get(p + kSideGrip), hurt ? mul16(side[w], kept[k]) : side[w]) << "bit " << h.bit << " wheel " << w;
      EXPECT_EQ(get(p + kTraction), hurt ? mul16(traction[w], kept[k]) : traction[w]) << "bit " << h.bit << " wheel " << w;
      EXPECT_EQ(get(p + kRolling), hurt ? rolling[w] + mul16(mul16(radius[w], radius[w]), per_square[k]) : rolling[w])
          << "bit " << h.bit << " wheel " << w;
    }
  }
}

}  // namespace
