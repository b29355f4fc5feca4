// Capstone disassembly of 32-bit x86: one instruction at an address, or a function's listing found
// by following its jumps from the entry (not by symbol size).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness {

/// A memory operand: [segment: base + index * scale + disp], registers by their 32-bit names
/// ("esi"; "" when absent).
struct MemoryOperand {
  std::string segment;     ///< "fs", "gs", or "" for the default
  std::string base, index;
  std::int32_t scale = 1;
  std::int64_t disp = 0;
  std::uint8_t size = 0;   ///< bytes accessed
};

struct Instruction {
  GuestAddr address = 0;
  std::vector<std::uint8_t> bytes;
  std::string mnemonic;   ///< "mov"
  std::string operands;   ///< "eax, dword ptr [ecx + 4]"
  bool is_call = false;
  bool is_ret = false;
  bool is_jump = false;          ///< any jump, conditional or not
  bool is_conditional = false;   ///< jcc, loop, jecxz
  bool is_interrupt = false;     ///< int, int3, into, syscall, sysenter
  std::optional<GuestAddr> target;  ///< direct jump/call target
  /// Data flow, for following a branch's condition back: registers by 32-bit name ("eax" for al,
  /// ah, ax), "flags" for eflags, and for x87 instructions "st" (the register stack) and "fpsw"
  /// (the status word an fcom sets and fnstsw reads). Registers used only to address memory are
  /// not in regs_read; they are in `memory`.
  std::vector<std::string> regs_read, regs_written;
  std::vector<MemoryOperand> memory;
  std::string text() const;      ///< "mov eax, dword ptr [ecx + 4]"
};

/// Reads up to `size` bytes at `address`; returns fewer (or none) where memory ends.
using ReadMemory = std::function<std::vector<std::uint8_t>(GuestAddr address, std::uint32_t size)>;

/// A reader over a snapshot's regions.
ReadMemory snapshot_reader(const Snapshot& snapshot);

class Disassembler {
 public:
  Disassembler();
  ~Disassembler();
  Disassembler(const Disassembler&) = delete;
  Disassembler& operator=(const Disassembler&) = delete;

  /// The instruction at the start of `bytes` (which lie at `address`), or nullopt if invalid.
  std::optional<Instruction> one(std::span<const std::uint8_t> bytes, GuestAddr address) const;
  std::optional<Instruction> at(const ReadMemory& read, GuestAddr address) const;

  /// Every instruction reachable from `entry` by falling through and by jumps (calls are not
  /// followed, their return falls through; `ret` and unconditional jumps end a path), sorted by address; at most
  /// `max_instructions`.
  std::vector<Instruction> function(const ReadMemory& read, GuestAddr entry,
                                    std::size_t max_instructions = 20000) const;
  /// The same, also following the direct calls for which `follow_call(target)` is true (a
  /// function's private helpers: the stand-in's thunk at a POD address calls its C body), so the
  /// listing is the function's code and theirs.
  std::vector<Instruction> function(const ReadMemory& read, GuestAddr entry, std::size_t max_instructions,
                                    const std::function<bool(GuestAddr)>& follow_call) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A name for code at an address (a profile function's: "tyres::tyres"), or "" for none.
using CodeNamer = std::function<std::string(GuestAddr)>;

/// "  0041b66c  55                 push ebp" lines for a listing; a direct call or jump to code
/// `name_of` names shows its target as "call 0x0041af80 <tyres::tyres>".
std::string format_listing(const std::vector<Instruction>& listing, const CodeNamer& name_of = {});

}  // namespace lockstep::harness
