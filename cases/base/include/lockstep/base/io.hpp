// Files: whole-file reads with a size limit, atomic writes (temp file + fsync + rename, so a failed
// or interrupted write never leaves a half-written output), zlib-format streams with bounded inflation
// (libdeflate), CRC-32, SHA-256 (OpenSSL).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX (kept out of this header)

namespace lockstep {

/// "a FIFO", "a directory", ... for a stat st_mode (messages).
const char* file_kind_name(unsigned mode);

/// kUsage unless `path` is a regular file (after following links); checked with stat, without
/// opening it, so a FIFO is refused instead of waited on. For readers that open the file themselves.
Status require_regular_file(const std::filesystem::path& path);

/// Reads a whole file; refuses anything but a regular file (kUsage: a FIFO, a device or a
/// directory is refused without waiting on it) and files larger than max_bytes (Errc::kLimit).
Result<std::vector<std::uint8_t>> read_file(const std::filesystem::path& path,
                                            std::uint64_t max_bytes = std::uint64_t{16} << 30);
/// The same, as text (a report, a list: bytes as they are, no encoding checked).
Result<std::string> read_text_file(const std::filesystem::path& path, std::uint64_t max_bytes);

/// Writes `data` to `path` atomically: PATH.tmp.<pid> is written, flushed and renamed over PATH,
/// so a failed or killed write leaves the old file or the new one. Only a regular file (or a new
/// name) is replaced that way: a character device, a FIFO or a socket (/dev/null, /dev/stdout,
/// /proc/self/fd/N) is written in place, a symlink to a file keeps the link and replaces the file,
/// a directory or a block device is refused (kUsage). Temp files left by killed writers of the
/// same output (PATH.tmp.<pid of a process that is gone>) are removed.
Status write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> data);
inline Status write_file_atomic(const std::filesystem::path& path, std::string_view data) {
  return write_file_atomic(path, std::span(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()));
}

/// Test seam for the writers' failure paths: from now on every `every`-th write(2) call made by
/// lockstep's file writers (write_file_atomic and what uses it: corpora, snapshots, reports) fails with
/// errno `error` (ENOSPC, EIO). 0 turns it off (the default: a normal run pays one relaxed load per
/// write); UINT64_MAX never fails but counts. Resets the count.
void set_write_fault(std::uint64_t every, int error);
/// write(2) calls counted since set_write_fault turned the seam on.
std::uint64_t write_calls();

/// What a path names on disk, links followed: the device and inode, so two names of one file (a
/// link, "./a" and "a", a bind mount) compare equal. nullopt when nothing is there.
struct FileIdentity {
  std::uint64_t device = 0, inode = 0;
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};
std::optional<FileIdentity> file_identity(const std::filesystem::path& path);

/// The temp name a writer of `path` uses beside it: "NAME.tmp.<pid>".
std::string temp_sibling_name(const std::filesystem::path& path);
/// Removes NAME<infix><pid> siblings of `path` (files or folders) whose process is gone: what
/// killed writers left. A running writer's are kept.
void remove_stale_temps(const std::filesystem::path& path, std::string_view infix = ".tmp.");

/// zlib (RFC 1950) compression at the given level (libdeflate's levels: 1..12; any zlib reads the
/// result). The bytes differ from zlib's own at the same level: compare decoded contents, not files.
std::vector<std::uint8_t> zlib_compress(std::span<const std::uint8_t> data, int level = 6);
/// Inflates exactly `expected_size` bytes; a stream that inflates to more or fewer is an error
/// (Errc::kMalformed), as is a corrupt stream. `what` names the input in messages.
Result<std::vector<std::uint8_t>> zlib_decompress(std::span<const std::uint8_t> data, std::uint64_t expected_size,
                                                  std::string_view what);

std::uint32_t crc32(std::span<const std::uint8_t> data, std::uint32_t seed = 0);

using Sha256Digest = std::array<std::uint8_t, 32>;
/// Incremental SHA-256 (FIPS 180-4): snapshot and executable identity in metadata and cases. OpenSSL
/// computes it (its EVP digest uses the CPU's SHA extensions where there are any).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(Sha256&& o) noexcept;
  Sha256& operator=(Sha256&& o) noexcept;
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::span<const std::uint8_t> data);
  /// The digest; the object is spent afterwards.
  Sha256Digest finish();

 private:
  evp_md_ctx_st* ctx_;
};
Sha256Digest sha256(std::span<const std::uint8_t> data);
std::string to_hex(std::span<const std::uint8_t> bytes);

}  // namespace lockstep
