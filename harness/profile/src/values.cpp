// Values as a porter writes them (see values.hpp).
#include "lockstep/profile/values.hpp"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "lockstep/base/numbers.hpp"
#include "lockstep/profile/labels.hpp"

namespace lockstep::harness {

namespace {

struct Kind {
  const char* prefix;
  ValueType type;
};
constexpr Kind kKinds[] = {{"u8", ValueType::kU8},   {"i8", ValueType::kI8},   {"u16", ValueType::kU16},
                           {"i16", ValueType::kI16}, {"u32", ValueType::kU32}, {"i32", ValueType::kI32},
                           {"f32", ValueType::kF32}, {"f64", ValueType::kF64}, {"fx", ValueType::kFx}};

std::vector<std::uint8_t> little_endian(std::uint64_t v, unsigned n) {
  std::vector<std::uint8_t> out(n);
  for (unsigned i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
  return out;
}

/// An integer of `bits` bits, signed or not: decimal or 0x hex, a sign only when signed.
Result<std::uint64_t> parse_integer(std::string_view whole, std::string_view text, unsigned bits, bool is_signed) {
  const bool negative = is_signed && !text.empty() && text.front() == '-';
  const std::string_view digits = negative ? text.substr(1) : text;
  const std::uint64_t max = is_signed ? (std::uint64_t{1} << (bits - 1)) - 1 : (bits == 64 ? UINT64_MAX : (std::uint64_t{1} << bits) - 1);
  auto magnitude = parse_unsigned(digits);
  if (!magnitude.ok())
    return Error::make(Errc::kUsage, "'{}' is not {} integer", whole, is_signed ? "a signed" : "an unsigned");
  const std::uint64_t limit = negative ? max + 1 : max;
  if (*magnitude > limit) {
    if (is_signed)
      return Error::make(Errc::kUsage, "'{}' does not fit {} bits signed (-{} .. {})", whole, bits, max + 1, max);
    return Error::make(Errc::kUsage, "'{}' does not fit {} bits unsigned (0 .. {})", whole, bits, max);
  }
  return negative ? (0 - *magnitude) & ((bits == 64 ? 0 : std::uint64_t{1} << bits) - 1) : *magnitude;
}

/// A real number: decimal, a C hex float, inf or nan; `special` is set when it was written as inf or nan.
Result<double> parse_real(std::string_view whole, std::string_view text, bool& special) {
  const std::string s(text);
  if (s.empty() || std::isspace(static_cast<unsigned char>(s.front())))
    return Error::make(Errc::kUsage, "'{}' is not a number", whole);
  errno = 0;
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return Error::make(Errc::kUsage, "'{}' is not a number", whole);
  const std::string_view unsigned_part = s.front() == '-' || s.front() == '+' ? text.substr(1) : text;
  special = !unsigned_part.empty() && (unsigned_part[0] == 'i' || unsigned_part[0] == 'I' || unsigned_part[0] == 'n' ||
                                       unsigned_part[0] == 'N');
  if (!special && std::isinf(d))
    return Error::make(Errc::kUsage, "'{}' is past a double's range (about ±1.8e308)", whole);
  if (!special && d == 0 && errno == ERANGE)
    return Error::make(Errc::kUsage, "'{}' is below a double's smallest subnormal (about 4.9e-324): it would be 0", whole);
  return d;
}

Result<TypedValue> parse_as(std::string_view whole, ValueType type, std::string_view text) {
  TypedValue v;
  v.type = type;
  auto integer = [&](unsigned bits, bool is_signed) -> Status {
    LOCKSTEP_TRY(const std::uint64_t n, parse_integer(whole, text, bits, is_signed));
    v.bytes = little_endian(n, bits / 8);
    return {};
  };
  bool special = false;
  switch (type) {
    case ValueType::kBytes: {
      LOCKSTEP_TRY(v.bytes, parse_hex(text));
      return v;
    }
    case ValueType::kU8: LOCKSTEP_TRY_STATUS(integer(8, false)); return v;
    case ValueType::kI8: LOCKSTEP_TRY_STATUS(integer(8, true)); return v;
    case ValueType::kU16: LOCKSTEP_TRY_STATUS(integer(16, false)); return v;
    case ValueType::kI16: LOCKSTEP_TRY_STATUS(integer(16, true)); return v;
    case ValueType::kU32: LOCKSTEP_TRY_STATUS(integer(32, false)); return v;
    case ValueType::kI32: LOCKSTEP_TRY_STATUS(integer(32, true)); return v;
    case ValueType::kF64: {
      LOCKSTEP_TRY(const double d, parse_real(whole, text, special));
      std::uint64_t bits;
      std::memcpy(&bits, &d, 8);
      v.bytes = little_endian(bits, 8);
      return v;
    }
    case ValueType::kF32: {
      LOCKSTEP_TRY(const double d, parse_real(whole, text, special));
      const float f = static_cast<float>(d);
      if (!special && std::isinf(f))
        return Error::make(Errc::kUsage, "'{}' is past a float's range (±{})", whole, FLT_MAX);
      if (!special && d != 0 && f == 0)
        return Error::make(Errc::kUsage, "'{}' is below a float's smallest subnormal (about 1.4e-45): it would be 0", whole);
      std::uint32_t bits;
      std::memcpy(&bits, &f, 4);
      v.bytes = little_endian(bits, 4);
      return v;
    }
    case ValueType::kFx: {
      LOCKSTEP_TRY(const double d, parse_real(whole, text, special));
      if (!std::isfinite(d)) return Error::make(Errc::kUsage, "'{}': 16.16 fixed point holds no inf or nan", whole);
      const double scaled = std::nearbyint(d * 65536.0);  // exact product; rounds to nearest
      if (scaled < -2147483648.0 || scaled > 2147483647.0)
        return Error::make(Errc::kUsage, "'{}' does not fit 16.16 fixed point (-32768 .. 32767.99998)", whole);
      v.bytes = little_endian(static_cast<std::uint32_t>(static_cast<std::int32_t>(scaled)), 4);
      return v;
    }
  }
  return v;
}

}  // namespace

const char* value_type_name(ValueType t) noexcept {
  if (t == ValueType::kBytes) return "hex";
  for (const Kind& k : kKinds)
    if (k.type == t) return k.prefix;
  return "?";
}

std::uint32_t TypedValue::word() const {
  std::uint32_t w = 0;
  for (std::size_t i = 0; i < bytes.size() && i < 4; ++i) w |= std::uint32_t{bytes[i]} << (8 * i);
  if (type == ValueType::kI8) return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(w)));
  if (type == ValueType::kI16) return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(w)));
  return w;
}

Result<std::optional<TypedValue>> parse_typed_value(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::optional<TypedValue>{};
  const std::string_view prefix = text.substr(0, colon), rest = text.substr(colon + 1);
  for (const Kind& k : kKinds) {
    if (prefix != k.prefix) continue;
    LOCKSTEP_TRY(TypedValue v, parse_as(text, k.type, rest));
    return std::optional<TypedValue>(std::move(v));
  }
  if (prefix == "hex") return std::optional<TypedValue>{};
  return Error::make(Errc::kUsage, "'{}': unknown value type '{}' (u8, i8, u16, i16, u32, i32, f32, f64, fx, or hex bytes)",
                     text, prefix);
}

Result<TypedValue> parse_value(std::string_view text) {
  LOCKSTEP_TRY(std::optional<TypedValue> typed, parse_typed_value(text));
  if (typed) return std::move(*typed);
  return parse_as(text, ValueType::kBytes, text.rfind("hex:", 0) == 0 ? text.substr(4) : text);
}

}  // namespace lockstep::harness
