// The descriptor tables the machine builds for a snapshot's thread: a one-page GDT and, when the
// snapshot or the thread needs one, an LDT. Unicorn runs 32-bit code at CPL 0 and ignores FS/GS base
// registers (unicorn-engine/unicorn#1529), so every segment the guest uses must be a descriptor in
// guest memory:
//
//  - GDT (selector TI = 0): flat code (DPL 3) at cs's index, flat data (DPL 3) at ds's and es's, a
//    data descriptor based at fs_base at fs's index and one at gs_base at gs's, a flat DPL 0 stack
//    descriptor at a free index for ss (SS must match the CPL), and the LDT's own system descriptor
//    at another free index (what `sldt` returns);
//  - LDT (selector TI = 1): every entry of Snapshot::ldt as it was (the accessed bit set, so that
//    loading a selector never writes the table), so FS under Wine (a TEB per thread), GS and any data
//    selector in DS/ES find their descriptor. An FS or GS selector with TI = 1 whose entry the
//    snapshot lacks (a minidump knows the TEB address but carries no LDT) gets a data descriptor
//    based at the thread's fs_base / gs_base at that index.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness::machine_detail {

inline constexpr unsigned kGdtEntries = 512;  ///< one 4 KiB page

struct DescriptorTables {
  std::array<std::uint64_t, kGdtEntries> gdt{};
  std::vector<std::uint64_t> ldt;  ///< entries 0..n-1; empty: no LDT (LDTR stays null)
  std::uint16_t ldt_selector = 0;  ///< GDT selector of the LDT's system descriptor (0 without an LDT)
  /// The selectors to load (ss is the harness's DPL 0 one, not the snapshot's).
  std::uint16_t cs = 0, ds = 0, es = 0, fs = 0, gs = 0, ss = 0;
};

/// How many LDT entries (0 = none) the tables for this thread will hold: the highest index in
/// Snapshot::ldt or in one of the thread's selectors with TI = 1, plus one.
std::uint32_t ldt_entries_needed(const Snapshot& snapshot, const Thread& thread);

/// Builds both tables; `ldt_base` is where the LDT will sit in guest memory (its GDT descriptor
/// points there). Errors (kUnsupported): a selector past the GDT page, one index needed for two
/// different descriptors, a DS/ES/CS/SS selector with TI = 1 whose LDT entry the snapshot lacks.
Result<DescriptorTables> build_descriptor_tables(const Snapshot& snapshot, const Thread& thread, GuestAddr ldt_base);

}  // namespace lockstep::harness::machine_detail
