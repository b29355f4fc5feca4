// Strict numbers from text: command-line options, addresses in manifests and profiles, --poke and
// --arg offsets. One parser so every place refuses the same things: an empty string, a sign on an
// unsigned value, an exponent ("1e23"), spaces, trailing characters, and any value past the
// target's range (never wrapped, never saturated into "no limit").
#pragma once

#include <cstdint>
#include <string_view>

#include "lockstep/base/result.hpp"

namespace lockstep {

/// Decimal, or hexadecimal after 0x/0X; digits only (no sign, no spaces, no exponent), at most `max`.
/// kUsage with a message quoting the text.
Result<std::uint64_t> parse_unsigned(std::string_view text, std::uint64_t max = UINT64_MAX);

/// A 32-bit guest address or count: parse_unsigned(text, 0xffffffff).
Result<std::uint32_t> parse_address(std::string_view text);

/// Hexadecimal digits only (an optional 0x), as manifests write addresses; at most `max`.
Result<std::uint64_t> parse_hex_number(std::string_view text, std::uint64_t max = UINT64_MAX);

/// base + offset as a 32-bit guest address; kUsage when the sum passes 0xffffffff (it would wrap to
/// a low address and name other bytes).
Result<std::uint32_t> add_guest_offset(std::uint64_t base, std::uint64_t offset, std::string_view what);

}  // namespace lockstep
