// What the progress reports share (private to the harness): addresses and shares as they print, a
// function's status in words.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "lockstep/progress/progress.hpp"

namespace lockstep::harness::progress_detail {

inline std::string address_hex(GuestAddr a) { return fmt::format("0x{:08x}", a); }

/// part / whole in per cent; 0 when whole is 0.
inline double share_percent(std::uint64_t part, std::uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

/// "matched", "mismatch", "no binding" (cases, no port), "bound, no cases", "not ported".
inline std::string status_text(const FunctionProgress& f) {
  if (f.all_matched()) return "matched";
  if (f.cases == 0) return f.bound ? "bound, no cases" : "not ported";
  return f.bound ? "mismatch" : "no binding";
}

}  // namespace lockstep::harness::progress_detail
