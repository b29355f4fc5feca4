#include "reader_util.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

namespace lockstep::harness::readers {

namespace {

Region make_piece(std::uint64_t base, std::span<const std::uint8_t> bytes, std::uint8_t prot, const std::string& name) {
  Region r;
  r.base = static_cast<GuestAddr>(base);
  r.bytes.assign(bytes.begin(), bytes.end());
  r.prot = prot;
  r.name = name;
  return r;
}

}  // namespace

Status RangeAssembler::add(std::uint64_t base, std::span<const std::uint8_t> bytes, std::uint8_t prot,
                           const std::string& name) {
  if (bytes.empty()) return {};
  if (base >= kAddressSpaceEnd || bytes.size() > kAddressSpaceEnd - base)
    return Error::make(Errc::kMalformed, "{}: range 0x{:x} + 0x{:x} wraps past the 4 GiB address space", name, base,
                       bytes.size());
  const std::uint64_t end = base + bytes.size();
  std::uint64_t cur = base;
  auto it = regions_.upper_bound(base);
  if (it != regions_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end() > base) it = prev;
  }
  while (cur < end) {
    if (it == regions_.end() || it->first >= end) {
      regions_.emplace(cur, make_piece(cur, bytes.subspan(cur - base, end - cur), prot, name));
      break;
    }
    const Region& held = it->second;
    if (held.base > cur) {
      regions_.emplace(cur, make_piece(cur, bytes.subspan(cur - base, held.base - cur), prot, name));
      cur = held.base;
    }
    // [cur, ov_end) is already held by an earlier range: keep the earlier bytes, count the differences.
    const std::uint64_t ov_end = std::min<std::uint64_t>(end, held.end());
    std::uint64_t differ = 0;
    for (std::uint64_t a = cur; a < ov_end; ++a)
      if (held.bytes[a - held.base] != bytes[a - base]) ++differ;
    if (overlaps_ < kMaxOverlapNotes && notes_)
      notes_->push_back(fmt::format("{} overlaps {} at 0x{:08x}..0x{:08x} (0x{:x} bytes, {} differ): kept the bytes of "
                                    "{} (the earlier range)",
                                    name, held.name, cur, ov_end, ov_end - cur, differ, held.name));
    ++overlaps_;
    cur = ov_end;
    ++it;
  }
  return {};
}

std::vector<Region> RangeAssembler::take() {
  std::vector<Region> out;
  out.reserve(regions_.size());
  for (auto& [base, r] : regions_) out.push_back(std::move(r));
  regions_.clear();
  if (overlaps_ > kMaxOverlapNotes && notes_)
    notes_->push_back(fmt::format("{} overlapping ranges in all ({} noted above)", overlaps_, kMaxOverlapNotes));
  return out;
}

void set_protection(std::vector<Region>& regions, std::uint64_t begin, std::uint64_t end, std::uint8_t prot) {
  if (begin >= end) return;
  std::vector<Region> out;
  out.reserve(regions.size() + 2);
  for (Region& r : regions) {
    const std::uint64_t rb = r.base, re = r.end();
    if (re <= begin || rb >= end || r.prot == prot) {
      out.push_back(std::move(r));
      continue;
    }
    const std::uint64_t lo = std::max(rb, begin), hi = std::min(re, end);
    auto piece = [&](std::uint64_t a, std::uint64_t b, std::uint8_t p) {
      Region n;
      n.base = static_cast<GuestAddr>(a);
      n.bytes.assign(r.bytes.begin() + static_cast<std::ptrdiff_t>(a - rb),
                     r.bytes.begin() + static_cast<std::ptrdiff_t>(b - rb));
      n.prot = p;
      n.name = r.name;
      out.push_back(std::move(n));
    };
    if (rb < lo) piece(rb, lo, r.prot);
    piece(lo, hi, prot);
    if (hi < re) piece(hi, re, r.prot);
  }
  regions = std::move(out);
}

std::uint64_t apply_protection_map(std::vector<Region>& regions, const std::vector<ProtRange>& ranges) {
  std::vector<Region> out;
  out.reserve(regions.size());
  std::uint64_t undescribed = 0;
  std::size_t k = 0;
  for (Region& r : regions) {
    const std::uint64_t rb = r.base, re = r.end();
    while (k < ranges.size() && ranges[k].end <= rb) ++k;
    if (k == ranges.size() || ranges[k].begin >= re) {  // the common case: no boundary inside
      undescribed += re - rb;
      out.push_back(std::move(r));
      continue;
    }
    auto piece = [&](std::uint64_t a, std::uint64_t b, std::uint8_t p) {
      if (a >= b) return;
      Region n;
      n.base = static_cast<GuestAddr>(a);
      n.bytes.assign(r.bytes.begin() + static_cast<std::ptrdiff_t>(a - rb),
                     r.bytes.begin() + static_cast<std::ptrdiff_t>(b - rb));
      n.prot = p;
      n.name = r.name;
      if (!out.empty() && out.back().end() == a && out.back().prot == p && out.back().name == n.name)
        out.back().bytes.insert(out.back().bytes.end(), n.bytes.begin(), n.bytes.end());
      else
        out.push_back(std::move(n));
    };
    std::uint64_t cur = rb;
    std::size_t j = k;
    while (cur < re) {
      if (j == ranges.size() || ranges[j].begin >= re) {
        undescribed += re - cur;
        piece(cur, re, r.prot);
        break;
      }
      if (ranges[j].begin > cur) {
        undescribed += ranges[j].begin - cur;
        piece(cur, ranges[j].begin, r.prot);
        cur = ranges[j].begin;
      }
      const std::uint64_t hi = std::min(re, ranges[j].end);
      piece(cur, hi, ranges[j].prot);
      cur = hi;
      if (ranges[j].end <= re) ++j;
    }
    k = j;
  }
  regions = std::move(out);
  return undescribed;
}

X87State x87_from_fsave(std::span<const std::uint8_t> image) {
  X87State x;
  x.control = static_cast<std::uint16_t>(le32(image, 0));
  x.status = static_cast<std::uint16_t>(le32(image, 4));
  x.tag = static_cast<std::uint16_t>(le32(image, 8));
  for (std::size_t i = 0; i < 8; ++i)
    std::copy_n(image.begin() + static_cast<std::ptrdiff_t>(28 + 10 * i), 10, x.st[i].begin());
  return x;
}

std::string utf16le_to_utf8(std::span<const std::uint8_t> bytes) {
  std::string out;
  out.reserve(bytes.size() / 2);
  auto put = [&out](std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  };
  const std::size_t n = bytes.size() / 2;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t u = le16(bytes, 2 * i);
    if (u >= 0xD800 && u < 0xDC00 && i + 1 < n) {
      const std::uint32_t lo = le16(bytes, 2 * (i + 1));
      if (lo >= 0xDC00 && lo < 0xE000) {
        put(0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00));
        ++i;
        continue;
      }
    }
    put(u >= 0xD800 && u < 0xE000 ? 0xFFFD : u);
  }
  return out;
}

}  // namespace lockstep::harness::readers
