// lockstep's own snapshot file (".lks"): one zlib-compressed file holding everything in the Snapshot
// model, with a CRC-32 per region. The byte-by-byte layout is in harness/docs/snapshot-format.md.
//
// Reading is for untrusted input: every count and size is checked against the named limits below
// before anything is allocated, and a malformed file gives an Error naming what and where
// (kTruncated, kBadMagic, kBadVersion, kMalformed, kLimit, kChecksum) — never a crash.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness {

/// The first 8 bytes of every lockstep snapshot: "LKSNAP\r\n" (the CR LF catches text-mode mangling).
inline constexpr std::array<std::uint8_t, 8> kSnapshotMagic = {'L', 'K', 'S', 'N', 'A', 'P', '\r', '\n'};
/// The version this build writes: 2 adds the process's LDT entries after the threads.
inline constexpr std::uint32_t kSnapshotVersion = 2;
/// The oldest version this build still reads (version 1: no LDT; it reads as an empty one).
inline constexpr std::uint32_t kSnapshotOldestVersion = 1;
/// Size of the fixed, uncompressed header in bytes.
inline constexpr std::size_t kSnapshotHeaderSize = 48;

/// Bounds on a snapshot file, an untrusted input (Errc::kLimit past them): they bound what a hostile
/// file can make the reader allocate, and the defaults are far above any real 32-bit process. Limits
/// are a struct per file format, as the readers' (Pe32Limits, MinidumpLimits, CaseFileLimits): a
/// caller or test that needs another bound passes its own.
struct SnapshotLimits {
  std::uint32_t max_regions = 65536;                        ///< Linux's default vm.max_map_count is 65530
  std::uint32_t max_threads = 4096;
  std::uint64_t max_total_bytes = std::uint64_t{1} << 32;   ///< the whole 32-bit space
  std::uint32_t max_info_bytes = 64u << 20;                 ///< the uncompressed table block
  std::uint32_t max_name_bytes = 4096;                      ///< a region or module name, a path
  std::uint32_t max_modules = 65536;
  std::uint32_t max_notes = 65536;
  std::uint32_t max_note_bytes = 65536;                     ///< one metadata note
};
/// zlib's deflate cannot compress better than about 1032:1, so a region claiming to inflate to more
/// than this many times its stored size is malformed (and would only make the reader allocate).
inline constexpr std::uint64_t kSnapshotMaxInflateRatio = 1032;

/// How a snapshot is written. Defaults are what `lockstep snapshot` uses.
struct SnapshotWriteOptions {
  int zlib_level = 6;  ///< 0 (store) .. 9 (smallest); 1 is much faster on a several-hundred-MB process
  /// The version to write: kSnapshotVersion, or 1 for readers that predate the LDT (save_snapshot()
  /// refuses version 1 for a snapshot that has LDT entries: they would be lost).
  std::uint32_t version = kSnapshotVersion;
};

/// True when `first_bytes` starts with kSnapshotMagic.
bool is_lockstep_snapshot(std::span<const std::uint8_t> first_bytes) noexcept;

/// Serialises a snapshot to the file format, as is. Does not validate: tests use it to build files
/// with overlapping or unsorted regions. save_snapshot() (load.hpp) validates first; use that.
/// Precondition: counts and sizes within SnapshotLimits' defaults (a reader would refuse the file otherwise).
std::vector<std::uint8_t> encode_snapshot(const Snapshot& snapshot, const SnapshotWriteOptions& options = {});

/// Parses a whole file. `what` names the input in error messages (usually the path).
/// The result satisfies Snapshot::validate().
Result<Snapshot> decode_snapshot(std::span<const std::uint8_t> file, std::string_view what,
                                 const SnapshotLimits& limits = {});

}  // namespace lockstep::harness
