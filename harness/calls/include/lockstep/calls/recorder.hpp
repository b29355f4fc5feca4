// The access recorder's vocabulary: what one call of an original function did, byte by byte.
//
// Case semantics (cases/docs/case-format.md): a call's inputs are the bytes it read before writing them, wherever
// they are; bytes read below the entry stack pointer are STALE STACK READS (inputs, flagged);
// bytes written below the entry stack pointer are the callee's own frame (not compared); bytes
// written at or above it are outputs. The recorder merges by byte, so Unicorn 2.0.1 firing a hook
// two or three times for one unaligned or page-crossing access (unicorn-engine/unicorn#1876) changes nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "lockstep/cases/case.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness {

/// The CPU state a call sees at entry or leaves at return (the shared vocabulary's, cases/cpu.hpp).
using cases::Registers;

/// A run of consecutive guest bytes.
struct ByteRun {
  GuestAddr addr = 0;
  std::vector<std::uint8_t> bytes;
  std::uint64_t end() const noexcept { return std::uint64_t{addr} + bytes.size(); }
};

/// Consecutive bytes that one instruction wrote last (the case model's, which stores them).
using cases::WriterRun;

/// Total bytes in a list of runs.
std::uint64_t byte_count(const std::vector<ByteRun>& runs) noexcept;

/// What one call touched. All lists are sorted by address, runs never overlap or touch within a list.
struct Effects {
  GuestAddr entry_esp = 0;    ///< esp at the call's first instruction (it points at the return address)
  GuestAddr stack_low = 0;    ///< lowest address of the stack mapping; [stack_low, entry_esp) is "below"
  GuestAddr stack_high = 0;   ///< one past the stack mapping's highest address
  /// Bytes read before being written, not below the entry esp (the 4-byte return-address slot at
  /// entry_esp is left out: it is the harness's or the caller's, never the function's input).
  std::vector<ByteRun> inputs;
  /// Bytes read before being written in [stack_low, entry_esp): values an earlier call left on the
  /// stack. They are inputs, and a port that depends on them must say so (tyres::STALE_RATIO).
  std::vector<ByteRun> stale_stack_reads;
  std::vector<ByteRun> outputs;       ///< bytes written (final values), not below the entry esp
  /// Who wrote the outputs: the same bytes as `outputs`, cut where the last writer changes, ascending.
  /// Runs touch only when their writers differ.
  std::vector<WriterRun> output_writers;
  std::vector<ByteRun> frame_writes;  ///< bytes written (final values) in [stack_low, entry_esp)
};

/// One recorded call.
struct CallRecord {
  GuestAddr function = 0;
  GuestAddr return_address = 0;
  std::uint32_t depth = 0;        ///< 0 for the call the harness made; 1+ for nested watched calls
  std::uint64_t call_index = 0;   ///< per function, counting from 0 within the machine's lifetime
  Registers in, out;
  Effects effects;
  bool complete = false;          ///< false when the run stopped (fault) before the call returned
};

/// Receives every call of the watched functions (MachineConfig::watched) made inside a run, nested
/// ones included. Lets capture sample (--every/--max) without paying for calls it skips.
class CallObserver {
 public:
  virtual ~CallObserver() = default;
  /// A watched function is entered (registers at its first instruction). Return false to let this
  /// call run unrecorded (its nested watched calls are still offered).
  virtual bool on_enter(GuestAddr function, std::uint64_t call_index, const Registers& in) {
    (void)function, (void)call_index, (void)in;
    return true;
  }
  /// A recorded call returned (record.complete) or the run stopped inside it (!record.complete).
  virtual void on_leave(const CallRecord& record) = 0;
};

}  // namespace lockstep::harness
