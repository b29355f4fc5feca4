// Merging the JSON reports of a sharded replay into the report of the whole run.
#include "lockstep/replay/replay.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "report_reading.hpp"

namespace lockstep::harness {

using detail::read_report;

Result<ReplayResult> merge_reports(const std::vector<std::string>& json_reports, const std::vector<std::string>& names) {
  ReplayResult merged;
  std::vector<bool> seen;  // shard K seen
  unsigned count = 0;
  for (std::size_t r = 0; r < json_reports.size(); ++r) {
    const std::string& name = r < names.size() ? names[r] : fmt::format("report {}", r + 1);
    LOCKSTEP_TRY(ReplayResult one, read_report(json_reports[r], name));
    const Shard shard = one.shard;
    if (count == 0) {
      count = shard.count;
      seen.assign(count, false);
      merged.corpus_sha256 = one.corpus_sha256;
    } else if (shard.count != count) {
      return Error::make(Errc::kUsage, "{} is shard {}/{}, the reports before it are shards of {}", name, shard.index,
                         shard.count, count);
    } else if (one.corpus_sha256 != merged.corpus_sha256) {
      return Error::make(Errc::kUsage, "{} is a replay of corpus {}, the reports before it of corpus {}: shards of "
                                       "one run replay one corpus",
                         name, one.corpus_sha256.substr(0, 16), merged.corpus_sha256.substr(0, 16));
    }
    if (seen[shard.index - 1])
      return Error::make(Errc::kUsage, "{}: shard {}/{} is given twice", name, shard.index, shard.count);
    seen[shard.index - 1] = true;
    for (auto& fo : one.functions) merged.functions.push_back(std::move(fo));
  }
  for (unsigned k = 0; k < count; ++k)
    if (!seen[k]) return Error::make(Errc::kUsage, "shard {}/{} is missing from the reports", k + 1, count);
  // The unsharded run lists functions in corpus order, ascending by address.
  std::sort(merged.functions.begin(), merged.functions.end(),
            [](const FunctionOutcome& a, const FunctionOutcome& b) { return a.function < b.function; });
  for (std::size_t i = 1; i < merged.functions.size(); ++i)
    if (merged.functions[i].function == merged.functions[i - 1].function)
      return Error::make(Errc::kUsage, "function 0x{:08x} is in two reports: not shards of one run",
                         merged.functions[i].function);
  return merged;
}

}  // namespace lockstep::harness
