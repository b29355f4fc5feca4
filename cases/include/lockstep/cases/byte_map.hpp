// ByteMap: a set of (guest address → byte), kept as sorted, non-adjacent runs. The unit every case is
// made of: the bytes a call read before writing them, the bytes it wrote.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace lockstep::cases {

using GuestAddr = std::uint32_t;  ///< a 32-bit guest virtual address

class ByteMap {
 public:
  struct Run {
    GuestAddr base = 0;
    std::vector<std::uint8_t> bytes;
    std::uint64_t end() const noexcept { return std::uint64_t{base} + bytes.size(); }
  };

  /// Sets one byte (overwrites).
  void set(GuestAddr a, std::uint8_t v);
  /// Sets bytes [a, a + bytes.size()); must not wrap past 4 GiB.
  void set(GuestAddr a, std::span<const std::uint8_t> bytes);
  /// Sets only the bytes not already present (first value wins: "read before written").
  void set_if_absent(GuestAddr a, std::span<const std::uint8_t> bytes);
  std::optional<std::uint8_t> get(GuestAddr a) const;
  bool contains(GuestAddr a) const { return get(a).has_value(); }
  /// True when every byte of [a, a+n) is present.
  bool contains_all(GuestAddr a, std::uint32_t n) const;
  void erase(GuestAddr a);

  std::size_t byte_count() const noexcept;  ///< number of bytes held
  bool empty() const noexcept { return runs_.empty(); }
  void clear() noexcept { runs_.clear(); }

  /// The runs, ascending by address, never adjacent or overlapping.
  std::vector<Run> runs() const;
  /// Calls f(address, byte) for every byte in address order.
  template <typename F>
  void for_each(F&& f) const {
    for (const auto& [base, bytes] : runs_)
      for (std::size_t i = 0; i < bytes.size(); ++i) f(static_cast<GuestAddr>(base + i), bytes[i]);
  }

  friend bool operator==(const ByteMap& a, const ByteMap& b) { return a.runs_ == b.runs_; }

 private:
  // base → bytes; invariant: runs neither overlap nor touch (touching runs are merged).
  std::map<GuestAddr, std::vector<std::uint8_t>> runs_;
};

}  // namespace lockstep::cases
