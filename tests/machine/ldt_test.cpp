// The machine's descriptor tables with an LDT: one test per kind of selector a Windows thread under
// Wine (or a DOS-era program) uses. Each reads through the segment the fields a Windows function
// reads from its TEB: fs:[0x18] (NT_TIB.Self), fs:[4] / fs:[8] (stack base and limit) and the TLS
// slots at fs:[0xe10 + 4 * i]. The expected values are the bytes the tests put in the TEB blocks.
#include <gtest/gtest.h>

#include <cstring>

#include "fixture.hpp"

namespace lockstep::harness::test {
namespace {

constexpr GuestAddr kTebs = 0x00710000;   // two TEB-like blocks, 0x2000 bytes each
constexpr GuestAddr kTeb0 = kTebs, kTeb1 = kTebs + 0x2000;
constexpr std::uint32_t kStackBase0 = 0x7ff10000, kStackLimit0 = 0x7ff00000;
constexpr std::uint32_t kStackBase1 = 0x12340000, kStackLimit1 = 0x12300000;
constexpr std::uint16_t kFsLdt = (7 << 3) | 4 | 3;   // 0x3f: Wine's first thread's TEB selector
constexpr std::uint16_t kFsLdt1 = (8 << 3) | 4 | 3;  // 0x47: the second thread's

std::uint32_t tls_value(int teb, int slot) { return 0x7150000u + static_cast<std::uint32_t>(teb) * 0x100 + static_cast<std::uint32_t>(slot); }

void put32(std::vector<std::uint8_t>& b, std::size_t off, std::uint32_t v) { std::memcpy(b.data() + off, &v, 4); }

/// make_snapshot() plus two TEB blocks: Self at +0x18, stack base/limit at +4/+8, TLS slots at +0xe10.
Snapshot snapshot_with_tebs(const std::vector<std::uint8_t>& code) {
  Snapshot s = make_snapshot(code, /*windows=*/true);
  Region r;
  r.base = kTebs;
  r.bytes.assign(0x4000, 0);
  const GuestAddr tebs[] = {kTeb0, kTeb1};
  const std::uint32_t base[] = {kStackBase0, kStackBase1}, limit[] = {kStackLimit0, kStackLimit1};
  for (int t = 0; t < 2; ++t) {
    const std::size_t at = tebs[t] - kTebs;
    put32(r.bytes, at + 4, base[t]);
    put32(r.bytes, at + 8, limit[t]);
    put32(r.bytes, at + 0x18, tebs[t]);
    for (int i = 0; i < 64; ++i) put32(r.bytes, at + 0xe10 + 4u * static_cast<std::size_t>(i), tls_value(t, i));
  }
  r.name = "teb";
  s.regions.push_back(r);
  s.sort_regions();
  return s;
}

/// An LDT entry as Linux's modify_ldt writes one for Wine's TEB: 32-bit read/write data, DPL 3,
/// byte-granular limit.
LdtEntry teb_entry(std::uint16_t index, GuestAddr base) {
  LdtEntry e;
  e.index = index;
  e.base = base;
  e.limit = 0x1fff;
  e.access = 0xf2;  // present, DPL 3, data read/write (accessed bit clear, as the kernel may leave it)
  e.flags = 0x4;    // D/B = 32-bit
  return e;
}

/// Reads the four TEB fields through `seg` into eax (Self), edx (stack base), ecx (stack limit),
/// ebx (TLS slot 5).
std::string teb_reads(const char* seg) {
  return fmt::format("mov eax, [{0}:0x18]\nmov edx, [{0}:4]\nmov ecx, [{0}:8]\nmov ebx, [{0}:0xe10 + 4 * 5]\nret", seg);
}

CallOutcome call(const Snapshot& s, std::unique_ptr<Machine>* keep = nullptr) {
  auto m = Machine::create(s, {});
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  if (!m.ok()) return {};
  auto o = (*m)->call(watcom_call(kCode));
  EXPECT_TRUE(o.ok()) << (o.ok() ? "" : o.error().message);
  if (!o.ok()) return {};
  EXPECT_TRUE(o->returned()) << (o->fault ? format_fault(*o->fault) : "");
  if (keep) *keep = std::move(*m);
  return std::move(*o);
}

void expect_teb(const CallOutcome& o, int teb) {
  EXPECT_EQ(o.record.out.eax, teb ? kTeb1 : kTeb0);
  EXPECT_EQ(o.record.out.edx, teb ? kStackBase1 : kStackBase0);
  EXPECT_EQ(o.record.out.ecx, teb ? kStackLimit1 : kStackLimit0);
  EXPECT_EQ(o.record.out.ebx, tls_value(teb, 5));
}

TEST(LdtSelectors, GdtFsReadsTheTeb) {
  Snapshot s = snapshot_with_tebs(assemble(teb_reads("fs")));
  s.threads[0].fs = 0x3b;  // Windows' own GDT selector, the base from the snapshot
  s.threads[0].fs_base = kTeb0;
  std::unique_ptr<Machine> m;
  CallOutcome o = call(s, &m);
  expect_teb(o, 0);
  EXPECT_EQ(m->layout().ldt, 0u);  // no LDT needed, none built
  // The reads are inputs at the TEB's linear addresses.
  EXPECT_EQ(find_bytes(o.record.effects.inputs, kTeb0 + 0x18, 4), le32(kTeb0));
}

TEST(LdtSelectors, LdtFsReadsTheTebThroughTheProcessLdt) {
  Snapshot s = snapshot_with_tebs(assemble(teb_reads("fs") + "\n"));
  s.threads[0].fs = kFsLdt;
  s.threads[0].fs_base = 0;  // what a snapshot that could not read the base records
  s.ldt = {teb_entry(7, kTeb0), teb_entry(8, kTeb1)};
  std::unique_ptr<Machine> m;
  CallOutcome o = call(s, &m);
  expect_teb(o, 0);
  EXPECT_NE(m->layout().ldt, 0u);
  EXPECT_EQ(find_bytes(o.record.effects.inputs, kTeb0 + 0xe10 + 20, 4), le32(tls_value(0, 5)));
  // The LDT is harness memory: its reads are not among the call's inputs.
  for (const ByteRun& r : o.record.effects.inputs) EXPECT_NE(r.addr & ~0xfffu, m->layout().ldt);
}

TEST(LdtSelectors, EveryLdtEntryIsThereNotOnlyTheThreadsOwn) {
  // The code switches FS to the second thread's selector: the whole LDT was built.
  Snapshot s = snapshot_with_tebs(assemble("mov ax, 0x47\nmov fs, ax\n" + teb_reads("fs")));
  s.threads[0].fs = kFsLdt;
  s.ldt = {teb_entry(7, kTeb0), teb_entry(8, kTeb1)};
  ASSERT_EQ(kFsLdt1, 0x47);
  expect_teb(call(s), 1);
}

TEST(LdtSelectors, LdtDataSelectorsInDsAndEs) {
  // DS based at the first TEB and ES at the second: plain [x] and es:[x] reads go through them.
  Snapshot s = snapshot_with_tebs(assemble("mov eax, [0x18]\nmov edx, [es:4]\nmov ecx, [es:8]\nmov ebx, [0xe10 + 4 * 5]\nret"));
  s.ldt = {teb_entry(9, kTeb0), teb_entry(10, kTeb1)};
  s.threads[0].ds = (9 << 3) | 7;
  s.threads[0].es = (10 << 3) | 7;
  CallOutcome o = call(s);
  EXPECT_EQ(o.record.out.eax, kTeb0);
  EXPECT_EQ(o.record.out.edx, kStackBase1);
  EXPECT_EQ(o.record.out.ecx, kStackLimit1);
  EXPECT_EQ(o.record.out.ebx, tls_value(0, 5));
}

TEST(LdtSelectors, LdtGsReadsItsEntry) {
  Snapshot s = snapshot_with_tebs(assemble(teb_reads("gs")));
  s.threads[0].gs = (12 << 3) | 7;
  s.ldt = {teb_entry(12, kTeb1)};
  expect_teb(call(s), 1);
}

TEST(LdtSelectors, AnLdtFsWithoutItsEntryUsesTheThreadsBase) {
  // A minidump: the TEB address is FS's base, the LDT itself is not in the file.
  Snapshot s = snapshot_with_tebs(assemble(teb_reads("fs")));
  s.threads[0].fs = kFsLdt;
  s.threads[0].fs_base = kTeb1;
  expect_teb(call(s), 1);
}

TEST(LdtSelectors, TheProcessEntryWinsOverAStaleBase) {
  Snapshot s = snapshot_with_tebs(assemble(teb_reads("fs")));
  s.threads[0].fs = kFsLdt;
  s.threads[0].fs_base = kTeb1;  // disagrees with the LDT: the descriptor is what the CPU uses
  s.ldt = {teb_entry(7, kTeb0)};
  expect_teb(call(s), 0);
}

TEST(LdtSelectors, ADataSelectorWithoutItsEntryIsRefused) {
  Snapshot s = snapshot_with_tebs(assemble("ret"));
  s.threads[0].ds = (9 << 3) | 7;
  auto m = Machine::create(s, {});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, Errc::kUnsupported);
  EXPECT_NE(m.error().message.find("LDT entry 9"), std::string::npos) << m.error().message;
}

TEST(LdtSelectors, ResetRestoresTheLdtAfterTheGuestWritesItsSelectors) {
  // Loading a selector whose entry lacks the accessed bit must not leave the table changed; a second
  // call on the same machine reads the same fields.
  Snapshot s = snapshot_with_tebs(assemble(teb_reads("fs")));
  s.threads[0].fs = kFsLdt;
  s.ldt = {teb_entry(7, kTeb0)};
  auto m = Machine::create(s, {});
  ASSERT_TRUE(m.ok()) << m.error().message;
  for (int i = 0; i < 2; ++i) {
    auto o = (*m)->call(watcom_call(kCode));
    ASSERT_TRUE(o.ok());
    ASSERT_TRUE(o->returned());
    expect_teb(*o, 0);
    (*m)->reset();
  }
}

}  // namespace
}  // namespace lockstep::harness::test
