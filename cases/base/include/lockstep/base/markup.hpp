// Escaping text for HTML and XML reports (the coverage pages, JUnit): private to the harness.
#pragma once

#include <string>
#include <string_view>

namespace lockstep::harness::detail {

/// `text` with & < > " ' as entities: safe in element content and in quoted attributes of both.
inline std::string markup_escape(std::string_view text) {
  std::string s;
  s.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&': s += "&amp;"; break;
      case '<': s += "&lt;"; break;
      case '>': s += "&gt;"; break;
      case '"': s += "&quot;"; break;
      case '\'': s += "&#39;"; break;
      default: s += ch;
    }
  }
  return s;
}

/// `text` with control characters (below 0x20, and 0x7f) as \xNN: a name from a profile printed to a
/// terminal cannot move its cursor, and XML 1.0 has no way to hold them even as references.
inline std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(text.size());
  for (char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7f) {
      s += "\\x";
      s += kHex[u >> 4];
      s += kHex[u & 15];
    } else {
      s += ch;
    }
  }
  return s;
}

}  // namespace lockstep::harness::detail
