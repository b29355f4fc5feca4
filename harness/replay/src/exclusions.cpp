#include "lockstep/replay/exclusions.hpp"

#include <set>

#include <fmt/format.h>

#include "lockstep/base/io.hpp"
#include "lockstep/base/numbers.hpp"

namespace lockstep::harness {
namespace {

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

}  // namespace

Result<std::vector<Exclusion>> parse_exclusions(std::string_view text, std::string_view source) {
  std::vector<Exclusion> out;
  std::set<std::string> seen;
  std::size_t pos = 0;
  for (int n = 1; pos <= text.size(); ++n) {
    const std::size_t nl = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    const auto gap = line.find_first_of(" \t");
    Exclusion e;
    e.function = std::string(line.substr(0, gap));
    e.why = gap == std::string_view::npos ? std::string() : std::string(trim(line.substr(gap)));
    e.where = fmt::format("{}:{}", source, n);
    if (e.why.empty())
      return Error::make(Errc::kMalformed, "{}: {} has no reason: write FUNCTION REASON (why nothing of it is checked)",
                         e.where, e.function);
    if (!seen.insert(e.function).second)
      return Error::make(Errc::kMalformed, "{}: {} is listed twice", e.where, e.function);
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<Exclusion>> read_exclusions(const std::string& path) {
  // A list of a few dozen lines; 16 MiB bounds a wrong file named by mistake.
  LOCKSTEP_TRY(std::vector<std::uint8_t> bytes, read_file(path, 16u << 20));
  return parse_exclusions(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
}

Result<Exclusion> parse_exclude_flag(std::string_view text) {
  const auto eq = text.find('=');
  Exclusion e;
  e.where = "--exclude";
  e.function = std::string(trim(text.substr(0, eq)));
  if (eq != std::string_view::npos) e.why = std::string(trim(text.substr(eq + 1)));
  if (e.function.empty() || e.why.empty())
    return Error::make(Errc::kUsage, "--exclude {}: write FUNCTION=REASON (why nothing of it is checked)", text);
  return e;
}

Result<ExcludedFunctions> resolve_exclusions(const std::vector<Exclusion>& exclusions, const cases::Corpus& corpus) {
  ExcludedFunctions out;
  for (const Exclusion& e : exclusions) {
    const auto address = parse_address(e.function);
    const cases::CaseFile* file = nullptr;
    for (const auto& f : corpus.files)
      if (f.name == e.function || (address.ok() && f.function == *address)) file = &f;
    if (file == nullptr)
      return Error::make(Errc::kNotFound, "{}: the corpus holds no function {} (an exclusion must name one of its functions)",
                         e.where, e.function);
    if (!out.emplace(file->function, e.why).second)
      return Error::make(Errc::kMalformed, "{}: {} (0x{:08x}) is excluded twice", e.where, e.function, file->function);
  }
  return out;
}

}  // namespace lockstep::harness
