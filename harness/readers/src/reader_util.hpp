// Private helpers shared by the minidump, ELF core and PE32 readers: assembling guest ranges that may
// overlap into the snapshot's sorted, non-overlapping regions; x87 state from FSAVE and FXSAVE images;
// UTF-16 names.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness::readers {

inline constexpr std::uint64_t kAddressSpaceEnd = std::uint64_t{1} << 32;  ///< one past the last 32-bit address

/// Collects guest ranges in priority order. A range added later never replaces bytes an earlier range
/// holds: only the parts no earlier range covers are kept (so the result is the same for the same
/// input, whatever the overlap). Each overlap is noted, with how many bytes differed.
class RangeAssembler {
 public:
  /// `notes` receives one line per overlap (at most kMaxOverlapNotes, then a count).
  explicit RangeAssembler(std::vector<std::string>* notes) : notes_(notes) {}

  /// Adds `bytes` at guest address `base`. A range that wraps past 4 GiB is an error (kMalformed);
  /// `name` says where it came from ("minidump MemoryList #2").
  Status add(std::uint64_t base, std::span<const std::uint8_t> bytes, std::uint8_t prot, const std::string& name);

  /// The regions, sorted by base, non-overlapping; also appends the overlap summary note.
  std::vector<Region> take();

  static constexpr int kMaxOverlapNotes = 16;

 private:
  std::map<std::uint64_t, Region> regions_;  // keyed by base
  std::vector<std::string>* notes_;
  std::uint64_t overlaps_ = 0;
};

/// Splits the regions of `regions` at the boundaries of [begin, end) and sets `prot` inside it.
/// Regions must be sorted and non-overlapping; they stay so.
void set_protection(std::vector<Region>& regions, std::uint64_t begin, std::uint64_t end, std::uint8_t prot);

/// A guest range with one protection (from a MemoryInfoList, PE sections, ...).
struct ProtRange {
  std::uint64_t begin = 0, end = 0;
  std::uint8_t prot = 0;
};

/// Applies `ranges` (sorted by begin, non-overlapping) to `regions` (sorted, non-overlapping) in one
/// merge pass, splitting regions at range boundaries. Bytes no range covers keep their protection;
/// their count is returned.
std::uint64_t apply_protection_map(std::vector<Region>& regions, const std::vector<ProtRange>& ranges);

/// x87 state from an FSAVE image laid out as Linux's user_i387_struct / Windows' FLOATING_SAVE_AREA:
/// cwd, swd, twd, fip, fcs, foo, fos as 4-byte fields, then 80 bytes of ST(0)..ST(7). MXCSR is left at
/// its default (FSAVE has none). Precondition: image.size() >= 108.
X87State x87_from_fsave(std::span<const std::uint8_t> image);

/// UTF-16LE → UTF-8; unpaired surrogates become U+FFFD. An odd trailing byte is ignored.
std::string utf16le_to_utf8(std::span<const std::uint8_t> bytes);

/// Little-endian loads from a span the caller has already bounds-checked.
inline std::uint16_t le16(std::span<const std::uint8_t> b, std::size_t off) {
  return static_cast<std::uint16_t>(b[off] | (b[off + 1] << 8));
}
inline std::uint32_t le32(std::span<const std::uint8_t> b, std::size_t off) {
  return std::uint32_t{b[off]} | (std::uint32_t{b[off + 1]} << 8) | (std::uint32_t{b[off + 2]} << 16) |
         (std::uint32_t{b[off + 3]} << 24);
}
inline std::uint64_t le64(std::span<const std::uint8_t> b, std::size_t off) {
  return std::uint64_t{le32(b, off)} | (std::uint64_t{le32(b, off + 4)} << 32);
}

}  // namespace lockstep::harness::readers
