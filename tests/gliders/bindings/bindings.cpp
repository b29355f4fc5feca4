// Each binding is declared (lockstep/cases/declared.hpp): the port function takes gliders.toml's
// `args` in order and returns its `returns`, and lockstep reads each argument where the function's
// convention puts it (cdecl and stdcall on the stack above the return address, fastcall's first two
// in ecx and edx). A float argument travels as its 32-bit pattern (`u32` in the profile).
#include "bindings.hpp"

#include "gliders/gliders.hpp"
#include "lockstep/cases/declared.hpp"
#include "lockstep/cases/replay_memory.hpp"

namespace gliders {
namespace {

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

}  // namespace

lockstep::cases::BindingSet bindings() {
  using lockstep::cases::declared;
  return {
      declared<CaseMemory>(0x08049850, "fixed::mul", &fx_mul),
      declared<CaseMemory>(0x08049860, "glider::push", &glider_push),
      declared<CaseMemory>(0x080498a0, "glider::lift", &glider_lift),
      declared<CaseMemory>(0x08049900, "world::step", &world_step),
  };
}

}  // namespace gliders
