// libFuzzer target: lockstep's own snapshot file (harness/docs/snapshot-format.md) on arbitrary bytes.
// A file the reader accepts must hold a valid snapshot, and writing it again must give a file that
// reads back to the same snapshot.
#include <cstddef>
#include <cstdint>
#include <span>

#include "lockstep/snapshot/snapshot_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lockstep::harness;
  auto snap = decode_snapshot(std::span(data, size), "fuzz.lks");
  if (!snap.ok()) return 0;
  if (!snap->validate().ok()) __builtin_trap();
  SnapshotWriteOptions fast;
  fast.zlib_level = 1;
  auto again = decode_snapshot(encode_snapshot(*snap, fast), "again.lks");
  if (!again.ok() || again->content_sha256() != snap->content_sha256()) __builtin_trap();
  return 0;
}
