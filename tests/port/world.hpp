// Test helpers: a FlatMemory with the tables installed, a recording wrapper that lists every access,
// and small builders for cars and track pieces. Values here are inputs; expected results in the
// tests are computed from the documents' formulas, never read back from the port.
#pragma once

#include <cstdint>
#include <map>
#include <initializer_list>
#include <set>
#include <vector>

#include "pod/layout.hpp"
#include "pod/memory.hpp"
#include "pod/suspension.hpp"
#include "pod/tables.hpp"

namespace podtest {

/// Wraps another Memory and records the address of every byte loaded or stored.
class RecordingMemory final : public pod::Memory {
 public:
  explicit RecordingMemory(pod::Memory& inner) : inner_(inner) {}
  std::set<pod::GuestAddr> reads;
  std::set<pod::GuestAddr> writes;
  void clear() {
    reads.clear();
    writes.clear();
  }
  /// True when some byte in [lo, hi) was read.
  bool read_in(pod::GuestAddr lo, pod::GuestAddr hi) const {
    auto it = reads.lower_bound(lo);
    return it != reads.end() && *it < hi;
  }
  bool wrote_in(pod::GuestAddr lo, pod::GuestAddr hi) const {
    auto it = writes.lower_bound(lo);
    return it != writes.end() && *it < hi;
  }

  std::uint8_t load8_slow(pod::GuestAddr a) override { return note_r(a, 1), inner_.load8(a); }
  std::uint16_t load16_slow(pod::GuestAddr a) override { return note_r(a, 2), inner_.load16(a); }
  std::uint32_t load32_slow(pod::GuestAddr a) override { return note_r(a, 4), inner_.load32(a); }
  std::uint64_t load64_slow(pod::GuestAddr a) override { return note_r(a, 8), inner_.load64(a); }
  void store8_slow(pod::GuestAddr a, std::uint8_t v) override { note_w(a, 1), inner_.store8(a, v); }
  void store16_slow(pod::GuestAddr a, std::uint16_t v) override { note_w(a, 2), inner_.store16(a, v); }
  void store32_slow(pod::GuestAddr a, std::uint32_t v) override { note_w(a, 4), inner_.store32(a, v); }
  void store64_slow(pod::GuestAddr a, std::uint64_t v) override { note_w(a, 8), inner_.store64(a, v); }

 private:
  void note_r(pod::GuestAddr a, unsigned n) {
    for (unsigned i = 0; i < n; ++i) reads.insert(a + i);
  }
  void note_w(pod::GuestAddr a, unsigned n) {
    for (unsigned i = 0; i < n; ++i) writes.insert(a + i);
  }
  pod::Memory& inner_;
};

/// A FlatMemory with the pointer words, constants and the three tables installed, the race cars,
/// drivers (each with its car), race block (with the catch-up's target function), surfaces, the
/// race paths' words and the chassis counter mapped (all else zero), and a scratch heap.
class World {
 public:
  World() {
    m.map(0x4e9000, 0x6000);  // 0x4e9000..0x4ef000: slip curve, table pointers, constants
    m.map(pod::addr::kChassisSearchCounter, 4);
    m.map(pod::addr::kRaceBlock, pod::RaceBlock::kSize);
    m.map(pod::addr::kSectorCount, 8);
    m.map(pod::addr::kSurfaces, pod::addr::kSurfaceCount * pod::addr::kSurfaceSize);
    m.map(pod::addr::kDrivers, 8 * pod::addr::kDriverSize);
    m.map(pod::addr::kRaceCars, 8 * pod::addr::kRaceCarSize);
    pod::tables::install(m);
    m.map(pod::addr::kFrameTime, pod::addr::kFrameTimeSize);
    m.map(0x4f3320, 0x100);  // the step's scratch: forces, chassis move, slip slot (step::Scratch)
    m.map(pod::addr::kRacePaths, 4 + pod::addr::kPathLinksSize);  // no race paths; the link table (empty)
    m.map(pod::addr::kSmokeRing, pod::addr::kSmokeRingSize);
    m.map(pod::addr::kThreadBlockDefault, pod::addr::kThreadBlockSize);
    // The props' words: count, list and hit flags (no props).
    m.map(pod::addr::kPropCount, pod::addr::kPropHitFlags + pod::addr::kMaxProps - pod::addr::kPropCount);
    put_slip_curve();
    put_surfaces();
    // What the race's set-up writes: each driver's car, the catch-up's target function (A07).
    for (int r = 0; r < 8; ++r) driver(r).set(pod::Driver::car, pod::Car::at(pod::addr::kRaceCars, r));
    pod::RaceBlock(m).set(pod::RaceBlock::catch_up_target_fn, pod::addr::kCatchUpTarget);
  }
  pod::Car car(int racer) { return pod::Car(m, pod::Car::at(pod::addr::kRaceCars, racer)); }
  pod::Driver driver(int racer) {
    return pod::Driver(m, pod::addr::kDrivers + static_cast<std::uint32_t>(racer) * pod::addr::kDriverSize);
  }
  /// A scratch range for track records and vectors: returns the next free address.
  pod::GuestAddr alloc(std::uint32_t size) {
    if (heap_next_ == 0) {
      m.map(kHeap, kHeapSize);
      heap_next_ = kHeap;
    }
    const pod::GuestAddr a = heap_next_;
    heap_next_ += (size + 15u) & ~15u;
    return a;
  }
  pod::GuestAddr vec(const pod::Vec3& v) {
    const pod::GuestAddr a = alloc(12);
    m.put_vec3(a, v);
    return a;
  }

  /// Writes the tyre curve's four words at 0x4e9a78 from the documented decimals (F052): peak
  /// 0.342, offset 0.523, curvatures 8.55 and 2.37, each rounded to 16.16.
  void put_slip_curve() {
    m.put_i32(pod::addr::kSlipCurve + 0x0, fx(0.342));
    m.put_i32(pod::addr::kSlipCurve + 0x4, fx(0.523));
    m.put_i32(pod::addr::kSlipCurve + 0x8, fx(8.55));
    m.put_i32(pod::addr::kSlipCurve + 0xc, fx(2.37));
  }

  /// The surfaces' grips: surface n's first word (inputs; 1.0 unless set).
  void put_surfaces() {
    for (std::uint32_t n = 0; n < 16; ++n) m.put_i32(pod::Surface::at(n), 0x10000);
  }

  /// One flat ground sector per entry of `zs`, side by side along x: sector k spans x in
  /// [100k − 50, 100k + 50], y in [−50, 50], a single ground quad at height zs[k], bounds 2 below and
  /// 10 above. Sector k's neighbours are k − 1 and k + 1 when `linked`. Returns the sector table.
  pod::GuestAddr flat_track(std::initializer_list<int> zs, bool linked = true) {
    const auto n = static_cast<std::uint32_t>(zs.size());
    const pod::GuestAddr table = alloc(n * pod::Sector::kSize);
    m.put_i32(pod::addr::kSectorCount, static_cast<std::int32_t>(n));
    m.put_u32(pod::addr::kSectorTable, table);
    std::uint32_t k = 0;
    for (int z : zs) {
      const pod::GuestAddr sector = table + k * pod::Sector::kSize;
      const pod::GuestAddr mesh = alloc(pod::Mesh::kSize);
      const pod::GuestAddr verts = alloc(4 * 12);
      const pod::GuestAddr quad = alloc(pod::Quad::kSize);
      const std::int32_t x0 = (static_cast<std::int32_t>(k) * 100 - 50) << 16;
      const std::int32_t x1 = (static_cast<std::int32_t>(k) * 100 + 50) << 16;
      const std::int32_t zz = z << 16;
      // Corners a b c d counter-clockwise seen from above (+z).
      m.put_vec3(verts + 0, pod::Vec3{x0, -50 << 16, zz});
      m.put_vec3(verts + 12, pod::Vec3{x1, -50 << 16, zz});
      m.put_vec3(verts + 24, pod::Vec3{x1, 50 << 16, zz});
      m.put_vec3(verts + 36, pod::Vec3{x0, 50 << 16, zz});
      const pod::Quad q(m, quad);
      const pod::Vec3 up{0, 0, 0x10000};
      q.set(pod::Quad::normal, up);
      q.set(pod::Quad::normal_abc, up);
      q.set(pod::Quad::normal_cda, up);
      for (std::uint16_t c = 0; c < 4; ++c) q.set(pod::Quad::corners[c], c);
      q.set(pod::Quad::flags, pod::face_flags::kGround);
      q.set(pod::Quad::surface, std::uint8_t{0});
      const pod::Mesh me(m, mesh);
      me.set(pod::Mesh::vertex_count, std::uint16_t{4});
      me.set(pod::Mesh::quad_count, std::int16_t{1});
      me.set(pod::Mesh::vertices, verts);
      me.set(pod::Mesh::quads, quad);
      const pod::Sector s(m, sector);
      s.set(pod::Sector::mesh, mesh);
      s.set(pod::Sector::bounds_low, pod::Vec3{x0, -50 << 16, zz - (2 << 16)});
      s.set(pod::Sector::bounds_high, pod::Vec3{x1, 50 << 16, zz + (10 << 16)});
      s.set(pod::Sector::one, 1);
      std::vector<pod::GuestAddr> nb;
      if (linked && k > 0) nb.push_back(sector - pod::Sector::kSize);
      if (linked && k + 1 < n) nb.push_back(sector + pod::Sector::kSize);
      const pod::GuestAddr list = alloc(8);
      for (std::size_t j = 0; j < nb.size(); ++j) m.put_u32(list + 4 * static_cast<std::uint32_t>(j), nb[j]);
      s.set(pod::Sector::neighbour_count, static_cast<std::int32_t>(nb.size()));
      s.set(pod::Sector::neighbours, list);
      ++k;
    }
    return table;
  }

  /// A car as the stand-in's set-up makes one (port/CHOICES.md "Every car's values"; inputs), level
  /// with its forward axis along +x, its body centre at (x, y, z + 0.5) so each wheel rests one radius
  /// above a floor at z; then its points placed (pod::suspension::place_points) and put in `sector`.
  pod::Car standard_car(int racer, std::int32_t x, std::int32_t y, std::int32_t z, pod::GuestAddr sector);

  /// The frame time of the next car step (0x621b70 +0).
  void set_dt(pod::Fixed dt) { m.put_i32(pod::addr::kFrameTime, dt); }

  static constexpr std::int32_t fx(double v) { return static_cast<std::int32_t>(v * 65536.0 + (v < 0 ? -0.5 : 0.5)); }

  pod::FlatMemory m;

 private:
  static constexpr pod::GuestAddr kHeap = 0x800000;
  static constexpr std::uint32_t kHeapSize = 0x100000;
  pod::GuestAddr heap_next_ = 0;
};

inline pod::Car World::standard_car(int racer, std::int32_t x, std::int32_t y, std::int32_t z, pod::GuestAddr sector) {
  using pod::Car;
  using pod::Point;
  const Car c = car(racer);
  c.set(Car::centre, pod::Vec3{x, y, z + 0x8000});
  c.set(Car::forward, pod::Vec3{0x10000, 0, 0});
  c.set(Car::left, pod::Vec3{0, 0x10000, 0});
  c.set(Car::up, pod::Vec3{0, 0, 0x10000});
  c.set(Car::mass, 0x200000);
  c.set(Car::weight, 0x139eb80);
  c.set(Car::inertia, pod::Vec3{0x100000, 0x300000, 0x340000});
  c.set(Car::engine_max, 0x3e80000);
  c.set(Car::shift_up, 0x3e80000 / 100 * 92);
  c.set(Car::shift_down, 0x3e80000 / 100 * 46);
  c.set(Car::idle, 0x3e80000 / 10);
  c.set(Car::shift_from_neutral, 0x3e80000 / 5);
  c.set(Car::rev_up, 0x2580000);
  c.set(Car::rev_down, 0x1900000);
  const pod::Fixed ratios[5] = {0x120000, 0xc0000, 0x88000, 0x68000, 0x53333};
  for (std::uint32_t g = 0; g < 5; ++g) c.set(Car::ratios[g], ratios[g]);
  c.set(Car::top_gear, std::uint8_t{5});
  const pod::GuestAddr curve = alloc(40 * 4);
  for (std::uint32_t i = 0; i < 40; ++i) m.put_i32(curve + 4 * i, 0x20000);
  c.set(Car::torque_curve, curve);
  c.set(Car::drag, 0x2580000);
  c.set(Car::downforce, 0x12c0000);
  c.set(Car::steer_limit, 0x9999);
  c.set(Car::steer_rate, 0x20000);
  c.set(Car::brake_max, 0x190000);
  c.set(Car::wheel_inertia, 0x18000);
  c.set(Car::side_stiffness, 0x640000);
  for (int i = 0; i < Car::kPoints; ++i) {
    const Point p = c.point(i);
    p.set(Point::surface, pod::Surface::at(0));
    p.set(Point::sector, sector);
    p.set(Point::last_sector, sector);
    if (i == Car::kChassis) {
      p.set(Point::radius, 0x3333);
      continue;
    }
    const bool front = i == 0 || i == 2;
    const bool leftside = i == 0 || i == 1;
    p.set(Point::hang, pod::Vec3{front ? 0x14ccd : -0x14ccd, leftside ? 0xe666 : -0xe666, 0x3333});
    p.set(Point::radius, 0x599a);
    p.set(Point::rolling_resistance, 655);
    p.set(Point::rest, 0x8000);
    p.set(Point::droop, 0x8000);
    p.set(Point::extension, 0x599a);
    p.set(Point::spring_rate, 0x6aaab);
    p.set(Point::damper_rate, 0xcccd);
    p.set(Point::side_grip, 0x1999a);
    p.set(Point::traction, 0x18000);
  }
  pod::suspension::place_points(m, c.addr());
  return c;
}

}  // namespace podtest
