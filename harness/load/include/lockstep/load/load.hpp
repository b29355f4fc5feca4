// Loading and saving whole-process snapshots by path, whatever the format: the one entry point the
// CLI and the machine use. The format is detected from the file's first bytes, never its name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

#include "lockstep/base/result.hpp"
#include "lockstep/snapshot/snapshot.hpp"
#include "lockstep/snapshot/snapshot_file.hpp"

namespace lockstep::harness {

/// The snapshot formats load_snapshot() recognises by magic.
enum class SnapshotFormat {
  kUnknown,
  kLockstep,  ///< "LKSNAP\r\n": lockstep's own file (snapshot_file.hpp)
  kMinidump,  ///< "MDMP": a Windows minidump
  kElfCore,   ///< 7f 'E' 'L' 'F', e_type ET_CORE: a Linux ELF core
  kElfExec,   ///< 7f 'E' 'L' 'F', any other e_type: an ELF32 executable alone (elf_exec.hpp: a synthesized thread)
  kPe32,      ///< "MZ": a PE32 image alone (pe32.hpp snapshot_from_image: a synthesized thread)
};

const char* snapshot_format_name(SnapshotFormat f) noexcept;  ///< "lockstep", "minidump", "elf-core", "pe32", "unknown"

/// The format whose magic `first_bytes` starts with (kUnknown if none, or too few bytes).
SnapshotFormat detect_snapshot_format(std::span<const std::uint8_t> first_bytes) noexcept;

/// Bounds on a file load_snapshot() reads, of any format (Errc::kLimit past them); each format's
/// reader has its own limits inside it (SnapshotLimits, MinidumpLimits, ...).
struct LoadLimits {
  std::uint64_t max_file_bytes = std::uint64_t{6} << 30;  ///< a full 32-bit space plus tables and headers
};

/// Reads a snapshot of any recognised format. An unrecognised magic is Errc::kBadMagic naming the
/// first bytes; a file shorter than any magic is Errc::kTruncated. The result satisfies validate().
Result<Snapshot> load_snapshot(const std::filesystem::path& path, const LoadLimits& limits = {});

/// Same, from bytes already in memory (`what` names them in messages).
Result<Snapshot> decode_any_snapshot(std::span<const std::uint8_t> bytes, std::string_view what);

/// Writes `snapshot` in lockstep's own format, atomically (temp file + rename: never half-written).
/// Refuses (Errc::kMalformed / kLimit) a snapshot that fails validate() or exceeds the file's limits.
Status save_snapshot(const Snapshot& snapshot, const std::filesystem::path& path,
                     const SnapshotWriteOptions& options = {});

}  // namespace lockstep::harness
