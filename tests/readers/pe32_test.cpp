// The PE32 reader and mapper on a real image built by i686-w64-mingw32-gcc (tests/readers/pe/), checked
// against binutils' own reading of the same file (i686-w64-mingw32-objdump -p / -h, nm), plus a
// hostile-input table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "lockstep/base/io.hpp"
#include "lockstep/readers/pe32.hpp"
#include "builders.hpp"
#include "pe/fixmul.h"

namespace lockstep::harness {
namespace {

#ifdef LOCKSTEP_TEST_PE
const std::filesystem::path kPe = LOCKSTEP_TEST_PE;
const std::filesystem::path kObjdump = LOCKSTEP_TEST_PE_OBJDUMP;
const std::filesystem::path kNm = LOCKSTEP_TEST_PE_NM;
#define REQUIRE_PE() (void)0
#else
const std::filesystem::path kPe, kObjdump, kNm;
#define REQUIRE_PE() GTEST_SKIP() << "i686-w64-mingw32-gcc was not found at configure time: no test PE built"
#endif

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// What objdump says about the image.
struct Binutils {
  std::uint32_t image_base = 0, size_of_image = 0, section_alignment = 0, entry = 0;
  struct Section {
    std::string name;
    std::uint32_t size = 0, vma = 0, file_off = 0;
    bool readonly = false, code = false, load = false;
  };
  std::vector<Section> sections;
  std::vector<std::pair<std::uint32_t, std::string>> imports;  // IAT slot, "dll!name"
  std::map<std::string, std::uint32_t> symbols;                // nm
};

Binutils read_binutils() {
  Binutils b;
  const std::string text = slurp(kObjdump);
  std::smatch m;
  auto hexfield = [&](const char* key) {
    std::regex re(std::string("\n") + key + R"(\s+([0-9a-fA-F]+))");
    EXPECT_TRUE(std::regex_search(text, m, re)) << key;
    return static_cast<std::uint32_t>(std::stoul(m[1], nullptr, 16));
  };
  b.image_base = hexfield("ImageBase");
  b.size_of_image = hexfield("SizeOfImage");
  b.section_alignment = hexfield("SectionAlignment");
  b.entry = hexfield("AddressOfEntryPoint");
  // objdump -h: "  0 .text  00007144  00401000  00401000  00000600  2**2" then a flags line.
  std::istringstream in(text);
  std::string line;
  std::regex sec_re(R"(^\s+\d+\s+(\S+)\s+([0-9a-f]{8})\s+([0-9a-f]{8})\s+[0-9a-f]{8}\s+([0-9a-f]{8})\s+2\*\*\d+)");
  std::regex dll_re(R"(^\s*DLL Name: (\S+))");
  std::regex desc_re(R"(^\s*[0-9a-f]{8}\s+[0-9a-f]{8}\s+[0-9a-f]{8}\s+[0-9a-f]{8}\s+[0-9a-f]{8}\s+([0-9a-f]{8})\s*$)");
  std::regex imp_re(R"(^\s+[0-9a-f]+\s+(\d+)\s+(\S+)\s*$)");
  std::uint32_t first_thunk = 0;
  std::string dll;
  int index = 0;
  bool in_imports = false;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, sec_re)) {
      Binutils::Section s{m[1], static_cast<std::uint32_t>(std::stoul(m[2], nullptr, 16)),
                          static_cast<std::uint32_t>(std::stoul(m[3], nullptr, 16)),
                          static_cast<std::uint32_t>(std::stoul(m[4], nullptr, 16))};
      std::string flags;
      std::getline(in, flags);
      s.readonly = flags.find("READONLY") != std::string::npos;
      s.code = flags.find("CODE") != std::string::npos;
      s.load = flags.find("LOAD") != std::string::npos || flags.find("ALLOC") != std::string::npos;
      b.sections.push_back(s);
      continue;
    }
    if (line.find("The Import Tables") != std::string::npos) in_imports = true;
    if (line.find("The Function Table") != std::string::npos || line.find("PE File Base Relocations") != std::string::npos)
      in_imports = false;
    if (!in_imports) continue;
    if (std::regex_search(line, m, desc_re)) {
      first_thunk = static_cast<std::uint32_t>(std::stoul(m[1], nullptr, 16));
    } else if (std::regex_search(line, m, dll_re)) {
      dll = m[1];
      index = 0;
    } else if (!dll.empty() && std::regex_search(line, m, imp_re)) {
      b.imports.emplace_back(b.image_base + first_thunk + 4 * index++, dll + "!" + std::string(m[2]));
    }
  }
  std::istringstream nm(slurp(kNm));
  std::regex sym_re(R"(^([0-9a-f]{8}) \S (\S+)$)");  // defined symbols only ("U name" lines have no address)
  while (std::getline(nm, line))
    if (std::regex_search(line, m, sym_re)) b.symbols[m[2]] = static_cast<std::uint32_t>(std::stoul(m[1], nullptr, 16));
  return b;
}

class Pe32Real : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_PE();
    auto img = load_pe32(kPe);
    ASSERT_TRUE(img.ok()) << img.error().message;
    img_ = std::move(*img);
    bu_ = read_binutils();
  }
  Pe32Image img_;
  Binutils bu_;
};

TEST_F(Pe32Real, HeadersAndSectionsMatchObjdump) {
  EXPECT_EQ(img_.image_base, bu_.image_base);
  EXPECT_EQ(img_.size_of_image, bu_.size_of_image);
  EXPECT_EQ(img_.section_alignment, bu_.section_alignment);
  EXPECT_EQ(img_.entry_rva, bu_.entry);
  ASSERT_EQ(img_.sections.size(), bu_.sections.size());
  ASSERT_GE(img_.sections.size(), 4u);
  for (std::size_t i = 0; i < bu_.sections.size(); ++i) {
    SCOPED_TRACE(bu_.sections[i].name);
    const Pe32Section& s = img_.sections[i];
    EXPECT_EQ(s.name, bu_.sections[i].name);
    EXPECT_EQ(s.address, bu_.sections[i].vma);
    EXPECT_EQ(s.virtual_size, bu_.sections[i].size);
    if (s.raw_size) {
      EXPECT_EQ(s.raw_offset, bu_.sections[i].file_off);
    }
    EXPECT_EQ(static_cast<bool>(s.prot & kProtExec), bu_.sections[i].code);
    EXPECT_EQ(!(s.prot & kProtWrite), bu_.sections[i].readonly);
  }
}

TEST_F(Pe32Real, ImportsAreTheIatSlotsObjdumpLists) {
  ASSERT_FALSE(bu_.imports.empty());
  auto labels = img_.import_labels();
  ASSERT_EQ(labels.size(), bu_.imports.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    EXPECT_EQ(labels[i].first, bu_.imports[i].first) << bu_.imports[i].second;
    EXPECT_EQ(labels[i].second, bu_.imports[i].second);
  }
  // Each slot lies in the image, 4-aligned, and no two imports share one.
  std::set<GuestAddr> slots;
  for (const auto& [slot, label] : labels) {
    EXPECT_TRUE(slots.insert(slot).second) << label;
    EXPECT_EQ(slot % 4, 0u);
    EXPECT_NE(img_.section_at(slot), nullptr) << label;
  }
}

TEST_F(Pe32Real, SnapshotFromImageLaysOutTheLoaderView) {
  Snapshot s = snapshot_from_image(img_);
  ASSERT_TRUE(s.validate().ok());
  EXPECT_EQ(s.threads.size(), 1u);  // the synthesized thread (image_alone_test checks it)
  EXPECT_EQ(s.meta.format, "pe32");
  // The routine's code bytes in the snapshot are the file's bytes at its file offset.
  const GuestAddr fn = bu_.symbols.at("_fixmul_c");
  const Pe32Section* text = img_.section_at(fn);
  ASSERT_NE(text, nullptr);
  auto code = s.read(fn, 16);
  ASSERT_TRUE(code.ok());
  const std::size_t off = text->raw_offset + (fn - text->address);
  EXPECT_TRUE(std::equal(code->begin(), code->end(), img_.file.begin() + static_cast<std::ptrdiff_t>(off)));
  const Region* r = s.find(fn);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->prot, kProtRead | kProtExec);
  // The headers are mapped read-only at ImageBase and start with "MZ".
  auto mz = s.read(img_.image_base, 2);
  ASSERT_TRUE(mz.ok());
  EXPECT_EQ((*mz)[0], 'M');
  EXPECT_EQ(s.find(img_.image_base)->prot, kProtRead);
  // .bss (no file bytes) is mapped zero-filled.
  for (const auto& sec : img_.sections)
    if (sec.name == ".bss") {
      auto z = s.read(sec.address, sec.virtual_size);
      ASSERT_TRUE(z.ok());
      EXPECT_TRUE(std::all_of(z->begin(), z->end(), [](std::uint8_t b) { return b == 0; }));
    }
}

TEST_F(Pe32Real, MappedOverRestoresPatchedCodeAndKeepsData) {
  Snapshot snap = snapshot_of_image_sections(img_);
  snap.meta = {};
  snap.meta.modules.push_back(Module{"C:\\games\\FIXMUL.EXE", img_.image_base, img_.size_of_image});
  // A recorder patched a code cave into the routine (an int3 and a jmp), and the game changed .data.
  const GuestAddr fn = bu_.symbols.at("_fixmul_c");
  const GuestAddr thunk = bu_.symbols.at("_fixmul_watcom");
  auto orig_fn = *snap.read(fn, 8);
  const std::vector<std::uint8_t> patch1 = {0xCC, 0xE9, 0x11, 0x22, 0x33, 0x44};
  const std::vector<std::uint8_t> patch2 = {0xCC};
  ASSERT_TRUE(snap.write(fn + 1, patch1).ok());
  ASSERT_TRUE(snap.write(thunk, patch2).ok());
  const Pe32Section* data = nullptr;
  for (const auto& s : img_.sections)
    if (s.name == ".data") data = &s;
  ASSERT_NE(data, nullptr);
  std::vector<std::uint8_t> game_data = {0x5A, 0x5A, 0x5A};
  auto orig_data = *snap.read(data->address + 8, 3);
  for (std::size_t i = 0; i < 3; ++i) game_data[i] = static_cast<std::uint8_t>(orig_data[i] ^ 0xFF);
  ASSERT_TRUE(snap.write(data->address + 8, game_data).ok());
  for (auto& r : snap.regions) r.prot = kProtRead | kProtWrite;  // like a minidump without MemoryInfoList

  auto rep = map_image_over(snap, img_);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  // Code restored.
  EXPECT_EQ(*snap.read(fn, 8), orig_fn);
  EXPECT_EQ((*snap.read(thunk, 1))[0], img_.file[img_.section_at(thunk)->raw_offset + (thunk - img_.section_at(thunk)->address)]);
  // Data kept.
  EXPECT_EQ(*snap.read(data->address + 8, 3), game_data);
  // The report: exactly the patched bytes (runs of differing bytes, so a patch byte that happens to
  // equal the original splits or shortens a run; count the differing bytes to know what to expect).
  std::uint64_t expect_fn = 0;
  for (std::size_t i = 0; i < patch1.size(); ++i) expect_fn += patch1[i] != orig_fn[1 + i];
  std::uint64_t replaced = 0;
  for (const auto& d : rep->differences) {
    if (d.replaced) {
      replaced += d.size;
      EXPECT_EQ(d.section, ".text");
      EXPECT_TRUE((d.begin >= fn + 1 && d.begin + d.size <= fn + 7) || d.begin == thunk) << std::hex << d.begin;
    } else {
      EXPECT_EQ(d.section, ".data");
      EXPECT_EQ(d.begin, data->address + 8);
      EXPECT_EQ(d.size, 3u);
    }
  }
  EXPECT_EQ(rep->bytes_replaced, replaced);
  EXPECT_EQ(rep->bytes_replaced, expect_fn + 1);
  EXPECT_EQ(rep->bytes_kept, 3u);
  EXPECT_EQ(rep->bytes_added, 0u);
  // Protections now follow the sections.
  EXPECT_EQ(snap.find(fn)->prot, kProtRead | kProtExec);
  EXPECT_EQ(snap.find(data->address)->prot, kProtRead | kProtWrite);
  EXPECT_TRUE(snap.validate().ok());
}

TEST_F(Pe32Real, MappedOverFillsWhatTheSnapshotLacks) {
  Snapshot snap = snapshot_of_image_sections(img_);
  snap.meta.modules.clear();
  // Drop the .rdata region: the file provides it.
  const Pe32Section* rdata = nullptr;
  for (const auto& s : img_.sections)
    if (s.name == ".rdata") rdata = &s;
  ASSERT_NE(rdata, nullptr);
  std::erase_if(snap.regions, [&](const Region& r) { return r.base == rdata->address; });
  ASSERT_EQ(snap.find(rdata->address), nullptr);
  auto rep = map_image_over(snap, img_);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(rep->bytes_added, rdata->mapped_size);
  EXPECT_TRUE(rep->differences.empty());
  ASSERT_NE(snap.find(rdata->address), nullptr);
  EXPECT_EQ(snap.find(rdata->address)->prot, kProtRead);
}

TEST_F(Pe32Real, ModuleAtAnotherBaseIsAnErrorNamingBothBases) {
  Snapshot snap = snapshot_of_image_sections(img_);
  snap.meta.modules = {Module{"/home/u/.wine/drive_c/fixmul.exe", 0x10000000, img_.size_of_image}};
  auto rep = map_image_over(snap, img_);
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.error().code, Errc::kUnsupported);
  EXPECT_NE(rep.error().message.find("0x10000000"), std::string::npos) << rep.error().message;
  EXPECT_NE(rep.error().message.find("0x00400000"), std::string::npos) << rep.error().message;
}

TEST(Pe32Native, RoutineGivesKnownFixedPointProducts) {
  // The reference the machine test compares with: checked here against hand-worked 16.16 values.
  EXPECT_EQ(fixmul_c(0x00010000, 0x00010000), 0x00010000);   // 1 * 1
  EXPECT_EQ(fixmul_c(0x00018000, 0x00020000), 0x00030000);   // 1.5 * 2
  EXPECT_EQ(fixmul_c(-0x00010000, 0x00008000), -0x00008000); // -1 * 0.5
  EXPECT_EQ(fixmul_c(-1, 1), -1);                            // rounds toward minus infinity
}

// ---------------------------------------------------------------------------------------------
// Hostile input: a minimal valid image, then each field broken in turn.

std::vector<std::uint8_t> tiny_pe() {
  std::vector<std::uint8_t> f(0x400, 0);
  auto put16 = [&](std::size_t o, std::uint16_t v) { f[o] = v & 0xFF; f[o + 1] = v >> 8; };
  auto put32 = [&](std::size_t o, std::uint32_t v) { for (int i = 0; i < 4; ++i) f[o + i] = (v >> (8 * i)) & 0xFF; };
  f[0] = 'M'; f[1] = 'Z';
  put32(0x3C, 0x40);
  put32(0x40, 0x00004550);
  put16(0x44, 0x14C);     // i386
  put16(0x46, 1);         // one section
  put16(0x54, 0xE0);      // SizeOfOptionalHeader
  put16(0x58, 0x10B);     // PE32
  put32(0x58 + 16, 0x1000);
  put32(0x58 + 28, 0x400000);
  put32(0x58 + 32, 0x1000);
  put32(0x58 + 36, 0x200);
  put32(0x58 + 56, 0x2000);
  put32(0x58 + 60, 0x200);
  put32(0x58 + 92, 16);
  const std::size_t sh = 0x58 + 0xE0;
  std::memcpy(&f[sh], ".text", 5);
  put32(sh + 8, 0x10);     // VirtualSize
  put32(sh + 12, 0x1000);  // RVA
  put32(sh + 16, 0x200);   // SizeOfRawData
  put32(sh + 20, 0x200);   // PointerToRawData
  put32(sh + 36, 0x60000020);
  f[0x200] = 0xC3;
  return f;
}

TEST(Pe32Hostile, TinyImageParses) {
  auto f = tiny_pe();
  auto img = parse_pe32(f, "tiny.exe");
  ASSERT_TRUE(img.ok()) << img.error().message;
  ASSERT_EQ(img->sections.size(), 1u);
  EXPECT_EQ(img->sections[0].file_bytes, 0x10u);
  Snapshot s = snapshot_from_image(*img);
  EXPECT_TRUE(s.validate().ok());
  EXPECT_EQ((*s.read(0x401000, 1))[0], 0xC3);
}

TEST(Pe32Synthetic, ImportsByNameFromTheBuilder) {
  const auto f = testing::PeBuilder{}.build();
  auto img = parse_pe32(f, "imports.exe");
  ASSERT_TRUE(img.ok()) << img.error().message;
  auto labels = img->import_labels();
  ASSERT_EQ(labels.size(), 3u);
  EXPECT_EQ(labels[0].second, "KERNEL32.dll!ExitProcess");
  EXPECT_EQ(labels[1].second, "KERNEL32.dll!GetTickCount");
  EXPECT_EQ(labels[2].second, "WINMM.dll!timeGetTime");
  EXPECT_EQ(labels[1].first, labels[0].first + 4);          // consecutive slots of one IAT
  EXPECT_EQ(img->section_at(labels[2].first)->name, ".idata");
  // Slots of different DLLs are in different IATs (KERNEL32's has a terminating zero slot).
  EXPECT_GE(labels[2].first, labels[1].first + 8);
}

TEST(Pe32Hostile, EachBrokenFieldGivesItsError) {
  struct Case {
    const char* what;
    std::size_t off;
    std::vector<std::uint8_t> bytes;
    Errc want;
  };
  const std::size_t sh = 0x58 + 0xE0;
  const Case cases[] = {
      {"bad MZ", 0, {'X'}, Errc::kBadMagic},
      {"e_lfanew past the end", 0x3C, {0xF0, 0xFF, 0, 0}, Errc::kTruncated},
      {"bad PE signature", 0x40, {'N'}, Errc::kBadMagic},
      {"amd64 machine", 0x44, {0x64, 0x86}, Errc::kUnsupported},
      {"PE32+", 0x58, {0x0B, 0x02}, Errc::kUnsupported},
      {"too many sections", 0x46, {0xFF, 0xFF}, Errc::kLimit},
      {"section table past the end", 0x46, {0x50, 0}, Errc::kTruncated},
      {"section alignment not a power of two", 0x58 + 32, {0x00, 0x30, 0, 0}, Errc::kMalformed},
      {"image wraps 4 GiB", 0x58 + 28, {0, 0xF0, 0xFF, 0xFF}, Errc::kMalformed},
      {"image too large", 0x58 + 56, {0, 0, 0, 0x7F}, Errc::kLimit},
      {"raw data past the end", sh + 20, {0, 0x10, 0, 0}, Errc::kTruncated},
      {"section past SizeOfImage", sh + 12, {0, 0x30, 0, 0}, Errc::kMalformed},
      {"import table in no section", 0x58 + 96 + 8, {0, 0x50, 0, 0, 0x14, 0, 0, 0}, Errc::kMalformed},
  };
  for (const auto& c : cases) {
    auto f = tiny_pe();
    std::copy(c.bytes.begin(), c.bytes.end(), f.begin() + static_cast<std::ptrdiff_t>(c.off));
    auto img = parse_pe32(f, "tiny.exe");
    ASSERT_FALSE(img.ok()) << c.what;
    EXPECT_EQ(img.error().code, c.want) << c.what << ": " << img.error().message;
    EXPECT_NE(img.error().message.find("tiny.exe"), std::string::npos) << img.error().message;
  }
  // Truncated at every length: an error, never a crash.
  const auto full = tiny_pe();
  for (std::size_t n = 0; n < 0x201; ++n) {
    auto img = parse_pe32(std::span(full.data(), n), "tiny.exe");
    EXPECT_FALSE(img.ok()) << n;
  }
}

}  // namespace
}  // namespace lockstep::harness
