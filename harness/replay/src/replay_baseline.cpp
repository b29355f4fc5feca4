// A replay against a baseline report: which functions got better, which worse.
#include "lockstep/replay/replay.hpp"

#include <map>

#include <fmt/format.h>

#include "lockstep/base/io.hpp"

#include "report_reading.hpp"

namespace lockstep::harness {

Result<std::string> read_replay_report(const std::filesystem::path& path, const ReplayReportLimits& limits) {
  return read_text_file(path, limits.max_file_bytes);
}

using detail::read_report;

Result<BaselineDelta> compare_baseline(const ReplayResult& now, const std::string& baseline_json) {
  LOCKSTEP_TRY(ReplayResult then, read_report(baseline_json, "the baseline"));
  if (then.corpus_sha256 != now.corpus_sha256)
    return Error::make(Errc::kUsage, "the baseline is a replay of corpus {}, this run of corpus {}: compare runs of "
                                     "one corpus (the corpus changed? make a new baseline)",
                       then.corpus_sha256.substr(0, 16), now.corpus_sha256.substr(0, 16));
  std::map<std::string, std::pair<std::uint32_t, std::uint32_t>> before;  // address → (matched, cases)
  for (const auto& f : then.functions) before[fmt::format("0x{:08x}", f.function)] = {f.matched, f.cases};
  BaselineDelta d;
  for (const auto& f : now.functions) {
    std::string key = fmt::format("0x{:08x}", f.function);
    auto it = before.find(key);
    if (it == before.end()) {
      d.better.push_back(fmt::format("{} {}: new, {} of {} matched", key, f.name, f.matched, f.cases));
      continue;
    }
    auto [m0, c0] = it->second;
    if (f.matched > m0 || (f.matched == m0 && f.cases > c0 && f.mismatched == 0))
      d.better.push_back(fmt::format("{} {}: {} of {} matched (was {} of {})", key, f.name, f.matched, f.cases, m0, c0));
    else if (f.matched < m0 || (f.cases - f.matched) > (c0 - m0))
      d.worse.push_back(fmt::format("{} {}: {} of {} matched (was {} of {})", key, f.name, f.matched, f.cases, m0, c0));
    before.erase(it);
  }
  for (const auto& [key, mc] : before)
    d.worse.push_back(fmt::format("{}: gone from the corpus (was {} of {} matched)", key, mc.first, mc.second));
  return d;
}

std::string format_baseline(const BaselineDelta& d) {
  std::string s;
  for (const auto& b : d.better) s += "  better: " + b + "\n";
  for (const auto& w : d.worse) s += "  worse:  " + w + "\n";
  if (s.empty()) s = "  no change against the baseline\n";
  return s;
}

}  // namespace lockstep::harness
