// The terminal summary and the JSON form of a CoverageReport (coverage_report.hpp).
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lockstep/base/io.hpp"
#include "lockstep/coverage/coverage_report.hpp"
#include "report_common.hpp"

namespace lockstep::harness {

using namespace coverage_detail;

namespace {

// One condition step, indented under its branch: the instruction, then what the analyst needs to
// know about its operand — the labels seen at run time, or where a compared value came from.
void append_step(std::string& out, const ConditionStep& s, const Profile* profile) {
  out += fmt::format("      {}  {}", hex(s.address), s.text);
  if (s.call_target) {
    out += fmt::format("  ; <- result of {}", call_target_name(*s.call_target, profile));
  } else if (s.has_memory) {
    // Labels are gathered when the instruction runs; none means it never ran in these runs.
    out += s.labels.empty() ? std::string("  ; (no address seen: never ran)") : "  ; " + join_labels(s.labels);
  }
  out += '\n';
}

void append_branch(std::string& out, const BranchSite& b, const Profile* profile) {
  if (!reached(b)) {
    out += fmt::format("  unreached  {}  {}  both edges (taken to {}, fallthrough to {}): the branch never ran\n",
                       hex(b.address), b.text, hex(b.target), hex(b.fallthrough));
  } else {
    const Edge e = untaken_edges(b).front();  // reached: exactly one edge is untaken
    out += fmt::format("  untaken    {}  {}  {} edge (to {}); {} followed {} times\n", hex(b.address), b.text,
                       edge_name(e), hex(b.destination(e)), edge_name(other(e)), b.count(other(e)));
  }
  if (b.condition.empty()) out += "      (condition not found in the branch's block)\n";
  for (const ConditionStep& s : b.condition) append_step(out, s, profile);
}

}  // namespace

std::string format_coverage(const CoverageReport& report, const Profile* profile) {
  std::string out;
  if (!report.source.empty() || report.runs != 0)
    out += fmt::format("coverage over {}: {} runs ({} faulted, {} diverged)\n",
                       report.source.empty() ? std::string("(unnamed source)") : report.source, report.runs,
                       report.faulted, report.diverged);
  for (const FunctionCoverage& f : report.functions) {
    out += fmt::format("{}  {}  instructions {}/{}  edges {}/{}\n", display_name(f), hex(f.entry),
                       f.instructions_covered(), f.listing.size(), f.edges_covered(), f.edges_total());
    if (!f.indirect_jumps.empty()) {
      std::string at;
      for (GuestAddr a : f.indirect_jumps) at += (at.empty() ? "" : ", ") + hex(a);
      out += fmt::format("  note: {} indirect jump{} at {}: instructions only a jump table reaches are not listed\n",
                         f.indirect_jumps.size(), f.indirect_jumps.size() == 1 ? "" : "s", at);
    }
    if (f.truncated)
      out += fmt::format("  note: listing truncated at {} instructions (the disassembler's limit): counts are partial\n",
                         f.listing.size());
    for (const BranchSite& b : f.branches)
      if (b.taken == 0 || b.fell_through == 0) append_branch(out, b, profile);
  }
  const Totals t = totals(report);
  out += fmt::format("total: {} functions, instructions {}/{} ({}), edges {}/{} ({})\n", t.functions,
                     t.instructions_covered, t.instructions, percent(t.instructions_covered, t.instructions),
                     t.edges_covered, t.edges, percent(t.edges_covered, t.edges));
  return out;
}

std::string coverage_json(const CoverageReport& report, const Profile* profile) {
  using nlohmann::ordered_json;
  auto pair = [](std::size_t covered, std::size_t total) {
    ordered_json p;
    p["covered"] = covered;
    p["total"] = total;
    return p;
  };
  ordered_json j;
  j["format"] = "lockstep-coverage";
  j["version"] = 1;
  j["source"] = report.source;
  j["runs"] = report.runs;
  j["faulted"] = report.faulted;
  j["diverged"] = report.diverged;
  const Totals t = totals(report);
  j["totals"]["functions"] = t.functions;
  j["totals"]["instructions"] = pair(t.instructions_covered, t.instructions);
  j["totals"]["edges"] = pair(t.edges_covered, t.edges);

  auto& fs = j["functions"] = ordered_json::array();
  for (const FunctionCoverage& f : report.functions) {
    ordered_json o;
    o["address"] = hex(f.entry);
    o["name"] = f.name;
    o["instructions"] = pair(f.instructions_covered(), f.listing.size());
    o["edges"] = pair(f.edges_covered(), f.edges_total());
    o["truncated"] = f.truncated;
    auto& ij = o["indirect_jumps"] = ordered_json::array();
    for (GuestAddr a : f.indirect_jumps) ij.push_back(hex(a));

    auto& listing = o["listing"] = ordered_json::array();
    for (std::size_t i = 0; i < f.listing.size(); ++i) {
      const Instruction& in = f.listing[i];
      ordered_json e;
      e["address"] = hex(in.address);
      e["hits"] = hits_at(f, i);
      e["text"] = in.text();
      listing.push_back(std::move(e));
    }

    auto& branches = o["branches"] = ordered_json::array();
    for (const BranchSite& b : f.branches) {
      ordered_json e;
      e["address"] = hex(b.address);
      e["text"] = b.text;
      e["target"] = hex(b.target);
      e["fallthrough"] = hex(b.fallthrough);
      e["taken"] = b.taken;
      e["fell_through"] = b.fell_through;
      e["reached"] = reached(b);
      auto& un = e["untaken"] = ordered_json::array();
      for (Edge edge : untaken_edges(b)) un.push_back(edge_name(edge));
      auto& cond = e["condition"] = ordered_json::array();
      for (const ConditionStep& s : b.condition) {
        ordered_json c;
        c["address"] = hex(s.address);
        c["text"] = s.text;
        c["has_memory"] = s.has_memory;
        c["labels"] = s.labels;
        c["first_address"] = s.first_address ? ordered_json(hex(*s.first_address)) : ordered_json(nullptr);
        if (s.call_target) {
          c["call_target"] = hex(*s.call_target);
          c["call_target_name"] = profile_name(*s.call_target, profile);
        } else {
          c["call_target"] = nullptr;
        }
        cond.push_back(std::move(c));
      }
      branches.push_back(std::move(e));
    }
    fs.push_back(std::move(o));
  }
  return j.dump(2) + "\n";
}

Result<std::string> read_coverage_report(const std::filesystem::path& path, const CoverageReportLimits& limits) {
  return read_text_file(path, limits.max_file_bytes);
}

}  // namespace lockstep::harness
