// A progress report as text, lockstep's JSON, objdiff's report JSON, and the changes since an earlier
// report as Markdown (progress.hpp).
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lockstep/base/io.hpp"
#include "lockstep/progress/progress.hpp"
#include "progress_common.hpp"

namespace lockstep::harness {
namespace {

using nlohmann::ordered_json;

using progress_detail::address_hex;
using progress_detail::share_percent;
using progress_detail::status_text;

std::string totals_line(const ProgressTotals& t) {
  std::string s = fmt::format("{} of {} functions matched ({:.1f}%), {} of {} code bytes ({:.1f}%); {} bound, {} with cases; "
                              "{} of {} cases matched",
                              t.matched_functions, t.functions, share_percent(t.matched_functions, t.functions),
                              t.matched_code_bytes, t.code_bytes, share_percent(t.matched_code_bytes, t.code_bytes), t.bound,
                              t.with_cases, t.matched_cases, t.cases);
  if (t.edges_total) s += fmt::format("; {} of {} branch edges covered", t.edges_covered, t.edges_total);
  return s;
}

ordered_json totals_json(const ProgressTotals& t) {
  ordered_json j;
  j["name"] = t.name;
  j["functions"] = t.functions;
  j["bound"] = t.bound;
  j["with_cases"] = t.with_cases;
  j["matched_functions"] = t.matched_functions;
  j["code_bytes"] = t.code_bytes;
  j["matched_code_bytes"] = t.matched_code_bytes;
  j["cases"] = t.cases;
  j["matched_cases"] = t.matched_cases;
  j["mismatched_cases"] = t.mismatched_cases;
  j["edges_covered"] = t.edges_covered;
  j["edges_total"] = t.edges_total;
  return j;
}

}  // namespace

std::string format_progress(const ProgressReport& r) {
  std::string out = fmt::format("progress of the port against {} over {} {}\n", r.profile, r.corpora.size(),
                                r.corpora.size() == 1 ? "corpus" : "corpora");
  for (const auto& m : r.modules) {
    out += fmt::format("\n{}: {}\n", m.name, totals_line(m));
    for (const auto& f : r.functions) {
      if (f.module != m.name) continue;
      std::string cov = f.edges_total ? fmt::format("  edges {}/{}", *f.edges_covered, *f.edges_total) : "";
      std::string first = f.first_mismatch ? fmt::format("  first mismatch {}:{}", f.first_mismatch->first,
                                                         f.first_mismatch->second)
                                           : "";
      out += fmt::format("  {}  {:<32} {:<16} cases {:>5}/{:<5}  code {:>5} ({}){}{}{}\n", address_hex(f.address), f.name,
                         status_text(f), f.matched, f.cases, f.code_bytes, code_size_source_name(f.code_source), cov,
                         f.in_profile ? "" : "  (not in the profile)", first);
    }
  }
  out += fmt::format("\ntotal: {}\n", totals_line(r.total));
  return out;
}

std::string progress_json(const ProgressReport& r) {
  ordered_json j;
  j["format"] = "lockstep-progress";
  j["version"] = 1;
  j["profile"] = r.profile;
  j["corpora"] = r.corpora;
  j["totals"] = totals_json(r.total);
  auto& ms = j["modules"] = ordered_json::array();
  for (const auto& m : r.modules) ms.push_back(totals_json(m));
  auto& fs = j["functions"] = ordered_json::array();
  for (const auto& f : r.functions) {
    ordered_json o;
    o["address"] = address_hex(f.address);
    o["name"] = f.name;
    o["module"] = f.module;
    o["in_profile"] = f.in_profile;
    o["bound"] = f.bound;
    o["cases"] = f.cases;
    o["matched"] = f.matched;
    o["mismatched"] = f.mismatched;
    o["poked"] = f.poked;
    o["all_matched"] = f.all_matched();
    o["first_mismatch"] = f.first_mismatch
                              ? ordered_json{{"corpus", f.first_mismatch->first}, {"case", f.first_mismatch->second}}
                              : ordered_json(nullptr);
    o["code_bytes"] = f.code_bytes;
    o["code_size_source"] = code_size_source_name(f.code_source);
    o["edges_covered"] = f.edges_covered ? ordered_json(*f.edges_covered) : ordered_json(nullptr);
    o["edges_total"] = f.edges_total ? ordered_json(*f.edges_total) : ordered_json(nullptr);
    o["coverage_page"] = f.coverage_page.empty() ? ordered_json(nullptr) : ordered_json(f.coverage_page);
    fs.push_back(std::move(o));
  }
  return j.dump(2) + "\n";
}

namespace {

// objdiff's Measures of a set of functions: code only (lockstep measures no data), fuzzy_match_percent
// weighted by code bytes as objdiff weighs it; a unit is complete when all its functions matched.
ordered_json objdiff_measures(const ProgressTotals& t, std::uint64_t fuzzy_bytes, std::uint32_t units,
                              std::uint32_t complete_units, std::uint64_t complete_code) {
  ordered_json m;
  m["fuzzy_match_percent"] = t.code_bytes ? static_cast<double>(fuzzy_bytes) / static_cast<double>(t.code_bytes) : 0.0;
  m["total_code"] = std::to_string(t.code_bytes);  // uint64: a string in protobuf's JSON mapping
  m["matched_code"] = std::to_string(t.matched_code_bytes);
  m["matched_code_percent"] = share_percent(t.matched_code_bytes, t.code_bytes);
  m["total_data"] = "0";
  m["matched_data"] = "0";
  m["matched_data_percent"] = 0.0;
  m["total_functions"] = t.functions;
  m["matched_functions"] = t.matched_functions;
  m["matched_functions_percent"] = share_percent(t.matched_functions, t.functions);
  m["complete_code"] = std::to_string(complete_code);
  m["complete_code_percent"] = share_percent(complete_code, t.code_bytes);
  m["complete_data"] = "0";
  m["complete_data_percent"] = 0.0;
  m["total_units"] = units;
  m["complete_units"] = complete_units;
  return m;
}

}  // namespace

std::string objdiff_report_json(const ProgressReport& r) {
  ordered_json units = ordered_json::array();
  double all_fuzzy_bytes = 0;
  std::uint32_t complete_units = 0;
  std::uint64_t complete_code = 0;
  for (const auto& m : r.modules) {
    ordered_json u;
    u["name"] = m.name;
    ordered_json functions = ordered_json::array();
    double fuzzy_bytes = 0;
    for (const auto& f : r.functions) {
      if (f.module != m.name) continue;
      fuzzy_bytes += f.fuzzy_percent() * f.code_bytes;
      ordered_json item;
      item["name"] = f.name;
      item["size"] = std::to_string(f.code_bytes);
      item["fuzzy_match_percent"] = f.fuzzy_percent();
      item["metadata"] = {{"demangled_name", f.name}, {"virtual_address", std::to_string(f.address)}};
      functions.push_back(std::move(item));
    }
    const bool complete = m.matched_functions == m.functions;
    complete_units += complete;
    if (complete) complete_code += m.code_bytes;
    all_fuzzy_bytes += fuzzy_bytes;
    u["measures"] = objdiff_measures(m, static_cast<std::uint64_t>(fuzzy_bytes + 0.5), 1, complete,
                                     complete ? m.code_bytes : 0);
    u["sections"] = ordered_json::array();
    u["functions"] = std::move(functions);
    u["metadata"] = {{"complete", complete}, {"module_name", m.name}, {"progress_categories", ordered_json::array()},
                     {"auto_generated", false}};
    units.push_back(std::move(u));
  }
  ordered_json j;
  j["measures"] = objdiff_measures(r.total, static_cast<std::uint64_t>(all_fuzzy_bytes + 0.5),
                                   static_cast<std::uint32_t>(r.modules.size()), complete_units, complete_code);
  j["units"] = std::move(units);
  j["version"] = 2;
  j["categories"] = ordered_json::array();
  return j.dump(2) + "\n";
}

Result<ProgressChanges> compare_progress(const ProgressReport& now, const std::string& old_json, std::string_view what) {
  auto j = nlohmann::json::parse(old_json, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "lockstep-progress" || !j.contains("functions"))
    return Error::make(Errc::kMalformed, "{}: not a `lockstep progress --json` report", what);
  ProgressChanges c;
  std::map<GuestAddr, FunctionProgress> before;
  try {
    for (const auto& f : j.at("functions")) {
      FunctionProgress p;
      p.address = static_cast<GuestAddr>(std::stoul(f.at("address").get<std::string>(), nullptr, 16));
      p.name = f.at("name").get<std::string>();
      p.module = f.at("module").get<std::string>();
      p.bound = f.at("bound").get<bool>();
      p.cases = f.at("cases").get<std::uint32_t>();
      p.matched = f.at("matched").get<std::uint32_t>();
      p.mismatched = f.at("mismatched").get<std::uint32_t>();
      p.code_bytes = f.at("code_bytes").get<std::uint32_t>();
      c.before.add(p);
      before[p.address] = std::move(p);
    }
  } catch (const std::exception& e) {
    return Error::make(Errc::kMalformed, "{}: a function without its fields ({})", what, e.what());
  }
  c.now = now.total;
  for (const auto& f : now.functions) {
    ProgressChange ch{f.address, f.name, 0, f.cases, 0, f.matched, f.first_mismatch};
    auto it = before.find(f.address);
    if (it == before.end()) {
      c.new_functions.push_back(ch);
      continue;
    }
    const FunctionProgress& b = it->second;
    ch.cases_before = b.cases;
    ch.matched_before = b.matched;
    if ((f.mismatched > b.mismatched) || (b.all_matched() && !f.all_matched() && f.cases > 0))
      c.regressed.push_back(ch);
    else if (f.all_matched() && !b.all_matched())
      c.newly_matched.push_back(ch);
    before.erase(it);
  }
  for (const auto& [a, b] : before) c.removed.push_back({a, b.name, b.cases, 0, b.matched, 0, std::nullopt});
  return c;
}

std::string format_changes_markdown(const ProgressChanges& c) {
  std::string out = "### lockstep progress\n\n";
  out += fmt::format("| | before | now |\n|---|---:|---:|\n"
                     "| functions matched | {} / {} | {} / {} |\n| code bytes matched | {} / {} | {} / {} |\n"
                     "| cases matched | {} / {} | {} / {} |\n\n",
                     c.before.matched_functions, c.before.functions, c.now.matched_functions, c.now.functions,
                     c.before.matched_code_bytes, c.before.code_bytes, c.now.matched_code_bytes, c.now.code_bytes,
                     c.before.matched_cases, c.before.cases, c.now.matched_cases, c.now.cases);
  auto cases = [](const ProgressChange& ch) {
    return fmt::format("{}/{} → {}/{} cases matched", ch.matched_before, ch.cases_before, ch.matched_now, ch.cases_now);
  };
  if (!c.regressed.empty()) {
    out += fmt::format("**Regressed ({})**\n\n", c.regressed.size());
    for (const auto& ch : c.regressed) {
      out += fmt::format("- `{}` ({}): {}", ch.name, address_hex(ch.address), cases(ch));
      if (ch.first_mismatch)
        out += fmt::format("; first mismatch: `lockstep replay {} --case {}:{}`", ch.first_mismatch->first,
                           address_hex(ch.address), ch.first_mismatch->second);
      out += "\n";
    }
    out += "\n";
  }
  if (!c.newly_matched.empty()) {
    out += fmt::format("**Newly matched ({})**\n\n", c.newly_matched.size());
    for (const auto& ch : c.newly_matched) out += fmt::format("- `{}` ({}): {}\n", ch.name, address_hex(ch.address), cases(ch));
    out += "\n";
  }
  if (!c.new_functions.empty()) {
    out += fmt::format("**New functions ({})**\n\n", c.new_functions.size());
    for (const auto& ch : c.new_functions)
      out += fmt::format("- `{}` ({}): {}/{} cases matched\n", ch.name, address_hex(ch.address), ch.matched_now, ch.cases_now);
    out += "\n";
  }
  if (!c.removed.empty()) {
    out += fmt::format("**No longer listed ({})**\n\n", c.removed.size());
    for (const auto& ch : c.removed) out += fmt::format("- `{}` ({})\n", ch.name, address_hex(ch.address));
    out += "\n";
  }
  if (c.regressed.empty() && c.newly_matched.empty() && c.new_functions.empty() && c.removed.empty())
    out += "No function changed its status.\n";
  return out;
}

Result<std::string> read_progress_report(const std::filesystem::path& path, const ProgressReportLimits& limits) {
  return read_text_file(path, limits.max_file_bytes);
}

}  // namespace lockstep::harness
