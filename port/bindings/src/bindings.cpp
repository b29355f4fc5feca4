#include "pod/bindings/bindings.hpp"

#include <cstring>

#include "pod/math.hpp"

namespace pod::bindings {

using lockstep::cases::Case;
using lockstep::cases::PortEffects;

std::uint64_t CaseMemory::load(GuestAddr a, unsigned n) {
  std::uint8_t b[8] = {};
  m_.load(a, std::span(b, n));
  std::uint64_t v = 0;
  std::memcpy(&v, b, n);  // little-endian host (x86-64, aarch64)
  return v;
}

void CaseMemory::store(GuestAddr a, std::uint64_t v, unsigned n) {
  std::uint8_t b[8];
  std::memcpy(b, &v, 8);
  m_.store(a, std::span<const std::uint8_t>(b, n));
}

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

namespace {

lockstep::cases::Binding make(GuestAddr address, std::string name,
                              std::function<Returned(pod::Memory&, const Case&)> body) {
  return {address, std::move(name), [body = std::move(body)](const Case& c) { return run_on_case(c, body); }};
}

Returned ret_eax(std::int32_t v) { return Returned{static_cast<std::uint32_t>(v), 0, std::nullopt}; }

}  // namespace

lockstep::cases::BindingSet all() {
  lockstep::cases::BindingSet set;
  // --- arithmetic layer (port/CHOICES.md, "Arithmetic layer and tables") ---
  // FUN_004d41a0 dot16: eax = a, edx = b → eax.
  set.push_back(make(0x4d41a0, "math::dot16", [](pod::Memory& m, const Case& c) {
    return ret_eax(math::dot16(m.vec3(c.in.eax), m.vec3(c.in.edx)));
  }));
  return set;
}

}  // namespace pod::bindings
