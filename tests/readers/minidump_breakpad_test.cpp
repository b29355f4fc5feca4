// The minidump reader against real dumps from google/breakpad's test data (tests/readers/data/breakpad/,
// BSD-3-Clause, LICENSE beside them),
// checked against the values breakpad's own minidump_dump printed (minidump2.dump.out), parsed here.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "breakpad_dump_out.hpp"
#include "lockstep/base/io.hpp"
#include "lockstep/readers/minidump.hpp"

namespace lockstep::harness {
namespace {

using lockstep::testing::DumpBlock;

std::filesystem::path testdata() { return std::filesystem::path(LOCKSTEP_SOURCE_DIR) / "tests/readers/data/breakpad"; }

// The dumps are part of the repository: a missing one is a broken checkout, not a reason to skip.
#define REQUIRE_TESTDATA(file) \
  ASSERT_TRUE(std::filesystem::exists(testdata() / (file))) << "missing test data: " << (testdata() / (file)).string()

class Minidump2 : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_TESTDATA("minidump2.dump.out");
    blocks_ = lockstep::testing::parse_dump_out((testdata() / "minidump2.dump.out").string());
    auto bytes = read_file(testdata() / "minidump2.dmp");
    ASSERT_TRUE(bytes.ok()) << bytes.error().message;
    bytes_ = std::move(*bytes);
    auto d = parse_minidump(bytes_, "minidump2.dmp");
    ASSERT_TRUE(d.ok()) << d.error().message;
    dump_ = std::move(*d);
    auto s = minidump_to_snapshot(dump_, bytes_, "minidump2.dmp");
    ASSERT_TRUE(s.ok()) << s.error().message;
    snap_ = std::move(*s);
  }

  /// The blocks titled `title`, in file order, up to the first block titled `stop` (if given).
  std::vector<const DumpBlock*> all(const std::string& title, const std::string& stop = "") const {
    std::vector<const DumpBlock*> out;
    for (const auto& b : blocks_) {
      if (!stop.empty() && b.title == stop) break;
      if (b.title == title) out.push_back(&b);
    }
    return out;
  }
  /// The first block titled `title` after block `after`.
  const DumpBlock* next(const DumpBlock* after, const std::string& title) const {
    bool seen = false;
    for (const auto& b : blocks_) {
      if (&b == after) seen = true;
      else if (seen && b.title == title) return &b;
    }
    return nullptr;
  }

  std::vector<DumpBlock> blocks_;
  std::vector<std::uint8_t> bytes_;
  Minidump dump_;
  Snapshot snap_;
};

TEST_F(Minidump2, HeaderAndDirectoryMatchBreakpad) {
  const DumpBlock* h = all("MDRawHeader").at(0);
  EXPECT_EQ(dump_.version, h->num("version"));
  EXPECT_EQ(dump_.time_date_stamp, h->num("time_date_stamp"));
  EXPECT_EQ(dump_.flags, h->num("flags"));
  auto dirs = all("MDRawDirectory");
  ASSERT_EQ(dump_.streams.size(), h->num("stream_count"));
  ASSERT_EQ(dump_.streams.size(), dirs.size());
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    EXPECT_EQ(dump_.streams[i].type, dirs[i]->num("stream_type")) << "directory " << i;
    EXPECT_EQ(dump_.streams[i].size, dirs[i]->num("location.data_size")) << "directory " << i;
    EXPECT_EQ(dump_.streams[i].rva, dirs[i]->num("location.rva")) << "directory " << i;
  }
  // The BreakpadInfo stream (0x47670001) is not one lockstep reads: skipped with a note, not an error.
  bool noted = false;
  for (const auto& n : dump_.notes) noted = noted || n.find("0x47670001") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST_F(Minidump2, EveryThreadRegisterMatchesBreakpad) {
  auto raw = all("MDRawThread", "MinidumpModuleList");
  ASSERT_EQ(raw.size(), 2u);
  ASSERT_EQ(dump_.threads.size(), raw.size());
  ASSERT_EQ(snap_.threads.size(), raw.size());
  int fields_checked = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    SCOPED_TRACE("thread " + std::to_string(i));
    const DumpBlock& t = *raw[i];
    const DumpBlock* c = next(raw[i], "MDRawContextX86");
    ASSERT_NE(c, nullptr);
    const MinidumpThread& mt = dump_.threads[i];
    EXPECT_EQ(mt.thread_id, t.num("thread_id"));
    EXPECT_EQ(mt.suspend_count, t.num("suspend_count"));
    EXPECT_EQ(mt.priority_class, t.num("priority_class"));
    EXPECT_EQ(mt.priority, t.num("priority"));
    EXPECT_EQ(mt.teb, t.num("teb"));
    EXPECT_EQ(mt.stack_start, t.num("stack.start_of_memory_range"));
    EXPECT_EQ(mt.stack_size, t.num("stack.memory.data_size"));
    EXPECT_EQ(mt.stack_rva, t.num("stack.memory.rva"));
    ASSERT_TRUE(mt.context.has_value());
    const MinidumpContextX86& x = *mt.context;
    // Every field breakpad prints for the context, raw.
    const std::pair<const char*, std::uint32_t> raw_fields[] = {
        {"context_flags", x.context_flags},
        {"dr0", x.dr0}, {"dr1", x.dr1}, {"dr2", x.dr2}, {"dr3", x.dr3}, {"dr6", x.dr6}, {"dr7", x.dr7},
        {"float_save.control_word", x.float_save.control_word},
        {"float_save.status_word", x.float_save.status_word},
        {"float_save.tag_word", x.float_save.tag_word},
        {"float_save.error_offset", x.float_save.error_offset},
        {"float_save.error_selector", x.float_save.error_selector},
        {"float_save.data_offset", x.float_save.data_offset},
        {"float_save.data_selector", x.float_save.data_selector},
        {"float_save.cr0_npx_state", x.float_save.cr0_npx_state},
        {"gs", x.gs}, {"fs", x.fs}, {"es", x.es}, {"ds", x.ds},
        {"edi", x.edi}, {"esi", x.esi}, {"ebx", x.ebx}, {"edx", x.edx}, {"ecx", x.ecx}, {"eax", x.eax},
        {"ebp", x.ebp}, {"eip", x.eip}, {"cs", x.cs}, {"eflags", x.eflags}, {"esp", x.esp}, {"ss", x.ss},
    };
    for (const auto& [name, value] : raw_fields) {
      EXPECT_EQ(value, c->num(name)) << name;
      ++fields_checked;
    }
    const auto area = c->bytes("float_save.register_area[80]");
    ASSERT_EQ(area.size(), 80u);
    EXPECT_TRUE(std::equal(area.begin(), area.end(), x.float_save.register_area.begin()));
    const auto ext = c->bytes("extended_registers[512]");
    ASSERT_EQ(ext.size(), 512u);
    EXPECT_TRUE(x.has_extended_area);
    EXPECT_TRUE(std::equal(ext.begin(), ext.end(), x.extended_registers.begin()));
    fields_checked += 2;

    // The snapshot's thread: the same values, through the model.
    const Thread& s = snap_.threads[i];
    EXPECT_EQ(s.tid, t.num("thread_id"));
    EXPECT_EQ(s.eax, c->num("eax"));
    EXPECT_EQ(s.ebx, c->num("ebx"));
    EXPECT_EQ(s.ecx, c->num("ecx"));
    EXPECT_EQ(s.edx, c->num("edx"));
    EXPECT_EQ(s.esi, c->num("esi"));
    EXPECT_EQ(s.edi, c->num("edi"));
    EXPECT_EQ(s.ebp, c->num("ebp"));
    EXPECT_EQ(s.esp, c->num("esp"));
    EXPECT_EQ(s.eip, c->num("eip"));
    EXPECT_EQ(s.eflags, c->num("eflags"));
    EXPECT_EQ(s.cs, c->num("cs"));
    EXPECT_EQ(s.ds, c->num("ds"));
    EXPECT_EQ(s.es, c->num("es"));
    EXPECT_EQ(s.fs, c->num("fs"));
    EXPECT_EQ(s.gs, c->num("gs"));
    EXPECT_EQ(s.ss, c->num("ss"));
    EXPECT_EQ(s.fs_base, t.num("teb"));  // the TEB from ThreadList is the FS base
    EXPECT_TRUE(s.x87_valid);
    EXPECT_EQ(s.x87.control, c->num("float_save.control_word") & 0xFFFF);
    EXPECT_EQ(s.x87.control, 0x027f);  // the check: Windows' 53-bit precision
    EXPECT_EQ(s.x87.status, c->num("float_save.status_word") & 0xFFFF);
    EXPECT_EQ(s.x87.tag, c->num("float_save.tag_word") & 0xFFFF);
    for (std::size_t r = 0; r < 8; ++r)
      EXPECT_TRUE(std::equal(s.x87.st[r].begin(), s.x87.st[r].end(), area.begin() + 10 * r)) << "ST" << r;
    const std::uint32_t mxcsr = ext[24] | (ext[25] << 8) | (ext[26] << 16) | (std::uint32_t{ext[27]} << 24);
    EXPECT_EQ(s.x87.mxcsr, mxcsr);
    // The FXSAVE image agrees with FloatSave on the control word (both 0x027f).
    EXPECT_EQ(ext[0] | (ext[1] << 8), static_cast<int>(c->num("float_save.control_word") & 0xFFFF));
  }
  EXPECT_EQ(fields_checked, 2 * 33);
}

TEST_F(Minidump2, ModulesMatchBreakpad) {
  auto mods = all("MDRawModule");
  ASSERT_EQ(mods.size(), all("MinidumpModuleList").at(0)->num("module_count"));
  ASSERT_EQ(dump_.modules.size(), mods.size());
  ASSERT_EQ(snap_.meta.modules.size(), mods.size());
  for (std::size_t i = 0; i < mods.size(); ++i) {
    SCOPED_TRACE("module " + std::to_string(i));
    EXPECT_EQ(dump_.modules[i].base, mods[i]->num("base_of_image"));
    EXPECT_EQ(dump_.modules[i].size, mods[i]->num("size_of_image"));
    EXPECT_EQ(dump_.modules[i].checksum, mods[i]->num("checksum"));
    EXPECT_EQ(dump_.modules[i].time_date_stamp, mods[i]->num("time_date_stamp"));
    EXPECT_EQ(dump_.modules[i].name, mods[i]->str("(code_file)"));
    EXPECT_EQ(snap_.meta.modules[i].name, mods[i]->str("(code_file)"));
    EXPECT_EQ(snap_.meta.modules[i].base, mods[i]->num("base_of_image"));
    EXPECT_EQ(snap_.meta.modules[i].size, mods[i]->num("size_of_image"));
  }
  EXPECT_EQ(snap_.meta.exe_path, mods.at(0)->str("(code_file)"));
}

TEST_F(Minidump2, MemoryRangesAndBytesMatchBreakpad) {
  auto descs = all("MDMemoryDescriptor");
  ASSERT_EQ(descs.size(), all("MinidumpMemoryList").at(0)->num("region_count"));
  // The snapshot holds each MemoryList range exactly once (the thread stacks repeat two of them).
  ASSERT_EQ(snap_.regions.size(), descs.size());
  for (std::size_t i = 0; i < descs.size(); ++i) {
    SCOPED_TRACE("region " + std::to_string(i));
    const std::uint64_t base = descs[i]->num("start_of_memory_range");
    const std::uint64_t size = descs[i]->num("memory.data_size");
    const Region* r = snap_.find(static_cast<GuestAddr>(base));
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->base, base);
    EXPECT_EQ(r->bytes.size(), size);
    const DumpBlock* mem = next(descs[i], "Memory");
    ASSERT_NE(mem, nullptr);
    const auto hex = mem->bytes("hex");
    ASSERT_EQ(hex.size(), size);
    EXPECT_EQ(r->bytes, hex);
    EXPECT_EQ(r->prot, kProtRead | kProtWrite);  // no MemoryInfoList in this dump
  }
  // Overlaps between MemoryList and ThreadList stacks are noted, with no differing bytes.
  int overlap_notes = 0;
  for (const auto& n : snap_.meta.notes)
    if (n.find("overlaps") != std::string::npos) {
      ++overlap_notes;
      EXPECT_NE(n.find(", 0 differ"), std::string::npos) << n;
    }
  EXPECT_EQ(overlap_notes, 2);
  ASSERT_TRUE(snap_.validate().ok());
}

TEST_F(Minidump2, ExceptionSystemAndMiscInfoMatchBreakpad) {
  const DumpBlock* ex = all("MDException").at(0);
  ASSERT_TRUE(dump_.exception.has_value());
  EXPECT_EQ(dump_.exception->thread_id, ex->num("thread_id"));
  EXPECT_EQ(dump_.exception->code, ex->num("exception_record.exception_code"));
  EXPECT_EQ(dump_.exception->address, ex->num("exception_record.exception_address"));
  const DumpBlock* si = all("MDRawSystemInfo").at(0);
  ASSERT_TRUE(dump_.system_info.has_value());
  EXPECT_EQ(dump_.system_info->processor_architecture, si->num("processor_architecture"));
  EXPECT_EQ(dump_.system_info->build_number, si->num("build_number"));
  EXPECT_FALSE(dump_.system_info->wine);
  const DumpBlock* misc = all("MDRawMiscInfo").at(0);
  ASSERT_TRUE(dump_.process_id.has_value());
  EXPECT_EQ(*dump_.process_id, misc->num("process_id"));
}

TEST_F(Minidump2, TebNotInDumpIsNoted) {
  // minidump2 holds stacks only, not the TEBs at 0x7ffdf000 / 0x7ffde000: the FS base stays unchecked.
  int notes = 0;
  for (const auto& n : snap_.meta.notes) notes += n.find("is not in the dump: FS base unchecked") != std::string::npos;
  EXPECT_EQ(notes, 2);
}

TEST(BreakpadDumps, OtherDumpsReadCleanly) {
  for (const char* name : {"minidump_32bit_crash_addr.dmp", "tiny-exe-with-cet-xsave-x86.dmp"}) {
    SCOPED_TRACE(name);
    REQUIRE_TESTDATA(name);
    auto s = load_minidump(testdata() / name);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_FALSE(s->threads.empty());
    EXPECT_FALSE(s->regions.empty());
    EXPECT_FALSE(s->meta.modules.empty());
    EXPECT_TRUE(s->validate().ok());
    for (const auto& t : s->threads) {
      EXPECT_NE(t.esp, 0u);
      EXPECT_NE(t.fs_base, 0u);
    }
  }
}

}  // namespace
}  // namespace lockstep::harness
