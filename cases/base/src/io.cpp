#include "lockstep/base/io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>
#include <openssl/evp.h>

#include <signal.h>

#include <algorithm>
#include <atomic>
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

const char* file_kind_name(unsigned mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a file";
}

std::optional<FileIdentity> file_identity(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

Status require_regular_file(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return os_error("cannot open", path);
  if (!S_ISREG(st.st_mode))
    return Error::make(Errc::kUsage, "{} is not a regular file (it is {}); give a file", path.string(),
                       file_kind_name(st.st_mode));
  return {};
}

Result<std::vector<std::uint8_t>> read_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; the kind is
  // checked on the open descriptor (no window between a stat and the open). Regular files ignore it.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return os_error("cannot open", path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    auto err = os_error("cannot stat", path);
    ::close(fd);
    return err;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error::make(Errc::kUsage, "{} is not a regular file (it is {}); give a file", path.string(),
                       file_kind_name(st.st_mode));
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

Result<std::string> read_text_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  LOCKSTEP_TRY(auto bytes, read_file(path, max_bytes));
  return std::string(bytes.begin(), bytes.end());
}

namespace {

// The test seam (set_write_fault): 0 = off, the one relaxed load a write costs in a normal run.
std::atomic<std::uint64_t> g_fault_every{0};
std::atomic<int> g_fault_errno{0};
std::atomic<std::uint64_t> g_fault_calls{0};

/// ::write, or the failure a test asked for at every k-th call.
ssize_t write_or_fault(int fd, const void* data, std::size_t size) {
  const std::uint64_t every = g_fault_every.load(std::memory_order_relaxed);
  if (every != 0 && (g_fault_calls.fetch_add(1, std::memory_order_relaxed) + 1) % every == 0) {
    errno = g_fault_errno.load(std::memory_order_relaxed);
    return -1;
  }
  return ::write(fd, data, size);
}

Status write_all(int fd, std::span<const std::uint8_t> data, const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write_or_fault(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_error("cannot write", path);
    }
    done += static_cast<std::size_t>(n);
  }
  return {};
}

/// A stream-like target (character device such as /dev/null or a terminal, a FIFO, a socket; also
/// what /proc/self/fd/N and /dev/stdout lead to): written in place. Renaming a file onto it would
/// replace the device node or the link instead of writing to it.
Status write_in_place(const std::filesystem::path& path, std::span<const std::uint8_t> data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return os_error("cannot open", path);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode)) {
    ::close(fd);
    return Error::make(Errc::kIo, "{} changed while it was being opened; not written", path.string());
  }
  auto st_write = write_all(fd, data, path);
  if (::close(fd) != 0 && st_write.ok()) return os_error("cannot write", path);
  return st_write;
}

}  // namespace

void set_write_fault(std::uint64_t every, int error) {
  g_fault_errno.store(error, std::memory_order_relaxed);
  g_fault_calls.store(0, std::memory_order_relaxed);
  g_fault_every.store(every, std::memory_order_relaxed);
}

std::uint64_t write_calls() { return g_fault_calls.load(std::memory_order_relaxed); }

std::string temp_sibling_name(const std::filesystem::path& path) {
  return path.filename().string() + ".tmp." + std::to_string(::getpid());
}

void remove_stale_temps(const std::filesystem::path& path, std::string_view infix) {
  const std::filesystem::path dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  const std::string prefix = path.filename().string() + std::string(infix);
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix)) continue;
    const std::string pid_text = name.substr(prefix.size());
    if (pid_text.empty() || pid_text.size() > 9 ||
        !std::all_of(pid_text.begin(), pid_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    const pid_t pid = static_cast<pid_t>(std::stol(pid_text));
    // Only a writer that is gone: a running one (another lockstep writing the same output) keeps its file.
    if (pid == ::getpid() || (::kill(pid, 0) != 0 && errno == ESRCH)) {
      std::error_code rm;
      std::filesystem::remove_all(it->path(), rm);
    }
  }
}

Status write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> data) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode))
      return Error::make(Errc::kUsage, "{} is {}; an output must be a file, a FIFO or a character device",
                         path.string(), file_kind_name(st.st_mode));
    if (!S_ISREG(st.st_mode)) return write_in_place(path, data);
  }
  // A symlink to a regular file: the file it names is replaced, the link stays.
  std::filesystem::path target = path;
  std::error_code ec;
  if (std::filesystem::is_symlink(path, ec)) {
    auto resolved = std::filesystem::canonical(path, ec);
    if (!ec) target = resolved;
  }
  remove_stale_temps(target);
  std::filesystem::path tmp = target;
  tmp.replace_filename(temp_sibling_name(target));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return os_error("cannot create", tmp);
  if (auto w = write_all(fd, data, tmp); !w.ok()) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return w;
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    auto err = os_error("cannot flush", tmp);
    ::unlink(tmp.c_str());
    return err;
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    auto err = os_error("cannot rename onto", target);
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
