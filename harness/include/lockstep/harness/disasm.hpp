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

#include "lockstep/harness/snapshot.hpp"

namespace lockstep::harness {

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
  /// followed; `ret` and unconditional jumps end a path), sorted by address; at most
  /// `max_instructions`.
  std::vector<Instruction> function(const ReadMemory& read, GuestAddr entry,
                                    std::size_t max_instructions = 20000) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// "  0041b66c  55                 push ebp" lines for a listing.
std::string format_listing(const std::vector<Instruction>& listing);

}  // namespace lockstep::harness
