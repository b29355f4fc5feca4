// Bindings of car against car (the collision pass, one pair and its pieces) and of the drawn
// objects' hulls.
#include "pod/cars.hpp"
#include "pod/hulls.hpp"
#include "pod/math.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

void add_cars(lockstep::cases::BindingSet& set) {
  // FUN_004713c8: eax = the vertices, edx = their count, ebx = the hull.
  set.push_back(declare(0x4713c8, "world::hull_box", &world::hull_box));
  // FUN_004d3e90: eax = the low word, edx = the high word → eax. Written out: the port takes the
  // 64-bit value the two words make.
  set.push_back(make(0x4d3e90, "math::sqrt", [](pod::Memory&, const Case& c) {
    const std::uint64_t v = (std::uint64_t{c.in.edx} << 32) | c.in.eax;
    return ret_eax(static_cast<std::int32_t>(math::isqrt(v)));
  }));
  set.push_back(declare(0x423b48, "world::hull_radius", &world::hull_radius));
  set.push_back(declare(0x420300, "world::part_hull", &world::part_hull));
  set.push_back(declare(0x4203c8, "world::prisme", &world::prisme));
  // FUN_00423fd8: eax, edx = the two centres (vec3) → eax. Written out: the port takes the vec3s, read
  // here at the two addresses.
  set.push_back(make(0x423fd8, "cars::centre_distance", [](pod::Memory& m, const Case& c) {
    return ret_eax(cars::centre_distance(m, m.vec3(c.in.eax), m.vec3(c.in.edx)));
  }));
  // FUN_00423c64: eax = a, edx = b, ebx = out → eax = the length. Written out: the port takes and
  // gives vec3 values; the binding reads a and b and stores the normal at out.
  set.push_back(make(0x423c64, "cars::normal", [](pod::Memory& m, const Case& c) {
    Vec3 n;
    const Fixed len = cars::normal(m, m.vec3(c.in.eax), m.vec3(c.in.edx), n);
    m.put_vec3(c.in.ebx, n);
    return ret_eax(len);
  }));
  set.push_back(declare_overload<int(GuestAddr, GuestAddr, GuestAddr)>(0x420548, "cars::hull_test", &cars::hull_test));
  set.push_back(declare(0x4209c8, "cars::mark_parts", &cars::mark_parts));
  set.push_back(declare_overload<Fixed(GuestAddr, GuestAddr, GuestAddr)>(0x420adc, "cars::impulse", &cars::impulse));
  // FUN_00420b4c: eax = car, edx = the normal, ebx = the signed impulse, ecx = the contact point.
  set.push_back(declare(0x420b4c, "cars::carry", &cars::carry));
  // FUN_0042127c: eax, edx = the two racers → eax = the impulse. The contact sound is an effect
  // outside memory (0x4b8d64 writes to the sound device), not compared. Written out: the port returns
  // the pair's whole outcome, of which eax is the impulse.
  set.push_back(make(0x42127c, "cars::pair", [](pod::Memory& m, const Case& c) {
    return ret_eax(cars::pair(m, static_cast<int>(c.in.eax), static_cast<int>(c.in.edx)).impulse);
  }));
  // FUN_0042196c. Written out: the props' part runs where the original's pass read the prop count
  // (props_consulted), which the case shows and no argument carries.
  set.push_back(make(0x42196c, "cars::collisions", [](pod::Memory& m, const Case& c) {
    cars::collisions(m, props_consulted(c) ? cars::Props::kRun : cars::Props::kNone);
    return ret_none();
  }));
}

}  // namespace pod::bindings::detail
