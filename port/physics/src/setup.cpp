// The race's set-up the documents give: the quad halves, the surface defaults, the grid slot, the
// settling.
#include "pod/setup.hpp"

#include <stdexcept>
#include <string>

#include "common.hpp"
#include "pod/putback.hpp"
#include "pod/step.hpp"
#include "pod/tables.hpp"

namespace pod::setup {

using namespace pod::detail;

namespace {

// The vertex a quad's corner k names (its u16 number into the mesh's 12-byte vertices).
Vec3 corner(Memory& m, GuestAddr quad, GuestAddr mesh, std::uint32_t k) {
  const std::uint32_t n = m.u16(quad + Quad::corners[k].offset);
  return m.vec3(Mesh(m, mesh).get(Mesh::vertices) + Mesh::kVertexSize * n);
}

// The unit normal of the triangle u v w: (v − u) × (w − u), each component div16'd by its length.
Vec3 unit_normal(Memory& m, const Vec3& u, const Vec3& v, const Vec3& w) {
  Vec3 n = math::cross16(sub(v, u), sub(w, u));
  const Fixed len = tables::length16(m, n);
  if (len == 0) return n;
  for (int k = 0; k < 3; ++k) n[k] = math::div16(m, n[k], len);
  return n;
}

}  // namespace

// FUN_004247f8
void quad_halves(Memory& m, GuestAddr quad, GuestAddr mesh) {
  const Vec3 a = corner(m, quad, mesh, 0);
  const Vec3 b = corner(m, quad, mesh, 1);
  const Vec3 c = corner(m, quad, mesh, 2);
  const Vec3 d = corner(m, quad, mesh, 3);
  m.put_vec3(quad + Quad::normal_abc.offset, unit_normal(m, a, b, c));
  m.put_vec3(quad + Quad::normal_cda.offset, unit_normal(m, c, d, a));
}

// FUN_004985e8
void surface_defaults(Memory& m) {
  for (std::uint32_t n = 0; n < addr::kSurfaceCount; ++n) {
    const GuestAddr s = Surface::at(n);
    m.put_i32(s + 0, n < 4 ? kSurfaceGrips[n] : kOne);
    m.put_i32(s + 4, static_cast<std::int32_t>(n));
    m.put_i32(s + 8, 0);
  }
}

// FUN_004236f0
void grid_slot(Memory& m, GuestAddr car, GuestAddr start_record) {
  putback::place(m, car, start_record, start_record + 12);
}

// FUN_0041e0d0
void settle_seam(Memory&) {}

namespace {

/// More settling steps than any sane unit asks (0x20000 over a unit of 1 would be 43,691): refused.
constexpr std::int32_t kMostSettleSteps = 10000;

/// The settling's step time, kSettleUnits × [0x60bdfc], refused when the loop could not end soon.
Fixed settle_step_time(Memory& m) {
  const Fixed unit = m.i32(addr::kStepUnit);
  const std::int64_t dt = std::int64_t{kSettleUnits} * unit;
  if (dt <= 0 || dt > kSettleTime || kSettleTime / dt >= kMostSettleSteps)
    throw std::runtime_error("setup::settle: the step unit [0x60bdfc] is " + std::to_string(unit) +
                             ", which gives the settling no sane step (it needs a unit from " +
                             std::to_string(kSettleTime / (kSettleUnits * kMostSettleSteps) + 1) + " to " +
                             std::to_string(kSettleTime / kSettleUnits) + "; pod::Race::start sets 0x888)");
  return static_cast<Fixed>(dt);
}

}  // namespace

// FUN_0049b9d4
std::int32_t settle(Memory& m, const race::Racers& racers) {
  const Fixed dt = settle_step_time(m);
  const std::int32_t n = wrap_add(m.i32(addr::kHumanRacers), m.i32(addr::kComputerRacers));
  const FrameTime frame(m);
  std::int32_t steps = 0;
  for (Fixed settled = 0; settled < kSettleTime; settled += dt, ++steps) {
    frame.set(FrameTime::dt, dt);
    frame.set(FrameTime::step_dt, dt);
    for (std::int32_t r = 0; r < n; ++r) {
      const GuestAddr car = Car::at(addr::kRaceCars, r);
      const GuestAddr driver = addr::kDrivers + static_cast<std::uint32_t>(r) * addr::kDriverSize;
      const Driver d(m, driver);
      d.set(Driver::input, kSettleInput);
      const auto i = static_cast<std::size_t>(r);
      if (i < racers.controllers.size() && racers.controllers[i]) racers.controllers[i](m, driver, car);
      step::step_from_controls(m, car, driver, racers.scratch, step::Damage::kApplied);
      step::pose(m, car, driver);
      settle_seam(m);
      d.set(Driver::stuck_timer, 0);
    }
  }
  return steps;
}

}  // namespace pod::setup
