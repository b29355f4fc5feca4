// libFuzzer target: a corpus's manifest.json (cases/docs/case-format.md) on arbitrary text. An
// accepted manifest keeps the promises read_manifest makes (ascending addresses, counts that add up).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lockstep/cases/corpus.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lockstep::cases;
  auto m = decode_manifest(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (!m.ok()) return 0;
  if (m->functions.empty()) __builtin_trap();
  for (std::size_t i = 0; i < m->functions.size(); ++i) {
    const CorpusEntry& e = m->functions[i];
    if (e.poked > e.cases || e.cases > CaseFileLimits{}.max_cases || e.file.empty() || e.file.find('/') != std::string::npos)
      __builtin_trap();
    if (i > 0 && e.function <= m->functions[i - 1].function) __builtin_trap();
  }
  return 0;
}
