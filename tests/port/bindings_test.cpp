// The collision pass's, the damage's and the race loop's bindings: each runs its port function with the registers its
// profile entry names (the table of choices' argument lists), reads nothing the function itself does
// not, and applies the car step's impact damage only where the original consulted the option. The
// "original" of each case here is the port function called directly on a recording memory: this
// checks the bindings' wiring, not the port (the gate checks the port against the stand-in).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>
#include <vector>

#include "lockstep/cases/binding.hpp"
#include "lockstep/cases/compare.hpp"
#include "pod/bindings/bindings.hpp"
#include "pod/body.hpp"
#include "pod/cars.hpp"
#include "pod/damage.hpp"
#include "pod/hulls.hpp"
#include "pod/math.hpp"
#include "pod/props.hpp"
#include "pod/putback.hpp"
#include "pod/race.hpp"
#include "pod/setup.hpp"
#include "pod/step.hpp"
#include "world.hpp"
#include "lockstep_test/pod_profiled_bindings.hpp"

namespace {

using lockstep::cases::Case;
using pod::Car;
using pod::Point;
using pod::Vec3;
using podtest::World;

/// Records a call as a capture does: each byte's value when first read before being written (the
/// inputs) and each byte's final value written (the writes).
class Capture final : public pod::Memory {
 public:
  explicit Capture(pod::Memory& inner) : inner_(inner) {}
  lockstep::cases::ByteMap inputs, writes;
  std::uint8_t load8_slow(pod::GuestAddr a) override { return static_cast<std::uint8_t>(note(a, inner_.load8(a), 1)); }
  std::uint16_t load16_slow(pod::GuestAddr a) override { return static_cast<std::uint16_t>(note(a, inner_.load16(a), 2)); }
  std::uint32_t load32_slow(pod::GuestAddr a) override { return static_cast<std::uint32_t>(note(a, inner_.load32(a), 4)); }
  std::uint64_t load64_slow(pod::GuestAddr a) override { return note(a, inner_.load64(a), 8); }
  void store8_slow(pod::GuestAddr a, std::uint8_t v) override { put(a, v, 1), inner_.store8(a, v); }
  void store16_slow(pod::GuestAddr a, std::uint16_t v) override { put(a, v, 2), inner_.store16(a, v); }
  void store32_slow(pod::GuestAddr a, std::uint32_t v) override { put(a, v, 4), inner_.store32(a, v); }
  void store64_slow(pod::GuestAddr a, std::uint64_t v) override { put(a, v, 8), inner_.store64(a, v); }

 private:
  std::uint64_t note(pod::GuestAddr a, std::uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i)
      if (!written_.count(a + i) && !inputs.contains(a + i)) inputs.set(a + i, static_cast<std::uint8_t>(v >> (8 * i)));
    return v;
  }
  void put(pod::GuestAddr a, std::uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      written_.insert(a + i);
      writes.set(a + i, static_cast<std::uint8_t>(v >> (8 * i)));
    }
  }
  pod::Memory& inner_;
  std::set<pod::GuestAddr> written_;
};

struct Bindings : ::testing::Test {
  World w;
  pod::GuestAddr track = 0;
  lockstep::cases::BindingSet set = lockstep::testing::pod_profiled_bindings();
  void SetUp() override {
    w.m.map(pod::addr::kRaceObjects, 8 * pod::addr::kRaceObjectSize);
    w.m.map(pod::addr::kHumanRacers, 12);
    w.m.map(0x633300, 0x60);
    track = w.flat_track({0});
    w.set_dt(0x888);
    w.m.put_i32(pod::addr::kFrameTime + 8, 0x888);
    for (int r = 0; r < 2; ++r) car(r, r == 0 ? 0 : World::fx(2.9));
    w.m.put_i32(pod::addr::kDamageOption, 1);
  }
  /// A standard car with a drawn object of ten parts, each part's box the body's (1.5, 1, 0.5).
  void car(int r, pod::Fixed x) {
    w.standard_car(r, x, 0, 0, track);
    const pod::RaceObject o(w.m, pod::addr::kRaceObjects + 0x80u * static_cast<std::uint32_t>(r));
    const pod::GuestAddr list = w.alloc(40);
    o.set(pod::RaceObject::part_count, 10);
    o.set(pod::RaceObject::parts, list);
    const auto hull = [&] {
      const pod::Hull h(w.m, w.alloc(pod::Hull::kSize));
      h.set(pod::Hull::half, Vec3{World::fx(1.5), 0x10000, 0x8000});
      h.set(pod::Hull::radius, World::fx(std::hypot(1.5, 1.0)));
      return h.addr();
    };
    o.set(pod::RaceObject::hull, hull());
    for (std::uint32_t i = 0; i < 10; ++i) {
      const pod::Part p(w.m, w.alloc(pod::Part::kSize));
      p.set(pod::Part::hull, hull());
      p.set(pod::Part::health, 60000);
      w.m.put_u32(list + 4 * i, p.addr());
    }
    w.driver(r).set(pod::Driver::object, o.addr());
    pod::step::pose(w.m, w.car(r).addr(), w.driver(r).addr());
  }
  /// The case of a call made by `call` on the world (which it changes), with entry registers `in`.
  Case record(pod::GuestAddr fn, lockstep::cases::Registers in, const std::function<void(pod::Memory&)>& call) {
    Capture cap(w.m);
    call(cap);
    Case c;
    c.function = fn;
    c.in = in;
    c.in.esp = 0x190000;
    c.out = c.in;
    c.inputs = cap.inputs;
    c.writes = cap.writes;
    return c;
  }
  lockstep::cases::Comparison replay(const Case& c) {
    const lockstep::cases::Binding* b = lockstep::cases::find_binding(set, c.function);
    EXPECT_NE(b, nullptr);
    const auto cmp = lockstep::cases::compare(c, lockstep::cases::run_binding(*b, c));
    for (const auto& d : cmp.bytes) ADD_FAILURE() << std::hex << "byte 0x" << d.address << " kind " << int(d.kind);
    for (const auto& r : cmp.registers) ADD_FAILURE() << r.name << " " << r.original << " vs " << r.port;
    for (auto a : cmp.outside_reads) ADD_FAILURE() << std::hex << "outside read 0x" << a;
    return cmp;
  }
};

TEST_F(Bindings, PairTakesTheRacersInEaxAndEdx) {
  w.car(0).set(Car::velocity, Vec3{12 << 16, 0, 0});
  for (int r = 0; r < 2; ++r) w.car(r).set(Car::mass, 512 << 16);
  lockstep::cases::Registers in;
  in.eax = 0;
  in.edx = 1;
  pod::Fixed j = 0;
  Case c = record(0x42127c, in, [&](pod::Memory& m) { j = pod::cars::pair(m, 0, 1).impulse; });
  ASSERT_GT(j, 100000) << "strong enough to damage";
  c.returns = lockstep::cases::ReturnKind::kEax;
  c.out.eax = static_cast<std::uint32_t>(j);
  EXPECT_TRUE(c.writes.contains_all(pod::addr::kContact, pod::addr::kContactSize));
  const auto cmp = replay(c);
  EXPECT_TRUE(cmp.matched()) << cmp.bytes.size() << " bytes, " << cmp.outside_reads.size() << " outside reads, " << cmp.port_error;
}

TEST_F(Bindings, HullTestMarkPartsImpulseCarryAndTheHulls) {
  const pod::GuestAddr oa = pod::addr::kRaceObjects, ob = oa + 0x80, ca = w.car(0).addr(), cb = w.car(1).addr();
  lockstep::cases::Registers in;
  in.eax = oa, in.edx = ob, in.ebx = pod::addr::kContact;
  Case c = record(0x420548, in, [&](pod::Memory& m) { pod::cars::hull_test(m, oa, ob, pod::addr::kContact); });
  c.returns = lockstep::cases::ReturnKind::kEax;
  c.out.eax = 1;
  EXPECT_TRUE(replay(c).matched());
  in.eax = ob, in.edx = cb;
  std::uint32_t result = 0;
  c = record(0x4209c8, in, [&](pod::Memory& m) { result = pod::cars::mark_parts(m, ob, cb, pod::addr::kContact); });
  c.returns = lockstep::cases::ReturnKind::kEax;
  c.out.eax = result;
  EXPECT_NE(result, 0u);
  EXPECT_TRUE(replay(c).matched());
  w.car(0).set(Car::velocity, Vec3{3 << 16, 0, 0});
  in.eax = ca, in.edx = cb, in.ebx = pod::addr::kContact;
  c = record(0x420adc, in, [&](pod::Memory& m) {
    result = static_cast<std::uint32_t>(pod::cars::impulse(m, ca, cb, pod::addr::kContact));
  });
  c.returns = lockstep::cases::ReturnKind::kEax;
  c.out.eax = result;
  EXPECT_NE(result, 0u);
  EXPECT_TRUE(replay(c).matched());
  in.eax = cb, in.edx = pod::addr::kContact, in.ebx = static_cast<std::uint32_t>(-4000), in.ecx = pod::addr::kContact + 0x10;
  c = record(0x420b4c, in, [&](pod::Memory& m) { pod::cars::carry(m, cb, pod::addr::kContact, -4000, pod::addr::kContact + 0x10); });
  EXPECT_TRUE(replay(c).matched());
  const pod::GuestAddr part = pod::RaceObject(w.m, oa).part(3);
  const pod::GuestAddr verts = w.alloc(24);
  w.m.put_vec3(verts, Vec3{1, 2, 3});
  w.m.put_vec3(verts + 12, Vec3{-0x30000, 0x20000, 7});
  pod::Part(w.m, part).set(pod::Part::vertices, verts);
  pod::Part(w.m, part).set(pod::Part::vertex_count, 2u);
  in = {};
  in.eax = oa;
  c = record(0x4203c8, in, [&](pod::Memory& m) { pod::world::prisme(m, oa); });
  EXPECT_TRUE(replay(c).matched());
}

TEST_F(Bindings, DamageHitAndTheWheels) {
  const pod::GuestAddr car = w.car(1).addr();
  lockstep::cases::Registers in;
  in.eax = car, in.edx = 0x30, in.ebx = 400000;
  Case c = record(0x420e54, in, [&](pod::Memory& m) { pod::damage::hit(m, car, 0x30, 400000); });
  EXPECT_FALSE(c.writes.empty()) << "parts broke";
  EXPECT_TRUE(replay(c).matched());
  in.edx = 2;
  c = record(0x4152ac, in, [&](pod::Memory& m) { pod::damage::axle(m, car, 2); });
  EXPECT_TRUE(replay(c).matched());
  in.edx = 3;
  c = record(0x415270, in, [&](pod::Memory& m) { pod::damage::wheel(m, car, 3); });
  EXPECT_TRUE(replay(c).matched());
}

// The wall impacts: where the original consulted the option (its inputs hold [0x63334c]) the binding
// applies the damage calls; where it did not (a stand-in whose damage function is a bare `ret`), the
// binding reads nothing of the damage and writes only the impulses.
/// Car 1's wheel 0 against a wall (depth, direction, bounce) and moving into it; the registers of a call
/// of body::impacts (0x416284) with the force and torque sums in fresh memory.
lockstep::cases::Registers wall_hit(World& w, const Car& car) {
  const Point p = car.point(0);
  p.set(Point::wall_depth, 0x1000);
  p.set(Point::wall_dir, Vec3{-0x10000, 0, 0});
  p.set(Point::bounce, 0x8000);
  p.set(Point::velocity, Vec3{3 << 16, 0, 0});
  const pod::GuestAddr sums = w.alloc(24);
  lockstep::cases::Registers in;
  in.eax = car.addr(), in.edx = sums, in.ebx = sums + 12;
  return in;
}

/// What the original's body::impacts does with those registers: the impulses added to the sums, then,
/// when the original consults the option, the damage calls.
void impacts(pod::Memory& m, const lockstep::cases::Registers& in, bool damage) {
  Vec3 f, t;
  std::vector<pod::body::Impact> calls;
  pod::body::impacts(m, in.eax, f, t, &calls);
  m.put_vec3(in.edx, pod::math::add(m.vec3(in.edx), f));
  m.put_vec3(in.ebx, pod::math::add(m.vec3(in.ebx), t));
  if (damage) pod::damage::impacts(m, in.eax, calls);
}

// The wall impacts: where the original consulted the option (its inputs hold [0x63334c]) the binding
// applies the damage calls; where it did not (a stand-in whose damage function is a bare `ret`), the
// binding reads nothing of the damage and writes only the impulses.
TEST_F(Bindings, ImpactsApplyDamageWhereTheOriginalConsultedTheOption) {
  const lockstep::cases::Registers in = wall_hit(w, w.car(1));
  Case seam = record(0x416284, in, [&](pod::Memory& m) { impacts(m, in, false); });
  EXPECT_FALSE(seam.inputs.contains(pod::addr::kDamageOption));
  auto cmp = replay(seam);
  EXPECT_TRUE(cmp.matched()) << cmp.bytes.size() << " bytes, " << cmp.outside_reads.size() << " outside reads";
}

TEST_F(Bindings, ImpactsWithTheDamageConsulted) {
  const lockstep::cases::Registers in = wall_hit(w, w.car(1));
  Case c = record(0x416284, in, [&](pod::Memory& m) { impacts(m, in, true); });
  ASSERT_TRUE(c.inputs.contains_all(pod::addr::kDamageOption, 4));
  const pod::GuestAddr part4 = pod::RaceObject(w.m, pod::addr::kRaceObjects + 0x80).part(4);
  EXPECT_TRUE(c.writes.contains(part4 + 0x3c)) << "wheel 0's bit 0x10: part 4 hit";
  auto cmp = replay(c);
  EXPECT_TRUE(cmp.matched()) << cmp.bytes.size() << " bytes, " << cmp.outside_reads.size() << " outside reads";
}

// The frame clock's binding plays the clock from the case: the stand-in's scripted clock (its
// timeGetTime, label scripted_clock 0x7f1000: +0 the value it returned, +4 its readings) writes its
// state, frame_clock stores that value at 0x60be10 and the frame time at 0x60be0c; the port, given
// the value from the clock's own write, writes the same bytes. The countdown needs no argument.
TEST(RaceBindings, FrameClockTakesTheClocksValueAndTheCountdownNone) {
  World w;
  w.m.map(pod::addr::kStepUnit, 0x18);
  w.m.map(pod::addr::kHumanRacers, 0x10);
  w.m.map(pod::addr::kRaceClock, 4);
  constexpr pod::GuestAddr kScriptedClock = 0x7f1000;
  w.m.put_u32(pod::addr::kLastClock, 0x10000);
  w.m.put_u32(kScriptedClock, 0x10000);
  w.m.put_u32(kScriptedClock + 4, 7);
  const lockstep::cases::BindingSet set = lockstep::testing::pod_profiled_bindings();
  const auto replay = [&](const Case& c) {
    const lockstep::cases::Binding* b = lockstep::cases::find_binding(set, c.function);
    EXPECT_NE(b, nullptr);
    return lockstep::cases::compare(c, lockstep::cases::run_binding(*b, c));
  };
  Capture cap(w.m);
  cap.put_u32(kScriptedClock, 0x10000 + 40);  // the clock's reading: 40 ms later
  cap.put_u32(kScriptedClock + 4, 8);
  pod::race::frame_clock(cap, 0x10000 + 40);
  Case c;
  c.function = 0x4ae894;
  c.in.esp = 0x190000;
  c.out = c.in;
  c.inputs = cap.inputs;
  c.writes = cap.writes;
  EXPECT_EQ(w.m.i32(pod::addr::kPassFrameTime), 40 * 65);
  auto cmp = replay(c);
  EXPECT_TRUE(cmp.matched()) << cmp.bytes.size() << " bytes differ";
  // A wrong frame time in the case is caught: the port computes it, it is not copied.
  c.writes.set(pod::addr::kPassFrameTime, 0x11);
  EXPECT_FALSE(replay(c).matched());

  w.m.put_i32(pod::addr::kHumanRacers, 1);
  w.m.put_i32(pod::addr::kComputerRacers, 1);
  w.driver(1).set(pod::Driver::stuck_timer, 5);
  pod::RaceBlock(w.m).set(pod::RaceBlock::phase, 1);
  pod::RaceBlock(w.m).set(pod::RaceBlock::go_time, 0x10000u + 40);
  Capture cap2(w.m);
  pod::race::countdown(cap2);
  Case d;
  d.function = 0x47b98c;
  d.in.esp = 0x190000;
  d.out = d.in;
  d.inputs = cap2.inputs;
  d.writes = cap2.writes;
  EXPECT_EQ(pod::RaceBlock(w.m).get(pod::RaceBlock::phase), 0);
  cmp = replay(d);
  EXPECT_TRUE(cmp.matched()) << cmp.bytes.size() << " bytes differ";
}

// The props' bindings: each function with the registers its profile entry names. A box prop sits just
// ahead of car 0's nose (overlapping by 0.1), a second box beside it, both in the air over the track.
struct PropBindings : Bindings {
  static constexpr pod::GuestAddr kFree = 0x900000;
  pod::GuestAddr environment = 0;
  void SetUp() override {
    Bindings::SetUp();
    w.m.map(kFree, 0x10000);
    const pod::Vec3 c = pod::RaceObject(w.m, pod::addr::kRaceObjects).get(pod::RaceObject::position);
    // One type: a unit box (hull 0.5, its eight corners of mass 1/8), then two props.
    std::vector<std::int32_t> words{1, 0, 0x8000, 0x8000, 0x8000, World::fx(std::hypot(0.5, 0.5)), 0, 0, 0,
                                    0x10000, 0x8000, 0x8000, 0x8000, 100 << 16, 0x10000, 0, 8};
    for (int k = 0; k < 8; ++k)
      words.insert(words.end(), {0, (k & 1) ? 0x8000 : -0x8000, (k & 2) ? 0x8000 : -0x8000, (k & 4) ? 0x8000 : -0x8000, 0x2000});
    words.push_back(2);
    for (const pod::Fixed dx : {World::fx(1.9), World::fx(2.8)})
      words.insert(words.end(), {0, 0, c.x + dx, c.y, c.z, 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x10000});
    environment = w.alloc(static_cast<std::uint32_t>(4 * words.size()));
    for (std::size_t i = 0; i < words.size(); ++i) w.m.put_i32(environment + 4 * static_cast<std::uint32_t>(i), words[i]);
  }
  pod::GuestAddr prop(std::uint32_t i) { return w.m.u32(pod::addr::kProps) + pod::Prop::kSize * i; }
};

TEST_F(PropBindings, EachPropFunctionTakesItsRegisters) {
  lockstep::cases::Registers in;
  in.eax = environment, in.edx = kFree;
  pod::GuestAddr end = 0;
  Case c = record(0x468cfc, in, [&](pod::Memory& m) { end = pod::props::build(m, environment, kFree); });
  c.returns = lockstep::cases::ReturnKind::kEax;
  c.out.eax = end;
  EXPECT_TRUE(replay(c).matched());
  in = {};
  in.eax = prop(0);
  c = record(0x4547a4, in, [&](pod::Memory& m) { pod::props::faces(m, prop(0)); });
  EXPECT_TRUE(replay(c).matched());
  c = record(0x454654, in, [&](pod::Memory& m) { pod::props::centre(m, prop(0)); });
  EXPECT_TRUE(replay(c).matched());
  w.car(0).set(Car::velocity, Vec3{5 << 16, 0, 0});
  in.eax = 0, in.edx = 0;
  int hit = 0;
  c = record(0x4215a8, in, [&](pod::Memory& m) { hit = pod::props::car_hit(m, 0, 0); });
  ASSERT_EQ(hit, 1);
  c.returns = lockstep::cases::ReturnKind::kEax;
  c.out.eax = 1;
  EXPECT_TRUE(replay(c).matched());
  const pod::GuestAddr n = pod::addr::kContact, point = pod::addr::kContact + 0x10;
  in.eax = prop(1), in.edx = n, in.ebx = static_cast<std::uint32_t>(-0x30000), in.ecx = point;
  c = record(0x4214b4, in, [&](pod::Memory& m) { pod::props::impulse(m, prop(1), n, -0x30000, point); });
  EXPECT_TRUE(replay(c).matched());
  w.m.put_vec3(prop(0) + pod::Prop::velocity.offset, Vec3{4 << 16, 0, 0});
  in = {};
  in.eax = 0;
  c = record(0x421750, in, [&](pod::Memory& m) { pod::props::knock(m, 0); });
  EXPECT_FALSE(c.writes.empty()) << "the boxes touch";
  EXPECT_TRUE(replay(c).matched());
  in.eax = 1;
  c = record(0x454a98, in, [&](pod::Memory& m) { pod::props::motion(m, 1); });
  EXPECT_TRUE(replay(c).matched());
  in.eax = 0;
  c = record(0x4adab0, in, [&](pod::Memory& m) { pod::props::remove(m, 0); });
  EXPECT_TRUE(replay(c).matched());
}

// The collision pass runs its props' part where the original read the prop count, and not where it
// did not (a state captured before the props: the pass then writes what the car pairs write).
TEST_F(PropBindings, CollisionsRunThePropsWhereTheCountWasRead) {
  pod::props::build(w.m, environment, kFree);
  w.m.put_i32(pod::addr::kHumanRacers, 1);
  w.car(0).set(Car::velocity, Vec3{5 << 16, 0, 0});
  lockstep::cases::Registers in;
  Case with = record(0x42196c, in, [&](pod::Memory& m) { pod::cars::collisions(m); });
  EXPECT_TRUE(with.inputs.contains_all(pod::addr::kPropCount, 4));
  EXPECT_TRUE(with.writes.contains_all(prop(0) + pod::Prop::force.offset, 12)) << "the box was hit";
  EXPECT_TRUE(replay(with).matched());
  pod::props::build(w.m, environment, kFree);
  Case without = record(0x42196c, in, [&](pod::Memory& m) { pod::cars::collisions(m, pod::cars::Props::kNone); });
  EXPECT_FALSE(without.inputs.contains_all(pod::addr::kPropCount, 4));
  EXPECT_TRUE(replay(without).matched());
}

// The race's paths and the catch-up's target: each binding takes the registers the profile names
// (place and track: eax = driver, edx = car; track_node: eax = link → eax; lane_target: eax = driver;
// catch_up::target: eax = the racer → eax).
TEST_F(Bindings, PathsTakeTheDriverTheCarAndTheLink) {
  const pod::GuestAddr end = w.alloc(pod::PathNode::kSize);
  const pod::GuestAddr link = w.alloc(pod::PathLink::kSize);
  const pod::GuestAddr points = w.alloc(24);
  w.m.put_vec3(points, Vec3{0, 0, 0});
  w.m.put_vec3(points + 12, Vec3{World::fx(2.0), 0, 0});
  pod::PathLink(w.m, link).set(pod::PathLink::points, points);
  pod::PathLink(w.m, link).set(pod::PathLink::point_count, 2);
  pod::PathLink(w.m, link).set(pod::PathLink::end, end);
  w.m.put_i32(pod::addr::kPathLinks, 1);
  w.m.put_u32(pod::addr::kPathLinks + 4, link);
  w.m.put_u32(pod::addr::kRacePaths, link);
  const pod::GuestAddr driver = w.driver(1).addr(), car1 = w.car(1).addr();
  lockstep::cases::Registers in;
  in.eax = driver;
  in.edx = car1;
  Case c = record(0x4aa8a0, in, [&](pod::Memory& m) { pod::paths::place(m, driver, car1); });
  EXPECT_TRUE(c.writes.contains_all(driver + 0x2c, 8)) << "the tracker placed";
  EXPECT_TRUE(replay(c).matched());
  c = record(0x4b0ec0, in, [&](pod::Memory& m) { pod::paths::track(m, driver, car1); });
  EXPECT_TRUE(replay(c).matched());
  lockstep::cases::Registers just_driver;
  just_driver.eax = driver;
  c = record(0x455ed0, just_driver, [&](pod::Memory& m) { pod::paths::lane_target(m, driver); });
  EXPECT_TRUE(c.writes.contains_all(driver + 0x5c, 4));
  EXPECT_TRUE(replay(c).matched());
  lockstep::cases::Registers just_link;
  just_link.eax = link;
  c = record(0x4b0b98, just_link, [&](pod::Memory& m) { pod::paths::track_node(m, link); });
  c.out.eax = end;
  EXPECT_TRUE(replay(c).matched());
  w.m.put_i32(pod::addr::kHumanRacers, 1);
  w.m.put_i32(pod::addr::kComputerRacers, 1);
  lockstep::cases::Registers racer;
  racer.eax = 1;
  c = record(0x422918, racer, [&](pod::Memory& m) { pod::catch_up::target(m, 1); });
  c.out.eax = driver;
  EXPECT_TRUE(replay(c).matched());
}

// The race's set-up: each binding takes the registers the profile names (quad_halves: eax = quad,
// edx = mesh; grid_slot: eax = car, edx = the start record; surface_defaults and settle: none), and
// the settling runs with no controller (a capture stubs them) and its slip-ratio word below the
// case's entry esp.
TEST_F(Bindings, SetUpFunctionsTakeTheirRegisters) {
  const pod::GuestAddr mesh = w.m.u32(track);  // sector 0's mesh
  const pod::GuestAddr quad = w.m.u32(mesh + pod::Mesh::quads.offset);
  lockstep::cases::Registers q;
  q.eax = quad, q.edx = mesh;
  EXPECT_TRUE(replay(record(0x4247f8, q, [&](pod::Memory& m) { pod::setup::quad_halves(m, quad, mesh); })).matched());
  EXPECT_TRUE(replay(record(0x4985e8, {}, [&](pod::Memory& m) { pod::setup::surface_defaults(m); })).matched());
  const pod::GuestAddr start = w.alloc(0x24);
  w.m.put_vec3(start, Vec3{World::fx(4.0), World::fx(1.0), 0});
  w.m.put_vec3(start + 12, Vec3{0, 0x10000, 0});
  lockstep::cases::Registers g;
  g.eax = w.car(1).addr(), g.edx = start;
  EXPECT_TRUE(replay(record(0x4236f0, g, [&](pod::Memory& m) { pod::setup::grid_slot(m, g.eax, start); })).matched());
  w.m.map(pod::addr::kStepUnit, 4);
  w.m.put_i32(pod::addr::kStepUnit, 0x888);
  w.m.put_i32(pod::addr::kHumanRacers, 1);
  w.m.put_i32(pod::addr::kComputerRacers, 1);
  w.m.map(0x18f000, 0x1000);  // the settling's slip-ratio word, 0x1000 below the entry esp
  pod::race::Racers racers;
  racers.scratch.stale_slot = 0x190000 - 0x1000;
  Case settle = record(0x49b9d4, {}, [&](pod::Memory& m) { pod::setup::settle(m, racers); });
  for (pod::GuestAddr a = racers.scratch.stale_slot; a != racers.scratch.stale_slot + 4; ++a) {
    settle.writes.erase(a);  // a callee's frame: a capture keeps nothing below the entry esp
    settle.inputs.erase(a);
  }
  EXPECT_TRUE(settle.writes.contains(pod::addr::kDrivers + 0x34)) << "the input 0x10";
  EXPECT_TRUE(replay(settle).matched());
}

}  // namespace
