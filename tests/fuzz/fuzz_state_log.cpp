// libFuzzer target: the state log (capture/docs/state-log.md) on arbitrary bytes. An accepted log
// re-encodes to a log that decodes to the same records.
#include <cstddef>
#include <cstdint>
#include <span>

#include "lockstep/capture/state_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lockstep::capture;
  StateLogLimits limits;
  limits.max_records = 100000;
  auto log = decode_state_log(std::span(data, size), "fuzz.log", limits);
  if (!log.ok()) return 0;
  auto again = decode_state_log(encode_state_log(*log), "again.log", limits);
  if (!again.ok() || again->records != log->records) __builtin_trap();
  return 0;
}
