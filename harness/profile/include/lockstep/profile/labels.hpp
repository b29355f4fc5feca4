// Names for guest bytes, from a profile's structs, instances and labels:
//   car[3]+0x440 engine_speed        a field of an instance
//   car[2]+0x111 point[1].sliding    a field of a nested record
//   car[3]+0x441 engine_speed+1      a byte inside a wider field
//   car[3]+0x123                     an instance byte no field names
//   round_constant+0x4               a labelled range
//   0x004f3310                       anything else
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lockstep/cases/case.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/calls/recorder.hpp"

namespace lockstep::harness {

/// The field a byte belongs to, for grouping differing bytes.
struct FieldRef {
  std::string owner;      ///< "car[3]", "round_constant", or "" for an unnamed address
  std::string field;      ///< "engine_speed", "point[1].sliding", or "" (no field names it)
  GuestAddr start = 0;    ///< first byte of the field (or the byte itself when unnamed)
  std::uint32_t size = 1; ///< the field's size (1 when unnamed)
  bool chosen = false;    ///< the field is a recorded choice, not from the documents
  bool gap = false;       ///< bytes of a nested record that none of its fields names ("point[1]")
  std::string text() const;  ///< "car[3]+0x440 engine_speed" (the field's first byte)
};

class Labeler {
 public:
  Labeler() = default;
  explicit Labeler(const Profile& profile);

  /// The name of one byte (see the header comment).
  std::string name(GuestAddr address) const;
  /// The field holding `address`.
  FieldRef field(GuestAddr address) const;
  /// An address written as a number ("0x630838"), an instance ("car[3]", "car" = car[0]), a field of
  /// one by its name ("car[3].engine_speed", "car[2].point[1].sliding", "driver.name[2]") or a label
  /// ("round_constant"), optionally plus an offset ("car[3]+0x440"). kUsage when it names nothing.
  Result<GuestAddr> resolve(std::string_view text) const;
  /// What resolve() found: the address, and for a field named by its name, the field's size.
  struct Target {
    GuestAddr address = 0;
    std::uint32_t field_size = 0;  ///< 0: not a field named by its name
  };
  Result<Target> resolve_target(std::string_view text) const;
  /// The name of the profile function whose entry is `address` ("tyres::tyres"), or "" for none:
  /// what a listing shows beside a call's target.
  std::string function_name(GuestAddr address) const;

 private:
  struct Flat {            // one named range, flattened from nested structs
    std::uint32_t offset;
    std::uint32_t size;
    std::string name;
    bool chosen;
    bool gap;
  };
  struct Inst {
    std::string name;
    GuestAddr base;
    std::uint32_t stride;
    std::uint32_t count;
    std::vector<Flat> fields;  // sorted by offset, innermost names
  };
  /// The (offset, size) of the field `path` names in `in`'s struct.
  static Result<std::pair<std::uint32_t, std::uint32_t>> field_by_name(const Inst& in, std::string_view path,
                                                                        std::string_view text);
  std::vector<Inst> instances_;    // sorted by base
  std::vector<LabelSpec> labels_;  // sorted by address
  std::vector<std::pair<GuestAddr, std::string>> functions_;  // (entry, name), sorted by entry
};

/// The bytes of a list of runs, one line per field: "    car[3]+0x440 engine_speed: 00 12 34 56".
/// Unnamed bytes are grouped 16 to a line. `indent` prefixes every line.
std::string format_runs(const std::vector<ByteRun>& runs, const Labeler& labels, std::string_view indent = "    ");

/// A call's effects for a reader: inputs, STALE STACK READS (flagged), outputs, and the size of the
/// callee's own frame.
std::string format_effects(const Effects& effects, const Labeler& labels);

/// A poke of a case's entry state: bytes in memory, or an entry register. The two are kept apart as a
/// case keeps them (Case::pokes, Case::poked_registers), so neither is ever taken for the other.
using StatePoke = std::variant<cases::Poke, cases::RegisterPoke>;

/// The one poke parser. "REG=VALUE" when REG names an entry register (cases::reg_named: eax, ebx,
/// ecx, edx, esi, edi, ebp): VALUE a 32-bit number (0x-hex, decimal, negative as two's complement:
/// parse_u32) or a typed value of at most 4 bytes (`eax=fx:1.5`, `ecx=i16:-3`) as the register holds
/// it. Another x86 register (esp, eip, ax, al, ...) is refused, naming the ones a poke can set.
/// Otherwise "ADDR=VALUE" (ADDR as Labeler::resolve reads it, VALUE as parse_value reads it: hex
/// bytes in memory order, or typed, "tank[1].fuel=f32:0.01"): bytes to write before a run. A value
/// wider than the field ADDR names by name is refused (it would write into the next field). The poke
/// is the case file's (cases::Poke, cases::RegisterPoke): what a command parses is what a poked case
/// records.
Result<StatePoke> parse_state_poke(std::string_view text, const Labeler& labels);
/// parse_state_poke where only memory can be poked (a call list, `call --poke`, `capture --poke`):
/// a register poke is refused with an error saying so, never read as an address.
Result<cases::Poke> parse_poke(std::string_view text, const Labeler& labels);
/// A call argument as the CLI writes it: a number or an address (Labeler::resolve: "car[3]"), a
/// typed value (parse_typed_value: `fx:-200.0`, `f32:0.5`, `i16:-3`, `f64:1.5`), a plain number read
/// as the argument's kind when it is f64 or f32, `hex:0011aabb` (a block laid in scratch memory,
/// passed by address). A typed value of another width than the argument's kind is refused.
Result<Arg> parse_call_arg(std::string_view text, ArgType type, const Labeler& labels);

/// Hex digits (spaces allowed) to bytes.
Result<std::vector<std::uint8_t>> parse_hex(std::string_view hex);

}  // namespace lockstep::harness
