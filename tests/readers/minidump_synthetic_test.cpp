// The minidump reader on dumps built here with known contents (builders.hpp): what breakpad's test
// dumps do not have (Memory64List, MemoryInfoList, Wine's dumps, padded lists, overlaps), and hostile input.
#include <gtest/gtest.h>

#include "builders.hpp"
#include "lockstep/machine/machine.hpp"
#include "lockstep/readers/minidump.hpp"

namespace lockstep::harness {
namespace {

using testing::Bytes;
using testing::MinidumpBuilder;
using testing::pattern;

/// A Wine-style full-memory dump: Memory64List, CONTEXT_FULL only, TEB in the dump, 0xFFF0 modules.
MinidumpBuilder wine_full_dump() {
  MinidumpBuilder b;
  b.wine = true;
  b.unused_entries = 3;
  Bytes teb(0x1000, 0);
  testing::put32(teb, 0x18, 0x7ffdd000);  // NT_TIB.Self
  b.memory64.push_back({0x00400000, pattern(0x2000, 1)});
  b.memory64.push_back({0x7ffdd000, teb});
  b.memory64.push_back({0x00130000, pattern(0x1000, 9)});
  MinidumpBuilder::Thread t;
  t.tid = 0x20;
  t.teb = 0x7ffdd000;
  t.ctx.flags = 0x10007;  // CONTEXT_FULL: no FPU state
  t.ctx.eax = 0x11111111;
  t.ctx.esp = 0x00130800;
  t.ctx.eip = 0x00401234;
  t.ctx.fcw = 0x037f;  // present in the bytes, but the flags say it is not valid
  t.ctx.mxcsr = 0x1fa0;
  b.threads.push_back(t);
  b.modules.push_back({0x400000, 0x2000, "C:\\pod\\WINPOD.EXE"});
  b.wine_modules.push_back({0xf7000000, 0x100000, "/usr/lib/wine/i386-unix/ntdll.so"});
  return b;
}

TEST(MinidumpSynthetic, WineFullMemoryDump) {
  Bytes f = wine_full_dump().build();
  auto s = read_minidump(f, "wine.dmp");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->regions.size(), 3u);
  EXPECT_EQ(s->regions[0].base, 0x00130000u);
  EXPECT_EQ(s->regions[1].base, 0x00400000u);
  EXPECT_EQ(s->regions[1].bytes, pattern(0x2000, 1));
  EXPECT_EQ(s->regions[2].base, 0x7ffdd000u);
  for (const auto& r : s->regions) EXPECT_EQ(r.prot, kProtRead | kProtWrite);
  ASSERT_EQ(s->threads.size(), 1u);
  const Thread& t = s->threads[0];
  EXPECT_EQ(t.eax, 0x11111111u);
  EXPECT_EQ(t.eip, 0x00401234u);
  EXPECT_EQ(t.fs_base, 0x7ffdd000u);
  // No FPU state in the context: Windows' defaults, flagged.
  EXPECT_FALSE(t.x87_valid);
  EXPECT_EQ(t.x87.control, 0x027f);
  EXPECT_EQ(t.x87.mxcsr, 0x1f80u);
  ASSERT_EQ(s->meta.modules.size(), 2u);
  EXPECT_EQ(s->meta.modules[0].name, "C:\\pod\\WINPOD.EXE");
  EXPECT_EQ(s->meta.modules[1].name, "/usr/lib/wine/i386-unix/ntdll.so");
  EXPECT_EQ(s->meta.exe_path, "C:\\pod\\WINPOD.EXE");
  auto has = [&](const std::string& needle) {
    for (const auto& n : s->meta.notes)
      if (n.find(needle) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("Wine's dbghelp"));
  EXPECT_TRUE(has("no MemoryInfoList"));
  EXPECT_TRUE(has("Windows defaults FCW 0x027f"));
  EXPECT_FALSE(has("FS base unchecked"));  // the TEB is in the dump and points at itself
  EXPECT_FALSE(has("does not point at itself"));
}

TEST(MinidumpSynthetic, LdtFsSelectorTakesTheTebAsItsBase) {
  // Wine's threads reach their TEB through an LDT selector in FS (0x3f: entry 7, TI = 1). The dump
  // holds no LDT, but its TEB address is FS's base; the note says so, and the machine builds the
  // LDT entry from it, so fs:[0x18] reads the TEB's Self pointer.
  auto b = wine_full_dump();
  b.threads[0].ctx.fs = 0x3f;
  b.threads[0].ctx.gs = 0x47;  // an LDT selector with nothing to tell its base
  Bytes code = {0x64, 0xa1, 0x18, 0x00, 0x00, 0x00, 0xc3};  // mov eax, fs:[0x18]; ret
  std::copy(code.begin(), code.end(), b.memory64[0].data.begin());
  auto s = read_minidump(b.build(), "wine.dmp");
  ASSERT_TRUE(s.ok()) << s.error().message;
  const Thread& t = s->threads[0];
  EXPECT_EQ(t.fs, 0x3f);
  EXPECT_EQ(t.fs_base, 0x7ffdd000u);
  EXPECT_TRUE(s->ldt.empty());
  auto has = [&](const std::string& needle) {
    for (const auto& n : s->meta.notes)
      if (n.find(needle) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("fs=0x003f is an LDT selector; a minidump holds no LDT: FS's base is the thread's TEB address 0x7ffdd000"));
  EXPECT_TRUE(has("gs=0x0047 is an LDT selector; a minidump holds no LDT: its base is unknown"));
  s->find(0x00400000)->prot |= kProtExec;  // no MemoryInfoList: every region read as read-write
  auto m = Machine::create(*s, {});
  ASSERT_TRUE(m.ok()) << m.error().message;
  CallSpec call;
  call.function = 0x00400000;
  call.convention.kind = Convention::kCdecl;
  auto o = (*m)->call(call);
  ASSERT_TRUE(o.ok()) << o.error().message;
  ASSERT_TRUE(o->returned()) << format_fault(*o->fault);
  EXPECT_EQ(o->value.eax, 0x7ffdd000u);
}

TEST(MinidumpSynthetic, TebThatDoesNotPointAtItselfIsNoted) {
  auto b = wine_full_dump();
  testing::put32(b.memory64[1].data, 0x18, 0x12345678);
  auto s = read_minidump(b.build(), "wine.dmp");
  ASSERT_TRUE(s.ok()) << s.error().message;
  bool noted = false;
  for (const auto& n : s->meta.notes) noted = noted || n.find("+0x18 holds 0x12345678") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(MinidumpSynthetic, MemoryInfoListGivesProtectionsAndSplitsRegions) {
  MinidumpBuilder b;
  b.memory.push_back({0x00400000, pattern(0x3000, 3)});
  b.info.push_back({0x00400000, 0x1000, 0x1000, 0x02});   // R
  b.info.push_back({0x00401000, 0x1000, 0x1000, 0x20});   // RX
  b.info.push_back({0x00402000, 0x1000, 0x1000, 0x104});  // RW + GUARD → none
  auto s = read_minidump(b.build(), "info.dmp");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->regions.size(), 3u);
  EXPECT_EQ(s->regions[0].prot, kProtRead);
  EXPECT_EQ(s->regions[1].prot, kProtRead | kProtExec);
  EXPECT_EQ(s->regions[2].prot, kProtNone);
  Bytes all;
  for (const auto& r : s->regions) all.insert(all.end(), r.bytes.begin(), r.bytes.end());
  EXPECT_EQ(all, pattern(0x3000, 3));
}

TEST(MinidumpSynthetic, PaddedListsReadTheSame) {
  for (bool pad : {false, true}) {
    auto b = wine_full_dump();
    b.pad_lists = pad;
    b.memory64.clear();
    b.memory.push_back({0x00400000, pattern(0x100, 5)});
    auto d = parse_minidump(b.build(), "pad.dmp");
    ASSERT_TRUE(d.ok()) << pad << ": " << d.error().message;
    ASSERT_EQ(d->threads.size(), 1u) << pad;
    EXPECT_EQ(d->threads[0].thread_id, 0x20u) << pad;
    ASSERT_EQ(d->modules.size(), 2u) << pad;
    EXPECT_EQ(d->modules[0].name, "C:\\pod\\WINPOD.EXE") << pad;
    ASSERT_EQ(d->memory.size(), 1u) << pad;
    EXPECT_EQ(d->memory[0].base, 0x00400000u) << pad;
  }
}

TEST(MinidumpSynthetic, OverlappingRangesResolveByFileOrderWhateverTheBytes) {
  MinidumpBuilder b;
  b.memory.push_back({0x1000, Bytes(0x100, 0xAA)});
  b.memory.push_back({0x1080, Bytes(0x100, 0xBB)});  // overlaps the last 0x80 bytes of the first
  auto s = read_minidump(b.build(), "overlap.dmp");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->regions.size(), 2u);
  EXPECT_EQ(s->regions[0].bytes, Bytes(0x100, 0xAA));  // the earlier range keeps its bytes
  EXPECT_EQ(s->regions[1].base, 0x1100u);
  EXPECT_EQ(s->regions[1].bytes, Bytes(0x80, 0xBB));
  bool noted = false;
  for (const auto& n : s->meta.notes) noted = noted || n.find("0x80 bytes, 128 differ") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(MinidumpSynthetic, FpuFromFloatSaveAndExtendedRegisters) {
  MinidumpBuilder b;
  MinidumpBuilder::Thread t;
  t.tid = 7;
  t.ctx.fcw = 0x027f;
  t.ctx.fsw = 0x3800;  // TOP = 7
  t.ctx.ftw_full = 0x3fff;  // physical 7 valid, the rest empty
  t.ctx.st[0] = 0x00;  // ST(0) = +0.0 except the explicit bit below
  t.ctx.st[7] = 0x80;  // mantissa bit 63
  t.ctx.st[8] = 0xff;
  t.ctx.st[9] = 0x3f;  // exponent 0x3fff: 1.0
  t.ctx.mxcsr = 0x9fc0;
  b.threads.push_back(t);
  auto s = read_minidump(b.build(), "fpu.dmp");
  ASSERT_TRUE(s.ok()) << s.error().message;
  const X87State& x = s->threads[0].x87;
  EXPECT_TRUE(s->threads[0].x87_valid);
  EXPECT_EQ(x.control, 0x027f);
  EXPECT_EQ(x.status, 0x3800);
  EXPECT_EQ(x.tag, 0x3fff);
  EXPECT_EQ(x.st[0][9], 0x3f);
  EXPECT_EQ(x.mxcsr, 0x9fc0u);
}

// --- hostile input ---

TEST(MinidumpHostile, Amd64IsRefused) {
  MinidumpBuilder b;
  b.arch = 9;
  auto s = read_minidump(b.build(), "x64.dmp");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::kUnsupported);
  EXPECT_NE(s.error().message.find("AMD64"), std::string::npos);
}

TEST(MinidumpHostile, Amd64ContextIsRefused) {
  MinidumpBuilder b;
  MinidumpBuilder::Thread t;
  t.ctx.flags = 0x0010001f;
  t.ctx.size = 0x4D0;
  b.threads.push_back(t);
  auto s = read_minidump(b.build(), "wow64.dmp");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::kUnsupported);
}

TEST(MinidumpHostile, EachBrokenFieldGivesItsError) {
  const Bytes good = wine_full_dump().build();
  ASSERT_TRUE(read_minidump(good, "x.dmp").ok());
  const std::uint32_t dir_rva = good[12] | (good[13] << 8) | (good[14] << 16) | (std::uint32_t{good[15]} << 24);
  auto broken = [&](auto&& edit) {
    Bytes f = good;
    edit(f);
    return read_minidump(f, "x.dmp");
  };
  auto expect = [](const Result<Snapshot>& r, Errc want, const char* what) {
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_EQ(r.error().code, want) << what << ": " << r.error().message;
    EXPECT_NE(r.error().message.find("x.dmp"), std::string::npos) << r.error().message;
  };
  expect(broken([](Bytes& f) { f[0] = 'X'; }), Errc::kBadMagic, "signature");
  expect(broken([](Bytes& f) { f[4] = 0; }), Errc::kBadVersion, "version");
  expect(broken([](Bytes& f) { testing::put32(f, 8, 1000000); }), Errc::kLimit, "stream count");
  expect(broken([](Bytes& f) { testing::put32(f, 12, 0xFFFFFFF0); }), Errc::kTruncated, "directory rva");
  // Each directory entry's rva pushed past the end.
  expect(broken([&](Bytes& f) { testing::put32(f, dir_rva + 8, static_cast<std::uint32_t>(f.size())); }),
         Errc::kTruncated, "stream past the end");
  // Find streams by type to break their contents.
  auto stream_rva = [&](const Bytes& f, std::uint32_t type) -> std::uint32_t {
    const std::uint32_t n = f[8] | (f[9] << 8);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::size_t e = dir_rva + 12 * i;
      if ((f[e] | (f[e + 1] << 8) | (f[e + 2] << 16) | (std::uint32_t{f[e + 3]} << 24)) == type)
        return f[e + 8] | (f[e + 9] << 8) | (f[e + 10] << 16) | (std::uint32_t{f[e + 11]} << 24);
    }
    return 0;
  };
  const std::uint32_t tl = stream_rva(good, 3), m64 = stream_rva(good, 9), ml = stream_rva(good, 4);
  ASSERT_NE(tl, 0u);
  expect(broken([&](Bytes& f) { testing::put32(f, tl, 0x7fffffff); }), Errc::kLimit, "thread count");
  expect(broken([&](Bytes& f) { testing::put32(f, tl, 3); }), Errc::kTruncated, "thread count past its stream");
  expect(broken([&](Bytes& f) { testing::put64(f, m64, 1u << 30); }), Errc::kLimit, "memory64 count");
  expect(broken([&](Bytes& f) { testing::put64(f, m64 + 8, f.size() - 16); }), Errc::kTruncated, "memory64 data");
  expect(broken([&](Bytes& f) { testing::put64(f, m64 + 16, 0xFFFFF000); }), Errc::kMalformed, "range wraps 4 GiB");
  expect(broken([&](Bytes& f) { testing::put64(f, m64 + 16, 0x100000000ull); }), Errc::kMalformed, "range past 4 GiB");
  expect(broken([&](Bytes& f) { testing::put32(f, tl + 4 + 40, 0x20); }), Errc::kTruncated, "context too short");
  expect(broken([&](Bytes& f) { testing::put32(f, ml + 4 + 20, 0xFFFFFFF0); }), Errc::kTruncated, "module name rva");
  expect(broken([&](Bytes& f) {
           const std::uint32_t name = f[ml + 24] | (f[ml + 25] << 8) | (f[ml + 26] << 16);
           testing::put32(f, name, 1u << 20);
         }),
         Errc::kLimit, "module name length");
  // Unknown stream types: a note, not an error.
  auto b = wine_full_dump();
  b.extra_streams.push_back({0x12345, Bytes(40, 1)});
  auto s = read_minidump(b.build(), "x.dmp");
  ASSERT_TRUE(s.ok()) << s.error().message;
  bool noted = false;
  for (const auto& n : s->meta.notes) noted = noted || n.find("type 0x12345") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(MinidumpHostile, EveryTruncationIsAnErrorNotACrash) {
  const Bytes good = wine_full_dump().build();
  int errors = 0;
  for (std::size_t n = 0; n < good.size(); ++n) {
    auto s = read_minidump(std::span(good.data(), n), "cut.dmp");
    errors += !s.ok();
  }
  // The directory sits at the end: every shorter file loses it, or part of it.
  EXPECT_EQ(errors, static_cast<int>(good.size()));
}

TEST(MinidumpHostile, OverlappingMemoryInfoEntriesAreMalformed) {
  MinidumpBuilder b;
  b.memory.push_back({0x1000, Bytes(0x1000, 1)});
  b.info.push_back({0x1000, 0x1000, 0x1000, 0x04});
  b.info.push_back({0x1800, 0x1000, 0x1000, 0x04});
  auto s = read_minidump(b.build(), "x.dmp");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::kMalformed);
}

}  // namespace
}  // namespace lockstep::harness
