// POD's bindings: for each original address the port covers, an adapter that gives the port a case's
// memory (pod::Memory over the case's input bytes) and registers, runs the port function, and returns
// what it wrote and the registers it produces. The port itself knows nothing of cases or Unicorn.
// Most are declared (lockstep/cases/declared.hpp): the port function takes the profile's args
// (harness/profiles/pod.toml) in order, so they run with the profile's signatures attached
// (harness::with_signatures, which lockstep replay, progress, probe and the gate do); the rest are
// written out, each saying why (port/bindings/src).
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>

#include "lockstep/cases/binding.hpp"
#include "lockstep/cases/replay_memory.hpp"
#include "pod/memory.hpp"

namespace pod::bindings {

/// pod::Memory over a case's replay memory: loads read the case's inputs (or the port's own writes);
/// a load of a byte the original never read is recorded and reads as 0; stores are recorded. The
/// replay memory's pages are pod::Memory's marked pages: a load of bytes marked readable (inputs, the
/// port's own writes: nothing to record) is inline; any other load, and every store, is pod::Memory's
/// slow path: one virtual call, into the replay memory at a fixed width, which records it.
class CaseMemory final : public pod::Memory {
 public:
  static_assert(lockstep::cases::ReplayMemory::kPageSize == pod::Memory::kPageSize &&
                    lockstep::cases::ReplayMemory::kPages == pod::Memory::kPages,
                "the replay memory's pages are pod::Memory's");
  explicit CaseMemory(lockstep::cases::ReplayMemory& m) : pod::Memory(MarkedPages{m.page_table()}), m_(m) {}
  std::uint8_t load8_slow(GuestAddr a) override { return static_cast<std::uint8_t>(m_.load_le(a, 1)); }
  std::uint16_t load16_slow(GuestAddr a) override { return static_cast<std::uint16_t>(m_.load_le(a, 2)); }
  std::uint32_t load32_slow(GuestAddr a) override { return static_cast<std::uint32_t>(m_.load_le(a, 4)); }
  std::uint64_t load64_slow(GuestAddr a) override { return m_.load_le(a, 8); }
  void store8_slow(GuestAddr a, std::uint8_t v) override { m_.store_le(a, v, 1); }
  void store16_slow(GuestAddr a, std::uint16_t v) override { m_.store_le(a, v, 2); }
  void store32_slow(GuestAddr a, std::uint32_t v) override { m_.store_le(a, v, 4); }
  void store64_slow(GuestAddr a, std::uint64_t v) override { m_.store_le(a, v, 8); }

 private:
  lockstep::cases::ReplayMemory& m_;
};

/// What a binding's body returns besides memory writes.
struct Returned {
  std::uint32_t eax = 0, edx = 0;
  std::optional<double> st0;
};

/// Runs `body(memory, case)` on a fresh CaseMemory for the case, catching port exceptions, and
/// collects the effects. Every binding is built on this.
lockstep::cases::PortEffects run_on_case(const lockstep::cases::Case& c,
                                         const std::function<Returned(pod::Memory&, const lockstep::cases::Case&)>& body);

/// Reads the n-th 32-bit stack argument of a call (n = 0 is the first argument on the stack: at
/// in.esp + 4, above the return address).
std::uint32_t stack_arg(pod::Memory& m, const lockstep::cases::Case& c, unsigned n);

/// Every binding of the port, one per original address it covers.
lockstep::cases::BindingSet all();

}  // namespace pod::bindings
