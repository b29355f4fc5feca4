// Each binding takes its arguments where the function's convention (gliders.toml) puts them:
//   cdecl    every argument on the stack: argument n at the entry esp + 4 + 4n (above the return
//            address), the caller pops;
//   stdcall  the same places, the callee pops (ret 8);
//   fastcall the first two in ecx and edx.
// A float argument travels as its 32-bit pattern.
#include "bindings.hpp"

#include <bit>
#include <functional>

#include "gliders/gliders.hpp"
#include "lockstep/cases/replay_memory.hpp"

namespace gliders {
namespace {

using lockstep::cases::Case;
using lockstep::cases::PortEffects;

/// The port's Memory over a case's replay memory: the case's input bytes, the port's own writes; a
/// byte the original never read is reported by the replay when the port reads it.
class CaseMemory final : public Memory {
 public:
  explicit CaseMemory(lockstep::cases::ReplayMemory& m) : m_(m) {}
  std::uint32_t load32(GuestAddr a) override { return static_cast<std::uint32_t>(m_.load_le(a, 4)); }
  void store32(GuestAddr a, std::uint32_t v) override { m_.store_le(a, v, 4); }

 private:
  lockstep::cases::ReplayMemory& m_;
};

std::uint32_t stack_arg(Memory& m, const Case& c, unsigned n) { return m.load32(c.in.esp + 4 + 4 * n); }

/// A binding whose body runs the port on the case's memory and gives eax (0 for a function returning
/// nothing: the profile's `returns = "none"` compares no register).
lockstep::cases::Binding bind(GuestAddr address, const char* name,
                              std::function<std::uint32_t(Memory&, const Case&)> body) {
  return {address, name, [body = std::move(body)](const Case& c) {
            lockstep::cases::ReplayMemory rm(c);
            CaseMemory mem(rm);
            PortEffects fx;
            fx.eax = body(mem, c);
            fx.writes = rm.writes();
            fx.outside_reads = rm.outside_reads();
            return fx;
          }};
}

}  // namespace

lockstep::cases::BindingSet bindings() {
  return {
      bind(0x08049850, "fixed::mul",
           [](Memory& m, const Case& c) -> std::uint32_t {
             return static_cast<std::uint32_t>(fx_mul(static_cast<Fixed>(stack_arg(m, c, 0)),
                                                      static_cast<Fixed>(stack_arg(m, c, 1))));
           }),
      bind(0x08049860, "glider::push",
           [](Memory& m, const Case& c) -> std::uint32_t {
             glider_push(m, c.in.ecx, static_cast<Fixed>(c.in.edx));
             return 0;
           }),
      bind(0x080498a0, "glider::lift",
           [](Memory& m, const Case& c) -> std::uint32_t {
             glider_lift(m, stack_arg(m, c, 0), std::bit_cast<float>(stack_arg(m, c, 1)));
             return 0;
           }),
      bind(0x08049900, "world::step",
           [](Memory& m, const Case& c) -> std::uint32_t {
             world_step(m, stack_arg(m, c, 0));
             return 0;
           }),
  };
}

}  // namespace gliders
