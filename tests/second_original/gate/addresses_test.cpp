// Every address typed by hand, in the profile (game.toml) and in the port (crawl::code), against the
// symbol table of the build (binutils' nm of the unstripped link): a rebuild that moves code or data
// fails here, naming the symbol, before anything is captured at a stale address.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "crawl/layout.hpp"
#include "lockstep/profile/profile.hpp"

namespace {

#ifdef CRAWL_EXE_NM

/// Symbol -> address, from `nm` lines "0040160 T _fx_mul".
std::map<std::string, std::uint32_t> symbols() {
  std::map<std::string, std::uint32_t> out;
  std::ifstream in(CRAWL_EXE_NM);
  EXPECT_TRUE(in.good()) << CRAWL_EXE_NM;
  const std::regex line_re("^([0-9a-f]{8}) \\S (\\S+)$");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_match(line, m, line_re)) out[m[2]] = static_cast<std::uint32_t>(std::stoul(m[1], nullptr, 16));
  return out;
}

lockstep::harness::Profile profile() {
  auto p = lockstep::harness::load_profile(CRAWL_SOURCE_DIR "/game.toml");
  EXPECT_TRUE(p.ok()) << p.error().message;
  return p.ok() ? std::move(*p) : lockstep::harness::Profile{};
}

void expect_at(const std::map<std::string, std::uint32_t>& syms, const std::string& symbol, std::uint32_t typed,
               const std::string& where) {
  const auto it = syms.find(symbol);
  ASSERT_NE(it, syms.end()) << where << ": the build has no symbol " << symbol;
  EXPECT_EQ(it->second, typed) << where << ": " << symbol << " is at 0x" << std::hex << it->second
                               << " in this build, typed as 0x" << typed
                               << " (the code moved: update game.toml and crawl/layout.hpp, capture again)";
}

TEST(CrawlAddresses, EveryProfileFunctionIsAtItsSymbol) {
  const auto syms = symbols();
  const auto p = profile();
  ASSERT_EQ(p.functions.size(), 11u);
  for (const auto& f : p.functions) expect_at(syms, f.original, f.address, "game.toml " + f.name);
}

TEST(CrawlAddresses, TheStubSitsOnTheImportsSlotAndTheDataOnTheirSymbols) {
  const auto syms = symbols();
  const auto p = profile();
  ASSERT_EQ(p.stubs.size(), 1u);
  ASSERT_TRUE(p.stubs[0].pointer.has_value());
  expect_at(syms, "__imp__GetTickCount@0", *p.stubs[0].pointer, "game.toml stub " + p.stubs[0].name);
  const auto* world = p.instance_by_name("world");
  ASSERT_NE(world, nullptr);
  expect_at(syms, "_g_world", world->base, "game.toml instance world");
  for (const auto& l : p.labels) expect_at(syms, "_" + l.name, l.address, "game.toml label " + l.name);
}

TEST(CrawlAddresses, ThePortsFunctionTableTargetsAreAtTheirSymbols) {
  const auto syms = symbols();
  expect_at(syms, "_walker_think", crawl::code::kWalkerThink, "crawl::code::kWalkerThink");
  expect_at(syms, "_turret_think", crawl::code::kTurretThink, "crawl::code::kTurretThink");
  expect_at(syms, "_entity_damage", crawl::code::kEntityDamage, "crawl::code::kEntityDamage");
}

#else
TEST(CrawlAddresses, NeedTheMingwBuild) {
  GTEST_SKIP() << "i686-w64-mingw32-gcc/nm not found at configure time: crawl.exe and its symbol table "
                  "are not built";
}
#endif

}  // namespace
