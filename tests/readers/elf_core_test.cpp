// The ELF core reader on i386 cores built here with known contents (builders.hpp), and hostile input.
// (The gcore-versus-live test of a real process is gcore_live_test.cpp.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "builders.hpp"
#include "lockstep/base/io.hpp"
#include "lockstep/readers/elf_core.hpp"

namespace lockstep::harness {
namespace {

using testing::Bytes;
using testing::ElfCoreBuilder;
using testing::pattern;

std::array<std::array<std::uint8_t, 10>, 8> st_values() {
  std::array<std::array<std::uint8_t, 10>, 8> st{};
  st[0] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f};  // 1.0
  st[1] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};           // +0.0
  return st;
}

/// A kernel-style core: two threads with FXSAVE and TLS notes, an ELF-header page dumped and the rest
/// of a file mapping left out, a PROT_NONE reservation, an anonymous range not dumped.
struct KernelCore {
  std::filesystem::path file;
  Bytes file_bytes = pattern(0x3000, 0x40);
  ElfCoreBuilder b;

  explicit KernelCore(const std::string& tag) {
    file = std::filesystem::temp_directory_path() / ("lockstep_core_file_" + tag + ".bin");
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(file_bytes.data()),
                                                static_cast<std::streamsize>(file_bytes.size()));
    ElfCoreBuilder::Regs r;
    r.eax = 0xA1;
    r.ebx = 0xB1;
    r.ecx = 0xC1;
    r.edx = 0xD1;
    r.esi = 0x51;
    r.edi = 0xD2;
    r.ebp = 0xBB;
    r.esp = 0x00130f00;
    r.eip = 0x08049000;
    r.gs = 0x63;  // GDT entry 12: the first TLS slot on an x86-64 kernel
    r.fs = 0x6b;  // entry 13
    b.prstatus(100, r);
    b.fxsave(0x027f, 0x3000 /* TOP 6 */, 0x40 | 0x80, 0x1f80, st_values());
    b.tls({{12, 0x0804c000}, {13, 0x7ffdd000}, {14, 0}});
    r.eax = 0xA2;
    r.esp = 0x00140f00;
    b.prstatus(101, r);
    b.fxsave(0x037f, 0, 0, 0x1fa0, {}, /*xstate=*/true, /*xstate_bv=*/2);  // x87 in its initial state
    b.tls({{12, 0x0804d000}, {13, 0x7ffdb000}, {14, 0}});
    b.file({{0x08048000, 0x0804b000, 0, file.string()}});
    // The file mapping: the first page dumped (ELF header page), two left out.
    b.loads.push_back({0x08048000, 0x3000, 5, Bytes(file_bytes.begin(), file_bytes.begin() + 0x1000)});
    b.loads.push_back({0x00130000, 0x1000, 6, pattern(0x1000, 1)});
    b.loads.push_back({0x00140000, 0x1000, 6, pattern(0x1000, 2)});
    b.loads.push_back({0x10000000, 0x100000, 0, {}});       // PROT_NONE reservation
    b.loads.push_back({0x00150000, 0x2000, 6, Bytes(0x1000, 3)});  // second page not dumped, anonymous
  }
  ~KernelCore() { std::filesystem::remove(file); }
};

TEST(ElfCore, ThreadsRegistersFpuAndTlsBases) {
  KernelCore k("threads");
  auto c = read_elf_core(k.b.build(), "kernel.core");
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto& s = c->snapshot;
  ASSERT_EQ(s.threads.size(), 2u);
  const Thread& t = s.threads[0];
  EXPECT_EQ(t.tid, 100u);
  EXPECT_EQ(t.eax, 0xA1u);
  EXPECT_EQ(t.ebx, 0xB1u);
  EXPECT_EQ(t.ecx, 0xC1u);
  EXPECT_EQ(t.edx, 0xD1u);
  EXPECT_EQ(t.esi, 0x51u);
  EXPECT_EQ(t.edi, 0xD2u);
  EXPECT_EQ(t.ebp, 0xBBu);
  EXPECT_EQ(t.esp, 0x00130f00u);
  EXPECT_EQ(t.eip, 0x08049000u);
  EXPECT_EQ(t.cs, 0x23);
  EXPECT_EQ(t.ss, 0x2b);
  EXPECT_EQ(t.eflags, 0x246u);
  EXPECT_EQ(t.gs, 0x63);
  EXPECT_EQ(t.gs_base, 0x0804c000u);
  EXPECT_EQ(t.fs_base, 0x7ffdd000u);
  EXPECT_TRUE(t.x87_valid);
  EXPECT_EQ(t.x87.control, 0x027f);
  EXPECT_EQ(t.x87.status, 0x3000);
  // Abridged tag 0xC0: physical 6 and 7 in use; TOP = 6, so ST(0) = R6 (1.0: valid, 00) and
  // ST(1) = R7 (+0.0: zero, 01); the rest empty (11).
  EXPECT_EQ(t.x87.tag, 0x4fff);
  EXPECT_EQ(t.x87.st[0], st_values()[0]);
  EXPECT_EQ(s.threads[1].tid, 101u);
  EXPECT_EQ(s.threads[1].eax, 0xA2u);
  EXPECT_EQ(s.threads[1].gs_base, 0x0804d000u);
  EXPECT_EQ(s.threads[1].x87.control, 0x037f);  // XSTATE_BV bit 0 clear: the initial x87 state
  EXPECT_EQ(s.threads[1].x87.tag, 0xffff);
  EXPECT_EQ(s.threads[1].x87.mxcsr, 0x1fa0u);
  EXPECT_TRUE(c->has_tls_notes);
}

TEST(ElfCore, LeftOutFilePagesAreRefilledFromTheFile) {
  KernelCore k("refill");
  auto c = read_elf_core(k.b.build(), "kernel.core");
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto& s = c->snapshot;
  auto bytes = s.read(0x08048000, 0x3000);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  EXPECT_EQ(*bytes, k.file_bytes);
  EXPECT_EQ(c->refilled_bytes, 0x2000u);
  EXPECT_EQ(s.find(0x08049000)->prot, kProtRead | kProtExec);
  // Still missing: the anonymous page and the reservation; listed, and not in the snapshot.
  ASSERT_EQ(c->missing.size(), 2u);
  EXPECT_EQ(c->missing[0].begin, 0x10000000u);
  EXPECT_EQ(c->missing[0].prot, kProtNone);
  EXPECT_EQ(c->missing[1].begin, 0x00151000u);
  EXPECT_EQ(c->missing[1].end, 0x00152000u);
  EXPECT_EQ(s.find(0x00151000), nullptr);
  EXPECT_EQ(s.find(0x10000000), nullptr);
  ASSERT_EQ(s.meta.modules.size(), 1u);
  EXPECT_EQ(s.meta.modules[0].base, 0x08048000u);
  EXPECT_EQ(s.meta.modules[0].size, 0x3000u);
}

TEST(ElfCore, WithoutTheFileTheGapIsListed) {
  KernelCore k("nofile");
  std::filesystem::remove(k.file);
  auto c = read_elf_core(k.b.build(), "kernel.core");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->refilled_bytes, 0u);
  ASSERT_EQ(c->missing.size(), 3u);
  const auto& m = c->missing[0];
  EXPECT_EQ(m.begin, 0x08049000u);
  EXPECT_EQ(m.end, 0x0804b000u);
  EXPECT_EQ(m.file, k.file.string());
  EXPECT_EQ(m.file_offset, 0x1000u);
  bool noted = false;
  for (const auto& n : c->snapshot.meta.notes) noted = noted || (n.find("missing 0x08049000..0x0804b000") == 0);
  EXPECT_TRUE(noted);
  // Refill off: the same list even when the file is there.
  KernelCore k2("off");
  ElfCoreOptions o;
  o.refill_from_files = false;
  auto c2 = read_elf_core(k2.b.build(), "kernel.core", o);
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(c2->missing.size(), 3u);
}

TEST(ElfCore, GcoreStyleCoreWithoutTlsNotesSaysSo) {
  ElfCoreBuilder b;
  ElfCoreBuilder::Regs r;
  r.gs = 0x63;
  b.prstatus(5, r);
  b.fsave(0x037f, 0, 0xffff, {});
  b.loads.push_back({0x1000, 0x1000, 6, Bytes(0x1000, 7)});
  auto c = read_elf_core(b.build(), "gcore.core");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->has_tls_notes);
  EXPECT_EQ(c->snapshot.threads[0].gs_base, 0u);
  EXPECT_TRUE(c->snapshot.threads[0].x87_valid);
  EXPECT_EQ(c->snapshot.threads[0].x87.control, 0x037f);
  bool noted = false;
  for (const auto& n : c->snapshot.meta.notes) noted = noted || n.find("no NT_386_TLS") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(ElfCoreHostile, EachBrokenFieldGivesItsError) {
  KernelCore k("hostile");
  const Bytes good = k.b.build();
  ElfCoreOptions o;
  o.refill_from_files = false;
  ASSERT_TRUE(read_elf_core(good, "x.core", o).ok());
  auto broken = [&](auto&& edit) {
    Bytes f = good;
    edit(f);
    return read_elf_core(f, "x.core", o);
  };
  auto expect = [](const Result<ElfCore>& r, Errc want, const char* what) {
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_EQ(r.error().code, want) << what << ": " << r.error().message;
    EXPECT_NE(r.error().message.find("x.core"), std::string::npos) << r.error().message;
  };
  const std::size_t ph1 = 52 + 32;  // the first PT_LOAD
  expect(broken([](Bytes& f) { f[1] = 'X'; }), Errc::kBadMagic, "magic");
  expect(broken([](Bytes& f) { f[4] = 2; }), Errc::kUnsupported, "64-bit");
  expect(broken([](Bytes& f) { f[5] = 2; }), Errc::kUnsupported, "big-endian");
  expect(broken([](Bytes& f) { testing::put16(f, 16, 2); }), Errc::kUnsupported, "ET_EXEC");
  expect(broken([](Bytes& f) { testing::put16(f, 18, 62); }), Errc::kUnsupported, "x86-64 machine");
  expect(broken([](Bytes& f) { testing::put16(f, 42, 56); }), Errc::kMalformed, "phentsize");
  expect(broken([](Bytes& f) { testing::put16(f, 44, 0x7000); }), Errc::kTruncated, "phnum past the end");
  expect(broken([&](Bytes& f) { testing::put32(f, ph1 + 16, 0x100000); }), Errc::kMalformed, "filesz > memsz");
  expect(broken([&](Bytes& f) { testing::put32(f, ph1 + 4, 0xFFFFFF00); }), Errc::kTruncated, "segment data past the end");
  expect(broken([&](Bytes& f) { testing::put32(f, ph1 + 8, 0xFFFFF000); }), Errc::kMalformed, "segment wraps 4 GiB");
  const std::size_t note_off = good[52 + 4] | (good[52 + 5] << 8);
  expect(broken([&](Bytes& f) { testing::put32(f, note_off + 4, 0x10000000); }), Errc::kTruncated, "note desc too long");
  expect(broken([&](Bytes& f) { testing::put32(f, note_off + 4, 40); }), Errc::kTruncated, "prstatus too short");
  // Two PT_LOADs at the same address: the first wins, the overlap is noted (deterministic).
  auto dup = k.b;
  dup.loads.push_back({0x00130000, 0x1000, 6, Bytes(0x1000, 0xEE)});
  auto c = read_elf_core(dup.build(), "x.core", o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ((*c->snapshot.read(0x00130000, 0x1000)), pattern(0x1000, 1));
  // NT_FILE with an absurd count.
  auto nf = k.b;
  nf.notes.push_back({"CORE", 0x46494C45, Bytes(16, 0xFF)});
  auto c2 = read_elf_core(nf.build(), "x.core", o);
  ASSERT_FALSE(c2.ok());
  EXPECT_EQ(c2.error().code, Errc::kLimit);
}

TEST(ElfCoreHostile, EveryTruncationIsAnErrorNotACrash) {
  KernelCore k("cut");
  const Bytes good = k.b.build();
  ElfCoreOptions o;
  o.refill_from_files = false;
  int errors = 0;
  for (std::size_t n = 0; n < good.size(); ++n) errors += !read_elf_core(std::span(good.data(), n), "cut.core", o).ok();
  // The last PT_LOAD's data ends the file: every cut loses some of it.
  EXPECT_EQ(errors, static_cast<int>(good.size()));
}

}  // namespace
}  // namespace lockstep::harness
