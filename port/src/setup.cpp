// The race's set-up the documents give: the quad halves, the surface defaults, the grid slot.
#include "pod/setup.hpp"

#include "common.hpp"
#include "pod/putback.hpp"
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

}  // namespace pod::setup
