// Values as a porter writes them: `--poke`, `--arg`, a call list's args and pokes, probe's pokes all
// read them with these functions (harness/docs/profile.md, "Values").
//   00001000      bytes in memory order, hex digits (the form every poke took first; `hex:` may precede)
//   u8: i8: u16: i16: u32: i32:   an integer of that width: decimal or 0x hex, a sign for the i kinds
//   f32: f64:     a float or a double: decimal, a C hex float (0x1.8p3), inf, -inf, nan
//   fx:           16.16 fixed point: the value times 65536, rounded to nearest, as a 32-bit integer
// A value its type cannot hold is refused, never wrapped or rounded away: u8:256, i16:40000, an f64
// of 1e400, an f32 of 1e39 or 1e-50 (past float's range, or below its smallest subnormal), a nan or
// an inf in fx:, an fx of 40000.0 (16.16 holds -32768 to 32767.99998).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"

namespace lockstep::harness {

enum class ValueType : std::uint8_t { kBytes, kU8, kI8, kU16, kI16, kU32, kI32, kF32, kF64, kFx };
const char* value_type_name(ValueType t) noexcept;  ///< "hex", "u8", ..., "fx"

struct TypedValue {
  ValueType type = ValueType::kBytes;
  std::vector<std::uint8_t> bytes;  ///< little-endian, as the value lies in guest memory
  /// The 32-bit word a stack or register argument holds for it: an integer narrower than 32 bits
  /// extended as C passes it (i8/i16 sign-extended, u8/u16 zero-extended); only for values of at most
  /// 4 bytes.
  std::uint32_t word() const;
};

/// "TYPE:TEXT" with TYPE one of the types above; nullopt when `text` has no type prefix.
Result<std::optional<TypedValue>> parse_typed_value(std::string_view text);
/// A typed value, or else hex bytes (with or without `hex:`).
Result<TypedValue> parse_value(std::string_view text);

}  // namespace lockstep::harness
