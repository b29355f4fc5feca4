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

Replayed replay(const cases::BindingSet& bindings) {
  const std::array<std::string_view, 2> args{"replay", kCorpus};  // the std::span overload
  std::ostringstream out, err;
  const int code = cli::run(args, cli::Io{out, err}, bindings);
  return {code, out.str(), err.str()};
}

TEST(CliBindings, PodsBindingsMatchEveryCase) {
  const Replayed r = replay(pod::bindings::all());
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_NE(r.out.find("paths::heading"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("no binding yet"), std::string::npos) << r.out;
}

TEST(CliBindings, NoBindingsRunNoPort) {
  const Replayed r = replay({});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;  // nothing ran, so nothing differed
  EXPECT_NE(r.out.find("no binding yet"), std::string::npos) << r.out;
}

TEST(CliBindings, AWrongPortGivenByTheCallerMismatches) {
  cases::BindingSet bindings = pod::bindings::all();
  std::string wrong;
  for (auto& b : bindings) {
    if (b.name != "paths::heading") continue;
    wrong = b.name;
    b.run = [inner = b.run](const cases::Case& c) {
      cases::PortEffects fx = inner(c);
      fx.error = "made wrong by the test";  // the port threw: every case of it mismatches
      return fx;
    };
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
