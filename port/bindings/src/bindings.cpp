#include "pod/bindings/bindings.hpp"

#include <cstring>
#include <vector>

#include "registry.hpp"

namespace pod::bindings {

using lockstep::cases::Case;
using lockstep::cases::PortEffects;

std::uint64_t CaseMemory::load(GuestAddr a, unsigned n) { return m_.load_le(a, n); }

void CaseMemory::store(GuestAddr a, std::uint64_t v, unsigned n) { m_.store_le(a, v, n); }

PortEffects run_on_case(const Case& c, const std::function<Returned(pod::Memory&, const Case&)>& body) {
  lockstep::cases::ReplayMemory rm(c);
  CaseMemory mem(rm);
  PortEffects fx;
  try {
    Returned r = body(mem, c);
    fx.eax = r.eax;
    fx.edx = r.edx;
    fx.st0 = r.st0;
  } catch (const std::exception& e) {
    fx.error = e.what();
  } catch (...) {
    fx.error = "unknown exception";
  }
  fx.writes = rm.writes();
  fx.outside_reads = rm.outside_reads();
  return fx;
}

std::uint32_t stack_arg(pod::Memory& m, const Case& c, unsigned n) { return m.u32(c.in.esp + 4 + 4 * n); }

namespace detail {

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
  return set;
}

}  // namespace pod::bindings
