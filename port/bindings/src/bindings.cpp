#include "pod/bindings/bindings.hpp"

#include <cstring>
#include <vector>

#include "lockstep/cases/port_run.hpp"
#include "pod/addresses.hpp"
#include "registry.hpp"

namespace pod::bindings {

using lockstep::cases::Case;
using lockstep::cases::PortEffects;

PortEffects run_on_case(const Case& c, const std::function<Returned(pod::Memory&, const Case&)>& body) {
  return lockstep::cases::run_port<CaseMemory>(c, [&](CaseMemory& mem, lockstep::cases::ReplayMemory&, PortEffects& fx) {
    const Returned r = body(mem, c);
    fx.eax = r.eax;
    fx.edx = r.edx;
    fx.st0 = r.st0;
  });
}

std::uint32_t stack_arg(pod::Memory& m, const Case& c, unsigned n) { return m.u32(c.in.esp + 4 + 4 * n); }

namespace detail {

GuestAddr thread_block(const Case& c) {
  constexpr GuestAddr kGameEnd = 0x01000000;  // the image, its data, the track records lie below
  constexpr GuestAddr kStackReach = 0x00100000;
  // The runs above the game's range, in place (every car step asks, and a car step has over a
  // hundred input runs, most of them the game's).
  for (std::size_t i = c.inputs.run_from(kGameEnd); i < c.inputs.run_count(); ++i) {
    const auto run = c.inputs.run(i);
    for (std::uint64_t a = (run.base + 0xfffu - 0x10u) / 0x1000u * 0x1000u + 0x10u; a + 4 <= run.end(); a += 0x1000u) {
      const auto seed = static_cast<GuestAddr>(a);
      if (seed < run.base || seed < kGameEnd) continue;
      const bool near_stack = seed + kStackReach >= c.in.esp && seed <= c.in.esp + kStackReach;
      if (near_stack || !c.writes.contains_all(seed, 4)) continue;
      return seed - pod::addr::kRandSeedOffset;
    }
  }
  return pod::addr::kThreadBlockDefault;
}

lockstep::cases::Binding make(GuestAddr address, std::string name, Body body, FrameWord frame_word) {
  if (!frame_word)
    return {address, std::move(name), [body = std::move(body)](const Case& c) { return run_on_case(c, body); }};
  return {address, std::move(name), [body = std::move(body), frame_word = std::move(frame_word)](const Case& c) {
            PortEffects fx = run_on_case(c, body);
            const GuestAddr w = frame_word(c);
            for (GuestAddr a = w; a != w + 4; ++a)
              if (c.is_stale(a)) fx.writes.erase(a);  // only ever a word of the callee's own frame
            return fx;
          }};
}

}  // namespace detail

lockstep::cases::BindingSet all() {
  lockstep::cases::BindingSet set;
  detail::add_math(set);
  detail::add_drive(set);
  detail::add_forces(set);
  detail::add_body(set);
  detail::add_collide(set);
  detail::add_step(set);
  detail::add_putback(set);
  detail::add_cars(set);
  detail::add_damage(set);
  detail::add_props(set);
  detail::add_race(set);
  detail::add_setup(set);
  return set;
}

}  // namespace pod::bindings
