// Files: whole-file reads with a size limit, atomic writes (temp file + fsync + rename, so a failed
// or interrupted write never leaves a half-written output), zlib-format streams with bounded inflation
// (libdeflate), CRC-32, SHA-256 (OpenSSL).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX (kept out of this header)

namespace lockstep {

/// Reads a whole file; refuses files larger than max_bytes (Errc::kLimit).
Result<std::vector<std::uint8_t>> read_file(const std::filesystem::path& path,
                                            std::uint64_t max_bytes = std::uint64_t{16} << 30);

/// Writes `data` to `path` atomically: PATH.tmp.<pid> is written, flushed and renamed over PATH.
Status write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> data);
inline Status write_file_atomic(const std::filesystem::path& path, std::string_view data) {
  return write_file_atomic(path, std::span(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()));
}

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
