// The replay's table: one line per function, the totals, and what was not checked.
#include "lockstep/replay/replay.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "lockstep/base/markup.hpp"

namespace lockstep::harness {

namespace {

/// The table's last column: why a function was not checked.
std::string table_note(const FunctionOutcome& f) {
  if (f.checked() > 0) return "";
  if (!f.excluded.empty()) return "excluded: " + f.excluded;
  if (f.cases == 0) return "UNCHECKED: no cases";
  return "UNCHECKED: no binding";
}

}  // namespace

std::string format_table(const ReplayResult& r) {
  std::string s = fmt::format("{:<10} {:<28} {:>7} {:>8} {:>10} {:>8} {}\n", "address", "function", "cases",
                              "matched", "mismatched", "outside", "");
  for (const auto& f : r.functions) {
    s += fmt::format("0x{:08x} {:<28} {:>7} {:>8} {:>10} {:>8} {}\n", f.function, detail::printable(f.name), f.cases,
                     f.bound ? fmt::to_string(f.matched) : "-", f.bound ? fmt::to_string(f.mismatched) : "-",
                     f.bound ? fmt::to_string(f.outside_reads) : "-", table_note(f));
  }
  s += fmt::format("{:<10} {:<28} {:>7} {:>8} {:>10}\n", "total", fmt::format("{} functions", r.functions.size()),
                   r.total_cases(), r.total_matched(), r.total_mismatched());
  s += fmt::format("{} of {} cases checked", r.checked_cases(), r.total_cases());
  const std::uint32_t excluded = static_cast<std::uint32_t>(std::count_if(
      r.functions.begin(), r.functions.end(), [](const FunctionOutcome& f) { return !f.excluded.empty() && f.checked() == 0; }));
  if (excluded) s += fmt::format(" ({} function{} excluded, each with its reason)", excluded, excluded == 1 ? "" : "s");
  s += "\n";
  if (const std::uint32_t n = r.unchecked_functions()) {
    s += fmt::format("UNCHECKED: {} function{} with nothing checked and no reason given:\n", n, n == 1 ? "" : "s");
    for (const auto& f : r.functions)
      if (const std::string why = f.unchecked_reason(); !why.empty())
        s += fmt::format("  0x{:08x} {}: {}{}\n", f.function, f.name, why,
                         why == "no binding" ? fmt::format(" ({} cases the port never ran)", f.cases)
                                             : std::string(" (nothing for a binding to run on)"));
    s += "  bind them, or exclude each with its reason (--exclude FUNCTION=REASON, --exclusions FILE): "
         "the verdict fails until then\n";
  } else if (r.empty_shard()) {
    s += fmt::format("shard {}/{} drew no function of this corpus: merge-reports gives the verdict of the whole\n",
                     r.shard.index, r.shard.count);
  } else if (r.checked_cases() == 0) {
    s += "UNCHECKED: no case was checked at all: the verdict fails\n";
  }
  return s;
}

}  // namespace lockstep::harness
