// libFuzzer target: the PE32 reader on arbitrary bytes; a parsed image is also laid out alone and
// mapped over a copy of its sections whose bytes were flipped (every mapper path: replace, keep, report).
#include <cstddef>
#include <cstdint>
#include <span>

#include "lockstep/readers/pe32.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lockstep::harness;
  Pe32Limits limits;
  limits.max_image_size = 16u << 20;  // keep each run's allocations small
  auto img = parse_pe32(std::span(data, size), "fuzz.exe", limits);
  if (!img.ok()) return 0;
  (void)img->import_labels();
  if (!snapshot_from_image(*img).validate().ok()) __builtin_trap();  // the image with its synthesized thread
  Snapshot snap = snapshot_of_image_sections(*img);
  if (!snap.validate().ok()) __builtin_trap();
  for (std::size_t i = 0; i < snap.regions.size(); i += 2) {
    Region& r = snap.regions[i];
    r.bytes[r.bytes.size() / 2] ^= 0xFF;
    r.prot = kProtRead | kProtWrite;
  }
  if (!snap.regions.empty()) snap.regions.pop_back();  // one range the snapshot lacks
  auto rep = map_image_over(snap, *img);
  if (!rep.ok() || !snap.validate().ok()) __builtin_trap();
  return 0;
}
