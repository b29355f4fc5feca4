// The stand-in's race paths, called one by one under lockstep's machine on the stand-in's own snapshot,
// against the documents' words computed here independently (the test never reads the stand-in's
// source): the tracker placed on the path point nearest the car by F143's distance (the larger of |dx|
// and |dy|, or |4 dz| when larger), over many points laid at random; past a link's end the tracker takes
// the node's position (F172); the catch-up's target racer by number (A07). The link table, the move
// along and the argument lists are the race's paths' entries of the table of choices, as
// harness/profiles/pod.toml records them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
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

constexpr GuestAddr kPlace = 0x4aa8a0, kTrack = 0x4b0ec0, kTrackNode = 0x4b0b98, kTarget = 0x422918;
constexpr GuestAddr kLinkTable = 0x543258;               // the profile's path_links (chosen)
constexpr GuestAddr kDrivers = 0x61f870, kCars = 0x630838;  // 003
constexpr std::uint32_t kDriverSize = 0xb0, kCarSize = 0x558, kBodyCentre = 0x498, kTrackLink = 0x2c, kTrackPoint = 0x30;
constexpr GuestAddr kScratch = 0x65c000;                 // free memory of the props' heap
constexpr GuestAddr kRacerCounts = 0x61d5bc;

struct Twin : standin_test::TwinMachine {
};

struct P { std::int32_t x, y, z; };

// F143, in 64 bits (no wrap: the points below lie within a few hundred units).
std::int64_t f143(const P& a, const P& b) {
  std::int64_t dx = std::llabs(std::int64_t{a.x} - b.x), dy = std::llabs(std::int64_t{a.y} - b.y),
               dz = std::llabs(4 * (std::int64_t{a.z} - b.z));
  std::int64_t d = dx > dy ? dx : dy;
  return dz > d ? dz : d;
}

TEST_F(Twin, TheTrackerIsPlacedOnTheNearestPointByF143) {
  // Four links of 1..8 points each at random within 60 units (z within 6), the table pointing at them;
  // the car at a random place; 40 draws. Expected: the first point of least F143 distance, links in the
  // table's order, points in order.
  std::mt19937 rng(143);
  std::uniform_int_distribution<std::int32_t> xy(-60 << 16, 60 << 16), z(-6 << 16, 6 << 16);
  std::uniform_int_distribution<int> count(1, 8);
  const GuestAddr driver = kDrivers + kDriverSize, car = kCars + kCarSize;
  for (int draw = 0; draw < 40; ++draw) {
    machine->reset();
    std::vector<std::vector<P>> links(4);
    GuestAddr next = kScratch;
    put(kLinkTable, 4);
    for (int l = 0; l < 4; ++l) {
      GuestAddr link = next, points = next + 0x20;
      next += 0x20 + 12 * 8;
      for (std::uint32_t o = 0; o < 0x1c; o += 4) put(link + o, 0);
      links[l].resize(static_cast<std::size_t>(count(rng)));
      for (std::size_t k = 0; k < links[l].size(); ++k) {
        links[l][k] = {xy(rng), xy(rng), z(rng)};
        put(points + 12 * k, links[l][k].x), put(points + 12 * k + 4, links[l][k].y), put(points + 12 * k + 8, links[l][k].z);
      }
      put(link + 0x10, static_cast<std::int32_t>(points));
      put(link + 0x18, static_cast<std::int32_t>(links[l].size()));
      put(kLinkTable + 4 + 4 * l, static_cast<std::int32_t>(link));
    }
    P at{xy(rng), xy(rng), z(rng)};
    put(car + kBodyCentre, at.x), put(car + kBodyCentre + 4, at.y), put(car + kBodyCentre + 8, at.z);
    int want_link = -1, want_point = 0;
    std::int64_t best = 0;
    for (int l = 0; l < 4; ++l)
      for (std::size_t k = 0; k < links[l].size(); ++k)
        if (want_link < 0 || f143(links[l][k], at) < best) best = f143(links[l][k], at), want_link = l, want_point = static_cast<int>(k);
    call(kPlace, {Arg::u32(driver), Arg::u32(car)});
    EXPECT_EQ(get(driver + kTrackLink), get(kLinkTable + 4 + 4 * want_link)) << "draw " << draw;
    EXPECT_EQ(get(driver + kTrackPoint), want_point) << "draw " << draw;
  }
}

TEST_F(Twin, PastALinksEndTheTrackerTakesTheNodesPositionF172) {
  // A link of two points ending at a node 20 along; the car 16 along (nearer the node than the last
  // point): the tracker goes on along the node's only link, at its first point. track_node gives the
  // node (its position is the node's first 12 bytes); a link ending nowhere gives 0.
  const GuestAddr link = kScratch, node = kScratch + 0x40, list = kScratch + 0x80, second = kScratch + 0xa0,
                  points = kScratch + 0x100;
  for (GuestAddr a = kScratch; a < kScratch + 0x140; a += 4) put(a, 0);
  put(points + 12, 10 << 16);                   // points (0,0,0), (10,0,0)
  put(points + 24, 30 << 16), put(points + 36, 40 << 16);  // the second link's (30,0,0), (40,0,0)
  put(link + 0x8, static_cast<std::int32_t>(node)), put(link + 0x10, static_cast<std::int32_t>(points)), put(link + 0x18, 2);
  put(node, 20 << 16), put(node + 0xc, 1), put(node + 0x14, static_cast<std::int32_t>(list));
  put(list, static_cast<std::int32_t>(second));
  put(second + 0x10, static_cast<std::int32_t>(points + 24)), put(second + 0x18, 2);
  EXPECT_EQ(call(kTrackNode, {Arg::u32(link)}, ReturnKind::kEax), node);
  EXPECT_EQ(call(kTrackNode, {Arg::u32(second)}, ReturnKind::kEax), 0u) << "a link ending nowhere";
  const GuestAddr driver = kDrivers + kDriverSize, car = kCars + kCarSize;
  put(driver + kTrackLink, static_cast<std::int32_t>(link)), put(driver + kTrackPoint, 1);
  put(car + kBodyCentre, 16 << 16), put(car + kBodyCentre + 4, 0), put(car + kBodyCentre + 8, 0);
  for (int w = 0; w < 4; ++w) put(car + 0xd8 * w + 0x38, 0x00010000);  // +0x3a touching (byte 2 of the word at +0x38)
  call(kTrack, {Arg::u32(driver), Arg::u32(car)});
  EXPECT_EQ(get(driver + kTrackLink), static_cast<std::int32_t>(second));
  EXPECT_EQ(get(driver + kTrackPoint), 0);
}

TEST_F(Twin, TheCatchUpsTargetIsTheRacerByNumber) {
  // Racers 0..n-1 with n = humans + computer cars (A35): racer k's driver at 0x61f870 + 0xb0 k; 0 past them.
  const std::int32_t n = get(kRacerCounts) + get(kRacerCounts + 4);
  ASSERT_EQ(n, 8);
  for (std::int32_t k = -2; k <= n + 1; ++k) {
    std::uint32_t want = k >= 0 && k < n ? kDrivers + kDriverSize * static_cast<std::uint32_t>(k) : 0;
    EXPECT_EQ(call(kTarget, {Arg::i32(k)}, ReturnKind::kEax), want) << "racer " << k;
  }
}

}  // namespace
