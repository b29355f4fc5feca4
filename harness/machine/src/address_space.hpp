// The machine's guest memory: one host buffer per mapping (Unicorn maps them zero-copy), page tables
// that say who owns each of the 4 GiB's pages and which were written, the pristine bytes a reset
// restores (the snapshot's, or the harness's own pages' first contents), and host-side reads and
// writes. Private to the machine, whose Impl is one.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include <unicorn/unicorn.h>

#include "harness_pages.hpp"
#include "zeroed_table.hpp"
#include "lockstep/base/result.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness::machine_detail {

constexpr std::uint32_t kPageCount = 1u << 20;  // 4 GiB of 4 KiB pages
constexpr std::uint8_t kPresent = 0x80;         // page_prot_ bit: the page is mapped

/// Who owns a mapped page, which decides how reset() restores it and whether the recorder sees it.
enum PageKind : std::uint8_t {
  kUnmapped = 0,
  kSnapshotPage = 1,      ///< bytes from the snapshot's regions
  kHarnessInternal = 2,   ///< GDT, sentinel, stub pages: restored from a copy, never recorded
  kHarnessData = 3,       ///< scratch, TLS blocks, stack extension: zero at reset, recorded
};

struct Mapping {
  GuestAddr base = 0;
  std::uint32_t size = 0;
  std::uint8_t prot = 0;
  PageKind kind = kUnmapped;
  std::uint8_t* host = nullptr;
};

struct AddressSpace {
  explicit AddressSpace(const Snapshot& s) : snap(s) {}
  ~AddressSpace() {
    for (Mapping& m : mappings) ::munmap(m.host, m.size);
  }
  AddressSpace(const AddressSpace&) = delete;
  AddressSpace& operator=(const AddressSpace&) = delete;

  const Snapshot& snap;
  /// The engine the pages are mapped into (its translated code is dropped when a code page changes).
  uc_engine* uc = nullptr;

  // One entry per guest page, all zero at start (nullptr, no protection, kUnmapped, clean).
  ZeroedTable<std::uint8_t*> host_page{kPageCount};
  ZeroedTable<std::uint8_t> page_prot{kPageCount};
  ZeroedTable<std::uint8_t> page_kind{kPageCount};
  ZeroedTable<std::uint8_t> dirty{kPageCount};
  std::vector<std::uint32_t> dirty_list;
  std::vector<Mapping> mappings;
  std::map<std::uint32_t, std::vector<std::uint8_t>> internal_pristine;  // page -> bytes

  bool free_pages(std::uint32_t first, std::uint32_t n) const {
    if (first + std::uint64_t{n} > kPageCount) return false;
    for (std::uint32_t p = first; p < first + n; ++p)
      if (page_prot[p] & kPresent) return false;
    return true;
  }

  std::optional<std::uint32_t> find_free(std::uint32_t n) const {
    // Prefer 0x10000000 and up (clear of a 32-bit program's image and heap), then anything above 64 KiB.
    for (std::uint32_t start : {0x10000u, 0x10u}) {
      std::uint32_t run = 0;
      for (std::uint32_t p = start; p < kPageCount - 1; ++p) {
        run = (page_prot[p] & kPresent) ? 0 : run + 1;
        if (run == n) return p + 1 - n;
      }
    }
    return std::nullopt;
  }

  void claim(std::uint32_t first, std::uint32_t n, std::uint8_t prot, PageKind kind) {
    for (std::uint32_t p = first; p < first + n; ++p) {
      page_prot[p] = static_cast<std::uint8_t>(prot | kPresent);
      page_kind[p] = kind;
    }
  }

  Status map_all() {
    // Coalesce runs of pages with the same protection and owner into one Unicorn mapping each.
    std::uint32_t p = 0;
    while (p < kPageCount) {
      if (!(page_prot[p] & kPresent)) { ++p; continue; }
      const std::uint8_t prot = page_prot[p];
      const std::uint8_t kind = page_kind[p];
      std::uint32_t q = p;
      while (q < kPageCount && page_prot[q] == prot && page_kind[q] == kind) ++q;
      Mapping m;
      m.base = p * kPageSize;
      m.size = (q - p) * kPageSize;
      m.prot = prot & 7;
      m.kind = static_cast<PageKind>(kind);
      // Anonymous pages arrive zeroed and cost nothing until touched: a 4 GiB space mostly never read.
      void* host = ::mmap(nullptr, m.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (host == MAP_FAILED)
        return Error::make(Errc::kLimit, "cannot allocate 0x{:x} bytes for guest memory at 0x{:08x}", m.size, m.base);
      m.host = static_cast<std::uint8_t*>(host);
      mappings.push_back(m);
      for (std::uint32_t i = p; i < q; ++i) host_page[i] = m.host + (i - p) * kPageSize;
      const uc_err err = uc_mem_map_ptr(uc, m.base, m.size, m.prot, m.host);
      if (err != UC_ERR_OK)
        return Error::make(Errc::kMalformed, "cannot map 0x{:08x}..0x{:08x} ({}): {}", m.base,
                           std::uint64_t{m.base} + m.size, prot_string(m.prot), uc_strerror(err));
      p = q;
    }
    return {};
  }

  /// The snapshot's bytes (zero elsewhere) of one page into dst.
  void snapshot_page(std::uint32_t page, std::uint8_t* dst) const {
    std::memset(dst, 0, kPageSize);
    const std::uint64_t lo = std::uint64_t{page} * kPageSize, hi = lo + kPageSize;
    auto it = std::partition_point(snap.regions.begin(), snap.regions.end(),
                                   [&](const Region& r) { return r.end() <= lo; });
    for (; it != snap.regions.end() && it->base < hi; ++it) {
      const std::uint64_t a = std::max<std::uint64_t>(lo, it->base), b = std::min<std::uint64_t>(hi, it->end());
      if (a < b) std::memcpy(dst + (a - lo), it->bytes.data() + (a - it->base), static_cast<std::size_t>(b - a));
    }
  }

  void pristine_page(std::uint32_t page, std::uint8_t* dst) const {
    switch (page_kind[page]) {
      case kSnapshotPage: snapshot_page(page, dst); break;
      case kHarnessInternal: {
        auto it = internal_pristine.find(page);
        if (it != internal_pristine.end()) std::memcpy(dst, it->second.data(), kPageSize);
        else std::memset(dst, 0, kPageSize);
        break;
      }
      default: std::memset(dst, 0, kPageSize); break;
    }
  }

  void flush_code(std::uint32_t page) {
    if (page_prot[page] & kProtExec)
      uc_ctl_remove_cache(uc, std::uint64_t{page} * kPageSize, std::uint64_t{page} * kPageSize + kPageSize);
  }

  void mark_dirty(std::uint32_t page) {
    if (!dirty[page]) {
      dirty[page] = 1;
      dirty_list.push_back(page);
    }
  }

  /// Every page written since the last restore back to its pristine bytes. `exact`: a write hook kept
  /// the list of written pages; else every writable page is compared as well.
  void restore(bool exact) {
    if (exact) {
      for (std::uint32_t p : dirty_list) {
        pristine_page(p, host_page[p]);
        flush_code(p);
        dirty[p] = 0;
      }
      dirty_list.clear();
    } else {
      // No write hook: find the pages that differ. Pages the harness wrote are known.
      std::array<std::uint8_t, kPageSize> tmp;
      for (const Mapping& m : mappings) {
        if (!(m.prot & kProtWrite)) continue;
        for (std::uint32_t p = m.base / kPageSize; p < (m.base + std::uint64_t{m.size}) / kPageSize; ++p) {
          pristine_page(p, tmp.data());
          if (std::memcmp(tmp.data(), host_page[p], kPageSize) != 0) std::memcpy(host_page[p], tmp.data(), kPageSize);
        }
      }
      for (std::uint32_t p : dirty_list) {
        pristine_page(p, host_page[p]);
        flush_code(p);
        dirty[p] = 0;
      }
      dirty_list.clear();
    }
  }

  Status host_write(GuestAddr a, std::span<const std::uint8_t> bytes) {
    std::uint64_t done = 0;
    while (done < bytes.size()) {
      const std::uint64_t addr = std::uint64_t{a} + done;
      const std::uint32_t p = static_cast<std::uint32_t>(addr / kPageSize);
      if (addr >= (std::uint64_t{1} << 32) || !host_page[p])
        return Error::make(Errc::kNotFound, "cannot write 0x{:x} bytes at 0x{:08x}: 0x{:08x} is not mapped",
                           bytes.size(), a, addr);
      const std::uint32_t off = static_cast<std::uint32_t>(addr % kPageSize);
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(bytes.size() - done, kPageSize - off));
      mark_dirty(p);
      std::memcpy(host_page[p] + off, bytes.data() + done, n);
      flush_code(p);
      done += n;
    }
    return {};
  }

  Result<std::vector<std::uint8_t>> host_read(GuestAddr a, std::uint32_t n) const {
    std::vector<std::uint8_t> out(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint64_t addr = std::uint64_t{a} + i;
      const std::uint32_t p = static_cast<std::uint32_t>(addr / kPageSize);
      if (addr >= (std::uint64_t{1} << 32) || !host_page[p])
        return Error::make(Errc::kNotFound, "cannot read 0x{:x} bytes at 0x{:08x}: 0x{:08x} is not mapped", n, a,
                           addr);
      out[i] = host_page[p][addr % kPageSize];
    }
    return out;
  }

  std::optional<std::uint32_t> read_u32(GuestAddr a) const {
    auto r = host_read(a, 4);
    if (!r.ok()) return std::nullopt;
    std::uint32_t v;
    std::memcpy(&v, r->data(), 4);
    return v;
  }

  std::vector<std::uint8_t> read_some(GuestAddr a, std::uint32_t n) const {
    std::vector<std::uint8_t> out;
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint64_t addr = std::uint64_t{a} + i;
      if (addr >= (std::uint64_t{1} << 32) || !host_page[addr / kPageSize]) break;
      out.push_back(host_page[addr / kPageSize][addr % kPageSize]);
    }
    return out;
  }
};

}  // namespace lockstep::harness::machine_detail
