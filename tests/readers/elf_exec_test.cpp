// An ELF32 i386 executable alone (elf_exec.hpp): the stand-in's static binary mapped at its link
// addresses with a synthesized thread, checked against binutils' own reading of it (readelf -lW), and
// one of its functions called with `lockstep call` on the file alone — math::sqrt (0x4d3e90, the
// integer square root of edx:eax, rounded down), against the root computed here. Then each broken
// header field gives its own error.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <regex>
#include <sstream>

#include "lockstep/base/io.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/readers/elf_exec.hpp"
#include "lockstep/load/load.hpp"

namespace lockstep::harness {
namespace {

std::vector<std::uint8_t> standin_bytes() {
  auto b = read_file(STANDIN_EXE);
  EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message);
  return b.ok() ? *b : std::vector<std::uint8_t>{};
}

struct Load {
  std::uint32_t offset, vaddr, filesz, memsz;
  std::string flags;
};

// readelf's LOAD rows: Type Offset VirtAddr PhysAddr FileSiz MemSiz Flg Align.
std::vector<Load> readelf_loads() {
  std::vector<Load> out;
  FILE* p = ::popen("readelf -lW '" STANDIN_EXE "' 2>/dev/null", "r");
  if (!p) return out;
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  ::pclose(p);
  std::istringstream in(text);
  std::string line;
  const std::regex re(
      R"(^\s*LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+([RWE ]+?)\s+0x)");
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, re))
      out.push_back({static_cast<std::uint32_t>(std::stoul(m[1], nullptr, 16)),
                     static_cast<std::uint32_t>(std::stoul(m[2], nullptr, 16)),
                     static_cast<std::uint32_t>(std::stoul(m[3], nullptr, 16)),
                     static_cast<std::uint32_t>(std::stoul(m[4], nullptr, 16)), m[5]});
  return out;
}

TEST(ElfExecutable, SegmentsAreTheOnesReadelfLists) {
  const auto bytes = standin_bytes();
  ASSERT_TRUE(is_elf_executable(bytes));
  EXPECT_EQ(detect_snapshot_format(bytes), SnapshotFormat::kElfExec);
  auto exe = parse_elf_executable(bytes, "standin");
  ASSERT_TRUE(exe.ok()) << exe.error().message;
  const auto loads = readelf_loads();
  if (loads.empty()) GTEST_SKIP() << "readelf (binutils) is not installed or printed no LOAD row";
  std::vector<Load> nonempty;
  for (const auto& l : loads)
    if (l.memsz) nonempty.push_back(l);
  ASSERT_EQ(exe->segments.size(), nonempty.size());
  for (std::size_t i = 0; i < nonempty.size(); ++i) {
    const auto& s = exe->segments[i];
    const auto& l = nonempty[i];
    EXPECT_EQ(s.vaddr, l.vaddr) << i;
    EXPECT_EQ(s.offset, l.offset) << i;
    EXPECT_EQ(s.filesz, l.filesz) << i;
    EXPECT_EQ(s.memsz, l.memsz) << i;
    EXPECT_EQ((s.prot & kProtRead) != 0, l.flags.find('R') != std::string::npos) << i;
    EXPECT_EQ((s.prot & kProtWrite) != 0, l.flags.find('W') != std::string::npos) << i;
    EXPECT_EQ((s.prot & kProtExec) != 0, l.flags.find('E') != std::string::npos) << i;
  }
  EXPECT_FALSE(exe->dynamic) << "the stand-in is linked -static";
}

TEST(ElfExecutable, SnapshotHoldsTheFileBytesAZeroBssAndASynthesizedThread) {
  const auto bytes = standin_bytes();
  auto snap = load_snapshot(STANDIN_EXE);
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  ASSERT_TRUE(snap->validate().ok());
  auto exe = parse_elf_executable(bytes, "standin");
  ASSERT_TRUE(exe.ok());
  for (const auto& s : exe->segments) {
    auto got = snap->read(s.vaddr, s.memsz);
    ASSERT_TRUE(got.ok()) << std::hex << s.vaddr;
    EXPECT_TRUE(std::equal(got->begin(), got->begin() + s.filesz, bytes.begin() + s.offset)) << std::hex << s.vaddr;
    EXPECT_TRUE(std::all_of(got->begin() + s.filesz, got->end(), [](std::uint8_t b) { return b == 0; }))
        << "bss of the segment at 0x" << std::hex << s.vaddr;
  }
  ASSERT_EQ(snap->threads.size(), 1u);
  const Thread& t = snap->threads[0];
  std::uint32_t entry;
  std::memcpy(&entry, bytes.data() + 24, 4);  // e_entry
  EXPECT_EQ(t.eip, entry);
  EXPECT_EQ(t.gs, kElfGs);
  // The TCB points at itself (glibc's tcbhead_t: tcb at +0, self at +8).
  auto tcb = snap->read(t.gs_base, 12);
  ASSERT_TRUE(tcb.ok());
  std::uint32_t w0, w2;
  std::memcpy(&w0, tcb->data(), 4);
  std::memcpy(&w2, tcb->data() + 8, 4);
  EXPECT_EQ(w0, t.gs_base);
  EXPECT_EQ(w2, t.gs_base);
  EXPECT_TRUE(snap->read(t.esp, 0x100).ok()) << "the stack is mapped above esp";
}

std::uint64_t isqrt64(std::uint64_t v) {
  std::uint64_t r = 0;
  for (std::uint64_t bit = std::uint64_t{1} << 62; bit; bit >>= 2) {
    if (v >= r + bit) {
      v -= r + bit;
      r = (r >> 1) + bit;
    } else {
      r >>= 1;
    }
  }
  return r;
}

TEST(ElfExecutable, LockstepCallRunsAFunctionOfTheFileAlone) {
  const std::uint64_t values[] = {0, 1, 2, 3, 4, 1000000, 0xffffffff, 0x100000000, 0x123456789abcULL,
                                  0xfffffffe00000001ULL, 0xffffffffffffffffULL};
  for (std::uint64_t v : values) {
    std::ostringstream out, err;
    const int rc = cli::run({"call", STANDIN_EXE, "--profile", LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml", "--fn",
                             "math::sqrt", "--arg", std::to_string(v & 0xffffffff), "--arg", std::to_string(v >> 32)},
                            cli::Io{out, err}, cases::BindingSet{});
    ASSERT_EQ(rc, 0) << out.str() << err.str();
    std::smatch m;
    const std::string text = out.str();
    ASSERT_TRUE(std::regex_search(text, m, std::regex("eax = 0x([0-9a-f]{8})"))) << text;
    EXPECT_EQ(std::stoull(m[1], nullptr, 16), isqrt64(v)) << "sqrt of " << v;
  }
}

std::vector<std::uint8_t> with16(std::vector<std::uint8_t> b, std::size_t at, std::uint16_t v) {
  std::memcpy(b.data() + at, &v, 2);
  return b;
}

TEST(ElfExecutable, EachBrokenFieldGivesItsError) {
  const auto good = standin_bytes();
  ASSERT_GT(good.size(), 0x1000u);
  auto code = [](const std::vector<std::uint8_t>& b) {
    auto r = parse_elf_executable(b, "t");
    return r.ok() ? Errc::kIo : r.error().code;
  };
  EXPECT_EQ(code(std::vector<std::uint8_t>(good.begin(), good.begin() + 40)), Errc::kTruncated);
  EXPECT_EQ(code(with16(good, 16, 3)), Errc::kUnsupported) << "ET_DYN";
  EXPECT_EQ(code(with16(good, 16, 1)), Errc::kUnsupported) << "ET_REL";
  EXPECT_EQ(code(with16(good, 18, 62)), Errc::kUnsupported) << "x86-64";
  EXPECT_EQ(code(with16(good, 42, 56)), Errc::kMalformed) << "program header size";
  EXPECT_EQ(code(with16(good, 44, 0xffff)), Errc::kLimit) << "program header count";
  auto b64 = good;
  b64[4] = 2;
  EXPECT_EQ(code(b64), Errc::kUnsupported) << "ELFCLASS64";
  auto be = good;
  be[5] = 2;
  EXPECT_EQ(code(be), Errc::kUnsupported) << "big-endian";
  // The first PT_LOAD's file size past the end of the file.
  std::uint32_t phoff;
  std::memcpy(&phoff, good.data() + 28, 4);
  std::uint16_t phnum;
  std::memcpy(&phnum, good.data() + 44, 2);
  for (std::uint16_t i = 0; i < phnum; ++i) {
    std::uint32_t type;
    std::memcpy(&type, good.data() + phoff + 32 * i, 4);
    if (type != 1) continue;
    auto past = good;
    const std::uint32_t huge = 0x7fffffff;
    std::memcpy(past.data() + phoff + 32 * i + 16, &huge, 4);  // p_filesz
    std::memcpy(past.data() + phoff + 32 * i + 20, &huge, 4);  // p_memsz
    const Errc c = code(past);
    EXPECT_TRUE(c == Errc::kTruncated || c == Errc::kLimit || c == Errc::kMalformed) << static_cast<int>(c);
    auto fz = good;
    const std::uint32_t one = 1, big = 0x100;
    std::memcpy(fz.data() + phoff + 32 * i + 16, &big, 4);  // p_filesz > p_memsz
    std::memcpy(fz.data() + phoff + 32 * i + 20, &one, 4);
    EXPECT_EQ(code(fz), Errc::kMalformed) << "p_filesz > p_memsz";
    break;
  }
  // Every prefix of the headers is refused, never a crash.
  for (std::size_t n = 0; n < 0x200 && n < good.size(); n += 7)
    EXPECT_FALSE(parse_elf_executable(std::span(good).first(n), "t").ok()) << n;
}

}  // namespace
}  // namespace lockstep::harness
