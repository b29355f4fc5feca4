// The race's set-up the documents give (F133,
// F136, F141, F142, A08): the quad halves' normals, the surface defaults, a car on its grid slot, the
// settling. Expected values are computed here from the documents' words (double geometry, F142's
// loop counted here), not read from the port.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "pod/game.hpp"
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

// --- The settling, FUN_0049b9d4 (F142) ---

// Two racers (a human and a computer car) on a flat track, each dropped 0.3 above where its wheels
// would rest, with the words the settling reads mapped: the step unit and the racer counts.
struct Grid {
  podtest::World w;
  pod::GuestAddr track = 0;
  explicit Grid(pod::Fixed unit = 0x888) {
    w.m.map(pod::addr::kStepUnit, 4);
    w.m.map(pod::addr::kHumanRacers, 8);
    w.m.map(pod::addr::kDamageBlock, pod::addr::kDamageOption + 4 - pod::addr::kDamageBlock);  // damage off
    w.m.put_i32(pod::addr::kStepUnit, unit);
    w.m.put_i32(pod::addr::kHumanRacers, 1);
    w.m.put_i32(pod::addr::kComputerRacers, 1);
    track = w.flat_track({0});
    for (int r = 0; r < 2; ++r) {
      w.standard_car(r, 0, podtest::World::fx(8.0 * r), podtest::World::fx(0.3), track);
      w.driver(r).set(pod::Driver::flags, r == 0 ? 1u : 2u);
    }
  }
};

// F142's loop counted in this test: steps of 3 × the unit, run while the time settled is short of
// 0x20000 (the last step takes it to or past 0x20000).
int documented_settle_steps(std::int64_t unit) {
  int steps = 0;
  for (std::int64_t t = 0; t < 0x20000; t += 3 * unit) ++steps;
  return steps;
}

// F142: steps of 3 × the step unit until 0x20000, each car's controller called once a step with the
// input 0x10 at driver +0x34 and the step's time 3 × unit in the frame block. For the stand-in's race
// unit 0x888 (1/30 s) that is 21 steps (20 make 0x1fff0, short of 2 s); for units that divide 2 s
// evenly, exactly 2 s.
TEST(Facts, F142_SettlingStepsThreeUnitsUntilTwoSecondsWithInput0x10) {
  EXPECT_EQ(documented_settle_steps(0x888), 21);
  for (const pod::Fixed unit : {0x888, 0x1000, 0x2aaa, 0x8000}) {
    Grid g(unit);
    std::vector<int> calls(2, 0);
    pod::race::Racers racers;
    for (int r = 0; r < 2; ++r) {
      racers.controllers.push_back([&, r](pod::Memory& m, pod::GuestAddr driver, pod::GuestAddr) {
        ++calls[static_cast<std::size_t>(r)];
        EXPECT_EQ(m.u32(driver + 0x34), 0x10u) << "the input each car is given (unit " << unit << ")";
        EXPECT_EQ(m.i32(pod::addr::kFrameTime), 3 * unit) << "the step's time, 3 × the unit";
      });
    }
    const int expected = documented_settle_steps(unit);
    EXPECT_EQ(pod::setup::settle(g.w.m, racers), expected) << "unit " << unit;
    EXPECT_EQ(calls[0], expected) << "the human's controller, once a step (unit " << unit << ")";
    EXPECT_EQ(calls[1], expected) << "the computer car's controller, once a step (unit " << unit << ")";
  }
}

// F142: with no controller writing over it, each car steps with the input 0x10 (stage 3 keeps it:
// car +0x4fa, and the brake it sets, full), and the stuck timer is cleared after each car step: a
// controller that leaves 0x5555 in +0x7c (a human's, so the stuck timer stage 31 does not touch it)
// finds it 0 at the next step, and so does the settling's end.
TEST(Facts, F142_SettlingHoldsInput0x10AndClearsTheStuckTimer) {
  Grid g;
  std::vector<std::int32_t> seen;
  pod::race::Racers racers;
  racers.controllers.push_back([&](pod::Memory& m, pod::GuestAddr driver, pod::GuestAddr) {
    seen.push_back(m.i32(driver + 0x7c));
    m.put_i32(driver + 0x7c, 0x5555);
  });
  pod::setup::settle(g.w.m, racers);
  ASSERT_EQ(seen.size(), 21u);
  for (std::int32_t v : seen) EXPECT_EQ(v, 0) << "the stuck timer as the next step's controller finds it";
  for (int r = 0; r < 2; ++r) {
    const Car c = g.w.car(r);
    EXPECT_EQ(g.w.driver(r).get(pod::Driver::stuck_timer), 0) << "racer " << r;
    if (r == 1) {
      EXPECT_EQ(c.get(Car::step_input), 0x10) << "the input stage 3 stepped with";
      EXPECT_EQ(c.get(Car::brake), 0x10000) << "the brake bit held";
    }
  }
}

// F142 "the wheels' roll": every settling step turns each wheel by its spin × the step's time
// (FUN_004155b8 → FUN_00415424, F096), as the simulation step does after the car step. A car dropped
// 3 above the floor with its wheels spinning and no brake torque: between two controller calls (one
// step) each wheel's angle moves by spin × dt, the spin as the car step left it, modulo 2π.
TEST(Facts, F142_SettlingTurnsTheWheels) {
  Grid g;
  const Car c = g.w.car(1);
  g.w.standard_car(1, 0, podtest::World::fx(8.0), podtest::World::fx(3.0), g.track);
  c.set(Car::brake_max, 0);
  for (int i = 0; i < 4; ++i) c.point(i).set(Point::spin, 0x40000);
  std::vector<std::array<std::int32_t, 8>> seen;  // per step: 4 angles, 4 spins
  pod::race::Racers racers;
  racers.controllers.resize(2);
  racers.controllers[1] = [&](pod::Memory&, pod::GuestAddr, pod::GuestAddr) {
    std::array<std::int32_t, 8> v{};
    for (int i = 0; i < 4; ++i) {
      v[static_cast<std::size_t>(i)] = c.point(i).get(Point::roll_angle);
      v[static_cast<std::size_t>(4 + i)] = c.point(i).get(Point::spin);
    }
    seen.push_back(v);
  };
  pod::setup::settle(g.w.m, racers);
  const double dt = 3.0 * 0x888 / 65536.0;
  const double two_pi = 2 * M_PI;
  int turned = 0;
  for (std::size_t k = 1; k < seen.size(); ++k) {
    for (std::size_t i = 0; i < 4; ++i) {
      const double spin = seen[k][4 + i] / 65536.0;
      if (spin == 0) continue;
      double moved = (seen[k][i] - seen[k - 1][i]) / 65536.0 - spin * dt;
      moved -= two_pi * std::round(moved / two_pi);
      EXPECT_NEAR(moved, 0.0, 1e-3) << "step " << k << " wheel " << i;
      ++turned;
    }
  }
  EXPECT_GT(turned, 20) << "wheels spinning in enough steps to see the roll";
}

// The settling lets the cars come to rest on their wheels: dropped 0.3 above their rest height, after
// the two seconds each is down on the floor (every wheel touching) and nearly still.
TEST(Settling, LeavesTheCarsAtRestOnTheirWheels) {
  Grid g;
  pod::setup::settle(g.w.m, pod::race::Racers{});
  for (int r = 0; r < 2; ++r) {
    const Car c = g.w.car(r);
    for (int i = 0; i < 4; ++i) EXPECT_NE(c.point(i).get(Point::touching), 0) << "racer " << r << " wheel " << i;
    EXPECT_LT(pod::tables::length16(g.w.m, c.get(Car::velocity)), 0x4000) << "racer " << r << " nearly still";
    EXPECT_LT(c.get(Car::centre).z, podtest::World::fx(0.8)) << "racer " << r << " came down";
  }
}

// What the settling does not do (port/CHOICES.md G25, C03): the frame block's sum and step number, the
// race clock and the upside-down timer are left as they were.
TEST(Settling, RunsNothingElseOfTheSimulationStep) {
  Grid g;
  g.w.m.map(pod::addr::kRaceClock, 4);
  g.w.m.put_i32(pod::addr::kRaceClock, 0x777);
  g.w.m.put_i32(pod::addr::kFrameTime + 4, 0x1234);
  g.w.m.put_i32(pod::addr::kFrameTime + 0xc, 5);
  g.w.car(1).set(Car::upside_down, 0x00030007u);
  pod::setup::settle(g.w.m, pod::race::Racers{});
  EXPECT_EQ(g.w.m.i32(pod::addr::kFrameTime + 4), 0x1234);
  EXPECT_EQ(g.w.m.i32(pod::addr::kFrameTime + 0xc), 5);
  EXPECT_EQ(g.w.m.i32(pod::addr::kRaceClock), 0x777);
  EXPECT_EQ(g.w.car(1).get(Car::upside_down), 0x00030007u);
}

// A step unit that gives no sane settling (0, negative, more than the whole 2 s over 3, or so small
// the loop would run thousands of steps) is refused, naming the word and its value.
TEST(Settling, RefusesAStepUnitThatGivesNoSaneStep) {
  for (const pod::Fixed unit : {0, -0x888, 0x10000, 1}) {
    Grid g(unit);
    try {
      pod::setup::settle(g.w.m, pod::race::Racers{});
      ADD_FAILURE() << "unit " << unit << " accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("[0x60bdfc] is " + std::to_string(unit)), std::string::npos) << e.what();
    }
  }
}

// pod::Race::start settles the cars by default (003: race_setup's two seconds of settling come before
// the countdown's phase 1); Settling::kNone starts them where they stand.
TEST(Race, StartSettlesTheCarsUnlessToldNot) {
  const auto started = [](pod::Settling settling) {
    Grid g;
    pod::Race::map_blocks(g.w.m);
    pod::Race race(g.w.m);
    race.start(1, 1, 0, 1000, settling);
    EXPECT_EQ(race.phase(), pod::Phase::kCountdown) << "the countdown's phase after the settling";
    EXPECT_EQ(race.steps(), 0) << "the settling is not the race's steps";
    return g.w.car(1).get(Car::centre);
  };
  const Vec3 laid = started(pod::Settling::kNone);
  const Vec3 settled = started(pod::Settling::kSettle);
  EXPECT_EQ(laid.z, podtest::World::fx(0.3) + 0x8000) << "kNone: as laid out";
  EXPECT_LT(settled.z, laid.z) << "settled: down on its wheels";
}

}  // namespace
