#include "lockstep/base/io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <utility>

namespace lockstep {

namespace {
Error os_error(std::string_view what, const std::filesystem::path& p) {
  const int e = errno;
  return Error::make(e == EACCES || e == EPERM ? Errc::kPermission : (e == ENOENT ? Errc::kNotFound : Errc::kIo),
                     "{} {}: {}", what, p.string(), std::strerror(e));
}
}  // namespace

Result<std::vector<std::uint8_t>> read_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return os_error("cannot open", path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    auto err = os_error("cannot stat", path);
    ::close(fd);
    return err;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error::make(Errc::kUsage, "{} is not a regular file", path.string());
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return Error::make(Errc::kLimit, "{} is {} bytes, past the limit of {} bytes", path.string(), st.st_size,
                       max_bytes);
  }
  std::vector<std::uint8_t> out(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      auto err = os_error("cannot read", path);
      ::close(fd);
      return err;
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(done);
  return out;
}

Status write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> data) {
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return os_error("cannot create", tmp);
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      auto err = os_error("cannot write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return err;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    auto err = os_error("cannot flush", tmp);
    ::unlink(tmp.c_str());
    return err;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    auto err = os_error("cannot rename onto", path);
    ::unlink(tmp.c_str());
    return err;
  }
  return {};
}

namespace {
// One compressor per thread and level: libdeflate's compressors are costly to set up (hundreds of
// KiB of match-finder tables) and not safe to share between threads.
libdeflate_compressor* compressor_for(int level) {
  struct Cache {
    std::array<libdeflate_compressor*, 13> by_level{};
    ~Cache() {
      for (auto* c : by_level)
        if (c) libdeflate_free_compressor(c);
    }
  };
  thread_local Cache cache;
  level = std::clamp(level, 0, 12);
  auto& c = cache.by_level[static_cast<std::size_t>(level)];
  if (!c) c = libdeflate_alloc_compressor(level);
  if (!c) throw std::bad_alloc();
  return c;
}
libdeflate_decompressor* decompressor() {
  struct Holder {
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    ~Holder() {
      if (d) libdeflate_free_decompressor(d);
    }
  };
  thread_local Holder holder;
  if (!holder.d) throw std::bad_alloc();
  return holder.d;
}
}  // namespace

std::vector<std::uint8_t> zlib_compress(std::span<const std::uint8_t> data, int level) {
  libdeflate_compressor* c = compressor_for(level);
  std::vector<std::uint8_t> out(libdeflate_zlib_compress_bound(c, data.size()));
  const std::size_t n = libdeflate_zlib_compress(c, data.data(), data.size(), out.data(), out.size());
  assert(n != 0 && "libdeflate cannot fail with a compress_bound buffer");
  out.resize(n);
  return out;
}

Result<std::vector<std::uint8_t>> zlib_decompress(std::span<const std::uint8_t> data, std::uint64_t expected_size,
                                                  std::string_view what) {
  if (expected_size > std::numeric_limits<std::size_t>::max())
    return Error::make(Errc::kLimit, "{}: announces {} bytes, more than this machine can address", what,
                       expected_size);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(expected_size));
  std::size_t produced = 0;
  // A buffer of exactly the announced size: a stream that would inflate to more stops with
  // INSUFFICIENT_SPACE, one that inflates to less reports its real size.
  const libdeflate_result rc =
      libdeflate_zlib_decompress(decompressor(), data.data(), data.size(), out.data(), out.size(), &produced);
  if (rc == LIBDEFLATE_SUCCESS && produced == expected_size) return out;
  if (rc == LIBDEFLATE_INSUFFICIENT_SPACE || rc == LIBDEFLATE_SUCCESS)
    return Error::make(Errc::kMalformed, "{}: compressed data inflates to {} bytes, not the {} announced", what,
                       rc == LIBDEFLATE_SUCCESS ? std::to_string(produced)
                                                : std::string("more than ") + std::to_string(expected_size),
                       expected_size);
  return Error::make(Errc::kMalformed, "{}: compressed data is corrupt or truncated (not a valid zlib stream)", what);
}

std::uint32_t crc32(std::span<const std::uint8_t> data, std::uint32_t seed) {
  return libdeflate_crc32(seed, data.data(), data.size());
}

// --- SHA-256 (FIPS 180-4), through OpenSSL's EVP interface (which picks the CPU's SHA extensions) ---
namespace {
EVP_MD_CTX* new_sha256_context() {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx);
    throw std::runtime_error("OpenSSL cannot set up a SHA-256 digest");
  }
  return ctx;
}
}  // namespace

Sha256::Sha256() : ctx_(new_sha256_context()) {}
Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }
Sha256::Sha256(Sha256&& o) noexcept : ctx_(std::exchange(o.ctx_, nullptr)) {}
Sha256& Sha256::operator=(Sha256&& o) noexcept {
  if (this != &o) {
    EVP_MD_CTX_free(ctx_);
    ctx_ = std::exchange(o.ctx_, nullptr);
  }
  return *this;
}

void Sha256::update(std::span<const std::uint8_t> data) {
  if (!data.empty() && EVP_DigestUpdate(ctx_, data.data(), data.size()) != 1)
    throw std::runtime_error("OpenSSL's SHA-256 update failed");
}

Sha256Digest Sha256::finish() {
  Sha256Digest out{};
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(ctx_, out.data(), &n) != 1 || n != out.size())
    throw std::runtime_error("OpenSSL's SHA-256 finish failed");
  return out;
}

Sha256Digest sha256(std::span<const std::uint8_t> data) {
  Sha256Digest out{};
  unsigned int n = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &n, EVP_sha256(), nullptr) != 1 || n != out.size())
    throw std::runtime_error("OpenSSL's SHA-256 failed");
  return out;
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (auto b : bytes) {
    s.push_back(kHex[b >> 4]);
    s.push_back(kHex[b & 15]);
  }
  return s;
}

}  // namespace lockstep
