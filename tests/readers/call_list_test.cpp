// Call lists (capture/call_list.hpp): the format's strict reading, each error naming its line; and the
// whole pipeline from an image alone — mingw's libgcc_s_dw2-1.dll, a profile, a call list — through
// `lockstep capture --calls` to a corpus that a C++ binding replays (matching, and a wrong binding
// mismatching), with the expected quotients computed here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <unistd.h>

#include "lockstep/base/io.hpp"
#include "lockstep/capture/call_list.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/replay/replay.hpp"

namespace lockstep::capture {
namespace {

Error parse_error(std::string_view text) {
  auto r = parse_call_list(text, "calls.toml");
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? Error{} : std::move(r).error();
}

TEST(CallList, ReadsFunctionArgsPokesAndRepeat) {
  auto r = parse_call_list(R"(
[[call]]
function = "math::dot16"
args = ["car[0]", 0x10, -3]
pokes = ["0x40a000=01020304"]

[[call]]
function = 0x4d41a0
repeat = 3
)",
                           "calls.toml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->calls.size(), 2u);
  EXPECT_EQ(r->calls[0].function, "math::dot16");
  EXPECT_EQ(r->calls[0].args, (std::vector<std::string>{"car[0]", "0x10", "-3"}));
  EXPECT_EQ(r->calls[0].pokes, (std::vector<std::string>{"0x40a000=01020304"}));
  EXPECT_EQ(r->calls[0].line, 2);
  EXPECT_EQ(r->calls[1].function, "0x4d41a0");
  EXPECT_EQ(r->calls[1].repeat, 3u);
  EXPECT_EQ(r->calls[1].line, 7);
}

// A caller's own bound on the number of calls is honoured: two [[call]]s read under the defaults and
// are refused, naming the bound, with a limit of one.
TEST(CallList, ACallersSmallerBoundIsKLimitNamingIt) {
  constexpr std::string_view kTwo = R"(
[[call]]
function = "math::dot16"

[[call]]
function = "math::dot16"
)";
  ASSERT_TRUE(parse_call_list(kTwo, "calls.toml").ok());
  auto r = parse_call_list(kTwo, "calls.toml", CallListLimits{.max_calls = 1});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::kLimit);
  EXPECT_NE(r.error().message.find("2 [[call]] tables, past the limit of 1"), std::string::npos) << r.error().message;
}

TEST(CallList, EveryMistakeIsMalformedAndNamesItsLine) {
  struct Bad {
    const char* text;
    const char* says;
  };
  const Bad bad[] = {
      {"[[call]]\nfunction = \"f\"\narg = [1]\n", "calls.toml:3: [[call]] #1: unknown key 'arg'"},
      {"[[call]]\nargs = [1]\n", "calls.toml:1: [[call]] #1: missing key 'function'"},
      {"\n[[call]]\nfunction = \"f\"\nargs = 1\n", "calls.toml:4: [[call]] #1: 'args' must be an array"},
      {"[[call]]\nfunction = \"f\"\npokes = [1]\n", "calls.toml:3: [[call]] #1 pokes[0]: must be a string"},
      {"[[call]]\nfunction = \"f\"\nargs = [0x100000000]\n", "calls.toml:3: [[call]] #1 args[0]: 4294967296 is outside"},
      {"[[call]]\nfunction = \"f\"\nrepeat = 0\n", "calls.toml:3: [[call]] #1: 'repeat' must be an integer from 1"},
      {"[[call]]\nfunction = \"f\"\n[[call]]\nfunction = true\n", "calls.toml:4: [[call]] #2 function: must be"},
      {"calls = 1\n", "calls.toml:1: unknown top-level key 'calls'"},
      {"# nothing\n", "calls.toml:1: no [[call]] table"},
      {"[[call]]\nfunction = \n", "calls.toml:2: "},
  };
  for (const Bad& b : bad) {
    Error e = parse_error(b.text);
    EXPECT_EQ(e.code, Errc::kMalformed) << b.text;
    EXPECT_EQ(e.message.rfind(b.says, 0), 0u) << e.message;
  }
}

#ifdef LOCKSTEP_TEST_DLL

/// __udivdi3's address, from binutils' reading of the DLL's export table.
std::uint32_t udivdi3_address() {
  std::ifstream in(LOCKSTEP_TEST_DLL_OBJDUMP);
  std::string line;
  std::smatch m;
  std::map<unsigned, std::uint32_t> rva;
  unsigned index = ~0u;
  std::uint32_t base = 0;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, std::regex("^ImageBase\\s+([0-9a-f]+)"))) base = std::stoul(m[1], nullptr, 16);
    if (std::regex_search(line, m, std::regex("^\\s*\\[\\s*(\\d+)\\] \\+base\\[\\s*\\d+\\]\\s+([0-9a-f]+) Export RVA")))
      rva[std::stoul(m[1])] = static_cast<std::uint32_t>(std::stoul(m[2], nullptr, 16));
    if (std::regex_search(line, m, std::regex("^\\s*\\[\\s*(\\d+)\\] __udivdi3$"))) index = std::stoul(m[1]);
  }
  EXPECT_TRUE(base && rva.count(index)) << "objdump -p gave no ImageBase or __udivdi3";
  return base + rva[index];
}

struct Dir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("lockstep_call_list_" + std::to_string(::getpid()));
  Dir() { std::filesystem::create_directories(path); }
  ~Dir() { std::filesystem::remove_all(path); }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    EXPECT_TRUE(write_file_atomic(path / name, text).ok());
    return path / name;
  }
};

int run(const std::vector<std::string>& args, std::string& out) {
  std::ostringstream o, e;
  const int code = cli::run(args, cli::Io{o, e}, /*bindings: these commands run no port*/ {});
  out = o.str() + e.str();
  return code;
}

/// A port of __udivdi3 as a binding: the dividend and divisor from the case's stack bytes (cdecl:
/// esp+4 .. esp+19), the quotient in edx:eax. `off_by` makes a wrong port.
cases::Binding udivdi3_binding(std::uint32_t address, std::uint64_t off_by) {
  return cases::Binding{address, "udivdi3", [off_by](const cases::Case& c) {
                          auto u64 = [&](std::uint32_t at) {
                            std::uint64_t v = 0;
                            for (int i = 7; i >= 0; --i) v = v << 8 | c.inputs.get(at + i).value_or(0);
                            return v;
                          };
                          cases::PortEffects e;
                          const std::uint64_t q = u64(c.in.esp + 4) / u64(c.in.esp + 12) + off_by;
                          e.eax = static_cast<std::uint32_t>(q);
                          e.edx = static_cast<std::uint32_t>(q >> 32);
                          return e;
                        }};
}

/// A profile naming the DLL's __udivdi3 at `fn` (cdecl, two u64 halves each, edx:eax).
std::filesystem::path write_udivdi3_profile(Dir& dir, std::uint32_t fn) {
  return dir.write("libgcc.toml", fmt::format(R"([profile]
name = "libgcc"

[[function]]
address = 0x{:x}
name = "udivdi3"
convention = "cdecl"
args = ["a_lo:u32", "a_hi:u32", "b_lo:u32", "b_hi:u32"]
returns = "edx:eax"
)",
                                                            fn));
}

TEST(CallListPipeline, DllAloneCapturedFromACallListReplaysThroughABinding) {
  const std::uint32_t fn = udivdi3_address();
  Dir dir;
  const auto profile = write_udivdi3_profile(dir, fn);
  // 10^12 / 7, 100 / 3 twice (repeat), 2^64-1 / 2^32.
  const auto calls = dir.write("calls.toml", R"([[call]]
function = "udivdi3"
args = [0xd4a51000, 0xe8, 7, 0]

[[call]]
function = "udivdi3"
args = ["100", "0", "3", "0"]
repeat = 2

[[call]]
function = "udivdi3"
args = [0xffffffff, 0xffffffff, 0, 1]
)");
  const auto snap = dir.path / "libgcc.lks", corpus = dir.path / "corpus";
  std::string out;
  ASSERT_EQ(run({"snapshot", "--from", LOCKSTEP_TEST_DLL, "-o", snap.string()}, out), 0) << out;
  ASSERT_EQ(run({"capture", snap.string(), "--calls", calls.string(), "--profile", profile.string(), "-o",
                 corpus.string()},
                out),
            0)
      << out;
  EXPECT_NE(out.find("3 of 3 calls returned"), std::string::npos) << out;

  auto c = cases::read_corpus(corpus);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->files.size(), 1u);
  ASSERT_EQ(c->files[0].cases.size(), 4u);
  const std::uint64_t expected[] = {1000000000000ull / 7, 100 / 3, 100 / 3, 0xFFFFFFFFFFFFFFFFull >> 32};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& k = c->files[0].cases[i];
    EXPECT_EQ((std::uint64_t{k.out.edx} << 32) | k.out.eax, expected[i]) << "case " << i;
    EXPECT_EQ(k.origin.record, "CALL");
  }
  EXPECT_EQ(c->files[0].cases[2].origin.step, 1u) << "the second repeat";

  auto good = harness::replay(*c, {udivdi3_binding(fn, 0)}, {});
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ(good->total_matched(), 4u);
  EXPECT_TRUE(good->all_matched());
  auto wrong = harness::replay(*c, {udivdi3_binding(fn, 1)}, {});
  ASSERT_TRUE(wrong.ok()) << wrong.error().message;
  EXPECT_EQ(wrong->total_mismatched(), 4u);
}

TEST(CallListPipeline, BadLinesAndImportsWithoutStubsAreReported) {
  const std::uint32_t fn = udivdi3_address();
  Dir dir;
  const auto profile = write_udivdi3_profile(dir, fn);
  const auto snap = dir.path / "libgcc.lks";
  std::string out;
  ASSERT_EQ(run({"snapshot", "--from", LOCKSTEP_TEST_DLL, "-o", snap.string()}, out), 0) << out;
  auto capture = [&](const std::string& list) {
    const auto calls = dir.write("calls.toml", list);
    return run({"capture", snap.string(), "--calls", calls.string(), "--profile", profile.string(), "-o",
                (dir.path / "corpus").string()},
               out);
  };
  // Three arguments for a function of four: usage, exit 2, the line named; no corpus written.
  EXPECT_EQ(capture("[[call]]\nfunction = \"udivdi3\"\nargs = [1, 0, 1, 0]\n\n[[call]]\nfunction = \"udivdi3\"\n"
                    "args = [1, 2, 3]\n"),
            2);
  EXPECT_NE(out.find("calls.toml:5: [[call]] #2"), std::string::npos) << out;
  EXPECT_NE(out.find("takes 4 argument(s), 3 given"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir.path / "corpus"));
  // A function the profile does not list.
  EXPECT_EQ(capture("[[call]]\nfunction = \"udivdi4\"\n"), 2);
  EXPECT_NE(out.find("calls.toml:1: [[call]] #1"), std::string::npos) << out;
  // A malformed file.
  EXPECT_EQ(capture("[[call]]\nfunction = \"udivdi3\"\nargz = []\n"), 2);
  EXPECT_NE(out.find("calls.toml:3"), std::string::npos) << out;
  // Division by zero: a guest fault, exit 3, the call's line named; the other call's case is kept.
  EXPECT_EQ(capture("[[call]]\nfunction = \"udivdi3\"\nargs = [1, 0, 0, 0]\n\n[[call]]\nfunction = \"udivdi3\"\n"
                    "args = [9, 0, 3, 0]\n"),
            3);
  EXPECT_NE(out.find("calls.toml:1: [[call]] #1 faulted: interrupt 0"), std::string::npos) << out;
  auto c = cases::read_corpus(dir.path / "corpus");
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->files.at(0).cases.size(), 1u);
  EXPECT_EQ(c->files[0].cases[0].out.eax, 3u);
}

#else
TEST(CallListPipeline, NeedsMingwsLibgccDll) {
  GTEST_SKIP() << "libgcc_s_dw2-1.dll (Debian's gcc-mingw-w64-i686) not found at configure time";
}
#endif

}  // namespace
}  // namespace lockstep::capture
