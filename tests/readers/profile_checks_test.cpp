// What a profile is checked against, on Tanks (tests/readers/tanks/tanks.c, built gcc -m32 -O2 -static
// and used as an ELF32 image alone, under the emulator): a call list reaches the nested calls of every
// profile function (or of the --fn set) and names the functions no call reached; each captured call is
// checked against its declared convention (the bytes the callee popped, the registers it read before
// writing them); each function's address against the ELF's symbol of its `original` name; and the
// replay of the corpus fails while nothing, or not everything, was checked. The expected addresses come
// from binutils' nm, the expected bytes from the C source.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <unistd.h>

#include "lockstep/base/io.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/profile/symbol_check.hpp"

namespace lockstep {
namespace {

#ifdef LOCKSTEP_TEST_TANKS

/// nm's reading of Tanks: symbol -> address.
std::map<std::string, std::uint32_t> nm_symbols() {
  std::map<std::string, std::uint32_t> out;
  std::ifstream in(LOCKSTEP_TEST_TANKS_NM);
  std::string addr, kind, name;
  while (in >> addr) {
    if (addr.size() != 8) {  // an undefined symbol has no address: "U name"
      in >> name;
      continue;
    }
    in >> kind >> name;
    out[name] = static_cast<std::uint32_t>(std::stoul(addr, nullptr, 16));
  }
  return out;
}

struct Dir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("lockstep_profile_checks_" + std::to_string(::getpid()));
  Dir() { std::filesystem::create_directories(path); }
  ~Dir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    EXPECT_TRUE(write_file_atomic(path / name, text).ok());
    return (path / name).string();
  }
};

int run(const std::vector<std::string>& args, std::string& out, const cases::BindingSet& bindings = {}) {
  std::ostringstream o, e;
  const int code = cli::run(args, cli::Io{o, e}, bindings);
  out = o.str() + e.str();
  return code;
}

/// Tanks' profile as a porter writes it; `conventions` overrides a function's, `addresses` its address.
std::string tanks_profile(const std::map<std::string, std::string>& conventions = {},
                          const std::map<std::string, std::uint32_t>& addresses = {}) {
  const auto nm = nm_symbols();
  struct F {
    const char *name, *symbol, *convention, *args, *returns;
  };
  const F fns[] = {{"tank::thrust", "tank_thrust", "cdecl", R"("t:ptr", "throttle:i32")", "none"},
                   {"tank::move", "tank_move", "fastcall", R"("t:ptr", "steps:i32")", "none"},
                   {"tank::burn", "tank_burn", "stdcall", R"("t:ptr", "throttle:i32")", "eax"},
                   {"tank::step", "tank_step", "cdecl", R"("i:i32", "throttle:i32")", "none"},
                   {"tank::count", "tank_count", "cdecl", "", "eax"}};
  std::string s = "[profile]\nname = \"tanks\"\n";
  for (const F& f : fns) {
    const auto conv = conventions.find(f.name);
    const auto at = addresses.find(f.name);
    s += fmt::format("\n[[function]]\naddress = 0x{:x}\nname = \"{}\"\noriginal = \"{}\"\nconvention = \"{}\"\n"
                     "args = [{}]\nreturns = \"{}\"\n",
                     at != addresses.end() ? at->second : nm.at(f.symbol), f.name, f.symbol,
                     conv != conventions.end() ? conv->second : f.convention, f.args, f.returns);
  }
  return s;
}

/// Only tank::step is called: tank 0 at throttle 64, tank 1 at 32 twice, tank 3 at 400 (its fuel runs out).
constexpr const char* kCalls = R"([[call]]
function = "tank::step"
args = [0, 64]

[[call]]
function = "tank::step"
args = [1, 32]
repeat = 2

[[call]]
function = "tank::step"
args = [3, 400]
)";

struct Tanks : ::testing::Test {
  Dir dir;
  std::string calls = dir.write("calls.toml", kCalls);
  std::string corpus = (dir.path / "corpus").string();
  std::string out;
  int capture(const std::string& profile, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"capture", LOCKSTEP_TEST_TANKS, "--calls", calls, "--profile",
                                  dir.write("tanks.toml", profile), "-o", corpus};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args, out);
  }
};

// A call list reaches every profile function its calls call: tank::thrust, tank::move and tank::burn are
// never listed, yet each has the four calls tank::step made of it; tank::count, never called, has a line.
TEST_F(Tanks, CallListCapturesNestedCallsOfEveryProfileFunction) {
  ASSERT_EQ(capture(tanks_profile()), kExitOk) << out;
  EXPECT_NE(out.find("3 of 3 calls returned"), std::string::npos) << out;
  for (const char* fn : {"tank::thrust", "tank::move", "tank::burn", "tank::step"})
    EXPECT_NE(out.find(fmt::format("{:<28} 4 cases\n", fn)), std::string::npos) << fn << "\n" << out;
  EXPECT_NE(out.find(fmt::format("{:<28} 0 cases (no call reached it)", "tank::count")), std::string::npos) << out;
  auto c = cases::read_corpus(corpus);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->files.size(), 4u) << "a function without cases gets a line, not a case file";
  // tank::thrust's first case: tank 0 (at `world`), throttle 64: vx += 64 >> 4 = 4 (world + 8); the
  // heading is 0, so vy += 0.
  const std::uint32_t world = nm_symbols().at("world");
  const cases::CaseFile* thrust = nullptr;
  for (const auto& f : c->files) thrust = f.name == "tank::thrust" ? &f : thrust;
  ASSERT_NE(thrust, nullptr);
  EXPECT_EQ(thrust->cases[0].writes.get(world + 8), std::optional<std::uint8_t>(4));
}

// --fn with --calls: only those functions, each with a case file (tank::count's empty one too).
TEST_F(Tanks, FnChoosesTheFunctionsOfACallList) {
  ASSERT_EQ(capture(tanks_profile(), {"--fn", "tank::move", "--fn", "tank::count"}), kExitOk) << out;
  auto c = cases::read_corpus(corpus);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->files.size(), 2u);
  EXPECT_EQ(c->files[0].name, "tank::move");
  EXPECT_EQ(c->files[0].cases.size(), 4u);
  EXPECT_EQ(c->files[1].name, "tank::count");
  EXPECT_TRUE(c->files[1].cases.empty());
  EXPECT_NE(out.find("0 cases (no call reached it)"), std::string::npos) << out;
  EXPECT_NE(c->manifest.command.find("--fn tank::move --fn tank::count"), std::string::npos) << c->manifest.command;
}

// A stdcall function declared cdecl: its calls pop 8 bytes. An error (exit 8), naming the function, what
// its calls did and the likely convention; no corpus is written.
TEST_F(Tanks, StdcallDeclaredCdeclIsRefused) {
  EXPECT_EQ(capture(tanks_profile({{"tank::burn", "cdecl"}})), kExitProfileDisagrees) << out;
  EXPECT_NE(out.find("tank::burn is declared convention = \"cdecl\", but case 0 popped 8 bytes on return (cdecl with "
                     "these arguments pops 0)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("likely stdcall"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(corpus));
  // Declared stdcall with one argument too few: the calls pop 8, the profile says 4.
  std::string profile = tanks_profile();
  const std::string two = R"(args = ["t:ptr", "throttle:i32"]
returns = "eax")";
  profile.replace(profile.find(two), two.size(), "args = [\"t:ptr\"]\nreturns = \"eax\"");
  EXPECT_EQ(capture(profile), kExitProfileDisagrees) << out;
  EXPECT_NE(out.find("popped 8 bytes on return (stdcall with these arguments pops 4)"), std::string::npos) << out;
}

// A fastcall function declared cdecl: it reads ecx and edx before writing them.
TEST_F(Tanks, FastcallDeclaredCdeclIsRefused) {
  EXPECT_EQ(capture(tanks_profile({{"tank::move", "cdecl"}})), kExitProfileDisagrees) << out;
  EXPECT_NE(out.find("tank::move is declared convention = \"cdecl\", but it reads ecx, edx before writing them"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("likely fastcall"), std::string::npos) << out;
  // The one opt-out: written anyway, the disagreement a warning.
  EXPECT_EQ(capture(tanks_profile({{"tank::move", "cdecl"}}), {"--no-convention-check"}), kExitOk) << out;
  EXPECT_NE(out.find("warning:"), std::string::npos) << out;
  EXPECT_TRUE(std::filesystem::exists(corpus));
}

// The ELF's symbols, read by lockstep, are nm's.
TEST_F(Tanks, SymbolsAreNms) {
  auto bytes = read_file(LOCKSTEP_TEST_TANKS);
  ASSERT_TRUE(bytes.ok());
  auto symbols = harness::read_symbol_table(*bytes, "tanks");
  ASSERT_TRUE(symbols.ok()) << symbols.error().message;
  std::map<std::string, std::uint32_t> read;
  for (const auto& s : symbols->symbols) read[s.name] = s.address;
  for (const char* fn : {"tank_thrust", "tank_move", "tank_burn", "tank_step", "tank_count", "main"})
    EXPECT_EQ(read[fn], nm_symbols().at(fn)) << fn;
}

// A profile address its `original` symbol contradicts: an error naming both addresses, before anything
// runs (capture and call).
TEST_F(Tanks, AnAddressTheSymbolContradictsIsRefused) {
  const auto nm = nm_symbols();
  const std::uint32_t wrong = nm.at("tank_move") + 4;
  const std::string profile = tanks_profile({}, {{"tank::move", wrong}});
  EXPECT_EQ(capture(profile), kExitProfileDisagrees) << out;
  EXPECT_NE(out.find(fmt::format("[[function]] tank::move: address = 0x{:08x}, but the symbol tank_move is at 0x{:08x}",
                                 wrong, nm.at("tank_move"))),
            std::string::npos)
      << out;
  EXPECT_FALSE(std::filesystem::exists(corpus));
  EXPECT_EQ(run({"call", LOCKSTEP_TEST_TANKS, "--profile", dir.write("wrong.toml", profile), "--fn", "tank::count"}, out),
            kExitProfileDisagrees)
      << out;
  // A Ghidra-style name spells its address.
  auto p = harness::parse_profile(
      "[[function]]\naddress = 0x401010\nname = \"f\"\noriginal = \"FUN_00401000\"\nconvention = \"cdecl\"\nreturns = \"none\"\n",
      "g.toml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  const auto says = harness::check_symbols(*p, harness::SymbolTable{}).errors;
  ASSERT_EQ(says.size(), 1u);
  EXPECT_NE(says[0].find("g.toml:1: [[function]] f: address = 0x00401010, but its `original` FUN_00401000 names 0x00401000"),
            std::string::npos)
      << says[0];
}

// A file that names the profile's function differently (the stand-in's pod_004c8e70 beside a static
// libc's memmove): the name cannot decide, so it is a warning naming both; an address that starts no
// function symbol while the name lies elsewhere stays an error.
TEST(SymbolCheck, ANameTheFileGivesAnotherFunctionIsAWarningNotAnError) {
  harness::SymbolTable t;
  t.what = "standin";
  t.symbols = {{0x004c8e70, 0x40, "pod_004c8e70"}, {0x0807bd50, 0x80, "memmove"}};
  auto at = [](std::uint32_t address) {
    return fmt::format("[[function]]\naddress = 0x{:08x}\nname = \"lib::memmove\"\noriginal = \"memmove\"\n"
                       "convention = \"watcom\"\nreturns = \"eax\"\n", address);
  };
  auto named_apart = harness::parse_profile(at(0x004c8e70), "pod.toml");
  ASSERT_TRUE(named_apart.ok()) << named_apart.error().message;
  const auto apart = harness::check_symbols(*named_apart, t);
  EXPECT_TRUE(apart.errors.empty());
  ASSERT_EQ(apart.warnings.size(), 1u);
  EXPECT_NE(apart.warnings[0].find("names the function at 0x004c8e70 pod_004c8e70, and its symbol memmove is at "
                                   "0x0807bd50"), std::string::npos) << apart.warnings[0];
  auto inside = harness::parse_profile(at(0x004c8e74), "pod.toml");
  ASSERT_TRUE(inside.ok()) << inside.error().message;
  const auto wrong = harness::check_symbols(*inside, t);
  EXPECT_TRUE(wrong.warnings.empty());
  ASSERT_EQ(wrong.errors.size(), 1u);
  EXPECT_NE(wrong.errors[0].find("address = 0x004c8e74, but the symbol memmove is at 0x0807bd50"), std::string::npos)
      << wrong.errors[0];
}

/// A port of tank_thrust from the C source: vx += throttle >> 4, vy += (throttle * (heading & 0xff)) >> 8.
cases::Binding thrust_binding(std::uint32_t address) {
  return {address, "tank::thrust", [](const cases::Case& c) {
            auto word = [&](std::uint32_t a) {
              std::uint32_t v = 0;
              for (int i = 3; i >= 0; --i) v = v << 8 | c.inputs.get(a + i).value_or(0);
              return v;
            };
            const std::uint32_t t = word(c.in.esp + 4);
            const auto throttle = static_cast<std::int32_t>(word(c.in.esp + 8));
            cases::PortEffects e;
            auto put = [&](std::uint32_t a, std::uint32_t v) {
              for (int i = 0; i < 4; ++i) e.writes.set(a + i, static_cast<std::uint8_t>(v >> (8 * i)));
            };
            put(t + 8, word(t + 8) + static_cast<std::uint32_t>(throttle >> 4));
            put(t + 12, word(t + 12) + static_cast<std::uint32_t>((throttle * static_cast<std::int32_t>(word(t + 16) & 0xff)) >> 8));
            e.eax = c.out.eax;
            return e;
          }};
}

// Replay never passes on nothing: with no binding every function is unchecked (exit 7, "0 of 16 cases
// checked"); excluded with reasons, still nothing is checked; one function bound and the rest excluded,
// the verdict holds (and says what it checked).
TEST_F(Tanks, ReplayFailsUntilEveryFunctionIsCheckedOrExcluded) {
  ASSERT_EQ(capture(tanks_profile()), kExitOk) << out;
  EXPECT_EQ(run({"replay", corpus}, out), kExitUnchecked) << out;
  EXPECT_NE(out.find("0 of 16 cases checked"), std::string::npos) << out;
  EXPECT_NE(out.find("tank::move: no binding (4 cases the port never ran)"), std::string::npos) << out;
  const std::vector<std::string> excluded = {"--exclude", "tank::move=ported with the world loop",
                                             "--exclude", "tank::burn=x87: not ported yet",
                                             "--exclude", "tank::step=followed whole by the game's own test"};
  std::vector<std::string> args{"replay", corpus, "--exclude", "tank::thrust=not ported yet"};
  args.insert(args.end(), excluded.begin(), excluded.end());
  EXPECT_EQ(run(args, out), kExitUnchecked) << out;
  EXPECT_NE(out.find("no case was checked at all"), std::string::npos) << out;
  // A reason is required, and an exclusion must name a function of the corpus.
  EXPECT_EQ(run({"replay", corpus, "--exclude", "tank::move="}, out), kExitBadInput) << out;
  EXPECT_EQ(run({"replay", corpus, "--exclude", "tank::mvoe=typo"}, out), kExitBadInput) << out;
  const std::string file = dir.write("excluded.txt", "# functions left unchecked\ntank::move\n");
  EXPECT_EQ(run({"replay", corpus, "--exclusions", file}, out), kExitBadInput) << out;
  EXPECT_NE(out.find("excluded.txt:2: tank::move has no reason"), std::string::npos) << out;

  const cases::BindingSet thrust = {thrust_binding(nm_symbols().at("tank_thrust"))};
  args = {"replay", corpus};
  args.insert(args.end(), excluded.begin(), excluded.end());
  EXPECT_EQ(run(args, out, thrust), kExitOk) << out;
  EXPECT_NE(out.find("4 of 16 cases checked (3 functions excluded, each with its reason)"), std::string::npos) << out;
  EXPECT_NE(out.find("excluded: x87: not ported yet"), std::string::npos) << out;
  // Sharded and merged, the same verdict: the exclusions travel in the shards' reports.
  std::vector<std::string> reports;
  for (int k = 1; k <= 2; ++k) {
    reports.push_back((dir.path / fmt::format("shard{}.json", k)).string());
    auto sharded = args;
    sharded.insert(sharded.end(), {"--shard", fmt::format("{}/2", k), "--json", reports.back()});
    run(sharded, out, thrust);
  }
  EXPECT_EQ(run({"merge-reports", reports[0], reports[1]}, out), kExitOk) << out;
  EXPECT_NE(out.find("4 of 16 cases checked"), std::string::npos) << out;
  // Without the exclusions, the merged shards fail as the whole run does.
  for (int k = 1; k <= 2; ++k) run({"replay", corpus, "--shard", fmt::format("{}/2", k), "--json", reports[k - 1]}, out, thrust);
  EXPECT_EQ(run({"merge-reports", reports[0], reports[1]}, out), kExitUnchecked) << out;
}

#else
TEST(Tanks, NeedsGccM32) { GTEST_SKIP() << "Tanks is built with GCC's -m32 (gcc-multilib); this build's C compiler is not GCC"; }
#endif

}  // namespace
}  // namespace lockstep
