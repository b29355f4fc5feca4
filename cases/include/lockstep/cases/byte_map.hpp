// ByteMap: a set of (guest address → byte), kept as sorted, non-adjacent runs. The unit every case is
// made of: the bytes a call read before writing them, the bytes it wrote.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "lockstep/cases/cpu.hpp"

namespace lockstep::cases {

class ByteMap {
  // A run as stored: bytes_[offset, offset + size) at guest addresses [base, base + size) (Run and
  // RunView are its public faces).
  struct Span {
    GuestAddr base;
    std::size_t size;  // up to 2^32 (the whole guest space)
    std::size_t offset;
    std::uint64_t end() const noexcept { return std::uint64_t{base} + size; }
  };

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
  /// Adds a run above every byte held (the way a scan in address order builds a map: no search, no
  /// merge; a run that touches the last one extends it). Any other run goes through set().
  void append(GuestAddr a, std::span<const std::uint8_t> bytes);
  std::optional<std::uint8_t> get(GuestAddr a) const;
  bool contains(GuestAddr a) const { return get(a).has_value(); }
  /// True when every byte of [a, a+n) is present.
  bool contains_all(GuestAddr a, std::uint32_t n) const;
  void erase(GuestAddr a);

  std::size_t byte_count() const noexcept { return live_; }  ///< number of bytes held
  bool empty() const noexcept { return spans_.empty(); }
  void clear() noexcept {
    spans_.clear();
    bytes_.clear();
    live_ = 0;
  }
  /// Makes room for `runs` runs of `bytes` bytes in all (a map about to be filled by append()).
  void reserve(std::size_t runs, std::size_t bytes) {
    spans_.reserve(runs);
    bytes_.reserve(bytes);
  }

  /// The runs, ascending by address, never adjacent or overlapping (copies; for_each_run and
  /// run() do not copy).
  std::vector<Run> runs() const;
  /// Calls f(address, byte) for every byte in address order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Span& s : spans_)
      for (std::size_t i = 0; i < s.size; ++i) f(static_cast<GuestAddr>(s.base + i), bytes_[s.offset + i]);
  }

  /// Calls f(base, bytes) for every run in address order, without copying.
  template <typename F>
  void for_each_run(F&& f) const {
    for (const Span& s : spans_) f(s.base, std::span<const std::uint8_t>(bytes_.data() + s.offset, s.size));
  }

  /// The runs by index, ascending by address, without copying: run_count() of them; run_from(a)
  /// is the index of the first run ending above a (the run holding a, or the next one above it;
  /// run_count() when none), found by binary search.
  struct RunView {
    GuestAddr base;
    std::span<const std::uint8_t> bytes;
    std::uint64_t end() const noexcept { return std::uint64_t{base} + bytes.size(); }
  };
  std::size_t run_count() const noexcept { return spans_.size(); }
  RunView run(std::size_t i) const {
    const Span& s = spans_[i];
    return {s.base, std::span<const std::uint8_t>(bytes_.data() + s.offset, s.size)};
  }
  std::size_t run_from(GuestAddr a) const;

  /// Lookups at ascending addresses in amortised constant time (a comparison walks two maps in step).
  class Cursor {
   public:
    explicit Cursor(const ByteMap& m) : spans_(m.spans_.data()), end_(m.spans_.data() + m.spans_.size()),
                                        bytes_(m.bytes_.data()), it_(spans_) {}
    /// The byte at a; a must not be below the address of the previous call.
    std::optional<std::uint8_t> get(GuestAddr a) {
      while (it_ != end_ && it_->end() <= a) ++it_;
      if (it_ == end_ || a < it_->base) return std::nullopt;
      return bytes_[it_->offset + (a - it_->base)];
    }
    /// The n bytes at a when one run holds them all, else nullptr; a as for get().
    const std::uint8_t* bytes_at(GuestAddr a, std::size_t n) {
      if (!get(a)) return nullptr;
      return std::uint64_t{a} + n <= it_->end() ? bytes_ + it_->offset + (a - it_->base) : nullptr;
    }

   private:
    const Span *spans_, *end_;
    const std::uint8_t* bytes_;
    const Span* it_;
  };

  /// Equal when they hold the same bytes at the same addresses.
  friend bool operator==(const ByteMap& a, const ByteMap& b);

 private:
  // Index of the first span whose end is above a (spans_.size() when none).
  std::size_t first_ending_above(std::uint64_t a) const;
  // Moves every run's bytes to the front of bytes_ in address order, dropping the bytes no run uses.
  void compact();

  // The runs in one flat store: a map is walked far more often (a replay, a comparison, a file
  // written) than changed, and nearly always built in address order (append), so runs sit in one
  // sorted array over one byte buffer rather than a node per run. Invariant: spans_ ascending,
  // neither overlapping nor touching (touching runs are merged). A change in the middle (set over
  // several runs, erase) may leave bytes in bytes_ that no span uses; compact() drops them once
  // they outnumber the bytes held.
  std::vector<Span> spans_;
  std::vector<std::uint8_t> bytes_;
  std::size_t live_ = 0;  // the bytes the spans hold
};

}  // namespace lockstep::cases
