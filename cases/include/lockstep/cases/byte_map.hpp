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
  /// Adds a run above every byte held and not touching the last run (the way a scan in address
  /// order builds a map: no search, no merge). Any other run goes through set().
  void append(GuestAddr a, std::span<const std::uint8_t> bytes);
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

  /// Calls f(base, bytes) for every run in address order, without copying.
  template <typename F>
  void for_each_run(F&& f) const {
    for (const auto& [base, bytes] : runs_) f(base, std::span<const std::uint8_t>(bytes));
  }

  /// Lookups at ascending addresses in amortised constant time (a comparison walks two maps in step).
  class Cursor {
   public:
    explicit Cursor(const ByteMap& m) : end_(m.runs_.end()), it_(m.runs_.begin()) {}
    /// The byte at a; a must not be below the address of the previous call.
    std::optional<std::uint8_t> get(GuestAddr a) {
      while (it_ != end_ && it_->first + std::uint64_t{it_->second.size()} <= a) ++it_;
      if (it_ == end_ || a < it_->first) return std::nullopt;
      return it_->second[a - it_->first];
    }
    /// The n bytes at a when one run holds them all, else nullptr; a as for get().
    const std::uint8_t* bytes_at(GuestAddr a, std::size_t n) {
      if (!get(a)) return nullptr;
      return std::uint64_t{a} + n <= it_->first + std::uint64_t{it_->second.size()}
                 ? it_->second.data() + (a - it_->first)
                 : nullptr;
    }

   private:
    std::map<GuestAddr, std::vector<std::uint8_t>>::const_iterator end_, it_;
  };

  friend bool operator==(const ByteMap& a, const ByteMap& b) { return a.runs_ == b.runs_; }

 private:
  // base → bytes; invariant: runs neither overlap nor touch (touching runs are merged).
  std::map<GuestAddr, std::vector<std::uint8_t>> runs_;
};

}  // namespace lockstep::cases
