// libFuzzer target: the ELF readers on arbitrary bytes — the core reader (no refilling from files: the
// input alone) and the executable reader (an ELF32 executable mapped alone); both share the magic.
#include <cstddef>
#include <cstdint>
#include <span>

#include "lockstep/readers/elf_core.hpp"
#include "lockstep/readers/elf_exec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  lockstep::harness::ElfCoreOptions options;
  options.refill_from_files = false;
  auto core = lockstep::harness::read_elf_core(std::span(data, size), "fuzz.core", options);
  if (core.ok() && !core->snapshot.validate().ok()) __builtin_trap();
  auto exe = lockstep::harness::parse_elf_executable(std::span(data, size), "fuzz.elf");
  if (exe.ok() && !lockstep::harness::snapshot_from_elf_executable(*exe).validate().ok()) __builtin_trap();
  return 0;
}
