// The drawn objects' hulls against the documents (F147, F148, F149).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "pod/hulls.hpp"
#include "pod/layout.hpp"
#include "pod/math.hpp"
#include "world.hpp"

namespace {

using pod::Hull;
using pod::Vec3;
using podtest::World;

struct FactsHulls : ::testing::Test {
  World w;
  pod::GuestAddr vertices(const std::vector<Vec3>& vs) {
    const pod::GuestAddr a = w.alloc(static_cast<std::uint32_t>(12 * vs.size() + 12));
    for (std::size_t i = 0; i < vs.size(); ++i) w.m.put_vec3(a + 12 * static_cast<std::uint32_t>(i), vs[i]);
    return a;
  }
};

// F147: the box starts from min 0x7fffffff and max 0x80000001; half sizes (max − min) >> 1, centre
// (max + min) >> 1; the radius is not written.
TEST_F(FactsHulls, F147_HullIsTheVerticesBoxHalvedAndCentred) {
  const std::vector<Vec3> vs = {{0x30000, -0x10001, 5}, {-0x20000, 0x40000, -7}, {0x10000, 0, 0x8000}};
  const pod::GuestAddr hull = w.alloc(Hull::kSize);
  w.m.put_i32(hull + 0xc, 12345);
  pod::world::hull_box(w.m, vertices(vs), 3, hull);
  const Hull h(w.m, hull);
  // By hand: x in [−0x20000, 0x30000], y in [−0x10001, 0x40000], z in [−7, 0x8000].
  EXPECT_EQ(h.get(Hull::half), (Vec3{0x50000 >> 1, (0x40000 + 0x10001) >> 1, (0x8000 + 7) >> 1}));
  EXPECT_EQ(h.get(Hull::centre), (Vec3{0x10000 >> 1, (0x40000 - 0x10001) >> 1, (0x8000 - 7) >> 1}));
  EXPECT_EQ(h.get(Hull::radius), 12345) << "the box leaves the radius to FUN_00423b48";
}

// F147: the starting extremes show when no vertex moves them: (0x80000001 − 0x7fffffff) >> 1 = 1 as
// a 32-bit difference, and the centre (0x80000001 + 0x7fffffff) >> 1 = 0. One vertex sets both.
TEST_F(FactsHulls, F147_StartingExtremes) {
  const pod::GuestAddr hull = w.alloc(Hull::kSize);
  pod::world::hull_box(w.m, vertices({}), 0, hull);
  EXPECT_EQ(Hull(w.m, hull).get(Hull::half), (Vec3{1, 1, 1}));
  EXPECT_EQ(Hull(w.m, hull).get(Hull::centre), (Vec3{0, 0, 0}));
  const Vec3 v{5, -7, 3};
  pod::world::hull_box(w.m, vertices({v}), 1, hull);
  EXPECT_EQ(Hull(w.m, hull).get(Hull::half), (Vec3{0, 0, 0}));
  EXPECT_EQ(Hull(w.m, hull).get(Hull::centre), v);
}

// F148: the radius is √(x² + y²) of the x and y half sizes; z is not included.
TEST_F(FactsHulls, F148_RadiusOfTheXAndYHalfSizesOnly) {
  const pod::GuestAddr hull = w.alloc(Hull::kSize);
  const Hull h(w.m, hull);
  h.set(Hull::half, Vec3{3 << 16, 4 << 16, 100 << 16});
  EXPECT_EQ(pod::world::hull_radius(w.m, hull), 5 << 16);
  EXPECT_EQ(h.get(Hull::radius), 5 << 16);
  // Not exact: the root rounded down, checked as r² ≤ x² + y² < (r + 1)² in exact integers.
  const std::int64_t x = 0x1a3d7, y = 0xe1234;
  h.set(Hull::half, Vec3{static_cast<pod::Fixed>(x), static_cast<pod::Fixed>(y), -1});
  const std::int64_t r = pod::world::hull_radius(w.m, hull);
  const std::int64_t s = x * x + y * y;  // < 2^41: exact
  EXPECT_LE(r * r, s);
  EXPECT_GT((r + 1) * (r + 1), s);
  EXPECT_NEAR(r / 65536.0, std::hypot(x / 65536.0, y / 65536.0), 1.0 / 65536);
  // The reads: x and y, never z (recorded).
  podtest::RecordingMemory rec(w.m);
  pod::world::hull_radius(rec, hull);
  EXPECT_FALSE(rec.read_in(hull + 8, hull + 12));
}

// FUN_004d3e90, the root the radius goes through: exact on 64-bit values, including the largest.
TEST(FactsHullsRoot, SquareRootRoundsDownOnEvery64BitValue) {
  EXPECT_EQ(pod::math::isqrt(0), 0u);
  EXPECT_EQ(pod::math::isqrt(15), 3u);
  EXPECT_EQ(pod::math::isqrt(16), 4u);
  EXPECT_EQ(pod::math::isqrt(~std::uint64_t{0}), 0xffffffffu);
  const std::uint64_t k = 0xfffffffbull;
  EXPECT_EQ(pod::math::isqrt(k * k - 1), k - 1);
  EXPECT_EQ(pod::math::isqrt(k * k), k);
}

// F149 (with F146): "Prisme" gives each of the ten parts a hull from its own vertices, and the whole
// car's hull is the box of all ten parts' vertices.
TEST_F(FactsHulls, F149_WholeCarHullIsTheBoxOfEveryPartsVertices) {
  w.m.map(pod::addr::kRaceObjects, 8 * pod::addr::kRaceObjectSize);
  const pod::RaceObject o(w.m, pod::addr::kRaceObjects);
  const pod::GuestAddr list = w.alloc(40);
  o.set(pod::RaceObject::part_count, 10);
  o.set(pod::RaceObject::parts, list);
  o.set(pod::RaceObject::hull, w.alloc(Hull::kSize));
  Vec3 lo{0x7fffffff, 0x7fffffff, 0x7fffffff}, hi{-0x7fffffff, -0x7fffffff, -0x7fffffff};
  std::vector<pod::GuestAddr> parts;
  for (int i = 0; i < 10; ++i) {
    std::vector<Vec3> vs;
    for (int j = 0; j < 4; ++j) {
      const Vec3 v{(i * 0x9000 - j * 0x3100) ^ 0x55, (j * 0x7000 - i * 0x2200), ((i + j) % 3 - 1) * 0x6000 + i};
      vs.push_back(v);
      for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], v[k]), hi[k] = std::max(hi[k], v[k]);
    }
    const pod::Part p(w.m, w.alloc(pod::Part::kSize));
    p.set(pod::Part::vertex_count, 4u);
    p.set(pod::Part::vertices, vertices(vs));
    p.set(pod::Part::hull, w.alloc(Hull::kSize));
    w.m.put_u32(list + 4 * static_cast<std::uint32_t>(i), p.addr());
    parts.push_back(p.addr());
  }
  pod::world::prisme(w.m, o.addr());
  const Hull whole(w.m, o.get(pod::RaceObject::hull));
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(whole.get(Hull::half)[k], (hi[k] - lo[k]) >> 1);
    EXPECT_EQ(whole.get(Hull::centre)[k], (hi[k] + lo[k]) >> 1);
  }
  const double hx = whole.get(Hull::half).x / 65536.0, hy = whole.get(Hull::half).y / 65536.0;
  EXPECT_NEAR(whole.get(Hull::radius) / 65536.0, std::hypot(hx, hy), 1.0 / 65536);
  // Part 3's own hull: its four vertices' box.
  const Hull h3(w.m, pod::Part(w.m, parts[3]).get(pod::Part::hull));
  EXPECT_EQ(h3.get(Hull::half).y, (3 * 0x7000 - 0) >> 1);
  EXPECT_NE(h3.get(Hull::radius), 0);
}

// F149: a part of a single vertex counts in the whole hull like any other (the box takes every
// part's vertices): here it alone sets the box's top.
TEST_F(FactsHulls, F149_APartOfOneVertexCountsInTheWholeHull) {
  w.m.map(pod::addr::kRaceObjects, 8 * pod::addr::kRaceObjectSize);
  const pod::RaceObject o(w.m, pod::addr::kRaceObjects);
  const pod::GuestAddr list = w.alloc(8);
  o.set(pod::RaceObject::part_count, 2);
  o.set(pod::RaceObject::parts, list);
  o.set(pod::RaceObject::hull, w.alloc(Hull::kSize));
  const std::vector<std::vector<Vec3>> part_vertices = {{{-0x10000, -0x20000, 0}, {0x10000, 0x20000, 0x8000}},
                                                        {{0, 0, 0x50000}}};
  for (std::uint32_t i = 0; i < 2; ++i) {
    const pod::Part p(w.m, w.alloc(pod::Part::kSize));
    p.set(pod::Part::vertex_count, static_cast<std::uint32_t>(part_vertices[i].size()));
    p.set(pod::Part::vertices, vertices(part_vertices[i]));
    p.set(pod::Part::hull, w.alloc(Hull::kSize));
    w.m.put_u32(list + 4 * i, p.addr());
  }
  pod::world::prisme(w.m, o.addr());
  const Hull whole(w.m, o.get(pod::RaceObject::hull));
  // By hand: x in [−1, 1], y in [−2, 2], z in [0, 5] (the one-vertex part's 5).
  EXPECT_EQ(whole.get(Hull::half), (Vec3{0x10000, 0x20000, 0x50000 >> 1}));
  EXPECT_EQ(whole.get(Hull::centre), (Vec3{0, 0, 0x50000 >> 1}));
}

}  // namespace
