// libFuzzer target: the profile reader (harness/docs/profile.md) on arbitrary text. An accepted
// profile names bytes without trouble: fields inside their structs, instances below 4 GiB.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lockstep/profile/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lockstep::harness;
  if (size > (1u << 16)) return 0;  // TOML parsing is not what is fuzzed past this size
  auto p = parse_profile(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.toml");
  if (!p.ok()) return 0;
  for (const StructSpec& s : p->structs) {
    if (s.size == 0) __builtin_trap();
    for (std::size_t i = 0; i < s.fields.size(); ++i) {
      const FieldSpec& f = s.fields[i];
      if (std::uint64_t{f.offset} + f.size > s.size) __builtin_trap();
      if (i > 0 && std::uint64_t{s.fields[i - 1].offset} + s.fields[i - 1].size > f.offset) __builtin_trap();
    }
  }
  for (const LabelSpec& l : p->labels)
    if (std::uint64_t{l.address} + l.size > (std::uint64_t{1} << 32)) __builtin_trap();
  return 0;
}
