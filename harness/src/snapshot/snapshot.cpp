#include "lockstep/harness/snapshot.hpp"

#include <algorithm>
#include <cstring>

namespace lockstep::harness {

std::string prot_string(std::uint8_t prot) {
  std::string s = "---";
  if (prot & kProtRead) s[0] = 'r';
  if (prot & kProtWrite) s[1] = 'w';
  if (prot & kProtExec) s[2] = 'x';
  return s;
}

void Snapshot::sort_regions() {
  std::stable_sort(regions.begin(), regions.end(), [](const Region& a, const Region& b) { return a.base < b.base; });
}

Status Snapshot::validate() const {
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const Region& r = regions[i];
    if (r.bytes.empty())
      return Error::make(Errc::kMalformed, "region {} ({}) at 0x{:08x} is empty", i, r.name, r.base);
    if (r.end() > (std::uint64_t{1} << 32))
      return Error::make(Errc::kMalformed, "region {} ({}) at 0x{:08x} size 0x{:x} wraps past 4 GiB", i, r.name,
                         r.base, r.bytes.size());
    if (i > 0) {
      const Region& p = regions[i - 1];
      if (r.base < p.base)
        return Error::make(Errc::kMalformed, "regions {} and {} are not sorted by address (0x{:08x} after 0x{:08x})",
                           i - 1, i, r.base, p.base);
      if (r.base < p.end())
        return Error::make(Errc::kMalformed,
                           "regions {} ({}, 0x{:08x}..0x{:08x}) and {} ({}, 0x{:08x}..0x{:08x}) overlap", i - 1,
                           p.name, p.base, p.end(), i, r.name, r.base, r.end());
    }
  }
  return {};
}

const Region* Snapshot::find(GuestAddr a) const noexcept {
  auto it = std::upper_bound(regions.begin(), regions.end(), a,
                             [](GuestAddr x, const Region& r) { return x < r.base; });
  if (it == regions.begin()) return nullptr;
  --it;
  return it->contains(a) ? &*it : nullptr;
}

Region* Snapshot::find(GuestAddr a) noexcept {
  return const_cast<Region*>(static_cast<const Snapshot*>(this)->find(a));
}

Result<std::vector<std::uint8_t>> Snapshot::read(GuestAddr a, std::uint32_t n) const {
  std::vector<std::uint8_t> out(n);
  std::uint64_t done = 0;
  while (done < n) {
    std::uint64_t addr = std::uint64_t{a} + done;
    const Region* r = addr < (std::uint64_t{1} << 32) ? find(static_cast<GuestAddr>(addr)) : nullptr;
    if (!r) return Error::make(Errc::kNotFound, "address 0x{:08x} is in no region of the snapshot", addr);
    std::uint64_t off = addr - r->base;
    std::uint64_t take = std::min<std::uint64_t>(n - done, r->bytes.size() - off);
    std::memcpy(out.data() + done, r->bytes.data() + off, take);
    done += take;
  }
  return out;
}

Status Snapshot::write(GuestAddr a, std::span<const std::uint8_t> bytes) {
  std::uint64_t done = 0;
  while (done < bytes.size()) {
    std::uint64_t addr = std::uint64_t{a} + done;
    Region* r = addr < (std::uint64_t{1} << 32) ? find(static_cast<GuestAddr>(addr)) : nullptr;
    if (!r) return Error::make(Errc::kNotFound, "address 0x{:08x} is in no region of the snapshot", addr);
    std::uint64_t off = addr - r->base;
    std::uint64_t take = std::min<std::uint64_t>(bytes.size() - done, r->bytes.size() - off);
    std::memcpy(r->bytes.data() + off, bytes.data() + done, take);
    done += take;
  }
  return {};
}

std::uint64_t Snapshot::total_bytes() const noexcept {
  std::uint64_t t = 0;
  for (const auto& r : regions) t += r.bytes.size();
  return t;
}

}  // namespace lockstep::harness
