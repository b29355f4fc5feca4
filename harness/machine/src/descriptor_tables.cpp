// The machine's GDT and LDT (descriptor_tables.hpp).
#include "descriptor_tables.hpp"

#include <algorithm>

namespace lockstep::harness::machine_detail {
namespace {

constexpr std::uint16_t kTableIndicator = 4;  ///< selector bit 2: 1 = LDT

/// A 4 GiB (G = 1, limit 0xfffff), 32-bit segment at `base` with this access byte.
std::uint64_t flat_descriptor(std::uint32_t base, std::uint8_t access) {
  LdtEntry e;
  e.base = base;
  e.limit = 0xfffff;
  e.access = access;
  e.flags = 0xc;  // G = 4 KiB granularity, D/B = 32-bit
  return e.descriptor();
}

// Access bytes: present, S = 1, accessed bit already set (so loading a selector never has to write
// the table).
constexpr std::uint8_t kCodeDpl3 = 0xfb;  // execute/read
constexpr std::uint8_t kDataDpl3 = 0xf3;  // read/write
constexpr std::uint8_t kDataDpl0 = 0x93;  // read/write, for SS at CPL 0
constexpr std::uint8_t kLdtSystem = 0x82; // present, DPL 0, S = 0, type 2 (LDT)
constexpr std::uint8_t kAccessed = 0x01;
constexpr std::uint8_t kCodeOrData = 0x10;

bool in_ldt(std::uint16_t sel) { return (sel & kTableIndicator) != 0; }

}  // namespace

std::uint32_t ldt_entries_needed(const Snapshot& snapshot, const Thread& thread) {
  std::uint32_t n = snapshot.ldt.empty() ? 0 : snapshot.ldt.back().index + 1u;
  for (std::uint16_t sel : {thread.cs, thread.ds, thread.es, thread.fs, thread.gs, thread.ss})
    if (in_ldt(sel)) n = std::max<std::uint32_t>(n, (sel >> 3) + 1u);
  return n;
}

Result<DescriptorTables> build_descriptor_tables(const Snapshot& snapshot, const Thread& thread, GuestAddr ldt_base) {
  DescriptorTables t;
  const std::uint32_t ldt_size = ldt_entries_needed(snapshot, thread);
  t.ldt.assign(ldt_size, 0);
  std::vector<bool> ldt_used(ldt_size, false);
  for (const LdtEntry& e : snapshot.ldt) {
    if (!e.present()) continue;
    LdtEntry copy = e;
    if (copy.access & kCodeOrData) copy.access |= kAccessed;
    t.ldt[e.index] = copy.descriptor();
    ldt_used[e.index] = true;
  }

  std::uint16_t cs = thread.cs, ds = thread.ds, es = thread.es, fs = thread.fs, gs = thread.gs;
  if ((cs >> 3) == 0 && !in_ldt(cs)) cs = 0x23;  // a snapshot without selectors: Linux i386's
  if ((ds >> 3) == 0 && !in_ldt(ds)) ds = 0x2b;
  if ((es >> 3) == 0 && !in_ldt(es)) es = ds;
  std::array<bool, kGdtEntries> used{};
  used[0] = true;

  // A selector's descriptor: in the GDT at its index, or (TI = 1) the snapshot's LDT entry, or for
  // FS/GS a descriptor at the thread's base when the snapshot has no such entry.
  auto put = [&](std::uint16_t sel, std::uint64_t d, const char* reg, bool may_synthesize) -> Status {
    const unsigned idx = sel >> 3;
    if (in_ldt(sel)) {
      if (ldt_used[idx]) return {};  // the process's own descriptor
      if (!may_synthesize)
        return Error::make(Errc::kUnsupported,
                           "{} selector 0x{:04x} points at LDT entry {}, which the snapshot does not hold (a source "
                           "without the process's LDT: take a live snapshot, which reads it)",
                           reg, sel, idx);
      t.ldt[idx] = d;
      ldt_used[idx] = true;
      return {};
    }
    if (idx >= kGdtEntries)
      return Error::make(Errc::kUnsupported, "{} selector 0x{:04x} is past the one-page GDT", reg, sel);
    if (used[idx] && t.gdt[idx] != d)
      return Error::make(Errc::kUnsupported, "selector 0x{:04x} ({}) is needed for two different descriptors", sel, reg);
    t.gdt[idx] = d;
    used[idx] = true;
    return {};
  };
  auto free_index = [&]() -> std::uint16_t {
    for (unsigned i = 1; i < kGdtEntries; ++i) {
      bool taken = used[i];
      for (std::uint16_t sel : {cs, ds, es, fs, gs, thread.ss})
        if (!in_ldt(sel) && (sel >> 3) == i) taken = true;
      if (!taken) return static_cast<std::uint16_t>(i);
    }
    return 0;
  };
  LOCKSTEP_TRY_STATUS(put(cs, flat_descriptor(0, kCodeDpl3), "cs", false));
  LOCKSTEP_TRY_STATUS(put(ds, flat_descriptor(0, kDataDpl3), "ds", false));
  LOCKSTEP_TRY_STATUS(put(es, flat_descriptor(0, kDataDpl3), "es", false));
  // A base without a selector (a reader that only knew the base) still gets a descriptor.
  if ((fs >> 3) == 0 && !in_ldt(fs) && thread.fs_base) fs = static_cast<std::uint16_t>((free_index() << 3) | 3);
  if ((fs >> 3) != 0 || in_ldt(fs)) LOCKSTEP_TRY_STATUS(put(fs, flat_descriptor(thread.fs_base, kDataDpl3), "fs", true));
  if ((gs >> 3) == 0 && !in_ldt(gs) && thread.gs_base) gs = static_cast<std::uint16_t>((free_index() << 3) | 3);
  if ((gs >> 3) != 0 || in_ldt(gs)) LOCKSTEP_TRY_STATUS(put(gs, flat_descriptor(thread.gs_base, kDataDpl3), "gs", true));
  const std::uint16_t ss = static_cast<std::uint16_t>(free_index() << 3);  // RPL 0
  LOCKSTEP_TRY_STATUS(put(ss, flat_descriptor(0, kDataDpl0), "ss", false));
  if (!t.ldt.empty()) {
    const std::uint16_t ldt_index = free_index();
    LdtEntry sys;
    sys.base = ldt_base;
    sys.limit = static_cast<std::uint32_t>(t.ldt.size() * 8 - 1);
    sys.access = kLdtSystem;
    t.gdt[ldt_index] = sys.descriptor();
    used[ldt_index] = true;
    t.ldt_selector = static_cast<std::uint16_t>(ldt_index << 3);
  }
  t.cs = cs, t.ds = ds, t.es = es, t.fs = fs, t.gs = gs, t.ss = ss;
  return t;
}

}  // namespace lockstep::harness::machine_detail
