// The JUnit replay report: one test case per function.
#include "lockstep/replay/replay.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "lockstep/base/markup.hpp"

namespace lockstep::harness {

std::string to_junit(const ReplayResult& r) {
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt::format("<testsuites name=\"lockstep replay\" tests=\"{}\" failures=\"{}\">\n", r.functions.size(),
                   std::count_if(r.functions.begin(), r.functions.end(),
                                 [](const FunctionOutcome& f) {
                                   return f.mismatched > 0 || !f.unchecked_reason().empty();
                                 }));
  s += "  <testsuite name=\"replay\">\n";
  for (const auto& f : r.functions) {
    s += fmt::format("    <testcase classname=\"replay\" name=\"{}\">",
                     detail::markup_escape(detail::printable(fmt::format("0x{:08x} {}", f.function, f.name))));
    if (const std::string why = f.unchecked_reason(); !why.empty()) {
      s += fmt::format("<failure message=\"unchecked: {} ({} cases), and no exclusion gives a reason\"/>",
                       detail::markup_escape(why), f.cases);
    } else if (f.checked() == 0) {
      s += fmt::format("<skipped message=\"{}\"/>", detail::markup_escape(detail::printable("excluded: " + f.excluded)));
    } else if (f.mismatched) {
      s += fmt::format("<failure message=\"{} of {} cases mismatched\"/>", f.mismatched, f.cases);
    }
    s += "</testcase>\n";
  }
  s += "  </testsuite>\n</testsuites>\n";
  return s;
}

}  // namespace lockstep::harness
