// libFuzzer target: the minidump reader on arbitrary bytes. Any input must give a Snapshot that
// passes validate() or an Error — never a crash, a sanitizer report or a huge allocation.
#include <cstddef>
#include <cstdint>
#include <span>

#include "lockstep/readers/minidump.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto snap = lockstep::harness::read_minidump(std::span(data, size), "fuzz.dmp");
  if (snap.ok() && !snap->validate().ok()) __builtin_trap();  // the reader promised a valid snapshot
  return 0;
}
