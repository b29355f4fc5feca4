// An x87 function at 64-bit precision, ported and matched: tests/readers/x87_original/tank_range.c,
// a stdcall function that returns a double in ST0 unrounded, built with gcc -m32 into a Linux i386
// file that lockstep maps alone (`lockstep snapshot --from`) and runs under the emulator (so it passes
// on kernels without i386 support). Under fninit's control word 0x037f (the profile's, the snapshot's
// thread having no FPU state) the quotient keeps a 64-bit significand. The calls lay each tank's fuel
// by field and typed value (`tank[1].fuel=f32:37.5`) and pass the throttle as 16.16 (`fx:0.75`). A port
// in long double (the host's x87 at 64 bits) returning lockstep::x87::Extended matches every case; the
// same port in double, as PortEffects::st0 was before, does not, and the report shows both values.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <unistd.h>

#include "lockstep/base/io.hpp"
#include "lockstep/cases/arguments.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/cases/replay_memory.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/replay/replay.hpp"
#include "lockstep/x87/extended.hpp"

namespace lockstep {
namespace {

#if defined(LOCKSTEP_TEST_TANK) && (defined(__x86_64__) || defined(__i386__))

/// A symbol's address from `nm`'s listing of the file.
std::uint32_t symbol(const std::string& name) {
  std::ifstream in(LOCKSTEP_TEST_TANK_NM);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_match(line, m, std::regex("([0-9a-f]{8}) [A-Za-z] (.+)")) && m[2] == name)
      return static_cast<std::uint32_t>(std::stoul(m[1], nullptr, 16));
  ADD_FAILURE() << name << " is not in " << LOCKSTEP_TEST_TANK_NM;
  return 0;
}

struct Dir {
  std::filesystem::path path = std::filesystem::temp_directory_path() / ("lockstep_x87_tank_" + std::to_string(::getpid()));
  Dir() { std::filesystem::create_directories(path); }
  ~Dir() { std::filesystem::remove_all(path); }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    EXPECT_TRUE(write_file_atomic(path / name, text).ok());
    return path / name;
  }
};

int run(const std::vector<std::string>& args, std::string& out) {
  std::ostringstream o, e;
  const int code = cli::run(args, cli::Io{o, e}, {});
  out = o.str() + e.str();
  return code;
}

/// The port of tank_range (0x08049000 in this build; the address comes from nm): the C's operations
/// in its order, in `T` (long double: the x87 at 64 bits; double: what a port in doubles computes).
template <typename T>
T tank_range(float fuel, std::int32_t throttle) {
  return static_cast<T>(fuel) * static_cast<T>(1.1) / (static_cast<T>(throttle) / static_cast<T>(65536.0) + static_cast<T>(0.25));
}

/// A binding by name: the tank's fuel read through the case's memory, the throttle by its name.
template <typename T>
cases::Binding tank_range_binding(std::uint32_t address) {
  cases::Binding b{address, "tank::range", {}};
  b.run_with_args = [](const cases::Case& c, const cases::Signature& s) {
    cases::ReplayMemory rm(c);
    cases::PortEffects fx;
    const cases::Arguments args(c, s, rm);
    const std::uint32_t fuel_bits = static_cast<std::uint32_t>(rm.load_le(args.ptr("tank") + 12, 4));
    fx.st0 = tank_range<T>(std::bit_cast<float>(fuel_bits), args.i32("throttle"));
    fx.writes = rm.writes();
    fx.outside_reads = rm.outside_reads();
    return fx;
  };
  return b;
}

TEST(X87Tank, ReturnsSt0At64BitsAndALongDoublePortMatchesEveryCase) {
  const std::uint32_t fn = symbol("tank_range"), tanks = symbol("g_tanks");
  ASSERT_NE(fn, 0u);
  Dir dir;
  const auto profile = dir.write("tanks.toml", fmt::format(R"([profile]
name = "tanks"
fpu_control_word = 0x037f

[[function]]
address = 0x{:x}
name = "tank::range"
original = "tank_range"
convention = "stdcall"
args = ["tank:ptr", "throttle:i32"]
returns = "st0"

[[struct]]
name = "tank"
size = 16
fields = [
  {{ offset = 0, size = 4, name = "x" }},
  {{ offset = 4, size = 4, name = "y" }},
  {{ offset = 8, size = 4, name = "heading" }},
  {{ offset = 12, size = 4, name = "fuel" }},
]

[[instance]]
name = "tank"
struct = "tank"
base = 0x{:x}
count = 4
)",
                                                            fn, tanks));
  // 64 calls: each tank in turn, fuel and throttle from small tables (the fuel by field, as a float;
  // the throttle as 16.16).
  const char* const fuels[] = {"0.01", "1", "37.5", "93.0617", "250.25", "1e-3", "3.14159", "4096"};
  const char* const throttles[] = {"0.75", "1.0", "0.1", "-0.2", "2.5", "0.333", "7.0", "-0.05"};
  std::string list;
  for (int i = 0; i < 64; ++i) {
    const int tank = i % 4;
    list += fmt::format("[[call]]\nfunction = \"tank::range\"\nargs = [\"tank[{0}]\", \"fx:{1}\"]\n"
                        "pokes = [\"tank[{0}].fuel=f32:{2}\"]\n\n",
                        tank, throttles[(i / 8) % 8], fuels[i % 8]);
  }
  const auto calls = dir.write("calls.toml", list);
  const auto snap = dir.path / "tank.lks", corpus = dir.path / "corpus";
  std::string out;
  ASSERT_EQ(run({"snapshot", "--from", LOCKSTEP_TEST_TANK, "-o", snap.string()}, out), 0) << out;
  ASSERT_EQ(run({"capture", snap.string(), "--calls", calls.string(), "--profile", profile.string(), "-o",
                 corpus.string()},
                out),
            0)
      << out;
  // The same values, one parser, in every place: a value its type cannot hold is refused with the
  // call list's line, by `lockstep call`, and by `lockstep capture --poke`, and nothing runs.
  const auto bad = dir.write("bad.toml", "[[call]]\nfunction = \"tank::range\"\nargs = [\"tank[1]\", \"fx:0.5\"]\n"
                                         "pokes = [\"tank[1].fuel=f64:1e400\"]\n");
  EXPECT_EQ(run({"capture", snap.string(), "--calls", bad.string(), "--profile", profile.string(), "-o",
                 (dir.path / "bad").string()},
                out),
            2);
  EXPECT_NE(out.find("bad.toml:1: [[call]] #1"), std::string::npos) << out;
  EXPECT_NE(out.find("'f64:1e400' is past a double's range"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir.path / "bad"));
  EXPECT_EQ(run({"call", snap.string(), "--profile", profile.string(), "--fn", "tank::range", "--arg", "tank[1]",
                 "--arg", "fx:40000", "--poke", "tank[1].fuel=f32:1"},
                out),
            2);
  EXPECT_NE(out.find("'fx:40000' does not fit 16.16 fixed point"), std::string::npos) << out;
  EXPECT_EQ(run({"call", snap.string(), "--profile", profile.string(), "--fn", "tank::range", "--arg", "tank[1]",
                 "--arg", "fx:0.5", "--poke", "tank[1].fuel=f64:1"},
                out),
            2);
  EXPECT_NE(out.find("tank[1].fuel is 4 byte(s), the value 8"), std::string::npos) << out;
  // And a good call prints ST0 with its 80 bits: 1.1 x 2 / (0.5 + 0.25) at 64 bits.
  ASSERT_EQ(run({"call", snap.string(), "--profile", profile.string(), "--fn", "tank::range", "--arg", "tank[1]",
                 "--arg", "fx:0.5", "--poke", "tank[1].fuel=f32:2"},
                out),
            0)
      << out;
  const x87::Extended expected(static_cast<long double>(2.0f) * static_cast<long double>(1.1) / 0.75L);
  EXPECT_NE(out.find("st0 = " + expected.decimal() + " (" + expected.hex() + ")"), std::string::npos) << out;
  EXPECT_NE(out.find(fmt::format("  arguments:\n    tank (esp+4) = 0x{:08x}\n    throttle (esp+8) = 0x00008000 (32768)\n",
                                 tanks + 16)),
            std::string::npos)
      << out;

  auto c = cases::read_corpus(corpus);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->files.size(), 1u);
  ASSERT_EQ(c->files[0].cases.size(), 64u);
  // The calls ran at 64 bits, and the pokes laid the fuel where the port reads it: the case's input
  // bytes are the float the call list wrote.
  const cases::Case& first = c->files[0].cases[0];
  EXPECT_EQ(first.in.x87.control, 0x037f);
  EXPECT_EQ(first.inputs.get(tanks + 12), std::uint8_t{0x0a});  // 0.01f = 0x3c23d70a
  EXPECT_EQ(first.inputs.get(tanks + 15), std::uint8_t{0x3c});

  auto loaded = harness::load_profile(profile);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto extended = harness::replay(*c, harness::with_signatures({tank_range_binding<long double>(fn)}, *loaded), {});
  ASSERT_TRUE(extended.ok()) << extended.error().message;
  EXPECT_EQ(extended->total_matched(), 64u);

  auto in_double = harness::replay(*c, harness::with_signatures({tank_range_binding<double>(fn)}, *loaded), {});
  ASSERT_TRUE(in_double.ok()) << in_double.error().message;
  const std::uint32_t wrong = in_double->total_mismatched();
  EXPECT_GT(wrong, 32u) << "a 64-bit quotient rounded to a double differs in most cases";
  std::cout << "tank::range in double: " << wrong << " of 64 cases differ\n";
  ASSERT_FALSE(in_double->functions.empty());
  ASSERT_FALSE(in_double->functions[0].failures.empty());
  harness::Labeler labels(*loaded);
  harness::Namer namer = harness::corpus_namer(*c, &labels);
  harness::name_arguments(namer, *loaded);
  const auto& failure = in_double->functions[0].failures[0];
  const std::string report = harness::format_mismatch(in_double->functions[0], failure, namer);
  std::cout << report;
  // Both values, each as 21 digits and its 80 bits: the decimals differ as the bits do.
  const x87::Extended original = x87::Extended::from_bytes(failure.c->out.x87.st[0]);
  ASSERT_EQ(failure.comparison.registers.size(), 1u);
  EXPECT_EQ(failure.comparison.registers[0].original, original.decimal() + " (" + original.hex() + ")");
  EXPECT_NE(failure.comparison.registers[0].original.substr(0, 22), failure.comparison.registers[0].port.substr(0, 22));
  EXPECT_NE(report.find("    throttle (esp+8) = 0x"), std::string::npos) << report;
}

#else
TEST(X87Tank, ReturnsSt0At64BitsAndALongDoublePortMatchesEveryCase) {
  GTEST_SKIP() << "needs the i386 tank original (gcc -m32: gcc-multilib) and an x86 host, whose long double is "
                  "the x87's format";
}
#endif

}  // namespace
}  // namespace lockstep
