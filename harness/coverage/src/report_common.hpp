// Private helpers shared by the coverage reports (report.cpp: text and JSON; html.cpp: the static site),
// so the three say the same thing about a function: its display name, which edges are untaken, and
// how a condition's call is named.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lockstep/coverage/coverage.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::harness::coverage_detail {

/// "0x0041af80": every address in the reports is written this way, so a reader can grep one form.
inline std::string hex(GuestAddr a) { return fmt::format("0x{:08x}", a); }

/// The profile's name, or "FUN_0041af80" (the form the documents use for unnamed originals).
inline std::string display_name(const FunctionCoverage& f) {
  return f.name.empty() ? fmt::format("FUN_{:08x}", f.entry) : f.name;
}

/// Times the listing entry `i` ran; a report whose hits are shorter than its listing counts 0.
inline std::uint64_t hits_at(const FunctionCoverage& f, std::size_t i) { return i < f.hits.size() ? f.hits[i] : 0; }

/// A branch that never ran at all (both edges 0), as opposed to one that ran and always went one way.
inline bool reached(const BranchSite& b) { return b.taken != 0 || b.fell_through != 0; }

/// The branch's edges never followed, taken first.
inline std::vector<Edge> untaken_edges(const BranchSite& b) {
  std::vector<Edge> out;
  if (b.taken == 0) out.push_back(Edge::kTaken);
  if (b.fell_through == 0) out.push_back(Edge::kFallthrough);
  return out;
}

inline Edge other(Edge e) { return e == Edge::kTaken ? Edge::kFallthrough : Edge::kTaken; }

/// "Tables::length16 (0x004164e0)" when the profile names the target, else "0x004164e0".
inline std::string call_target_name(GuestAddr target, const Profile* profile) {
  if (profile)
    if (const FunctionSpec* spec = profile->function_at(target)) return fmt::format("{} ({})", spec->name, hex(target));
  return hex(target);
}

/// The profile's name of a call target, or "" when there is none.
inline std::string profile_name(GuestAddr target, const Profile* profile) {
  if (profile)
    if (const FunctionSpec* spec = profile->function_at(target)) return spec->name;
  return {};
}

/// "car[2]+0x111 point[1].sliding | car[3]+0x111 point[1].sliding": labels contain spaces, so they
/// are joined with a bar.
inline std::string join_labels(const std::vector<std::string>& labels) {
  std::string s;
  for (const std::string& l : labels) {
    if (!s.empty()) s += " | ";
    s += l;
  }
  return s;
}

/// "83.3%", or "-" when there is nothing to cover.
inline std::string percent(std::size_t covered, std::size_t total) {
  if (total == 0) return "-";
  return fmt::format("{:.1f}%", 100.0 * static_cast<double>(covered) / static_cast<double>(total));
}

struct Totals {
  std::size_t functions = 0, instructions = 0, instructions_covered = 0, edges = 0, edges_covered = 0;
};
inline Totals totals(const CoverageReport& r) {
  Totals t;
  for (const FunctionCoverage& f : r.functions) {
    ++t.functions;
    t.instructions += f.listing.size();
    t.instructions_covered += f.instructions_covered();
    t.edges += f.edges_total();
    t.edges_covered += f.edges_covered();
  }
  return t;
}

}  // namespace lockstep::harness::coverage_detail
