// Crawl's bindings. Each is declared (lockstep/cases/declared.hpp): the port function takes game.toml's
// `args` in order and returns its `returns`, and where the function's convention puts each argument
// (Crawl uses cdecl, stdcall and fastcall: ecx and edx, then the stack) is lockstep's to know
// (lockstep/cases/arguments.hpp). A float travels as its 32-bit pattern (kind u32 in the profile).
// Results: eax, or st0 for a float or double. The one that needs more is written out by name.
#include "crawl/bindings.hpp"

#include <bit>
#include <exception>
#include <functional>
#include <optional>
#include <string>

#include "crawl/game.hpp"
#include "lockstep/cases/declared.hpp"
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

}  // namespace

lockstep::cases::Binding bind(GuestAddr address, std::string name, Body body) {
  lockstep::cases::Binding b{address, std::move(name), {}};
  b.run_with_args = [body = std::move(body)](const Case& c, const lockstep::cases::Signature& signature) {
    return lockstep::cases::run_port<CaseMemory>(
        c, [&](CaseMemory& mem, lockstep::cases::ReplayMemory& rm, PortEffects& fx) {
          const lockstep::cases::Arguments args(c, signature, rm);
          const Returned r = body(mem, args);
          fx.eax = r.eax;
          fx.st0 = r.st0;
        });
  };
  return b;
}

lockstep::cases::BindingSet all() {
  lockstep::cases::BindingSet set;
  using lockstep::cases::declared;
  set.push_back(declared<CaseMemory>(0x401960, "fixed::mul", &fx_mul));
  set.push_back(declared<CaseMemory>(0x4019a0, "map::tile_at", &tile_at));
  set.push_back(declared<CaseMemory>(0x4016c0, "map::blocked", &tile_blocked));
  set.push_back(declared<CaseMemory>(0x4015b0, "angle::wrap", &angle_wrap));
  set.push_back(declared<CaseMemory>(0x401680, "angle::distance", &entity_distance));
  set.push_back(declared<CaseMemory>(0x4019d0, "motion::turn_toward", &turn_toward));
  set.push_back(declared<CaseMemory>(0x401a20, "motion::move", &move));
  set.push_back(declared<CaseMemory>(0x401820, "entity::damage", &damage));
  set.push_back(declared<CaseMemory>(0x401890, "walker::think", &walker_think));
  set.push_back(declared<CaseMemory>(0x401700, "turret::think", &turret_think));
  // Written out, by name: the port takes the platform's clock, which no argument carries, and the
  // update of a world with no live entity never loads dt (below).
  using lockstep::cases::Arguments;
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
