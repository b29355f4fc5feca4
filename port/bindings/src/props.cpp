// Bindings of the props: building the list, the props' pieces of the collision pass.
#include "pod/addresses.hpp"
#include "pod/props.hpp"
#include "registry.hpp"

namespace pod::bindings::detail {

bool props_consulted(const Case& c) { return c.inputs.contains_all(pod::addr::kPropCount, 4); }

void add_props(lockstep::cases::BindingSet& set) {
  // FUN_0046a780: eax = the type's bytes, edx = the record, ebx = free memory → eax = free memory after.
  set.push_back(make(0x46a780, "props::kind", [](pod::Memory& m, const Case& c) {
    return ret_eax(static_cast<std::int32_t>(props::kind(m, c.in.eax, c.in.edx, c.in.ebx)));
  }));
  // FUN_00468cfc: eax = the environment's bytes, edx = free memory → eax = free memory after.
  set.push_back(make(0x468cfc, "props::build", [](pod::Memory& m, const Case& c) {
    return ret_eax(static_cast<std::int32_t>(props::build(m, c.in.eax, c.in.edx)));
  }));
  set.push_back(make(0x454654, "props::centre", [](pod::Memory& m, const Case& c) {
    props::centre(m, c.in.eax);
    return ret_none();
  }));
  set.push_back(make(0x4547a4, "props::faces", [](pod::Memory& m, const Case& c) {
    props::faces(m, c.in.eax);
    return ret_none();
  }));
  // FUN_004214b4: eax = the prop's record, edx = the normal, ebx = the signed impulse, ecx = the contact point.
  set.push_back(make(0x4214b4, "props::impulse", [](pod::Memory& m, const Case& c) {
    props::impulse(m, c.in.eax, c.in.edx, static_cast<Fixed>(c.in.ebx), c.in.ecx);
    return ret_none();
  }));
  // FUN_004215a8: eax = the racer, edx = the prop's number → eax 1 contact, 0 none.
  set.push_back(make(0x4215a8, "props::car_hit", [](pod::Memory& m, const Case& c) {
    return ret_eax(props::car_hit(m, static_cast<int>(c.in.eax), c.in.edx));
  }));
  set.push_back(make(0x421750, "props::knock", [](pod::Memory& m, const Case& c) {
    props::knock(m, c.in.eax);
    return ret_none();
  }));
  set.push_back(make(0x454a98, "props::motion", [](pod::Memory& m, const Case& c) {
    props::motion(m, c.in.eax);
    return ret_none();
  }));
  set.push_back(make(0x4adab0, "props::remove", [](pod::Memory& m, const Case& c) {
    props::remove(m, c.in.eax);
    return ret_none();
  }));
}

}  // namespace pod::bindings::detail
