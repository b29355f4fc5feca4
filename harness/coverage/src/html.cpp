// The static HTML coverage report (coverage_report.hpp): index.html, one page per function, style.css.
//
// Plain HTML and one stylesheet, no scripts and nothing fetched, so the directory opens from disk in
// any browser (and in a headless one: scripts/check-coverage-html). Class names are the contract the
// structure tests (tests/coverage/) and that script check:
//   tr.insn.covered / tr.insn.uncovered          one listing row per instruction, id i_<address>
//   span.edge.covered / span.edge.untaken        an edge mark in a branch row, data-edge="taken|fallthrough"
//   li.untaken-edge (+ .unreached)               the list at the top, id u_<branch>_<edge>
//   tr.condition                                 the condition under a branch row, with span.labels
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "lockstep/base/folder.hpp"
#include "lockstep/base/io.hpp"
#include "lockstep/coverage/coverage_report.hpp"
#include "lockstep/base/markup.hpp"
#include "report_common.hpp"

namespace lockstep::harness {

using namespace coverage_detail;

namespace {

namespace fs = std::filesystem;

std::string esc(std::string_view in) { return detail::markup_escape(in); }

constexpr std::string_view kStyle = R"(/* lockstep coverage report */
body { font-family: sans-serif; margin: 1.5em; color: #222; background: #fff; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.5em; }
code, .addr, .bytes, .hits, td.text { font-family: monospace; }
table { border-collapse: collapse; }
th, td { padding: 1px 8px; text-align: left; vertical-align: top; }
th { border-bottom: 1px solid #999; }
table.functions td { border-bottom: 1px solid #eee; }
td.num, td.hits { text-align: right; }
td.bytes, td.text, td.addr, td.hits, .edge { white-space: nowrap; }
.bar { display: inline-block; width: 10em; height: 0.8em; background: #f4c7c3; border: 1px solid #bbb; vertical-align: middle; }
.bar .fill { display: block; height: 100%; background: #6aa84f; }
.bar.none { background: #eee; }
.notes li, .note { color: #7a4b00; }
tr.insn.uncovered { background: #fde2e1; }
tr.insn.uncovered td.mark { color: #c00; font-weight: bold; }
tr.insn.branch td.text { font-weight: bold; }
tr.insn:target, li.untaken-edge:target { outline: 2px solid #36c; }
.edge { display: inline-block; margin-right: 1em; padding: 0 4px; border-radius: 3px; }
.edge.covered { background: #d9ead3; }
.edge.untaken { background: #e06666; color: #fff; font-weight: bold; }
.edge.untaken a { color: #fff; }
tr.condition td { font-size: 0.9em; color: #444; padding-bottom: 4px; }
ul.condition { margin: 0.2em 0; padding-left: 1.2em; }
.labels { background: #fff2cc; padding: 0 3px; }
.never { color: #999; font-style: italic; }
li.untaken-edge { margin-bottom: 0.6em; }
li.untaken-edge .edge-name { font-weight: bold; color: #c00; }
li.untaken-edge.unreached .edge-name { color: #a61c00; }
.all-covered { color: #38761d; }
)";

std::string page_head(std::string_view title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n"
      "<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n",
      esc(title));
}

std::string row_id(GuestAddr a) { return fmt::format("i_{:08x}", a); }
std::string untaken_id(GuestAddr branch, Edge e) { return fmt::format("u_{:08x}_{}", branch, edge_name(e)); }

std::string bar(std::size_t covered, std::size_t total) {
  if (total == 0) return "<span class=\"bar none\" title=\"nothing to cover\"></span>";
  const double pct = 100.0 * static_cast<double>(covered) / static_cast<double>(total);
  return fmt::format("<span class=\"bar\" title=\"{0:.1f}%\"><span class=\"fill\" style=\"width:{0:.1f}%\"></span></span>",
                     pct);
}

std::string bytes_hex(const Instruction& in) {
  std::string s;
  for (std::uint8_t b : in.bytes) s += fmt::format("{}{:02x}", s.empty() ? "" : " ", b);
  return s;
}

/// File name of each function's page, in report order; a repeated entry gets _2, _3, ...
std::vector<std::string> page_names(const CoverageReport& r) {
  std::map<GuestAddr, int> seen;
  std::vector<std::string> names;
  for (const FunctionCoverage& f : r.functions) {
    const int n = ++seen[f.entry];
    names.push_back(n == 1 ? fmt::format("fn_{:08x}.html", f.entry) : fmt::format("fn_{:08x}_{}.html", f.entry, n));
  }
  return names;
}

/// An address as a link to its listing row when the page has one, else as text.
std::string addr_link(GuestAddr a, const std::set<GuestAddr>& listed) {
  return listed.count(a) ? fmt::format("<a href=\"#{}\">{}</a>", row_id(a), hex(a)) : hex(a);
}

/// The condition's instructions as a list, each with its labels or call target.
std::string condition_list(const BranchSite& b, const Profile* profile, const std::set<GuestAddr>& listed) {
  if (b.condition.empty()) return "<span class=\"never\">condition not found in the branch's block</span>";
  std::string s = "<ul class=\"condition\">";
  for (const ConditionStep& c : b.condition) {
    s += fmt::format("<li>{} <code>{}</code>", addr_link(c.address, listed), esc(c.text));
    if (c.call_target) {
      s += fmt::format(" &larr; result of <span class=\"call-target\">{}</span>",
                       esc(call_target_name(*c.call_target, profile)));
    } else if (c.has_memory) {
      s += c.labels.empty() ? std::string(" <span class=\"never\">no address seen: never ran</span>")
                            : fmt::format(" <span class=\"labels\">{}</span>", esc(join_labels(c.labels)));
    }
    s += "</li>";
  }
  return s + "</ul>";
}

std::string function_page(const CoverageReport& report, const FunctionCoverage& f, const Profile* profile) {
  const std::string name = display_name(f);
  std::set<GuestAddr> listed;
  for (const Instruction& in : f.listing) listed.insert(in.address);
  const std::size_t icov = f.instructions_covered(), ecov = f.edges_covered();

  std::string s = page_head(fmt::format("{} {} - coverage", name, hex(f.entry)));
  s += "<p class=\"nav\"><a href=\"index.html\">&larr; all functions</a></p>\n";
  s += fmt::format("<h1><span class=\"name\">{}</span> <span class=\"addr\">{}</span></h1>\n", esc(name), hex(f.entry));
  s += fmt::format(
      "<p class=\"summary\">instructions <span class=\"count instructions\">{}/{}</span> ({}) &middot; "
      "edges <span class=\"count edges\">{}/{}</span> ({}) {}</p>\n",
      icov, f.listing.size(), percent(icov, f.listing.size()), ecov, f.edges_total(),
      percent(ecov, f.edges_total()), bar(ecov, f.edges_total()));
  if (!report.source.empty())
    s += fmt::format("<p class=\"source\">over {}: {} runs ({} faulted, {} diverged)</p>\n", esc(report.source),
                     report.runs, report.faulted, report.diverged);
  if (!f.indirect_jumps.empty() || f.truncated) {
    s += "<ul class=\"notes\">\n";
    for (GuestAddr a : f.indirect_jumps)
      s += fmt::format("<li class=\"note indirect\">indirect jump at {}: its targets were not followed, so "
                       "instructions only a jump table reaches are not listed</li>\n",
                       addr_link(a, listed));
    if (f.truncated)
      s += fmt::format("<li class=\"note truncated\">listing truncated at {} instructions (the disassembler's "
                       "limit): counts are partial</li>\n",
                       f.listing.size());
    s += "</ul>\n";
  }

  // The untaken edges first: they are what the page is read for.
  std::size_t untaken = 0;
  for (const BranchSite& b : f.branches) untaken += untaken_edges(b).size();
  s += fmt::format("<h2 id=\"untaken\">Untaken edges ({})</h2>\n", untaken);
  if (untaken == 0) {
    s += f.branches.empty() ? "<p class=\"all-covered\">No conditional branches.</p>\n"
                            : "<p class=\"all-covered\">Every edge was taken.</p>\n";
  } else {
    s += "<ol class=\"untaken-edges\">\n";
    for (const BranchSite& b : f.branches) {
      for (Edge e : untaken_edges(b)) {
        const bool ran = reached(b);
        s += fmt::format("<li class=\"untaken-edge{}\" id=\"{}\" data-edge=\"{}\">", ran ? "" : " unreached",
                         untaken_id(b.address, e), edge_name(e));
        s += fmt::format("{} <code>{}</code>: <span class=\"edge-name\">{}</span> edge to {} &mdash; ",
                         addr_link(b.address, listed), esc(b.text), edge_name(e),
                         addr_link(b.destination(e), listed));
        s += ran ? fmt::format("{} followed {} times", edge_name(other(e)), b.count(other(e)))
                 : std::string("the branch never ran");
        s += condition_list(b, profile, listed) + "</li>\n";
      }
    }
    s += "</ol>\n";
  }

  s += "<h2 id=\"listing\">Disassembly</h2>\n<table class=\"listing\">\n<thead><tr><th></th><th>hits</th>"
       "<th>address</th><th>bytes</th><th>instruction</th><th>edges</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < f.listing.size(); ++i) {
    const Instruction& in = f.listing[i];
    const std::uint64_t hits = hits_at(f, i);
    const BranchSite* b = f.branch_at(in.address);
    std::string cls = hits ? "insn covered" : "insn uncovered";
    if (b) cls += reached(*b) ? " branch" : " branch unreached";
    std::string edges;
    if (b) {
      for (Edge e : {Edge::kTaken, Edge::kFallthrough}) {
        const std::uint64_t n = b->count(e);
        const std::string to = addr_link(b->destination(e), listed);
        edges += n ? fmt::format("<span class=\"edge covered\" data-edge=\"{0}\">{0} &times;{1} &rarr; {2}</span>",
                                 edge_name(e), n, to)
                   : fmt::format("<span class=\"edge untaken\" data-edge=\"{0}\"><a href=\"#{1}\">{0}: untaken</a> "
                                 "&rarr; {2}</span>",
                                 edge_name(e), untaken_id(b->address, e), to);
      }
    }
    s += fmt::format(
        "<tr class=\"{}\" id=\"{}\"><td class=\"mark\">{}</td><td class=\"hits\">{}</td><td class=\"addr\">{:08x}</td>"
        "<td class=\"bytes\">{}</td><td class=\"text\">{}</td><td class=\"edges\">{}</td></tr>\n",
        cls, row_id(in.address), hits ? "" : "&#x2717;", hits, in.address, bytes_hex(in), esc(in.text()), edges);
    if (b && !b->condition.empty())
      s += fmt::format("<tr class=\"condition\"><td colspan=\"4\"></td><td colspan=\"2\">condition: {}</td></tr>\n",
                       condition_list(*b, profile, listed));
  }
  s += "</tbody>\n</table>\n</body>\n</html>\n";
  return s;
}

std::string index_page(const CoverageReport& report, const std::vector<std::string>& pages) {
  std::string s = page_head("lockstep coverage");
  s += "<h1>Branch coverage of the original</h1>\n";
  if (!report.source.empty() || report.runs != 0)
    s += fmt::format("<p class=\"source\">over {}: {} runs ({} faulted, {} diverged)</p>\n",
                     esc(report.source.empty() ? std::string("(unnamed source)") : report.source), report.runs,
                     report.faulted, report.diverged);
  s += "<table class=\"functions\">\n<thead><tr><th>function</th><th>address</th><th>instructions</th>"
       "<th>edges</th><th>edges covered</th><th>notes</th></tr></thead>\n<tbody>\n";
  for (std::size_t k = 0; k < report.functions.size(); ++k) {
    const FunctionCoverage& f = report.functions[k];
    const std::size_t icov = f.instructions_covered(), ecov = f.edges_covered();
    std::string notes;
    if (!f.indirect_jumps.empty())
      notes += fmt::format("<span class=\"note indirect\">{} indirect jump{}</span> ", f.indirect_jumps.size(),
                           f.indirect_jumps.size() == 1 ? "" : "s");
    if (f.truncated) notes += "<span class=\"note truncated\">truncated listing</span>";
    s += fmt::format(
        "<tr class=\"function\"><td><a href=\"{}\">{}</a></td><td class=\"addr\">{}</td>"
        "<td class=\"num instructions\">{}/{}</td><td class=\"num edges\">{}/{}</td><td>{} {}</td><td>{}</td></tr>\n",
        pages[k], esc(display_name(f)), hex(f.entry), icov, f.listing.size(), ecov, f.edges_total(),
        bar(ecov, f.edges_total()), percent(ecov, f.edges_total()), notes);
  }
  const Totals t = totals(report);
  s += fmt::format(
      "</tbody>\n<tfoot><tr class=\"total\"><td>total: {} functions</td><td></td><td class=\"num instructions\">{}/{}</td>"
      "<td class=\"num edges\">{}/{}</td><td>{} {}</td><td></td></tr></tfoot>\n</table>\n</body>\n</html>\n",
      t.functions, t.instructions_covered, t.instructions, t.edges_covered, t.edges, bar(t.edges_covered, t.edges),
      percent(t.edges_covered, t.edges));
  return s;
}

}  // namespace

Status write_coverage_html(const CoverageReport& report, const Profile* profile, const fs::path& dir) {
  // Everything is rendered before the first write, and every path checked, so a refusal leaves
  // nothing behind; the index is written last so it never links to a page not yet there.
  const std::vector<std::string> names = page_names(report);
  std::vector<std::pair<fs::path, std::string>> files;
  files.emplace_back(dir / "style.css", std::string(kStyle));
  for (std::size_t k = 0; k < report.functions.size(); ++k)
    files.emplace_back(dir / names[k], function_page(report, report.functions[k], profile));
  files.emplace_back(dir / "index.html", index_page(report, names));

  // The folder is replaced whole (a full disk or a signal leaves the old report, never a mix of old
  // and new pages); files in it that are not a report's pages are kept.
  auto fill = [&](const fs::path& next) -> Status {
    for (const auto& [path, text] : files)
      LOCKSTEP_TRY_STATUS(write_file_atomic(next / path.filename(), text));
    return {};
  };
  auto keep = [](const std::string& name) { return !name.ends_with(".html") && !name.ends_with(".css"); };
  if (Status s = replace_folder(dir, fill, keep); !s.ok()) return std::move(s).error().wrap("coverage report");
  return {};
}

}  // namespace lockstep::harness
