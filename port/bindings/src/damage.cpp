// Bindings of the damage: the hit, the chain's macro and the wheels it hurts.
#include "pod/addresses.hpp"
#include "pod/damage.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

bool damage_consulted(const Case& c) { return c.inputs.contains_all(pod::addr::kDamageOption, 4); }

void add_damage(lockstep::cases::BindingSet& set) {
  // FUN_00420e54: eax = car, edx = the parts, ebx = the strength.
  set.push_back(declare(0x420e54, "damage::hit", &damage::hit));
  // FUN_004545a8: eax = part, edx = its template.
  set.push_back(declare(0x4545a8, "damage::to_template", &damage::to_template));
  set.push_back(declare(0x415318, "damage::wheels_hurt", &damage::wheels_hurt));
  // FUN_00415270: eax = car, edx = the wheel.
  set.push_back(declare(0x415270, "damage::wheel", &damage::wheel));
  // FUN_004152ac: eax = car, edx = the pair's first wheel.
  set.push_back(declare(0x4152ac, "damage::axle", &damage::axle));
}

}  // namespace pod::bindings::detail
