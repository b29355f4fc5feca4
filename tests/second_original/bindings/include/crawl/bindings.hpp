// Crawl's bindings: for each of the original's functions the port covers, how a case's registers
// and stack become the port function's arguments, and its result the case's return registers. The
// port (crawl::) knows nothing of cases; lockstep's replay knows nothing of Crawl; this knows both.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "crawl/memory.hpp"
#include "lockstep/cases/binding.hpp"

namespace crawl::bindings {

/// The tick the profile's GetTickCount stub returns (game.toml, [[stub]] "KERNEL32.dll!GetTickCount");
/// the port's clock gives the same under replay. A test holds the two together.
inline constexpr std::uint32_t kStubTickCount = 0x0badf00d;

/// Every binding, one per original address (the eleven functions of game.toml).
lockstep::cases::BindingSet all();

/// What a binding's body returns besides its memory writes: eax, or st0 for a float or double.
struct Returned {
  std::uint32_t eax = 0;
  std::optional<double> st0;
};
using Body = std::function<Returned(Memory&, const lockstep::cases::Case&)>;

/// A binding: `body` runs on a crawl::Memory over the case's bytes (the port's reads of bytes the
/// original never read, its writes, a port exception as the case's error are collected).
lockstep::cases::Binding bind(GuestAddr address, std::string name, Body body);

/// Stack argument n of a case (at the entry esp + 4 + 4n). One the original never read (world_update
/// of a world with no entity never loads its dt) is not read either: 0.
std::uint32_t stack_arg(Memory& m, const lockstep::cases::Case& c, unsigned n);

}  // namespace crawl::bindings
