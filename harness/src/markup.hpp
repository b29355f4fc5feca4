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

}  // namespace lockstep::harness::detail
