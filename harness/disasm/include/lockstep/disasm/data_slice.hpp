// The data slice of a store: the instructions of a function's listing that computed the value a
// writing instruction stored and the address it stored it at — followed backwards through the
// registers (the x87 register stack by position), the flags and the stack slots they were spilled to,
// over the listing's control flow (a value can come from another basic block, or from a call), not
// just the few instructions before the store. What a mismatch report shows under a differing field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lockstep/disasm/disasm.hpp"

namespace lockstep::harness {

struct DataSlice {
  /// The writer and the instructions its value and address came from, ascending by address.
  std::vector<GuestAddr> instructions;
  /// Registers and stack arguments whose value the function got from its caller ("ecx", "esp+8":
  /// the argument at the entry's esp + 8), in that order of first meeting.
  std::vector<std::string> from_caller;
  bool truncated = false;  ///< the slice had more instructions than the limit (the first ones kept)
};

/// How many instructions a slice holds at most: enough for a function's whole computation of one
/// value in the code lockstep meets; a longer one is cut, and says so.
inline constexpr std::size_t kMaxSliceInstructions = 40;

/// The slice of the instruction at `writer` in `listing` (Disassembler::function's, sorted by
/// address), whose entry is `entry`. Empty when the listing does not hold `writer`. Calls are not
/// followed: a call that gave a needed register (eax, ecx, edx, the x87 stack) is in the slice, and
/// the value stops there. Memory other than the stack's slots is not followed: the load is in the
/// slice.
DataSlice data_slice(const std::vector<Instruction>& listing, GuestAddr entry, GuestAddr writer,
                     std::size_t max_instructions = kMaxSliceInstructions);

/// The instruction behind a write the recorder noted at `recorded`. Unicorn brings eip up to date
/// before an integer instruction's memory access, not before an x87 or SSE one (those run in helper
/// code), so a write by `fstp` is noted at the last instruction before it that did: one that writes
/// no memory. Then the store is one of the x87 or SSE stores that follow in straight line, up to the
/// next integer memory access; of several, the one addressing the stack (esp, ebp) when the written
/// byte is in the call's stack (`written_on_stack`), else the one that does not.
struct ResolvedWriter {
  GuestAddr address = 0;                 ///< the store (`recorded` when it writes memory or none is found)
  bool moved = false;                    ///< `address` is not `recorded`
  std::vector<GuestAddr> candidates;     ///< the stores it could have been, when they stay several
};
ResolvedWriter resolve_writer(const std::vector<Instruction>& listing, GuestAddr recorded, bool written_on_stack);

/// The slice's listing lines (format_listing's), the writer marked `>` in the first column, `...`
/// between instructions that are not adjacent in the listing, then a line naming what came from the
/// caller. Empty when the listing does not hold `writer`.
std::string format_data_slice(const std::vector<Instruction>& listing, GuestAddr entry, GuestAddr writer,
                              const CodeNamer& name_of = {});

}  // namespace lockstep::harness
