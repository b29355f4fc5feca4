// Bounds-checked little-endian reading of untrusted bytes (files, dumps, cases). Every offset read
// from a file goes through here, so a truncated or hostile file gives an Error, never a wild read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "lockstep/base/result.hpp"

namespace lockstep {

/// A view of bytes with a cursor. `what` names the input in error messages ("minidump2.dmp").
class ByteReader {
 public:
  ByteReader(std::span<const std::uint8_t> bytes, std::string what)
      : bytes_(bytes), what_(std::move(what)) {}

  std::size_t size() const noexcept { return bytes_.size(); }
  std::size_t pos() const noexcept { return pos_; }
  std::size_t remaining() const noexcept { return bytes_.size() - pos_; }
  const std::string& what() const noexcept { return what_; }
  std::span<const std::uint8_t> bytes() const noexcept { return bytes_; }

  Status seek(std::uint64_t off) {
    if (off > bytes_.size())
      return Error::make(Errc::kTruncated, "{}: offset 0x{:x} is past the end (size 0x{:x})", what_, off,
                         bytes_.size());
    pos_ = static_cast<std::size_t>(off);
    return {};
  }
  Status skip(std::uint64_t n) { return seek(pos_ + n > pos_ ? pos_ + n : ~std::uint64_t{0}); }

  /// A sub-span [off, off+n) of the whole input, checked (no cursor change).
  Result<std::span<const std::uint8_t>> slice(std::uint64_t off, std::uint64_t n, std::string_view field) const {
    if (off > bytes_.size() || n > bytes_.size() - off)
      return Error::make(Errc::kTruncated, "{}: {} at offset 0x{:x} (0x{:x} bytes) runs past the end (size 0x{:x})",
                         what_, field, off, n, bytes_.size());
    return bytes_.subspan(static_cast<std::size_t>(off), static_cast<std::size_t>(n));
  }

  /// Reads n bytes at the cursor.
  Result<std::span<const std::uint8_t>> take(std::uint64_t n, std::string_view field) {
    auto s = slice(pos_, n, field);
    if (s.ok()) pos_ += static_cast<std::size_t>(n);
    return s;
  }

  template <typename T>
  Result<T> read(std::string_view field) {
    static_assert(std::is_trivially_copyable_v<T>);
    auto s = take(sizeof(T), field);
    if (!s.ok()) return std::move(s).error();
    T v;
    std::memcpy(&v, s->data(), sizeof(T));  // hosts are little-endian (x86-64, aarch64)
    return v;
  }
  template <typename T>
  Result<T> read_at(std::uint64_t off, std::string_view field) const {
    auto s = slice(off, sizeof(T), field);
    if (!s.ok()) return std::move(s).error();
    T v;
    std::memcpy(&v, s->data(), sizeof(T));
    return v;
  }

  Result<std::uint8_t> u8(std::string_view f) { return read<std::uint8_t>(f); }
  Result<std::uint16_t> u16(std::string_view f) { return read<std::uint16_t>(f); }
  Result<std::uint32_t> u32(std::string_view f) { return read<std::uint32_t>(f); }
  Result<std::uint64_t> u64(std::string_view f) { return read<std::uint64_t>(f); }

  /// A length-prefixed (u32) string, at most max_len bytes.
  Result<std::string> str32(std::string_view field, std::uint32_t max_len = 1u << 16) {
    LOCKSTEP_TRY(std::uint32_t n, u32(field));
    if (n > max_len)
      return Error::make(Errc::kLimit, "{}: {} at offset 0x{:x} is {} bytes long, past the limit of {}", what_,
                         field, pos_ - 4, n, max_len);
    LOCKSTEP_TRY(auto s, take(n, field));
    return std::string(reinterpret_cast<const char*>(s.data()), s.size());
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
  std::string what_;
};

/// Little-endian appending writer.
class ByteWriter {
 public:
  std::string& out() noexcept { return out_; }
  const std::string& out() const noexcept { return out_; }
  std::size_t size() const noexcept { return out_.size(); }
  template <typename T>
  void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out_.append(b, sizeof(T));
  }
  void u8(std::uint8_t v) { put(v); }
  void u16(std::uint16_t v) { put(v); }
  void u32(std::uint32_t v) { put(v); }
  void u64(std::uint64_t v) { put(v); }
  void bytes(std::span<const std::uint8_t> b) { out_.append(reinterpret_cast<const char*>(b.data()), b.size()); }
  void str32(std::string_view s) { u32(static_cast<std::uint32_t>(s.size())); out_.append(s); }

 private:
  std::string out_;
};

}  // namespace lockstep
