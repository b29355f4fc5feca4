// A table with one zero-initialised entry per guest page (1 Mi of them for 4 GiB). Private to the
// machine.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace lockstep::harness::machine_detail {

/// A fixed-size table of zero-initialised entries whose memory is only touched where it is used:
/// calloc hands out fresh (already zero) pages for large blocks instead of writing 11 MB of zeros per
/// machine, which costs a page fault per 4 KiB on some hosts.
template <typename T>
class ZeroedTable {
 public:
  explicit ZeroedTable(std::size_t n) : p_(static_cast<T*>(std::calloc(n, sizeof(T)))) {
    if (!p_) throw std::bad_alloc();
  }
  ~ZeroedTable() { std::free(p_); }
  ZeroedTable(const ZeroedTable&) = delete;
  ZeroedTable& operator=(const ZeroedTable&) = delete;
  T& operator[](std::size_t i) noexcept { return p_[i]; }
  const T& operator[](std::size_t i) const noexcept { return p_[i]; }

 private:
  T* p_;
};

}  // namespace lockstep::harness::machine_detail
