// The collision pass's and the damage's bindings: each runs its port function with the registers its
// profile entry names (the table of choices' argument lists), reads nothing the function itself does
// not, and applies the car step's impact damage only where the original consulted the option. The
// "original" of each case here is the port function called directly on a recording memory: this
// checks the bindings' wiring, not the port (the gate checks the port against the stand-in).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include "lockstep/cases/binding.hpp"
#include "lockstep/cases/compare.hpp"
#include "pod/bindings/bindings.hpp"
#include "pod/body.hpp"
#include "pod/cars.hpp"
#include "pod/damage.hpp"
#include "pod/hulls.hpp"
#include "pod/math.hpp"
#include "pod/step.hpp"
#include "world.hpp"

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
  std::uint8_t load8(pod::GuestAddr a) override { return static_cast<std::uint8_t>(note(a, inner_.load8(a), 1)); }
  std::uint16_t load16(pod::GuestAddr a) override { return static_cast<std::uint16_t>(note(a, inner_.load16(a), 2)); }
  std::uint32_t load32(pod::GuestAddr a) override { return static_cast<std::uint32_t>(note(a, inner_.load32(a), 4)); }
  std::uint64_t load64(pod::GuestAddr a) override { return note(a, inner_.load64(a), 8); }
  void store8(pod::GuestAddr a, std::uint8_t v) override { put(a, v, 1), inner_.store8(a, v); }
  void store16(pod::GuestAddr a, std::uint16_t v) override { put(a, v, 2), inner_.store16(a, v); }
  void store32(pod::GuestAddr a, std::uint32_t v) override { put(a, v, 4), inner_.store32(a, v); }
  void store64(pod::GuestAddr a, std::uint64_t v) override { put(a, v, 8), inner_.store64(a, v); }

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
  lockstep::cases::BindingSet set = pod::bindings::all();
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
    const auto cmp = lockstep::cases::compare(c, b->run(c));
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

}  // namespace
