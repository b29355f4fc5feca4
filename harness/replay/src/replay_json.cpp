// The JSON replay report: written (to_json) and read back strictly (read_report), for shard merging
// and the baseline.
#include "lockstep/replay/replay.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lockstep/base/numbers.hpp"
#include "lockstep/cases/function_list_json.hpp"
#include "report_reading.hpp"

namespace lockstep::harness {

std::string to_json(const ReplayResult& r) {
  nlohmann::ordered_json j;
  j["format"] = "lockstep-replay";
  j["version"] = kReportVersion;
  j["corpus"] = r.corpus_sha256;
  j["cases"] = r.total_cases();
  j["matched"] = r.total_matched();
  j["mismatched"] = r.total_mismatched();
  j["checked"] = r.checked_cases();
  j["unchecked_functions"] = r.unchecked_functions();
  if (!r.shard.whole()) j["shard"] = fmt::format("{}/{}", r.shard.index, r.shard.count);
  j["functions"] = cases::function_list_json(r.functions, [](const FunctionOutcome& f, nlohmann::ordered_json& o) {
    o["bound"] = f.bound;
    o["cases"] = f.cases;
    o["matched"] = f.matched;
    o["mismatched"] = f.mismatched;
    o["outside_reads"] = f.outside_reads;
    if (!f.excluded.empty()) o["excluded"] = f.excluded;
    auto& fails = o["failing_cases"] = nlohmann::ordered_json::array();
    for (std::uint32_t id : f.failing_ids) fails.push_back(id);
  });
  return j.dump(2) + "\n";
}

namespace {

/// A report's count: a JSON unsigned integer of at most 32 bits (not -1, 14.5, 2^32 + 14 or "0x0e").
Result<std::uint32_t> report_count(const nlohmann::json& o, const char* key, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end()) return Error::make(Errc::kMalformed, "{}: no \"{}\"", where, key);
  if (!it->is_number_unsigned() || it->get<std::uint64_t>() > 0xffffffffu)
    return Error::make(Errc::kMalformed, "{}: \"{}\" is {}, not a count (an integer from 0 to 4294967295)", where,
                       key, it->dump());
  return static_cast<std::uint32_t>(it->get<std::uint64_t>());
}

/// One function of a report, every number checked, and its counts against each other.
Result<FunctionOutcome> report_function(const nlohmann::json& f, const std::string& where_in) {
  if (!f.is_object()) return Error::make(Errc::kMalformed, "{}: a function is not an object", where_in);
  FunctionOutcome fo;
  auto address = f.find("address");
  if (address == f.end() || !address->is_string())
    return Error::make(Errc::kMalformed, "{}: a function has no \"address\" string", where_in);
  const std::string text = address->get<std::string>();
  auto a = parse_hex_number(text, 0xffffffffu);
  if (!text.starts_with("0x") || text.size() > 10 || !a.ok())
    return Error::make(Errc::kMalformed, "{}: address \"{}\" is not a 32-bit 0x-hex address", where_in, text);
  fo.function = static_cast<std::uint32_t>(*a);
  const std::string where = fmt::format("{}: function {}", where_in, text);
  auto name = f.find("name");
  auto bound = f.find("bound");
  if (name == f.end() || !name->is_string()) return Error::make(Errc::kMalformed, "{}: no \"name\" string", where);
  if (bound == f.end() || !bound->is_boolean()) return Error::make(Errc::kMalformed, "{}: no \"bound\" boolean", where);
  fo.name = name->get<std::string>();
  fo.bound = bound->get<bool>();
  LOCKSTEP_TRY(fo.cases, report_count(f, "cases", where));
  LOCKSTEP_TRY(fo.matched, report_count(f, "matched", where));
  LOCKSTEP_TRY(fo.mismatched, report_count(f, "mismatched", where));
  LOCKSTEP_TRY(fo.outside_reads, report_count(f, "outside_reads", where));
  if (std::uint64_t{fo.matched} + fo.mismatched > fo.cases || fo.outside_reads > fo.cases)
    return Error::make(Errc::kMalformed, "{}: {} matched and {} mismatched ({} outside reads) of {} cases", where,
                       fo.matched, fo.mismatched, fo.outside_reads, fo.cases);
  auto failing = f.find("failing_cases");
  if (failing == f.end() || !failing->is_array())
    return Error::make(Errc::kMalformed, "{}: no \"failing_cases\" list", where);
  for (const auto& id : *failing) {
    if (!id.is_number_unsigned() || id.get<std::uint64_t>() > 0xffffffffu)
      return Error::make(Errc::kMalformed, "{}: failing case {} is not a case id", where, id.dump());
    fo.failing_ids.push_back(static_cast<std::uint32_t>(id.get<std::uint64_t>()));
  }
  if (fo.failing_ids.size() != fo.mismatched)
    return Error::make(Errc::kMalformed, "{}: {} failing cases listed for {} mismatched", where,
                       fo.failing_ids.size(), fo.mismatched);
  if (auto excluded = f.find("excluded"); excluded != f.end()) {
    if (!excluded->is_string() || excluded->get<std::string>().empty())
      return Error::make(Errc::kMalformed, "{}: \"excluded\" is not a reason (a non-empty string)", where);
    fo.excluded = excluded->get<std::string>();
  }
  return fo;
}

}  // namespace

namespace detail {

/// A JSON replay report read strictly: its format and version, the corpus it names, every function.
Result<ReplayResult> read_report(const std::string& text, const std::string& name) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "lockstep-replay")
    return Error::make(Errc::kBadMagic, "{}: not a lockstep replay JSON report", name);
  LOCKSTEP_TRY(std::uint32_t version, report_count(j, "version", name));
  if (version != kReportVersion)
    return Error::make(Errc::kBadVersion, "{}: a replay report of version {}; this lockstep reads version {} (replay "
                                          "again to write one)",
                       name, version, kReportVersion);
  ReplayResult r;
  auto corpus = j.find("corpus");
  if (corpus == j.end() || !corpus->is_string())
    return Error::make(Errc::kMalformed, "{}: no \"corpus\" (the replayed corpus's manifest digest)", name);
  r.corpus_sha256 = corpus->get<std::string>();
  if (j.contains("shard")) {
    if (!j["shard"].is_string()) return Error::make(Errc::kMalformed, "{}: \"shard\" is not a string", name);
    auto s = parse_shard(j["shard"].get<std::string>());
    if (!s.ok()) return Error::make(Errc::kMalformed, "{}: {}", name, s.error().message);
    r.shard = *s;
  }
  auto fs = j.find("functions");
  if (fs == j.end() || !fs->is_array()) return Error::make(Errc::kMalformed, "{}: no \"functions\" list", name);
  for (const auto& f : *fs) {
    LOCKSTEP_TRY(FunctionOutcome fo, report_function(f, name));
    r.functions.push_back(std::move(fo));
  }
  LOCKSTEP_TRY(std::uint32_t cases, report_count(j, "cases", name));
  LOCKSTEP_TRY(std::uint32_t matched, report_count(j, "matched", name));
  LOCKSTEP_TRY(std::uint32_t mismatched, report_count(j, "mismatched", name));
  if (cases != r.total_cases() || matched != r.total_matched() || mismatched != r.total_mismatched())
    return Error::make(Errc::kMalformed, "{}: the totals ({} cases, {} matched, {} mismatched) are not the functions' "
                                         "sums ({}, {}, {})",
                       name, cases, matched, mismatched, r.total_cases(), r.total_matched(), r.total_mismatched());
  return r;
}

}  // namespace detail

}  // namespace lockstep::harness
