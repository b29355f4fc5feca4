// lockstep::cli::run replays the bindings its caller passes, never a game's of its own choosing: the
// same corpus (the put-back family, cases/standin-putback) with POD's bindings, with none, and with
// POD's but one function's port made wrong.
#include <gtest/gtest.h>

#include <array>
#include <sstream>
#include <string>
#include <string_view>

#include "lockstep/base/result.hpp"
#include "lockstep/cli/cli.hpp"
#include "pod/bindings/bindings.hpp"

namespace {

using namespace lockstep;

const std::string kCorpus = LOCKSTEP_SOURCE_DIR "/cases/standin-putback";

struct Replayed {
  int code;
  std::string out, err;
};

// The put-back family's exclusions, as its gate takes them (none today: every function has cases).
const std::string kExclusions = LOCKSTEP_SOURCE_DIR "/tests/gate/standin-putback-exclusions.txt";

Replayed replay(const cases::BindingSet& bindings) {
  const std::array<std::string_view, 4> args{"replay", kCorpus, "--exclusions", kExclusions};  // the std::span overload
  std::ostringstream out, err;
  const int code = cli::run(args, cli::Io{out, err}, bindings);
  return {code, out.str(), err.str()};
}

TEST(CliBindings, PodsBindingsMatchEveryCase) {
  const Replayed r = replay(pod::bindings::all());
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_NE(r.out.find("paths::heading"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("UNCHECKED"), std::string::npos) << r.out;
  // world::sector_any: the put-backs of the race that starts settled reach it, so it is checked here too.
  EXPECT_NE(r.out.find("world::sector_any"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("57 of 57 cases checked"), std::string::npos) << r.out;
}

TEST(CliBindings, NoBindingsRunNoPort) {
  const Replayed r = replay({});
  // Nothing ran, so nothing differed — and nothing was checked: that is no pass.
  EXPECT_EQ(r.code, kExitUnchecked) << r.out << r.err;
  EXPECT_NE(r.out.find("UNCHECKED: no binding"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 of 57 cases checked"), std::string::npos) << r.out;
}

TEST(CliBindings, AWrongPortGivenByTheCallerMismatches) {
  cases::BindingSet bindings = pod::bindings::all();
  std::string wrong;
  for (auto& b : bindings) {
    if (b.name != "paths::heading") continue;
    wrong = b.name;
    b = cases::with_edited_effects(std::move(b), [](const cases::Case&, cases::PortEffects& fx) {
      fx.error = "made wrong by the test";  // the port threw: every case of it mismatches
    });
  }
  ASSERT_EQ(wrong, "paths::heading") << "the put-back corpus's binding is named otherwise now";
  const Replayed r = replay(bindings);
  EXPECT_EQ(r.code, kExitMismatch) << r.out << r.err;
  EXPECT_NE(r.out.find("MISMATCH paths::heading"), std::string::npos) << r.out;
  // run's caller gave no program name: the report names lockstep's own executable.
  EXPECT_NE(r.out.find("reproduce: lockstep replay "), std::string::npos) << r.out;

  // main()'s argv: the report's "reproduce" line runs the executable that ran, on the corpus it was given.
  const char* argv[] = {"build/mygame_lockstep", "replay", kCorpus.c_str(), "--max-reports", "1"};
  std::ostringstream out, err;
  EXPECT_EQ(cli::run(5, argv, cli::Io{out, err}, bindings), kExitMismatch) << err.str();
  const std::string text = out.str();
  const std::size_t line = text.find("  reproduce: ");
  ASSERT_NE(line, std::string::npos) << text;
  const std::string reproduce = text.substr(line, text.find('\n', line) - line);
  EXPECT_TRUE(reproduce.starts_with("  reproduce: build/mygame_lockstep replay ")) << reproduce;
  EXPECT_NE(reproduce.find(kCorpus), std::string::npos) << reproduce;
  EXPECT_NE(reproduce.find(" --case 0x"), std::string::npos) << reproduce;
}

}  // namespace
