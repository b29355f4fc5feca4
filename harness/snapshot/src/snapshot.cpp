#include "lockstep/snapshot/snapshot.hpp"

#include <algorithm>
#include <cstring>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"

namespace lockstep::harness {

std::string prot_string(std::uint8_t prot) {
  std::string s = "---";
  if (prot & kProtRead) s[0] = 'r';
  if (prot & kProtWrite) s[1] = 'w';
  if (prot & kProtExec) s[2] = 'x';
  return s;
}

std::optional<X87State> x87_from_fxsave(std::span<const std::uint8_t> fx) {
  if (fx.size() < 160) return std::nullopt;
  X87State x;
  auto u16 = [&](std::size_t off) { return static_cast<std::uint16_t>(fx[off] | (fx[off + 1] << 8)); };
  x.control = u16(0);
  x.status = u16(2);
  const std::uint8_t abridged = fx[4];
  std::memcpy(&x.mxcsr, fx.data() + 24, 4);
  for (int i = 0; i < 8; ++i) std::memcpy(x.st[i].data(), fx.data() + 32 + 16 * i, 10);
  // Full tag per physical register p (ST(i) = R[(TOP + i) & 7]): 11 empty, else from the value:
  // 10 special (NaN/inf/denormal/unnormal), 01 zero, 00 valid — the kernel's twd_fxsr_to_i387().
  const int top = (x.status >> 11) & 7;
  std::uint16_t tag = 0;
  for (int p = 0; p < 8; ++p) {
    std::uint16_t t = 3;
    if (abridged & (1u << p)) {
      const auto& st = x.st[(p - top) & 7];
      const std::uint16_t exp = static_cast<std::uint16_t>((st[8] | (st[9] << 8)) & 0x7fff);
      std::uint64_t mant = 0;
      std::memcpy(&mant, st.data(), 8);
      if (exp == 0x7fff) t = 2;
      else if (exp == 0) t = mant == 0 ? 1 : 2;
      else t = (mant >> 63) ? 0 : 2;
    }
    tag = static_cast<std::uint16_t>(tag | (t << (2 * p)));
  }
  x.tag = tag;
  return x;
}

std::uint64_t LdtEntry::descriptor() const noexcept {
  std::uint64_t d = limit & 0xffff;
  d |= std::uint64_t{base & 0xffffff} << 16;
  d |= std::uint64_t{access} << 40;
  d |= std::uint64_t{(limit >> 16) & 0xf} << 48;
  d |= std::uint64_t{flags & 0xfu} << 52;
  d |= std::uint64_t{base >> 24} << 56;
  return d;
}

LdtEntry LdtEntry::from_descriptor(std::uint16_t index, std::uint64_t d) noexcept {
  LdtEntry e;
  e.index = index;
  e.limit = static_cast<std::uint32_t>((d & 0xffff) | (((d >> 48) & 0xf) << 16));
  e.base = static_cast<std::uint32_t>(((d >> 16) & 0xffffff) | (((d >> 56) & 0xff) << 24));
  e.access = static_cast<std::uint8_t>(d >> 40);
  e.flags = static_cast<std::uint8_t>((d >> 52) & 0xf);
  return e;
}

const LdtEntry* Snapshot::find_ldt(std::uint16_t index) const noexcept {
  auto it = std::lower_bound(ldt.begin(), ldt.end(), index, [](const LdtEntry& e, std::uint16_t i) { return e.index < i; });
  return it != ldt.end() && it->index == index ? &*it : nullptr;
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
  for (std::size_t i = 0; i < ldt.size(); ++i) {
    const LdtEntry& e = ldt[i];
    if (e.index >= kLdtEntries)
      return Error::make(Errc::kMalformed, "LDT entry {} has index {}, past the LDT's {} entries", i, e.index, kLdtEntries);
    if (e.limit > 0xfffff || e.flags > 0xf)
      return Error::make(Errc::kMalformed, "LDT entry {} (index {}): limit 0x{:x} / flags 0x{:x} do not fit a descriptor",
                         i, e.index, e.limit, e.flags);
    if (i > 0 && e.index <= ldt[i - 1].index)
      return Error::make(Errc::kMalformed, "LDT entries {} and {} are not sorted by index or repeat one ({} after {})",
                         i - 1, i, e.index, ldt[i - 1].index);
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

std::string Snapshot::content_sha256() const {
  Sha256 h;
  auto feed = [&h](const ByteWriter& w) {
    h.update({reinterpret_cast<const std::uint8_t*>(w.out().data()), w.out().size()});
  };
  for (const Region& r : regions) {
    ByteWriter w;
    w.u32(r.base);
    w.u64(r.bytes.size());
    w.u8(r.prot);
    feed(w);
    h.update(r.bytes);
  }
  for (const Thread& t : threads) {
    ByteWriter w;
    for (std::uint32_t v : {t.eax, t.ebx, t.ecx, t.edx, t.esi, t.edi, t.ebp, t.esp, t.eip, t.eflags, t.fs_base, t.gs_base})
      w.u32(v);
    for (std::uint16_t v : {t.cs, t.ds, t.es, t.fs, t.gs, t.ss, t.x87.control, t.x87.status, t.x87.tag}) w.u16(v);
    for (const auto& st : t.x87.st) w.bytes(st);
    w.u32(t.x87.mxcsr);
    w.u8(t.x87_valid ? 1 : 0);
    feed(w);
  }
  // Only when present, so that the hash of a snapshot without an LDT is what it always was.
  if (!ldt.empty()) {
    ByteWriter w;
    w.u32(static_cast<std::uint32_t>(ldt.size()));
    for (const LdtEntry& e : ldt) {
      w.u16(e.index);
      w.u64(e.descriptor());
    }
    feed(w);
  }
  return to_hex(h.finish());
}

}  // namespace lockstep::harness
