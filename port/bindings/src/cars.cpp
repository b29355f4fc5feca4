// Bindings of car against car (the collision pass, one pair and its pieces) and of the drawn
// objects' hulls.
#include "pod/cars.hpp"
#include "pod/hulls.hpp"
#include "pod/math.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

void add_cars(lockstep::cases::BindingSet& set) {
  // FUN_004713c8: eax = the vertices, edx = their count, ebx = the hull.
  set.push_back(make(0x4713c8, "world::hull_box", [](pod::Memory& m, const Case& c) {
    world::hull_box(m, c.in.eax, static_cast<std::int32_t>(c.in.edx), c.in.ebx);
    return ret_none();
  }));
  // FUN_004d3e90: eax = the low word, edx = the high word → eax.
  set.push_back(make(0x4d3e90, "math::sqrt", [](pod::Memory&, const Case& c) {
    const std::uint64_t v = (std::uint64_t{c.in.edx} << 32) | c.in.eax;
    return ret_eax(static_cast<std::int32_t>(math::isqrt(v)));
  }));
  set.push_back(make(0x423b48, "world::hull_radius", [](pod::Memory& m, const Case& c) {
    return ret_eax(world::hull_radius(m, c.in.eax));
  }));
  set.push_back(make(0x420300, "world::part_hull", [](pod::Memory& m, const Case& c) {
    world::part_hull(m, c.in.eax);
    return ret_none();
  }));
  set.push_back(make(0x4203c8, "world::prisme", [](pod::Memory& m, const Case& c) {
    world::prisme(m, c.in.eax);
    return ret_none();
  }));
  // FUN_00423fd8: eax, edx = the two centres (vec3) → eax.
  set.push_back(make(0x423fd8, "cars::centre_distance", [](pod::Memory& m, const Case& c) {
    return ret_eax(cars::centre_distance(m, m.vec3(c.in.eax), m.vec3(c.in.edx)));
  }));
  // FUN_00423c64: eax = a, edx = b, ebx = out → eax = the length.
  set.push_back(make(0x423c64, "cars::normal", [](pod::Memory& m, const Case& c) {
    Vec3 n;
    const Fixed len = cars::normal(m, m.vec3(c.in.eax), m.vec3(c.in.edx), n);
    m.put_vec3(c.in.ebx, n);
    return ret_eax(len);
  }));
  set.push_back(make(0x420548, "cars::hull_test", [](pod::Memory& m, const Case& c) {
    return ret_eax(cars::hull_test(m, c.in.eax, c.in.edx, c.in.ebx));
  }));
  set.push_back(make(0x4209c8, "cars::mark_parts", [](pod::Memory& m, const Case& c) {
    return ret_eax(static_cast<std::int32_t>(cars::mark_parts(m, c.in.eax, c.in.edx, c.in.ebx)));
  }));
  set.push_back(make(0x420adc, "cars::impulse", [](pod::Memory& m, const Case& c) {
    return ret_eax(cars::impulse(m, c.in.eax, c.in.edx, c.in.ebx));
  }));
  // FUN_00420b4c: eax = car, edx = the normal, ebx = the signed impulse, ecx = the contact point.
  set.push_back(make(0x420b4c, "cars::carry", [](pod::Memory& m, const Case& c) {
    cars::carry(m, c.in.eax, c.in.edx, static_cast<Fixed>(c.in.ebx), c.in.ecx);
    return ret_none();
  }));
  // FUN_0042127c: eax, edx = the two racers → eax = the impulse. The contact sound is an effect
  // outside memory (0x4b8d64 writes to the sound device), not compared.
  set.push_back(make(0x42127c, "cars::pair", [](pod::Memory& m, const Case& c) {
    return ret_eax(cars::pair(m, static_cast<int>(c.in.eax), static_cast<int>(c.in.edx)).impulse);
  }));
  // FUN_0042196c: the props' part runs where the original's pass read the prop count (props_consulted).
  set.push_back(make(0x42196c, "cars::collisions", [](pod::Memory& m, const Case& c) {
    cars::collisions(m, props_consulted(c) ? cars::Props::kRun : cars::Props::kNone);
    return ret_none();
  }));
}

}  // namespace pod::bindings::detail
