// Files: whole-file reads with a size limit, atomic writes (temp file + fsync + rename, so a failed
// or interrupted write never leaves a half-written output), zlib with bounded inflation, SHA-256.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"

namespace lockstep {

/// Reads a whole file; refuses files larger than max_bytes (Errc::kLimit).
Result<std::vector<std::uint8_t>> read_file(const std::filesystem::path& path,
                                            std::uint64_t max_bytes = std::uint64_t{16} << 30);

/// Writes `data` to `path` atomically: PATH.tmp.<pid> is written, flushed and renamed over PATH.
Status write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> data);
inline Status write_file_atomic(const std::filesystem::path& path, std::string_view data) {
  return write_file_atomic(path, std::span(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()));
}

/// zlib (RFC 1950) compression at the given level.
std::vector<std::uint8_t> zlib_compress(std::span<const std::uint8_t> data, int level = 6);
/// Inflates exactly `expected_size` bytes; a stream that inflates to more or fewer is an error
/// (Errc::kMalformed), as is a corrupt stream. `what` names the input in messages.
Result<std::vector<std::uint8_t>> zlib_decompress(std::span<const std::uint8_t> data, std::uint64_t expected_size,
                                                  std::string_view what);

std::uint32_t crc32(std::span<const std::uint8_t> data, std::uint32_t seed = 0);

using Sha256Digest = std::array<std::uint8_t, 32>;
/// Incremental SHA-256 (FIPS 180-4): snapshot and executable identity in metadata and cases.
class Sha256 {
 public:
  Sha256();
  void update(std::span<const std::uint8_t> data);
  Sha256Digest finish();

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buf_{};
  std::uint64_t len_ = 0;
  std::size_t fill_ = 0;
};
Sha256Digest sha256(std::span<const std::uint8_t> data);
std::string to_hex(std::span<const std::uint8_t> bytes);

}  // namespace lockstep
