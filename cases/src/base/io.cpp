#include "lockstep/base/io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

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

namespace {

Status write_all(int fd, std::span<const std::uint8_t> data, const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
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

std::vector<std::uint8_t> zlib_compress(std::span<const std::uint8_t> data, int level) {
  uLongf bound = compressBound(static_cast<uLong>(data.size()));
  std::vector<std::uint8_t> out(bound);
  int rc = compress2(out.data(), &bound, data.data(), static_cast<uLong>(data.size()), level);
  assert(rc == Z_OK && "zlib compress2 cannot fail with a compressBound buffer");
  (void)rc;
  out.resize(bound);
  return out;
}

Result<std::vector<std::uint8_t>> zlib_decompress(std::span<const std::uint8_t> data, std::uint64_t expected_size,
                                                  std::string_view what) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(expected_size));
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) return Error::make(Errc::kIo, "{}: zlib inflateInit failed", what);
  zs.next_in = const_cast<Bytef*>(data.data());
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&zs, Z_FINISH);
  std::uint64_t produced = zs.total_out;
  bool more_output = (rc == Z_BUF_ERROR && zs.avail_out == 0);
  std::string zmsg = zs.msg ? zs.msg : std::to_string(rc);
  inflateEnd(&zs);
  if (rc == Z_STREAM_END && produced == expected_size) return out;
  if (more_output || (rc == Z_STREAM_END && produced != expected_size))
    return Error::make(Errc::kMalformed, "{}: compressed data inflates to {} bytes, not the {} announced", what,
                       more_output ? std::string("more than ") + std::to_string(expected_size)
                                   : std::to_string(produced),
                       expected_size);
  return Error::make(Errc::kMalformed, "{}: compressed data is corrupt or truncated (zlib: {})", what, zmsg);
}

std::uint32_t crc32(std::span<const std::uint8_t> data, std::uint32_t seed) {
  return static_cast<std::uint32_t>(::crc32(seed, data.data(), static_cast<uInt>(data.size())));
}

// --- SHA-256 (FIPS 180-4) ---
namespace {
constexpr std::uint32_t kK[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
}  // namespace

Sha256::Sha256()
    : h_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {}

void Sha256::block(const std::uint8_t* p) {
  std::uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = (std::uint32_t{p[4 * i]} << 24) | (std::uint32_t{p[4 * i + 1]} << 16) |
           (std::uint32_t{p[4 * i + 2]} << 8) | p[4 * i + 3];
  for (int i = 16; i < 64; ++i) {
    std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
  for (int i = 0; i < 64; ++i) {
    std::uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kK[i] + w[i];
    std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  h_[0] += a; h_[1] += b; h_[2] += c; h_[3] += d; h_[4] += e; h_[5] += f; h_[6] += g; h_[7] += h;
}

void Sha256::update(std::span<const std::uint8_t> data) {
  len_ += data.size();
  std::size_t i = 0;
  if (fill_) {
    while (fill_ < 64 && i < data.size()) buf_[fill_++] = data[i++];
    if (fill_ < 64) return;
    block(buf_.data());
    fill_ = 0;
  }
  for (; i + 64 <= data.size(); i += 64) block(data.data() + i);
  while (i < data.size()) buf_[fill_++] = data[i++];
}

Sha256Digest Sha256::finish() {
  std::uint64_t bits = len_ * 8;
  std::uint8_t pad = 0x80;
  update({&pad, 1});
  std::uint8_t zero = 0;
  while (fill_ != 56) update({&zero, 1});
  std::uint8_t lenb[8];
  for (int i = 0; i < 8; ++i) lenb[i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
  update({lenb, 8});
  Sha256Digest out{};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<std::uint8_t>(h_[i] >> (24 - 8 * j));
  return out;
}

Sha256Digest sha256(std::span<const std::uint8_t> data) {
  Sha256 s;
  s.update(data);
  return s.finish();
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
