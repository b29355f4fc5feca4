// The race's set-up the documents give (002 "The track world", "The race cars and the grid"; F133,
// F136, F141, A08): the quad halves' normals, the surface defaults, a car on its grid slot. Expected
// values are computed here from the documents' words (double geometry), not read from the port.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <utility>

#include "pod/setup.hpp"
#include "pod/step.hpp"
#include "world.hpp"

namespace {

using pod::Car;
using pod::Point;
using pod::Vec3;

// The unit normal of the triangle u v w in doubles: (v − u) × (w − u) normalised.
std::array<double, 3> unit(const std::array<double, 3>& u, const std::array<double, 3>& v, const std::array<double, 3>& w) {
  const double e[3] = {v[0] - u[0], v[1] - u[1], v[2] - u[2]};
  const double f[3] = {w[0] - u[0], w[1] - u[1], w[2] - u[2]};
  std::array<double, 3> n{e[1] * f[2] - e[2] * f[1], e[2] * f[0] - e[0] * f[2], e[0] * f[1] - e[1] * f[0]};
  const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (double& x : n) x /= len;
  return n;
}

// F133: a quad's halves are a b c and c d a; FUN_004247f8 computes each half's unit normal from its
// corners into +0x0c and +0x18. On a bent quad (d raised) the two halves differ, each is its own
// triangle's normal, and the face's normal at +0 (the file's) is left alone.
TEST(Facts, F133_QuadHalvesAreABCAndCDA) {
  podtest::World w;
  const std::array<std::array<double, 3>, 4> corners{{{0, 0, 0}, {8, 0, 0.5}, {8, 6, 1}, {0, 6, 3}}};
  const pod::GuestAddr verts = w.alloc(4 * 12);
  for (std::uint32_t k = 0; k < 4; ++k)
    w.m.put_vec3(verts + 12 * k, Vec3{podtest::World::fx(corners[k][0]), podtest::World::fx(corners[k][1]), podtest::World::fx(corners[k][2])});
  const pod::GuestAddr mesh = w.alloc(pod::Mesh::kSize);
  w.m.put_u32(mesh + pod::Mesh::vertices.offset, verts);
  const pod::GuestAddr quad = w.alloc(pod::Quad::kSize);
  for (std::uint16_t k = 0; k < 4; ++k) w.m.put_u16(quad + 0x2c + 2u * k, k);
  const Vec3 file_normal{0x1234, 0x5678, 0x9abc};
  w.m.put_vec3(quad, file_normal);
  pod::setup::quad_halves(w.m, quad, mesh);
  const auto abc = unit(corners[0], corners[1], corners[2]);
  const auto cda = unit(corners[2], corners[3], corners[0]);
  const Vec3 h1 = w.m.vec3(quad + 0x0c);
  const Vec3 h2 = w.m.vec3(quad + 0x18);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(h1[k] / 65536.0, abc[static_cast<std::size_t>(k)], 1.0 / 2048) << "half a b c, axis " << k;
    EXPECT_NEAR(h2[k] / 65536.0, cda[static_cast<std::size_t>(k)], 1.0 / 2048) << "half c d a, axis " << k;
  }
  EXPECT_NE(h1, h2) << "a bent quad's halves differ";
  EXPECT_EQ(w.m.vec3(quad), file_normal) << "the face's own normal is the file's";
}

// F132: a sector's +0x34 holds 1 (002: "+0x34 = 1"). The track pass reads a sector's bounds, mesh
// and neighbours and never that word: a sector holding another value there is searched alike.
TEST(Facts, F132_SectorWord34HoldsOneAndTheTrackPassDoesNotDependOnIt) {
  const auto run = [](std::int32_t word34) {
    podtest::World w;
    const pod::GuestAddr track = w.flat_track({0});
    w.m.put_i32(track + 0x34, word34);
    const Car c = w.standard_car(0, 0, 0, 0, track);
    w.set_dt(0x888);
    for (int i = 0; i < 10; ++i) pod::step::step_from_controls(w.m, c.addr(), w.driver(0).addr());
    return std::pair{w.m.i32(track + 0x34), c.get(Car::centre)};
  };
  const auto [held, centre] = run(1);
  EXPECT_EQ(held, 1) << "the sector keeps its 1";
  EXPECT_EQ(run(7).second, centre);
}

// F136 with A08's reading: FUN_004985e8's defaults are successive surfaces' grips, "grip 1, 50000,
// 40000, 25000, …" (1 as 1.0, the others raw 16.16 words); the rest 1.0.
TEST(Facts, F136_SurfaceDefaultsAreSuccessiveGrips) {
  podtest::World w;
  for (std::uint32_t n = 0; n < 16; ++n) w.m.put_i32(pod::Surface::at(n), -1);
  pod::setup::surface_defaults(w.m);
  EXPECT_EQ(w.m.i32(pod::Surface::at(0)), 0x10000);
  EXPECT_EQ(w.m.i32(pod::Surface::at(1)), 50000);
  EXPECT_EQ(w.m.i32(pod::Surface::at(2)), 40000);
  EXPECT_EQ(w.m.i32(pod::Surface::at(3)), 25000);
  for (std::uint32_t n = 4; n < 16; ++n) EXPECT_EQ(w.m.i32(pod::Surface::at(n)), 0x10000) << n;
}

// F141: the grid slot's start record is 0x24 bytes, the position then the heading; the car stands
// there as the put-back places a car (F085: raised by 1, forward the heading made level and of
// length 1, up the world's z), each point in the sector holding it.
TEST(Facts, F141_GridSlotPutsTheCarOnItsStartRecord) {
  podtest::World w;
  const pod::GuestAddr track = w.flat_track({0, 0});
  const Car c = w.standard_car(0, 0, 0, 0, 0);
  for (int i = 0; i < Car::kPoints; ++i) c.point(i).set(Point::sector, 0u);
  const pod::GuestAddr record = w.alloc(0x24);
  w.m.put_vec3(record, Vec3{podtest::World::fx(120.0), podtest::World::fx(5.0), 0});       // in sector 1
  w.m.put_vec3(record + 12, Vec3{podtest::World::fx(3.0), podtest::World::fx(4.0), podtest::World::fx(9.0)});  // the heading
  for (std::uint32_t k = 24; k < 0x24; k += 4) w.m.put_i32(record + k, 0x7eadbeef);
  pod::setup::grid_slot(w.m, c.addr(), record);
  const Vec3 centre = c.get(Car::centre);
  EXPECT_EQ(centre, (Vec3{podtest::World::fx(120.0), podtest::World::fx(5.0), 0x10000})) << "raised by 1";
  const Vec3 f = c.get(Car::forward);
  EXPECT_NEAR(f.x / 65536.0, 0.6, 1.0 / 4096);
  EXPECT_NEAR(f.y / 65536.0, 0.8, 1.0 / 4096);
  EXPECT_EQ(f.z, 0) << "the heading made level";
  EXPECT_EQ(c.get(Car::up), (Vec3{0, 0, 0x10000}));
  for (int i = 0; i < Car::kPoints; ++i)
    EXPECT_EQ(c.point(i).get(Point::sector), track + pod::Sector::kSize) << "point " << i << " in sector 1";
}

}  // namespace
