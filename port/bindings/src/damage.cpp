// Bindings of the damage: the hit, the chain's macro and the wheels it hurts.
#include "pod/addresses.hpp"
#include "pod/damage.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

bool damage_consulted(const Case& c) { return c.inputs.contains_all(pod::addr::kDamageOption, 4); }

void add_damage(lockstep::cases::BindingSet& set) {
  // FUN_00420e54: eax = car, edx = the parts, ebx = the strength.
  set.push_back(make(0x420e54, "damage::hit", [](pod::Memory& m, const Case& c) {
    damage::hit(m, c.in.eax, c.in.edx, static_cast<Fixed>(c.in.ebx));
    return ret_none();
  }));
  // FUN_004545a8: eax = part, edx = its template.
  set.push_back(make(0x4545a8, "damage::to_template", [](pod::Memory& m, const Case& c) {
    damage::to_template(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  set.push_back(make(0x415318, "damage::wheels_hurt", [](pod::Memory& m, const Case& c) {
    damage::wheels_hurt(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  // FUN_00415270: eax = car, edx = the wheel.
  set.push_back(make(0x415270, "damage::wheel", [](pod::Memory& m, const Case& c) {
    damage::wheel(m, c.in.eax, static_cast<int>(c.in.edx));
    return ret_none();
  }));
  // FUN_004152ac: eax = car, edx = the pair's first wheel.
  set.push_back(make(0x4152ac, "damage::axle", [](pod::Memory& m, const Case& c) {
    damage::axle(m, c.in.eax, static_cast<int>(c.in.edx));
    return ret_none();
  }));
}

}  // namespace pod::bindings::detail
