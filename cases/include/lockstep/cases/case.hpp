// A case: one recorded call of one original function — what it was given and what it did — enough to
// run the port on the same input bytes and compare every byte (cases/docs/case-format.md, "Case semantics").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lockstep/cases/byte_map.hpp"
#include "lockstep/cases/cpu.hpp"

namespace lockstep::cases {

/// Where a case came from, so `lockstep replay --case ID` (and a re-capture) can reproduce it.
struct Origin {
  std::string snapshot_sha256;  ///< the snapshot the capture ran on
  std::string record;           ///< state-log record kind the driver laid over it ("CTRL")
  std::uint32_t record_index = 0;
  std::uint32_t step = 0;
  /// The record's instance (a CTRL or PHYS record's car); for a run from a FRAM record, which has
  /// none, its pass number; 0 for a STEP record or a call list's call.
  std::uint32_t instance = 0;
  std::uint32_t call_index = 0;  ///< n-th call of this function within that driver run
  friend bool operator==(const Origin&, const Origin&) = default;
};

/// What the origin's record was about, for messages: "instance 3", or "pass 41" for a FRAM run.
inline std::string origin_subject(const Origin& o) {
  return (o.record == "FRAM" ? "pass " : "instance ") + std::to_string(o.instance);
}

/// A poke: bytes written over the state before the run (an analyst's "what if").
struct Poke {
  GuestAddr address = 0;
  std::vector<std::uint8_t> bytes;
  friend bool operator==(const Poke&, const Poke&) = default;
};

/// An entry register a poke sets instead of memory ("eax=0x3000"): recorded in the case's `in` and
/// marked in Case::poked_registers (poke_register), never as a memory Poke.
struct RegisterPoke {
  Reg reg = Reg::kEax;
  std::uint32_t value = 0;
  friend bool operator==(const RegisterPoke&, const RegisterPoke&) = default;
};

/// Consecutive written bytes [base, base + length) that one instruction of the original, at `writer`
/// (its eip), wrote last in the call.
struct WriterRun {
  GuestAddr base = 0;
  std::uint32_t length = 0;
  GuestAddr writer = 0;
  std::uint64_t end() const noexcept { return std::uint64_t{base} + length; }
  friend bool operator==(const WriterRun&, const WriterRun&) = default;
};

/// Case::poked_registers: register_bit(r) for each entry register a poke set; the mask's bits by name.
inline constexpr std::uint16_t kPokedEax = register_bit(Reg::kEax), kPokedEbx = register_bit(Reg::kEbx),
                               kPokedEcx = register_bit(Reg::kEcx), kPokedEdx = register_bit(Reg::kEdx),
                               kPokedEsi = register_bit(Reg::kEsi), kPokedEdi = register_bit(Reg::kEdi),
                               kPokedEbp = register_bit(Reg::kEbp);
inline constexpr std::uint16_t kPokedRegisterMask = 0x7f;
/// "eax edx" for a mask.
std::string poked_register_names(std::uint16_t mask);

struct Case {
  std::uint32_t id = 0;         ///< unique within its function's file
  GuestAddr function = 0;
  std::string name;             ///< the profile's name ("tyres::tyres")
  Convention convention = Convention::kWatcom;
  ReturnKind returns = ReturnKind::kNone;

  Registers in;                 ///< at entry (esp points at the return address)
  Registers out;                ///< at return
  /// Bytes the original read before writing them, with the value read. Those on the stack below
  /// in.esp are stale-stack reads (inputs left by an earlier call): see is_stale().
  ByteMap inputs;
  /// Bytes written (final values) anywhere but the stack below in.esp: compared byte for byte.
  ByteMap writes;
  /// Who wrote `writes`: exactly its bytes, ascending, cut where the last writing instruction changes
  /// (two runs touch only when their writers differ); or empty when not recorded (case files before
  /// version 3): see writers_known().
  std::vector<WriterRun> writers;
  /// Number of bytes written on the stack below in.esp (the callee's own frame): not compared, kept
  /// for reports.
  std::uint32_t frame_bytes_written = 0;
  /// The stack mapping the call ran on, [stack_low, stack_high), in.esp inside it. Both 0 when not
  /// recorded (case files of version 1): is_stale() then counts every address below in.esp.
  GuestAddr stack_low = 0, stack_high = 0;

  Origin origin;
  std::vector<Poke> pokes;      ///< non-empty: a "poked" case (found by a search or made by hand)
  /// Entry registers (in `in`) set by a poke rather than by the recorded caller (register_bit).
  std::uint16_t poked_registers = 0;
  std::string note;             ///< free text ("search: edge 0x41b0c2 taken")

  bool poked() const noexcept { return !pokes.empty() || poked_registers != 0; }
  /// A byte of the stack below the entry esp: [stack_low, in.esp). Data below the stack (a game's
  /// globals at 0x4xxxxx under a stack at 0xffxxxxxx) is not stale.
  bool is_stale(GuestAddr a) const noexcept { return a >= stack_low && a < in.esp; }
  std::size_t stale_input_count() const;
  /// Whether `writers` names the writer of every written byte (a case that wrote nothing has none to name).
  bool writers_known() const noexcept { return !writers.empty() || writes.empty(); }
  /// The address of the instruction that last wrote byte a: nullopt when the writers are not known
  /// or a is not among the writes.
  std::optional<GuestAddr> writer_of(GuestAddr a) const;

  friend bool operator==(const Case&, const Case&) = default;
};

/// Sets the case's entry register r to `value` and marks it in poked_registers.
void poke_register(Case& c, Reg r, std::uint32_t value);

}  // namespace lockstep::cases
