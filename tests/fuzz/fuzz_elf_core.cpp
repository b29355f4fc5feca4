// libFuzzer target: the ELF core reader on arbitrary bytes (no refilling from files: the input alone).
#include <cstddef>
#include <cstdint>
#include <span>

#include "lockstep/harness/elf_core.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  lockstep::harness::ElfCoreOptions options;
  options.refill_from_files = false;
  auto core = lockstep::harness::read_elf_core(std::span(data, size), "fuzz.core", options);
  if (core.ok() && !core->snapshot.validate().ok()) __builtin_trap();
  return 0;
}
