// The machine's own pages and descriptor tables, planned without Unicorn (harness/machine/src:
// harness_pages.hpp, descriptor_tables.hpp). Expected values come from harness/docs/machine.md (the
// order of the areas, the guard pages) and the Intel SDM's segment descriptor format (access bytes:
// present, DPL, S, type), decoded here with the snapshot model's LdtEntry.
#include <gtest/gtest.h>

#include "descriptor_tables.hpp"
#include "harness_pages.hpp"

namespace lockstep::harness::machine_detail {
namespace {

TEST(HarnessPages, AreasInTheDocumentedOrderWithGuardPages) {
  const HarnessPages p = plan_harness_pages(0x100000, 0, 0);  // 1 MiB of scratch, no TLS blocks, no LDT
  EXPECT_EQ(p.gdt, 0u);
  EXPECT_EQ(p.sentinel, 1u);
  EXPECT_EQ(p.scratch, 3u) << "one guard page after the sentinel";
  EXPECT_EQ(p.scratch_pages, 256u);
  EXPECT_EQ(p.tls, 3u + 256u + 1u) << "one guard page after scratch";
  EXPECT_EQ(p.tls_pages, 1u) << "the TLS area is at least a page";
  EXPECT_EQ(p.ldt_pages, 0u);
  EXPECT_EQ(p.total, p.tls + 1) << "no LDT: nothing after the TLS blocks";
}

TEST(HarnessPages, TheLdtComesLastAfterAGuardPage) {
  const HarnessPages without = plan_harness_pages(0x2000, 0x1001, 0);
  const HarnessPages with = plan_harness_pages(0x2000, 0x1001, 513);  // 513 descriptors: 4,104 bytes
  EXPECT_EQ(with.tls_pages, 2u);
  EXPECT_EQ(with.ldt_pages, 2u);
  EXPECT_EQ(with.ldt, with.tls + with.tls_pages + 1);
  EXPECT_EQ(with.total, with.ldt + with.ldt_pages);
  // A snapshot without an LDT keeps the same layout for everything before it.
  EXPECT_EQ(without.scratch, with.scratch);
  EXPECT_EQ(without.tls, with.tls);
  EXPECT_EQ(without.total, with.tls + with.tls_pages);
}

TEST(HarnessPages, ScratchIsAtLeastAPage) {
  EXPECT_EQ(plan_harness_pages(0, 0, 0).scratch_pages, 1u);
  EXPECT_EQ(plan_harness_pages(0x1001, 0, 0).scratch_pages, 2u);
}

LdtEntry gdt_entry(const DescriptorTables& t, std::uint16_t selector) {
  return LdtEntry::from_descriptor(static_cast<std::uint16_t>(selector >> 3), t.gdt[selector >> 3]);
}

TEST(DescriptorTables, FlatDpl3CodeAndDataAndBasedFsGs) {
  Snapshot s;
  Thread t;
  t.cs = 0x23;
  t.ds = t.es = t.ss = 0x2b;
  t.gs = 0x63;
  t.gs_base = 0x0804c000;
  s.threads = {t};
  auto r = build_descriptor_tables(s, t, 0);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->cs, 0x23);
  EXPECT_EQ(r->ds, 0x2b);
  EXPECT_EQ(r->gs, 0x63);
  EXPECT_TRUE(r->ldt.empty());
  const LdtEntry cs = gdt_entry(*r, r->cs), ds = gdt_entry(*r, r->ds), gs = gdt_entry(*r, r->gs);
  EXPECT_EQ(cs.access, 0xfb) << "present, DPL 3, code execute/read, accessed";
  EXPECT_EQ(ds.access, 0xf3) << "present, DPL 3, data read/write, accessed";
  EXPECT_EQ(cs.base, 0u);
  EXPECT_EQ(cs.byte_limit(), 0xffffffffu) << "flat: 4 GiB";
  EXPECT_EQ(gs.base, 0x0804c000u);
  EXPECT_EQ(gs.access, 0xf3);
  // SS: Unicorn runs at CPL 0 and SS must match it, so a DPL 0 data descriptor at another index.
  EXPECT_NE(r->ss, 0x2b);
  const LdtEntry ss = gdt_entry(*r, r->ss);
  EXPECT_EQ(ss.access, 0x93) << "present, DPL 0, data read/write, accessed";
  EXPECT_EQ(ss.byte_limit(), 0xffffffffu);
}

TEST(DescriptorTables, AnLdtSelectorGetsAnLdtAndItsSystemDescriptor) {
  Snapshot s;
  Thread t;
  t.cs = 0x23;
  t.ds = t.es = t.ss = 0x2b;
  t.fs = 0x3f;  // LDT entry 7, RPL 3: Wine's TEB selector
  t.fs_base = 0x7ffdf000;
  s.threads = {t};
  EXPECT_EQ(ldt_entries_needed(s, t), 8u);
  auto r = build_descriptor_tables(s, t, 0x10020000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->ldt.size(), 8u);
  const LdtEntry fs = LdtEntry::from_descriptor(7, r->ldt[7]);
  EXPECT_EQ(fs.base, 0x7ffdf000u) << "no LDT entry in the snapshot: the thread's fs_base";
  EXPECT_EQ(fs.access, 0xf3);
  const LdtEntry sys = gdt_entry(*r, r->ldt_selector);
  EXPECT_EQ(sys.base, 0x10020000u);
  EXPECT_EQ(sys.access, 0x82) << "present, DPL 0, system type 2 (LDT)";
}

TEST(DescriptorTables, ADataSelectorInAnLdtTheSnapshotLacksIsRefused) {
  Snapshot s;
  Thread t;
  t.cs = 0x23;
  t.ds = 0x0f;  // LDT entry 1, which the snapshot does not hold
  t.es = t.ss = 0x2b;
  s.threads = {t};
  auto r = build_descriptor_tables(s, t, 0x10020000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::kUnsupported);
}

}  // namespace
}  // namespace lockstep::harness::machine_detail
