// The drawn objects' hulls: FUN_004713c8, FUN_00423b48 (through FUN_004d3e90), FUN_00420300 and
// FUN_004203c8 ("Prisme").
#include "pod/hulls.hpp"

#include "common.hpp"

namespace pod::world {

using namespace pod::detail;

void Box::add(Memory& m, GuestAddr vertices, std::uint32_t count) {
  for (std::uint32_t i = 0; i < count; ++i) {
    const Vec3 v = m.vec3(vertices + 12u * i);
    for (int k = 0; k < 3; ++k) {  // two separate tests: a first vertex sets both extremes
      if (v[k] < min[k]) min[k] = v[k];
      if (v[k] > max[k]) max[k] = v[k];
    }
  }
}

void Box::write(Memory& m, GuestAddr hull) const {
  const Hull h(m, hull);
  Vec3 half, centre;
  for (int k = 0; k < 3; ++k) {
    half[k] = wrap_sub(max[k], min[k]) >> 1;
    centre[k] = wrap_add(max[k], min[k]) >> 1;
  }
  h.set(Hull::half, half);
  h.set(Hull::centre, centre);
}

// FUN_004713c8
void hull_box(Memory& m, GuestAddr vertices, std::int32_t count, GuestAddr hull) {
  Box box;
  if (count > 0) box.add(m, vertices, static_cast<std::uint32_t>(count));
  box.write(m, hull);
}

// FUN_00423b48
Fixed hull_radius(Memory& m, GuestAddr hull) {
  const Hull h(m, hull);
  const std::int64_t x = h.get(Field<Fixed>{Hull::half.offset});
  const std::int64_t y = h.get(Field<Fixed>{Hull::half.offset + 4});
  const auto r = static_cast<Fixed>(math::isqrt(static_cast<std::uint64_t>(x * x) + static_cast<std::uint64_t>(y * y)));
  h.set(Hull::radius, r);
  return r;
}

// FUN_00420300
void part_hull(Memory& m, GuestAddr part) {
  const Part p(m, part);
  const GuestAddr hull = p.get(Part::hull);
  hull_box(m, p.get(Part::vertices), static_cast<std::int32_t>(p.get(Part::vertex_count)), hull);
  hull_radius(m, hull);
}

// FUN_004203c8
void prisme(Memory& m, GuestAddr object) {
  const RaceObject o(m, object);
  const std::int32_t n = o.get(RaceObject::part_count);
  for (std::int32_t i = 0; i < n; ++i) part_hull(m, o.part(i));
  Box box;
  for (std::int32_t i = 0; i < n; ++i) {
    const Part p(m, o.part(i));
    const auto count = static_cast<std::int32_t>(p.get(Part::vertex_count));
    if (count > 0) box.add(m, p.get(Part::vertices), static_cast<std::uint32_t>(count));
  }
  const GuestAddr hull = o.get(RaceObject::hull);
  box.write(m, hull);
  hull_radius(m, hull);
}

}  // namespace pod::world
