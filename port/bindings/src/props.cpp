// Bindings of the props: building the list, the props' pieces of the collision pass.
#include "pod/addresses.hpp"
#include "pod/props.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

bool props_consulted(const Case& c) { return c.inputs.contains_all(pod::addr::kPropCount, 4); }

void add_props(lockstep::cases::BindingSet& set) {
  // FUN_0046a780: eax = the type's bytes, edx = the record, ebx = free memory → eax = free memory after.
  set.push_back(declare(0x46a780, "props::kind", &props::kind));
  // FUN_00468cfc: eax = the environment's bytes, edx = free memory → eax = free memory after.
  set.push_back(declare(0x468cfc, "props::build", &props::build));
  set.push_back(declare(0x454654, "props::centre", &props::centre));
  set.push_back(declare(0x4547a4, "props::faces", &props::faces));
  // FUN_004214b4: eax = the prop's record, edx = the normal, ebx = the signed impulse, ecx = the contact point.
  set.push_back(declare(0x4214b4, "props::impulse", &props::impulse));
  // FUN_004215a8: eax = the racer, edx = the prop's number → eax 1 contact, 0 none.
  set.push_back(declare(0x4215a8, "props::car_hit", &props::car_hit));
  set.push_back(declare(0x421750, "props::knock", &props::knock));
  set.push_back(declare(0x454a98, "props::motion", &props::motion));
  set.push_back(declare(0x4adab0, "props::remove", &props::remove));
}

}  // namespace pod::bindings::detail
