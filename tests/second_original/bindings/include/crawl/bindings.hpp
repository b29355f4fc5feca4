// Crawl's bindings: for each of the original's functions the port covers, how a case's registers
// and stack become the port function's arguments, and its result the case's return registers. The
// port (crawl::) knows nothing of cases; lockstep's replay knows nothing of Crawl; this knows both.
#pragma once

#include <cstdint>

#include "lockstep/cases/binding.hpp"

namespace crawl::bindings {

/// The tick the profile's GetTickCount stub returns (game.toml, [[stub]] "KERNEL32.dll!GetTickCount");
/// the port's clock gives the same under replay. A test holds the two together.
inline constexpr std::uint32_t kStubTickCount = 0x0badf00d;

/// Every binding, one per original address (the eleven functions of game.toml).
lockstep::cases::BindingSet all();

}  // namespace crawl::bindings
