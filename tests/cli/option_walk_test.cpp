// Every option of every command, each given the hostile values of the sweep (empty, negative, huge,
// non-numeric, the path of one of the command's inputs), on a command line that otherwise runs: the
// exit code must be the one the README's table gives, and no input may change. The options come from
// the command line's own definitions (make_command_line), so an option or a command added later is
// walked too: a numeric option (type N, SECONDS, K/N, 0-9) must refuse all four with 2, an output must
// refuse an input's path with 2, an input must refuse a path that is not there with 2; any other
// option must at least end in a documented code that is not an internal error or an I/O failure.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "command.hpp"
#include "hostile_fixture.hpp"
#include "path_options.hpp"

namespace lockstep::test {
namespace {

struct Line {
  std::vector<std::pair<std::string, std::string>> options;  ///< (name, value); positionals named by their own names
};

// Command lines that run (to their own code) on the fixture's files; an unknown command gets its
// required options from known names, or is walked with nothing but the option (every value then 2).
std::map<std::string, Line> base_lines(const HostileFiles& f) {
  auto out = [&f](const char* command) { return (f.dir / (std::string(command) + "-out")).string(); };
  return {
      {"call", {{{"snapshot", f.snapshot.string()}, {"--profile", f.profile}, {"--fn", "demo::bump"}, {"--arg", "rec[1]"},
                 {"--arg", "2"}}}},
      {"capture", {{{"snapshot", f.snapshot}, {"--calls", f.calls}, {"--profile", f.profile}, {"--out", out("capture")}}}},
      {"check-steps", {{{"snapshot", f.snapshot}, {"steplog", f.steplog}, {"--profile", f.profile}}}},
      {"coverage", {{{"corpus", f.corpus}, {"--snapshot", f.snapshot}}}},
      {"info", {{{"file", f.snapshot}}}},
      {"merge-reports", {{{"reports", f.report}}}},
      {"probe", {{{"corpus", f.corpus}, {"--snapshot", f.snapshot}, {"--case", "demo::bump:0"},
                  {"--poke", "rec[1]+4=01000000"}}}},
      {"replay", {{{"corpus", f.corpus}}}},
      {"snapshot", {{{"--from", f.snapshot}, {"--output", out("snapshot")}}}},
      {"version", {}},
  };
}

// A value for a required option of a command this test does not know, by the option's name.
std::string known_value(const HostileFiles& f, const std::string& name) {
  static const std::map<std::string, std::string> none;
  const std::map<std::string, std::string> values{
      {"snapshot", f.snapshot}, {"--snapshot", f.snapshot}, {"steplog", f.steplog}, {"corpus", f.corpus},
      {"reports", f.report},    {"--profile", f.profile},   {"--calls", f.calls},   {"--fn", "demo::bump"},
      {"--out", (f.dir / "out").string()},                 {"--output", (f.dir / "out").string()}};
  auto it = values.find(name);
  return it == values.end() ? std::string() : it->second;
}

/// Options as "--name=value" (so a value starting with '-' is the option's), positionals in order.
std::vector<std::string> argv_of(const std::string& command, const Line& line) {
  std::vector<std::string> args{command};
  for (const auto& [name, value] : line.options) args.push_back(name.starts_with("-") ? name + "=" + value : value);
  return args;
}

bool numeric(const CLI::Option& opt) {
  static const std::set<std::string> kNumeric{"N", "SECONDS", "K/N", "0-9"};
  return kNumeric.count(opt.get_type_name()) > 0;
}

/// Every input file of the fixture with its bytes: none may change.
std::map<fs::path, std::string> inputs_of(const HostileFiles& f) {
  std::map<fs::path, std::string> m;
  for (const fs::path& p : {f.snapshot, f.profile, f.calls, f.steplog, f.report, f.corpus / "manifest.json"})
    m[p] = text_of(p);
  for (const auto& e : fs::directory_iterator(f.corpus)) m[e.path()] = text_of(e.path());
  return m;
}

TEST(OptionWalk, EveryOptionOfEveryCommandRefusesHostileValues) {
  HostileFiles f("option-walk");
  const auto bases = base_lines(f);
  const auto before = inputs_of(f);
  std::vector<std::pair<CLI::App*, cli::Action>> actions;
  const auto app = cli::make_command_line(bump_port(), actions);
  std::size_t commands = 0, options = 0, runs = 0;
  std::string unknown;
  for (auto& [sub, action] : actions) {
    const std::string command = sub->get_name();
    Line base;
    if (auto it = bases.find(command); it != bases.end()) {
      base = it->second;
    } else {
      unknown += " " + command;
      for (const CLI::Option* opt : sub->get_options())
        if (opt->get_required()) base.options.emplace_back(opt->get_name(), known_value(f, opt->get_name()));
    }
    const int base_code = run_cli(argv_of(command, base), bump_port()).code;
    // The command's first input on its base line: what "the same path as an input" gives.
    std::string input;
    for (const auto& [n, value] : base.options)
      for (const CLI::Option* o : sub->get_options())
        if (input.empty() && o->get_name() == n && cli::path_role(*o) == cli::PathRole::kInput) input = value;
    ++commands;
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->get_expected_max() == 0) continue;  // a flag: it takes no value
      const std::string name = opt->get_name();
      const cli::PathRole role = cli::path_role(*opt);
      ++options;
      struct Value {
        std::string text, what;
      };
      std::vector<Value> values{{"", "empty"}, {"-1", "negative"}, {"18446744073709551616", "huge"},
                                {"abc", "non-numeric"}};
      if (!input.empty()) values.push_back({input, "an input's path"});
      if (role == cli::PathRole::kOutput)  // outputs' names as such are fine: not in the current folder
        for (std::size_t k = 1; k < 4; ++k)
          values[k].text = (f.dir / fmt::format("{}{}{}", command, name, values[k].text)).string();
      for (const Value& v : values) {
        Line line = base;
        bool replaced = false;
        for (auto& [n, value] : line.options)
          if (n == name && !replaced) value = v.text, replaced = true;
        if (!replaced) line.options.emplace_back(name, v.text);
        std::vector<std::string> args = argv_of(command, line);
        if (opt->get_expected_min() > 1) args.push_back(v.text);  // --run SNAPSHOT STEPLOG: the value twice
        const Ran r = run_cli(args, bump_port());
        ++runs;
        const std::string what = fmt::format("{} {} given {} ('{}'): {}", command, name, v.what, v.text,
                                             fmt::join(args, " "));
        EXPECT_NE(r.code, kExitInternal) << what << "\n" << r.err;
        EXPECT_NE(r.code, kExitEnvironment) << what << "\n" << r.err;
        EXPECT_LE(r.code, kExitNotFound) << what;
        if (r.code != kExitOk) {
          EXPECT_FALSE(r.err.empty() && r.out.empty()) << what << ": a failure says why";
        }
        const bool must_refuse = v.what == "empty" || (numeric(*opt)) ||
                                 (role == cli::PathRole::kInput && v.what != "an input's path") ||
                                 (role == cli::PathRole::kOutput && v.what == "an input's path");
        if (must_refuse) {
          EXPECT_EQ(r.code, kExitBadInput) << what << "\n" << r.out << r.err;
        }
        if (role == cli::PathRole::kOutput && v.what != "empty" && v.what != "an input's path") {
          EXPECT_EQ(r.code, base_code) << what << ": an output's name changes nothing\n" << r.err;
        }
      }
    }
  }
  EXPECT_EQ(inputs_of(f), before) << "an input changed";
  // The size of the walk, for the record (commands x options x values).
  std::cout << "option walk: " << commands << " commands, " << options << " options with values, " << runs
            << " runs" << (unknown.empty() ? "" : "; commands walked without a known base line:" + unknown) << "\n";
  EXPECT_GE(commands, 10u);
}

}  // namespace
}  // namespace lockstep::test
