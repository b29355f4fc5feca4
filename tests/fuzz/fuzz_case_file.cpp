// libFuzzer target: the case file (cases/docs/case-format.md) on arbitrary bytes. An accepted file
// re-encodes to a file that decodes to the same cases.
#include <cstddef>
#include <cstdint>
#include <span>

#include "lockstep/cases/case_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lockstep::cases;
  auto f = decode_case_file(std::span(data, size), "fuzz.lkcases");
  if (!f.ok()) return 0;
  auto again = decode_case_file(encode_case_file(*f), "again.lkcases");
  if (!again.ok() || again->cases != f->cases || again->function != f->function || again->name != f->name ||
      again->code != f->code)
    __builtin_trap();
  return 0;
}
