// Images alone: snapshot_from_image gives a PE32 image a synthesized thread (stack, TEB, PEB, Windows'
// selectors) and points its IAT slots at traps. Checked on the test PE (tests/readers/pe) and on
// Debian's mingw libgcc_s_dw2-1.dll: the layout against the Windows structures' documented offsets,
// calls against values computed here (the native C routine, C++'s own 64-bit arithmetic), an import
// without a stub against the image's import table, and `lockstep call` on the DLL alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <regex>
#include <sstream>

#include <unistd.h>

#include "lockstep/base/io.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/load/load.hpp"
#include "lockstep/machine/machine.hpp"
#include "lockstep/readers/pe32.hpp"
#include "pe/fixmul.h"

namespace lockstep::harness {
namespace {

#ifdef LOCKSTEP_TEST_PE

std::uint32_t u32_at(const Snapshot& s, GuestAddr a) {
  auto b = s.read(a, 4);
  EXPECT_TRUE(b.ok()) << fmt::format("0x{:08x}", a);
  if (!b.ok()) return 0;
  return std::uint32_t{(*b)[0]} | std::uint32_t{(*b)[1]} << 8 | std::uint32_t{(*b)[2]} << 16 |
         std::uint32_t{(*b)[3]} << 24;
}

GuestAddr symbol(const std::string& name) {
  std::ifstream in(LOCKSTEP_TEST_PE_NM);
  std::string line;
  std::smatch m;
  const std::regex re("^([0-9a-f]{8}) \\S " + name + "$");
  while (std::getline(in, line))
    if (std::regex_search(line, m, re)) return static_cast<GuestAddr>(std::stoul(m[1], nullptr, 16));
  ADD_FAILURE() << name << " not in " << LOCKSTEP_TEST_PE_NM;
  return 0;
}

class ImageAlone : public ::testing::Test {
 protected:
  void SetUp() override {
    auto img = load_pe32(LOCKSTEP_TEST_PE);
    ASSERT_TRUE(img.ok()) << img.error().message;
    img_ = std::move(*img);
    snap_ = snapshot_from_image(img_);
    ASSERT_TRUE(snap_.validate().ok());
  }
  Pe32Image img_;
  Snapshot snap_;
};

TEST_F(ImageAlone, ThreadHasAStackATebAndWindowsSelectors) {
  ASSERT_EQ(snap_.threads.size(), 1u);
  const Thread& t = snap_.threads[0];
  const GuestAddr teb = t.fs_base;
  // The TEB's fields at the offsets Windows' NT_TIB/TEB give them.
  EXPECT_EQ(u32_at(snap_, teb + 0x18), teb) << "Self";
  const GuestAddr stack_base = u32_at(snap_, teb + 0x04), stack_limit = u32_at(snap_, teb + 0x08);
  EXPECT_EQ(stack_base - stack_limit, kImageStackSize);
  EXPECT_GT(t.esp, stack_limit);
  EXPECT_LT(t.esp, stack_base);
  EXPECT_EQ(u32_at(snap_, teb + 0x00), 0xFFFFFFFFu) << "ExceptionList: the chain's end";
  const GuestAddr peb = u32_at(snap_, teb + 0x30);
  EXPECT_EQ(u32_at(snap_, peb + 0x08), img_.image_base) << "PEB ImageBaseAddress";
  for (GuestAddr slot = teb + 0xe10; slot < teb + 0xe10 + 64 * 4; slot += 4) EXPECT_EQ(u32_at(snap_, slot), 0u);
  EXPECT_EQ(t.fs, 0x3b);
  EXPECT_EQ(t.cs, 0x1b);
  EXPECT_EQ(t.ss, 0x23);
  EXPECT_FALSE(t.x87_valid) << "the profile's control word applies";
  EXPECT_EQ(t.eip, img_.image_base + img_.entry_rva);
  // Away from the image: the whole block sits at least a gap from it.
  const std::uint64_t ib = img_.image_base, ie = ib + img_.size_of_image;
  EXPECT_TRUE(std::uint64_t{stack_limit} >= ie + kImageThreadBlockGap || std::uint64_t{teb} + 0x10000 <= ib);
}

TEST_F(ImageAlone, EveryIatSlotPointsAtATrapNamingItsImport) {
  ASSERT_FALSE(img_.imports.empty());
  std::set<GuestAddr> traps;
  for (const auto& [slot, label] : img_.import_labels()) {
    const GuestAddr trap = u32_at(snap_, slot);
    EXPECT_TRUE(traps.insert(trap).second) << label;
    auto found = import_trap_at(snap_, trap);
    ASSERT_TRUE(found.has_value()) << label;
    EXPECT_EQ(found->label, label);
    EXPECT_EQ(found->iat_slot, slot);
    EXPECT_EQ((*snap_.read(trap, 1))[0], 0xCC);
    EXPECT_FALSE(import_trap_at(snap_, trap + 1).has_value());
  }
  EXPECT_FALSE(import_trap_at(snap_, img_.image_base).has_value());
}

TEST_F(ImageAlone, RoutineReturnsOnTheSynthesizedThread) {
  MachineConfig cfg;
  cfg.default_fpu_control = 0x027f;
  auto m = Machine::create(snap_, cfg);
  ASSERT_TRUE(m.ok()) << m.error().message;
  for (std::int32_t a : {0x18000, -0x10000, 0x12345678})
    for (std::int32_t b : {0x20000, 3, -0x00abcdef}) {
      (*m)->reset();
      CallSpec spec;
      spec.function = symbol("_fixmul_watcom");
      spec.convention = {Convention::kWatcom, {}};
      spec.args = {Arg::i32(a), Arg::i32(b)};
      spec.returns = ReturnKind::kEax;
      auto o = (*m)->call(spec);
      ASSERT_TRUE(o.ok()) << o.error().message;
      ASSERT_TRUE(o->returned()) << format_fault(*o->fault);
      EXPECT_EQ(static_cast<std::int32_t>(o->value.eax), fixmul_c(a, b));
      EXPECT_EQ(o->record.out.x87.control, 0x027f);
    }
}

TEST_F(ImageAlone, ImportWithoutAStubStopsNamingItAndAStubOnItsSlotReplacesIt) {
  CallSpec spec;
  spec.function = symbol("_main");
  spec.convention = {Convention::kCdecl, {}};
  spec.args = {Arg::u32(1), Arg::u32(0)};
  spec.returns = ReturnKind::kEax;
  auto m = Machine::create(snap_, MachineConfig{});
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto o = (*m)->call(spec);
  ASSERT_TRUE(o.ok()) << o.error().message;
  ASSERT_FALSE(o->returned()) << "main calls the C runtime's imports";
  ASSERT_EQ(o->fault->kind, StopKind::kImportWithoutStub) << format_fault(*o->fault);
  const auto labels = img_.import_labels();
  auto it = std::find_if(labels.begin(), labels.end(), [&](const auto& l) { return l.first == o->fault->address; });
  ASSERT_NE(it, labels.end()) << o->fault->message;
  EXPECT_EQ(o->fault->message.rfind(it->second + ": add a [[stub]]", 0), 0u) << o->fault->message;
  EXPECT_STREQ(stop_kind_name(o->fault->kind), "import-without-stub");

  // A [[stub]] on that IAT slot sits on the trap: the call gets past that import.
  MachineConfig cfg;
  StubSpec stub;
  stub.name = it->second;
  stub.pointer = it->first;
  stub.action = StubSpec::Action::kValue;
  stub.why = "test";
  cfg.stubs.push_back(stub);
  auto m2 = Machine::create(snap_, cfg);
  ASSERT_TRUE(m2.ok()) << m2.error().message;
  auto o2 = (*m2)->call(spec);
  ASSERT_TRUE(o2.ok()) << o2.error().message;
  if (!o2->returned()) {
    EXPECT_EQ(o2->fault->message.find(it->second + ":"), std::string::npos) << o2->fault->message;
  }
}

#else
TEST(ImageAlone, NeedsTheMingwCrossCompiler) {
  GTEST_SKIP() << "i686-w64-mingw32-gcc/objdump/nm/strip not found at configure time: the test PE is not built";
}
#endif

#ifdef LOCKSTEP_TEST_DLL

/// Export name -> address, from binutils' `objdump -p` (an independent reading of the export table).
std::map<std::string, GuestAddr> dll_exports(GuestAddr image_base) {
  std::ifstream in(LOCKSTEP_TEST_DLL_OBJDUMP);
  std::string line;
  std::map<unsigned, std::uint32_t> rva;   // [index] +base[ordinal] RVA
  std::map<std::string, unsigned> index;   // [index] name
  const std::regex eat("^\\s*\\[\\s*(\\d+)\\] \\+base\\[\\s*\\d+\\]\\s+([0-9a-f]+) Export RVA");
  const std::regex name("^\\s*\\[\\s*(\\d+)\\] (\\S+)$");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, eat)) rva[std::stoul(m[1])] = static_cast<std::uint32_t>(std::stoul(m[2], nullptr, 16));
    else if (std::regex_search(line, m, name)) index[m[2]] = static_cast<unsigned>(std::stoul(m[1]));
  }
  std::map<std::string, GuestAddr> out;
  for (const auto& [n, i] : index)
    if (rva.count(i)) out[n] = image_base + rva[i];
  return out;
}

struct Dll {
  Pe32Image image;
  Snapshot snap;
  std::map<std::string, GuestAddr> exports;
};

Dll load_dll() {
  Dll d;
  auto img = load_pe32(LOCKSTEP_TEST_DLL);
  EXPECT_TRUE(img.ok()) << img.error().message;
  if (!img.ok()) return d;
  d.image = std::move(*img);
  d.snap = snapshot_from_image(d.image);
  d.exports = dll_exports(d.image.image_base);
  return d;
}

TEST(ImageAloneDll, LibgccDivisionAndMultiplyGiveCppsResults) {
  Dll d = load_dll();
  ASSERT_TRUE(d.exports.count("__udivdi3") && d.exports.count("__muldi3") && d.exports.count("__divdi3"))
      << "objdump -p lists no __udivdi3/__muldi3/__divdi3";
  auto m = Machine::create(d.snap, MachineConfig{});
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto call64 = [&](const char* fn, std::uint64_t a, std::uint64_t b) -> std::uint64_t {
    (*m)->reset();
    CallSpec spec;
    spec.function = d.exports.at(fn);
    spec.convention = {Convention::kCdecl, {}};
    spec.args = {Arg::u32(static_cast<std::uint32_t>(a)), Arg::u32(static_cast<std::uint32_t>(a >> 32)),
                 Arg::u32(static_cast<std::uint32_t>(b)), Arg::u32(static_cast<std::uint32_t>(b >> 32))};
    spec.returns = ReturnKind::kEdxEax;
    auto o = (*m)->call(spec);
    EXPECT_TRUE(o.ok()) << o.error().message;
    if (!o.ok()) return 0;
    EXPECT_TRUE(o->returned()) << fn << ": " << format_fault(*o->fault);
    return o->value.edx_eax();
  };
  const std::uint64_t values[] = {1, 7, 1000000000000ull, 0xFFFFFFFFull, 0x100000000ull, 0xFEDCBA9876543210ull,
                                  0x8000000000000000ull};
  for (std::uint64_t a : values)
    for (std::uint64_t b : values) {
      EXPECT_EQ(call64("__udivdi3", a, b), a / b) << a << " / " << b;
      EXPECT_EQ(call64("__muldi3", a, b), a * b) << a << " * " << b;
      const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
      if (!(sa == INT64_MIN && sb == -1)) {
        EXPECT_EQ(static_cast<std::int64_t>(call64("__divdi3", a, b)), sa / sb) << sa << " / " << sb;
      }
    }
}

TEST(ImageAloneDll, LockstepCallOnTheDllAloneReturns) {
  Dll d = load_dll();
  ASSERT_TRUE(d.exports.count("__udivdi3"));
  const auto dir = std::filesystem::temp_directory_path() / ("lockstep_image_alone_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto snap = dir / "libgcc.lks", profile = dir / "libgcc.toml";
  ASSERT_TRUE(write_file_atomic(profile, std::string_view("[profile]\nname = \"libgcc\"\n")).ok());
  auto run = [](const std::vector<std::string>& args, std::string& out) {
    std::ostringstream o, e;
    const int code = cli::run(args, cli::Io{o, e}, /*bindings: these commands run no port*/ {});
    out = o.str() + e.str();
    return code;
  };
  std::string out;
  ASSERT_EQ(run({"snapshot", "--from", LOCKSTEP_TEST_DLL, "-o", snap.string()}, out), 0) << out;
  const std::string fn = fmt::format("0x{:08x}", d.exports.at("__udivdi3"));
  // 10^12 / 7 = 142857142857 (0x2142f30249).
  ASSERT_EQ(run({"call", snap.string(), "--profile", profile.string(), "--fn", fn, "--convention", "cdecl",
                 "--returns", "edx:eax", "--arg", "0xd4a51000", "--arg", "0xe8", "--arg", "7", "--arg", "0"},
                out),
            0)
      << out;
  EXPECT_NE(out.find("returned"), std::string::npos) << out;
  EXPECT_NE(out.find("(142857142857)"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

#else
TEST(ImageAloneDll, NeedsMingwsLibgccDll) {
  GTEST_SKIP() << "libgcc_s_dw2-1.dll (Debian's gcc-mingw-w64-i686) not found at configure time";
}
#endif

}  // namespace
}  // namespace lockstep::harness
