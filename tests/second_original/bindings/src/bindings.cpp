// Each binding reads its arguments by the names game.toml's `args` give them; where the function's
// convention puts each one (Crawl uses cdecl, stdcall and fastcall: ecx and edx, then the stack) is
// lockstep's to know (lockstep/cases/arguments.hpp). A float travels as its 32-bit pattern (kind u32
// in the profile, read with f32()). Results: eax, or st0 for a float or double.
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

Returned eax(std::int32_t v) { return {static_cast<std::uint32_t>(v), std::nullopt}; }
Returned st0(double v) { return {0, v}; }
Returned none() { return {}; }

}  // namespace

lockstep::cases::Binding bind(GuestAddr address, std::string name, Body body) {
  lockstep::cases::Binding b{address, std::move(name), {}};
  b.run_with_args = [body = std::move(body)](const Case& c, const lockstep::cases::Signature& signature) {
    lockstep::cases::ReplayMemory rm(c);
    CaseMemory mem(rm);
    PortEffects fx;
    try {
      const lockstep::cases::Arguments args(c, signature, rm);
      const Returned r = body(mem, args);
      fx.eax = r.eax;
      fx.st0 = r.st0;
    } catch (const std::exception& e) {
      fx.error = e.what();
    }
    fx.writes = rm.writes();
    fx.outside_reads = rm.outside_reads();
    return fx;
  };
  return b;
}

lockstep::cases::BindingSet all() {
  lockstep::cases::BindingSet set;
  using lockstep::cases::Arguments;
  set.push_back(bind(0x401960, "fixed::mul", [](Memory&, const Arguments& args) {
    return eax(fx_mul(args.i32("a"), args.i32("b")));
  }));
  set.push_back(bind(0x4019a0, "map::tile_at", [](Memory& m, const Arguments& args) {
    return eax(tile_at(m, args.ptr("map"), args.i32("tx"), args.i32("ty")));
  }));
  set.push_back(bind(0x4016c0, "map::blocked", [](Memory& m, const Arguments& args) {
    return eax(tile_blocked(m, args.ptr("map"), args.i32("x_fx"), args.i32("y_fx")) ? 1 : 0);
  }));
  set.push_back(bind(0x4015b0, "angle::wrap", [](Memory&, const Arguments& args) {
    return st0(angle_wrap(args.f32("angle")));
  }));
  set.push_back(bind(0x401680, "angle::distance", [](Memory& m, const Arguments& args) {
    return st0(entity_distance(m, args.ptr("a"), args.ptr("b")));
  }));
  set.push_back(bind(0x4019d0, "motion::turn_toward", [](Memory& m, const Arguments& args) {
    turn_toward(m, args.ptr("entity"), args.f32("target"), args.f32("max_step"));
    return none();
  }));
  set.push_back(bind(0x401a20, "motion::move", [](Memory& m, const Arguments& args) {
    return eax(move(m, args.ptr("world"), args.ptr("entity"), args.f32("dt")) ? 1 : 0);
  }));
  set.push_back(bind(0x401820, "entity::damage", [](Memory& m, const Arguments& args) {
    return eax(damage(m, args.ptr("entity"), args.i32("amount")) ? 1 : 0);
  }));
  set.push_back(bind(0x401890, "walker::think", [](Memory& m, const Arguments& args) {
    walker_think(m, args.ptr("entity"), args.ptr("world"), args.f32("dt"));
    return none();
  }));
  set.push_back(bind(0x401700, "turret::think", [](Memory& m, const Arguments& args) {
    turret_think(m, args.ptr("entity"), args.ptr("world"), args.f32("dt"));
    return none();
  }));
  set.push_back(bind(0x401b20, "world::update", [](Memory& m, const Arguments& args) {
    static const StubClock clock;
    // The update of a world with no live entity never loads dt: the port, which takes it as an
    // argument, is given 0 then rather than read a byte the original did not (nothing depended on it).
    const float dt = args.read_by_original("dt") ? args.f32("dt") : 0.0f;
    return eax(world_update(m, args.ptr("world"), dt, clock));
  }));
  return set;
}

}  // namespace crawl::bindings
