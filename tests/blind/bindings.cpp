// The blind reading's bindings: the port's bindings (pod::bindings::all()) with the functions the
// blind reading has (include/pod/blind.hpp) bound to its code instead, each exactly as the port's
// binding of that address calls the port (the same registers, the same stale slot and thread block,
// the same damage gating), through the port's own binding helpers.
#include "blind_bindings.hpp"

#include <algorithm>

#include "pod/blind.hpp"
#include "pod/damage.hpp"
#include "registry.hpp"  // the port's binding helpers (port/bindings/src)

namespace pod::blind {

namespace {

using lockstep::cases::Case;
using namespace pod::bindings::detail;

GuestAddr step_stale_slot(const Case& c) { return c.in.esp - 0x800; }

lockstep::cases::BindingSet blind_only() {
  lockstep::cases::BindingSet set;
  set.push_back(make(0x41af80, "tyres::tyres", [](pod::Memory& m, const Case& c) {
    blind::tyres::tyres(m, c.in.eax, c.in.edx, stale_slot(c));
    return ret_none();
  }, stale_slot));
  set.push_back(make(0x419ad0, "body::integrate", [](pod::Memory& m, const Case& c) {
    std::vector<::pod::body::Impact> calls;
    blind::body::integrate(m, c.in.eax, c.in.edx, &calls);
    if (damage_consulted(c)) ::pod::damage::impacts(m, c.in.eax, calls);
    return ret_none();
  }));
  set.push_back(make(0x417988, "collide::track", [](pod::Memory& m, const Case& c) {
    blind::collide::track(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  set.push_back(make(0x418010, "drive::engine", [](pod::Memory& m, const Case& c) {
    blind::drive::engine(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  set.push_back(make(0x418f0c, "drive::gears", [](pod::Memory& m, const Case& c) {
    blind::drive::gears(m, c.in.eax);
    return ret_none();
  }));
  set.push_back(make(0x41988c, "suspension::travel", [](pod::Memory& m, const Case& c) {
    blind::suspension::travel(m, c.in.eax);
    return ret_none();
  }));
  set.push_back(make(
      0x41b66c, "step::step",
      [](pod::Memory& m, const Case& c) {
        ::pod::step::Scratch scratch;
        scratch.stale_slot = step_stale_slot(c);
        scratch.thread_block = thread_block(c);
        const auto damage = damage_consulted(c) ? ::pod::step::Damage::kApplied : ::pod::step::Damage::kReported;
        const ::pod::step::Out out = blind::step::step_from_controls(m, c.in.eax, c.in.edx, scratch, damage);
        return ret_eax(static_cast<std::int32_t>(out.chassis_move));
      },
      step_stale_slot));
  set.push_back(make(0x42127c, "cars::pair", [](pod::Memory& m, const Case& c) {
    return ret_eax(blind::cars::pair(m, static_cast<int>(c.in.eax), static_cast<int>(c.in.edx)).impulse);
  }));
  set.push_back(make(0x454a98, "props::motion", [](pod::Memory& m, const Case& c) {
    blind::props::motion(m, c.in.eax);
    return ret_none();
  }));
  set.push_back(make(0x420e54, "damage::hit", [](pod::Memory& m, const Case& c) {
    blind::damage::hit(m, c.in.eax, c.in.edx, static_cast<Fixed>(c.in.ebx));
    return ret_none();
  }));
  set.push_back(make(0x4b0ec0, "paths::track", [](pod::Memory& m, const Case& c) {
    blind::paths::track(m, c.in.eax, c.in.edx);
    return ret_none();
  }));
  return set;
}

}  // namespace

lockstep::cases::BindingSet bindings() { return blind_only(); }

std::vector<GuestAddr> addresses() {
  std::vector<GuestAddr> out;
  for (const auto& b : blind_only()) out.push_back(b.address);
  return out;
}

}  // namespace pod::blind
