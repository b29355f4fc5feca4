#include "lockstep/base/numbers.hpp"

#include <charconv>
#include <string>

namespace lockstep {

namespace {
Result<std::uint64_t> parse_digits(std::string_view text, std::string_view digits, int base, std::uint64_t max) {
  if (digits.empty())
    return Error::make(Errc::kUsage, "'{}' is not a number{}", text,
                       text.empty() ? " (empty)" : "");
  for (char c : digits) {
    const bool ok = base == 16 ? ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
                               : (c >= '0' && c <= '9');
    if (!ok) {
      if (c == '-' || c == '+')
        return Error::make(Errc::kUsage, "'{}': a sign is not allowed (the value is unsigned)", text);
      return Error::make(Errc::kUsage, "'{}' is not a {} number", text,
                         base == 16 ? "hexadecimal" : "decimal or 0x-hex");
    }
  }
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (ec == std::errc::result_out_of_range || (ec == std::errc{} && v > max))
    return Error::make(Errc::kUsage, "'{}' is past the largest value allowed here ({})", text, max);
  if (ec != std::errc{} || p != digits.data() + digits.size())
    return Error::make(Errc::kUsage, "'{}' is not a number", text);
  return v;
}
}  // namespace

Result<std::uint64_t> parse_unsigned(std::string_view text, std::uint64_t max) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    return parse_digits(text, text.substr(2), 16, max);
  return parse_digits(text, text, 10, max);
}

Result<std::uint32_t> parse_address(std::string_view text) {
  LOCKSTEP_TRY(std::uint64_t v, parse_unsigned(text, 0xffffffffu));
  return static_cast<std::uint32_t>(v);
}

Result<std::uint64_t> parse_hex_number(std::string_view text, std::uint64_t max) {
  std::string_view d = text;
  if (d.size() >= 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) d.remove_prefix(2);
  return parse_digits(text, d, 16, max);
}

Result<std::uint32_t> add_guest_offset(std::uint64_t base, std::uint64_t offset, std::string_view what) {
  if (base > 0xffffffffu || offset > 0xffffffffu || base + offset > 0xffffffffu)
    return Error::make(Errc::kUsage, "'{}': 0x{:x} + 0x{:x} passes the end of the 32-bit address space", what, base,
                       offset);
  return static_cast<std::uint32_t>(base + offset);
}

}  // namespace lockstep
