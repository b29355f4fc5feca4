// The recorder's per-call memory of guest bytes (machine.cpp's access hooks fill it): for each page a
// call touched, which bytes it read before writing them (with the value read), which it wrote, and
// the instruction that wrote each last. Private to the machine.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "harness_pages.hpp"

namespace lockstep::harness::machine_detail {

enum : std::uint8_t { kByteRead = 1, kByteWritten = 2 };

/// Per-frame state of one guest page: which bytes were read before written (and their value), which
/// were written, and by which instruction.
struct ShadowPage {
  std::array<std::uint8_t, kPageSize> flags;
  std::array<std::uint8_t, kPageSize> value;
  /// The address of the instruction that last wrote each byte; meaningful only where flags has
  /// kByteWritten (set with it), so it is never cleared.
  std::array<std::uint32_t, kPageSize> writer;
  /// Bit k: flags[64k, 64k + 64) may be non-zero. A call touches a few bytes of most pages it
  /// touches (a stack slot, a record's fields), so reading out and clearing a page visits only these.
  std::uint64_t touched = 0;
  static constexpr std::uint32_t kChunk = kPageSize / 64;
  void touch(std::uint32_t off, std::uint32_t n) {
    const std::uint32_t first = off / kChunk, last = (off + n - 1) / kChunk;
    touched |= (last - first == 63 ? ~std::uint64_t{0} : ((std::uint64_t{2} << (last - first)) - 1)) << first;
  }
  void clear() {
    for (std::uint64_t t = touched; t; t &= t - 1)
      std::memset(flags.data() + static_cast<std::size_t>(std::countr_zero(t)) * kChunk, 0, kChunk);
    touched = 0;
  }
};

/// Shadow pages are reused across calls: nested capture opens a frame for every watched call.
class ShadowPool {
 public:
  ShadowPage* take() {
    if (free_.empty()) {
      all_.push_back(std::make_unique<ShadowPage>());
      all_.back()->flags.fill(0);
      return all_.back().get();
    }
    ShadowPage* p = free_.back();
    free_.pop_back();
    return p;
  }
  void give(ShadowPage* p) {
    p->clear();
    free_.push_back(p);
  }

 private:
  std::vector<std::unique_ptr<ShadowPage>> all_;
  std::vector<ShadowPage*> free_;
};

/// The byte states of one recorded call: a small direct-mapped cache in front of a hash map, since
/// most accesses alternate between a handful of pages (stack, the record being worked on, tables).
class Shadow {
 public:
  explicit Shadow(ShadowPool& pool) : pool_(&pool) { tags_.fill(~0u); }
  ~Shadow() {
    for (auto& [p, s] : pages_) pool_->give(s);
  }
  Shadow(const Shadow&) = delete;
  Shadow& operator=(const Shadow&) = delete;

  ShadowPage* get(std::uint32_t page) {
    const std::size_t slot = page & (kCache - 1);
    if (tags_[slot] == page) return cache_[slot];
    auto [it, inserted] = pages_.try_emplace(page, nullptr);
    if (inserted) it->second = pool_->take();
    tags_[slot] = page;
    cache_[slot] = it->second;
    return it->second;
  }
  const std::unordered_map<std::uint32_t, ShadowPage*>& pages() const { return pages_; }

 private:
  static constexpr std::size_t kCache = 64;
  ShadowPool* pool_;
  std::unordered_map<std::uint32_t, ShadowPage*> pages_;
  std::array<std::uint32_t, kCache> tags_;
  std::array<ShadowPage*, kCache> cache_{};
};

}  // namespace lockstep::harness::machine_detail
