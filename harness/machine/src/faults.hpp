// What the machine reports when a call stops: the call chain read back from the stack at a fault
// (without Unicorn: it reads guest bytes through the functions it is given). stop_kind_name and
// format_fault (machine.hpp) live beside it in faults.cpp. Private to the machine.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "lockstep/machine/machine.hpp"

namespace lockstep::harness::machine_detail {

/// One guest byte, or nothing where the address is unmapped.
using ByteAt = std::function<std::optional<std::uint8_t>(GuestAddr)>;
/// Whether the address lies in mapped executable memory.
using IsExecutable = std::function<bool(GuestAddr)>;

/// The return addresses on the stack in [esp, limit), innermost first: a dword is taken for one when
/// it points into executable memory right after a call instruction (e8 rel32, whose callee is then
/// known, or ff /2 in any of its encodings). A heuristic that costs nothing while code runs
/// (machine.md, "Faults").
std::vector<ChainEntry> scan_call_chain(GuestAddr esp, GuestAddr limit, const ByteAt& byte_at,
                                        const IsExecutable& executable);

}  // namespace lockstep::harness::machine_detail
