// Crawl's bindings: for each of the original's functions the port covers, how a case's registers
// and stack become the port function's arguments, and its result the case's return registers. The
// port (crawl::) knows nothing of cases; lockstep's replay knows nothing of Crawl; this knows both.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "crawl/memory.hpp"
#include "lockstep/cases/arguments.hpp"
#include "lockstep/cases/binding.hpp"
#include "lockstep/x87/extended.hpp"

namespace crawl::bindings {

/// The tick the profile's GetTickCount stub returns (game.toml, [[stub]] "KERNEL32.dll!GetTickCount");
/// the port's clock gives the same under replay. A test holds the two together.
inline constexpr std::uint32_t kStubTickCount = 0x0badf00d;

/// Every binding, one per original address (the eleven functions of game.toml).
lockstep::cases::BindingSet all();

/// What a binding's body returns besides its memory writes: eax, or st0 for a float or double (the
/// 80-bit value: a double converts to it exactly, which is what Crawl's 53-bit x87 holds).
struct Returned {
  std::uint32_t eax = 0;
  std::optional<lockstep::x87::Extended> st0;
};
/// A body reads its arguments by the names game.toml gives them (`args.ptr("map")`); each read of a
/// stack argument goes through the case's memory, so one the original never read is reported.
using Body = std::function<Returned(Memory&, const lockstep::cases::Arguments&)>;

/// A binding: `body` runs on a crawl::Memory over the case's bytes with the case's arguments (the
/// port's reads of bytes the original never read, its writes, a port exception as the case's error
/// are collected). The replay gives it the function's signature from game.toml.
lockstep::cases::Binding bind(GuestAddr address, std::string name, Body body);

}  // namespace crawl::bindings
