// Symbols in and out of profiles: the stand-in's ELF symbol table and the test PE's COFF symbols as
// binutils reads them; a draft profile that says what it does not know; the round trip of pod.toml
// through the Ghidra and IDA scripts (run under stand-ins of the two APIs, which write what the
// disassembler's own export would) back into profiles with the same functions and addresses; bad
// symbol files refused with exit 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "lockstep/base/io.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/profile/profile_symbols.hpp"
#include "pod/bindings/bindings.hpp"

namespace {

using namespace lockstep;
namespace fs = std::filesystem;

const std::string kProfile = LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml";
const std::string kStandIns = LOCKSTEP_SOURCE_DIR "/tests/cli/disassembler_stand_ins.py";

// A file's text (empty when it cannot be read: the expectations on it then fail).
std::string slurp(const std::string& path) {
  auto bytes = read_file(path, 64u << 20);
  return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : std::string();
}

struct Ran {
  int code;
  std::string out, err;
};

Ran lockstep_run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::run(args, cli::Io{out, err}, pod::bindings::all());
  return {code, out.str(), err.str()};
}

// A command's exit status and stdout.
std::pair<int, std::string> shell(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {-1, ""};
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int rc = ::pclose(p);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

class Symbols : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lockstep-symbols-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

std::map<harness::GuestAddr, std::string> functions_of(const harness::Profile& p) {
  std::map<harness::GuestAddr, std::string> out;
  for (const auto& f : p.functions) out[f.address] = f.name;
  return out;
}

#ifdef STANDIN_EXE
TEST_F(Symbols, ElfFunctionsAreReadelfsAndTheDraftLoadsWhenTheConventionIsGiven) {
  const Ran r = lockstep_run({"profile", "from-symbols", STANDIN_EXE, "-o", at("standin.toml"), "--convention",
                              "watcom", "--returns", "eax", "--name", "standin"});
  ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
  auto p = harness::load_profile(at("standin.toml"));
  ASSERT_TRUE(p.ok()) << p.error().message;
  // readelf's FUNC symbols (defined, global or weak): each at its address in the profile.
  const auto [rc, text] = shell("readelf -sW '" STANDIN_EXE "'");
  ASSERT_EQ(rc, 0);
  std::istringstream lines(text);
  std::string line;
  std::size_t checked = 0;
  while (std::getline(lines, line)) {
    char value[32], type[32], bind[32], vis[32], ndx[32], name[256];
    unsigned size = 0, num = 0;
    if (std::sscanf(line.c_str(), " %u: %31s %u %31s %31s %31s %31s %255s", &num, value, &size, type, bind, vis, ndx,
                    name) != 8 ||
        std::string(type) != "FUNC" || std::string(ndx) == "UND" || std::string(bind) == "LOCAL")
      continue;
    const auto* f = p->function_at(static_cast<harness::GuestAddr>(std::stoul(value, nullptr, 16)));
    ASSERT_NE(f, nullptr) << name << " at " << value;
    ++checked;
  }
  EXPECT_GT(checked, 100u);
  const auto* tyres = p->function_at(0x41af80);  // the stand-in's thunk at POD's tyres::tyres
  ASSERT_NE(tyres, nullptr);
  EXPECT_EQ(tyres->original, "pod_0041af80");
}
#endif

#ifdef LOCKSTEP_TEST_PE_FULL
TEST_F(Symbols, PeCoffSymbolsAreNmsGlobalTextSymbols) {
  auto t = harness::load_symbol_table(LOCKSTEP_TEST_PE_FULL);
  ASSERT_TRUE(t.ok()) << t.error().message;
  std::ifstream nm(LOCKSTEP_TEST_PE_NM);
  std::string line;
  std::size_t checked = 0;
  while (std::getline(nm, line)) {
    std::istringstream l(line);
    std::string value, type, name;
    if (!(l >> value >> type >> name) || type != "T") continue;
    const auto a = static_cast<harness::GuestAddr>(std::stoul(value, nullptr, 16));
    bool found = false;
    for (const auto& s : t->symbols) found = found || (s.address == a && s.name == name);
    EXPECT_TRUE(found) << name << " at " << value << " (nm) is not in lockstep's table";
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}
#endif

TEST_F(Symbols, ADraftWithoutAConventionSaysSoAndDoesNotLoad) {
  ASSERT_TRUE(write_file_atomic(at("f.csv"), std::string_view("\"Name\",\"Location\"\n\"FUN_00401000\",\"00401000\"\n")).ok());
  const Ran r = lockstep_run({"profile", "from-symbols", at("f.csv"), "-o", at("f.toml")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.err.find("does not load until every convention = \"unknown\""), std::string::npos) << r.err;
  const std::string text = slurp(at("f.toml"));
  EXPECT_NE(text.find("convention = \"unknown\""), std::string::npos) << text;
  EXPECT_NE(text.find("# A symbol table names functions and data; it does not know how a function is called"),
            std::string::npos);
  EXPECT_FALSE(harness::load_profile(at("f.toml")).ok()) << "a placeholder must not load as a convention";
}

// pod.toml's functions, instances and labels out as scripts, through the stand-ins, and back.
TEST_F(Symbols, RoundTripThroughGhidraAndIdaKeepsEveryFunctionAndAddress) {
  auto pod = harness::load_profile(kProfile);
  ASSERT_TRUE(pod.ok());
  const Ran ex = lockstep_run({"profile", "export", kProfile, "--ghidra", at("g.py"), "--ida", at("i.py")});
  ASSERT_EQ(ex.code, kExitOk) << ex.err;
  auto [grc, gout] = shell("python3 '" + kStandIns + "' ghidra '" + at("g.py") + "' '" + at("g.csv") + "' '" +
                           at("g.xml") + "' 2>&1");
  ASSERT_EQ(grc, 0) << gout;
  auto [irc, iout] = shell("python3 '" + kStandIns + "' ida '" + at("i.py") + "' '" + at("i.map") + "' 2>&1");
  ASSERT_EQ(irc, 0) << iout;
  std::vector<std::string> map_args{"profile", "from-symbols", at("i.map"), "-o", at("i.toml"), "--convention",
                                    "watcom", "--returns", "eax"};
  std::istringstream segs(iout);
  for (std::string w; segs >> w;)
    if (w == "segment" && segs >> w) map_args.insert(map_args.end(), {"--segment", w});
  struct Import {
    std::string file;
    std::vector<std::string> args;
  };
  const std::vector<Import> imports = {
      {"g-csv.toml", {"profile", "from-symbols", at("g.csv"), "-o", at("g-csv.toml"), "--convention", "watcom",
                      "--returns", "eax"}},
      {"g-xml.toml", {"profile", "from-symbols", at("g.xml"), "-o", at("g-xml.toml"), "--convention", "watcom",
                      "--returns", "eax"}},
      {"i.toml", map_args}};
  std::map<harness::GuestAddr, std::string> data;  // what the instances and labels named
  for (const auto& i : pod->instances) data[i.base] = i.name;
  for (const auto& l : pod->labels) data[l.address] = l.name;
  for (const auto& im : imports) {
    const Ran r = lockstep_run(im.args);
    ASSERT_EQ(r.code, kExitOk) << im.file << ": " << r.err;
    auto back = harness::load_profile(at(im.file));
    ASSERT_TRUE(back.ok()) << im.file << ": " << back.error().message;
    EXPECT_EQ(functions_of(*back), functions_of(*pod)) << im.file;
    if (im.file == "g-csv.toml") continue;  // a Functions window lists no labels
    std::map<harness::GuestAddr, std::string> labels;
    for (const auto& l : back->labels) labels[l.address] = l.name;
    EXPECT_EQ(labels, data) << im.file;
  }
}

TEST_F(Symbols, BadSymbolFilesAreRefusedWithExitTwo) {
  // A truncated ELF: its header announces section headers past the end.
  const std::vector<std::uint8_t> elf = {0x7f, 'E', 'L', 'F', 1, 1, 1, 0};
  ASSERT_TRUE(write_file_atomic(at("short.elf"), elf).ok());
  Ran r = lockstep_run({"profile", "from-symbols", at("short.elf"), "-o", at("x.toml")});
  EXPECT_EQ(r.code, kExitBadInput) << r.err;
  EXPECT_NE(r.err.find("past the end"), std::string::npos) << r.err;
  ASSERT_TRUE(write_file_atomic(at("nocol.csv"), std::string_view("\"Name\",\"Size\"\n\"f\",\"3\"\n")).ok());
  r = lockstep_run({"profile", "from-symbols", at("nocol.csv"), "-o", at("x.toml")});
  EXPECT_EQ(r.code, kExitBadInput) << r.err;
  EXPECT_NE(r.err.find("\"Location\""), std::string::npos) << r.err;
  ASSERT_TRUE(write_file_atomic(at("m.map"), std::string_view(" 0001:00000000 000001000H .text CODE\n\n"
                                                              "  Address         Publics by Value\n\n"
                                                              " 0001:00000010       start\n"))
                  .ok());
  r = lockstep_run({"profile", "from-symbols", at("m.map"), "-o", at("x.toml")});
  EXPECT_EQ(r.code, kExitBadInput) << r.err;
  EXPECT_NE(r.err.find("--segment 1=ADDRESS"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(at("x.toml"))) << "no output from a refused input";
  r = lockstep_run({"profile", "from-symbols", at("m.map"), "-o", at("x.toml"), "--segment", "1=0x401000"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
}

// Every prefix of real files, and bytes flipped in them, give a table or an Error, never a crash
// (run under the sanitizers by scripts/test-sanitize).
TEST(SymbolReaders, TruncatedAndCorruptedFilesAreErrorsNotCrashes) {
  std::vector<std::string> files;
#ifdef STANDIN_EXE
  files.push_back(STANDIN_EXE);
#endif
#ifdef LOCKSTEP_TEST_PE_FULL
  files.push_back(LOCKSTEP_TEST_PE_FULL);
#endif
  for (const auto& path : files) {
    auto bytes = read_file(path, 64u << 20);
    ASSERT_TRUE(bytes.ok());
    const std::vector<std::uint8_t> whole = *bytes;
    std::size_t errors = 0;
    for (std::size_t n = 0; n < whole.size(); n += (n < 4096 ? 7 : 997)) {
      auto t = harness::read_symbol_table(std::span(whole.data(), n), "prefix");
      errors += !t.ok();
    }
    EXPECT_GT(errors, 0u) << path << ": no prefix was refused";
    std::vector<std::uint8_t> flipped = whole;
    for (std::size_t i = 0; i < flipped.size(); i += 131) {
      flipped[i] ^= 0xff;
      (void)harness::read_symbol_table(flipped, "flipped");
    }
  }
  const std::string csv = "\"Name\",\"Location\",\"Function Size\"\n\"a\",\"00401000\",\"12\"\n";
  const std::string xml = "<PROGRAM><FUNCTIONS><FUNCTION ENTRY_POINT=\"00401000\" NAME=\"a\"><ADDRESS_RANGE "
                          "START=\"00401000\" END=\"0040100f\"/></FUNCTION></FUNCTIONS></PROGRAM>";
  const std::string map = " 0001:00000000 000001000H .text CODE\n  Address  Publics by Value\n 0001:00000010  a\n";
  ASSERT_TRUE(harness::parse_ghidra_csv(csv, "csv").ok());
  ASSERT_TRUE(harness::parse_ghidra_xml(xml, "xml").ok());
  ASSERT_TRUE(harness::parse_ida_map(map, "map", {{1, 0x401000}}).ok());
  for (std::size_t n = 0; n < xml.size(); ++n) {
    (void)harness::parse_ghidra_csv(csv.substr(0, std::min(n, csv.size())), "csv");
    (void)harness::parse_ghidra_xml(xml.substr(0, n), "xml");
    (void)harness::parse_ida_map(map.substr(0, std::min(n, map.size())), "map", {{1, 0x401000}});
  }
}

}  // namespace

namespace {

// A caller's own bound on a symbol file is honoured: the same Ghidra CSV reads under the default
// limits and is refused, naming the bound, one byte below its size.
TEST(SymbolFileLimits, ACallersSmallerBoundRefusesTheFile) {
  const fs::path file = fs::path(::testing::TempDir()) / "symbols_limit.csv";
  const std::string csv = "\"Name\",\"Location\"\n\"tyres\",\"0041af80\"\n";
  std::ofstream(file, std::ios::binary) << csv;
  harness::SymbolFileOptions options;
  options.format = harness::SymbolFileFormat::kGhidraCsv;
  ASSERT_TRUE(harness::load_symbol_file(file, options).ok());
  harness::SymbolFileOptions tight = options;
  tight.limits.max_file_bytes = csv.size() - 1;
  auto r = harness::load_symbol_file(file, tight);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::kLimit) << r.error().message;
  EXPECT_NE(r.error().message.find(std::to_string(csv.size() - 1)), std::string::npos) << r.error().message;
}

}  // namespace
