// Each binding reads its arguments where the function's convention puts them (Crawl uses three):
//   cdecl    every argument on the stack, the caller pops;
//   stdcall  every argument on the stack, the callee pops (ret N);
//   fastcall the first two integer-sized arguments in ecx and edx, the rest on the stack.
// A stack argument n lies at the entry esp + 4 + 4n (above the return address); a float travels as
// its 32-bit pattern. Results: eax, or st0 for a float or double (compared as the double it holds).
#include "crawl/bindings.hpp"

#include <bit>
#include <exception>
#include <functional>
#include <optional>
#include <string>

#include "crawl/game.hpp"
#include "lockstep/cases/replay_memory.hpp"

namespace crawl::bindings {

namespace {

using lockstep::cases::Case;
using lockstep::cases::PortEffects;

/// crawl::Memory over a case's replay memory: the case's input bytes, the port's own writes; a byte
/// the original never read reads as 0 and is reported by the replay.
class CaseMemory final : public Memory {
 public:
  explicit CaseMemory(lockstep::cases::ReplayMemory& m) : m_(m) {}
  std::uint64_t load(GuestAddr a, unsigned n) override { return m_.load_le(a, n); }
  void store(GuestAddr a, std::uint64_t value, unsigned n) override { m_.store_le(a, value, n); }

 private:
  lockstep::cases::ReplayMemory& m_;
};

/// Under replay the clock is the stub's.
class StubClock final : public Platform {
 public:
  std::uint32_t tick_count() const override { return kStubTickCount; }
};

float stack_float(Memory& m, const Case& c, unsigned n) { return std::bit_cast<float>(stack_arg(m, c, n)); }
std::int32_t stack_i32(Memory& m, const Case& c, unsigned n) { return static_cast<std::int32_t>(stack_arg(m, c, n)); }

Returned eax(std::int32_t v) { return {static_cast<std::uint32_t>(v), std::nullopt}; }
Returned st0(double v) { return {0, v}; }
Returned none() { return {}; }

}  // namespace

// An argument the original never read is passed as 0: nothing the original did depended on it, and
// reading it would be reported as a read of a byte the case cannot vouch for.
std::uint32_t stack_arg(Memory& m, const Case& c, unsigned n) {
  const GuestAddr at = c.in.esp + 4 + 4 * n;
  return c.inputs.contains_all(at, 4) ? m.u32(at) : 0;
}

lockstep::cases::Binding bind(GuestAddr address, std::string name, Body body) {
  return {address, std::move(name), [body = std::move(body)](const Case& c) {
            lockstep::cases::ReplayMemory rm(c);
            CaseMemory mem(rm);
            PortEffects fx;
            try {
              const Returned r = body(mem, c);
              fx.eax = r.eax;
              fx.st0 = r.st0;
            } catch (const std::exception& e) {
              fx.error = e.what();
            }
            fx.writes = rm.writes();
            fx.outside_reads = rm.outside_reads();
            return fx;
          }};
}

lockstep::cases::BindingSet all() {
  lockstep::cases::BindingSet set;
  // cdecl fx_mul(a, b) -> eax
  set.push_back(bind(0x401960, "fixed::mul", [](Memory& m, const Case& c) {
    return eax(fx_mul(stack_i32(m, c, 0), stack_i32(m, c, 1)));
  }));
  // fastcall tile_at(map = ecx, tx = edx, ty) -> eax
  set.push_back(bind(0x4019a0, "map::tile_at", [](Memory& m, const Case& c) {
    return eax(tile_at(m, c.in.ecx, static_cast<std::int32_t>(c.in.edx), stack_i32(m, c, 0)));
  }));
  // stdcall tile_blocked(map, x_fx, y_fx) -> eax
  set.push_back(bind(0x4016c0, "map::blocked", [](Memory& m, const Case& c) {
    return eax(tile_blocked(m, stack_arg(m, c, 0), stack_i32(m, c, 1), stack_i32(m, c, 2)) ? 1 : 0);
  }));
  // cdecl float angle_wrap(float) -> st0
  set.push_back(bind(0x4015b0, "angle::wrap", [](Memory& m, const Case& c) {
    return st0(angle_wrap(stack_float(m, c, 0)));
  }));
  // cdecl double entity_distance(a, b) -> st0
  set.push_back(bind(0x401680, "angle::distance", [](Memory& m, const Case& c) {
    return st0(entity_distance(m, stack_arg(m, c, 0), stack_arg(m, c, 1)));
  }));
  // stdcall entity_turn_toward(e, float target, float max_step)
  set.push_back(bind(0x4019d0, "motion::turn_toward", [](Memory& m, const Case& c) {
    turn_toward(m, stack_arg(m, c, 0), stack_float(m, c, 1), stack_float(m, c, 2));
    return none();
  }));
  // fastcall entity_move(world = ecx, e = edx, float dt) -> eax
  set.push_back(bind(0x401a20, "motion::move", [](Memory& m, const Case& c) {
    return eax(move(m, c.in.ecx, c.in.edx, stack_float(m, c, 0)) ? 1 : 0);
  }));
  // cdecl entity_damage(e, amount) -> eax
  set.push_back(bind(0x401820, "entity::damage", [](Memory& m, const Case& c) {
    return eax(damage(m, stack_arg(m, c, 0), stack_i32(m, c, 1)) ? 1 : 0);
  }));
  // cdecl walker_think(e, world, float dt), turret_think(e, world, float dt)
  set.push_back(bind(0x401890, "walker::think", [](Memory& m, const Case& c) {
    walker_think(m, stack_arg(m, c, 0), stack_arg(m, c, 1), stack_float(m, c, 2));
    return none();
  }));
  set.push_back(bind(0x401700, "turret::think", [](Memory& m, const Case& c) {
    turret_think(m, stack_arg(m, c, 0), stack_arg(m, c, 1), stack_float(m, c, 2));
    return none();
  }));
  // cdecl world_update(world, float dt) -> eax
  set.push_back(bind(0x401b20, "world::update", [](Memory& m, const Case& c) {
    static const StubClock clock;
    return eax(world_update(m, stack_arg(m, c, 0), stack_float(m, c, 1), clock));
  }));
  return set;
}

}  // namespace crawl::bindings
