// lockstep::cli::run: the command line (CLI11) over every command, errors to exit codes.
#include "lockstep/cli/cli.hpp"

#include <algorithm>
#include <exception>
#include <iostream>
#include <memory>

#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "command.hpp"
#include "path_options.hpp"

namespace lockstep::cli {
namespace {

// Every command (the help lists them by name).
std::vector<Command> all_commands() {
  return {snapshot_command(), info_command(),   call_command(),          check_steps_command(),
          capture_command(),  replay_command(), merge_reports_command(), coverage_command(),
          probe_command(),    progress_command(), profile_command(),       version_command(),
          record_command()};
}

}  // namespace

std::unique_ptr<CLI::App> make_command_line(const cases::BindingSet& bindings,
                                            std::vector<std::pair<CLI::App*, Action>>& actions) {
  auto app = std::make_unique<CLI::App>(
      "lockstep: proves a port of a 32-bit x86 game byte for byte against the original under Unicorn", "lockstep");
  app->require_subcommand(1);
  app->set_help_all_flag("--help-all", "Show help for every command");
  app->set_version_flag("--version", version_line());
  app->footer("Exit codes: 0 ok, 1 mismatch, 2 bad input or usage, 3 guest fault (also a budget or timeout "
              "running out), 4 environment (permissions, I/O), 5 internal error, 6 a search found nothing, 9 a recorded game ended before the recording did. A command "
              "that ran everything reports its worst outcome: 3 over 1 over 6 over 0.");
  auto cmds = all_commands();
  std::sort(cmds.begin(), cmds.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  for (const auto& c : cmds) {
    CLI::App* sub = app->add_subcommand(c.name, c.help);
    actions.emplace_back(sub, c.setup(*sub, bindings));
  }
  return app;
}

namespace {

/// kUsage naming the commands when the first word is none of them (CLI11 says "A subcommand is required").
Status check_command_name(const std::vector<std::string>& args, CLI::App& app) {
  if (args.empty() || args[0].starts_with("-")) return {};
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  if (std::find(names.begin(), names.end(), args[0]) != names.end()) return {};
  return Error::make(Errc::kUsage, "'{}' is not a lockstep command; the commands are: {}", args[0],
                     fmt::join(names, ", "));
}

// The command line parsed and its command run; what the action throws is caught by run().
int run_command_line(const std::vector<std::string>& args, Io& io, const cases::BindingSet& bindings) {
  std::vector<std::pair<CLI::App*, Action>> actions;
  std::unique_ptr<CLI::App> app_owner = make_command_line(bindings, actions);
  CLI::App& app = *app_owner;
  if (auto s = check_command_name(args, app); !s.ok()) {
    fmt::print(io.err, "lockstep: usage error: {}\nRun 'lockstep --help' for the commands.\n", s.error().message);
    return kExitBadInput;
  }
  std::vector<std::string> rev(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
  try {
    app.parse(rev);
  } catch (const CLI::CallForHelp& e) {
    io.out << app.help();
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    io.out << e.what() << "\n";
    return kExitOk;
  } catch (const CLI::CallForAllHelp& e) {
    io.out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // Subcommand help (--help after a subcommand) arrives here too.
    if (e.get_exit_code() == 0) {
      for (auto& [sub, act] : actions)
        if (sub->parsed()) { io.out << sub->help(); return kExitOk; }
      io.out << app.help();
      return kExitOk;
    }
    fmt::print(io.err, "lockstep: usage error: {}\nRun 'lockstep --help' for the commands.\n", e.what());
    return kExitBadInput;
  }
  for (auto& [sub, act] : actions) {
    if (!sub->parsed()) continue;
    // Empty values and outputs onto inputs are refused before the command reads anything.
    if (auto s = check_option_values(*sub); !s.ok()) return report(io, s.error());
    // The one place a command's error is reported.
    Result<int> ran = act(io);
    return ran.ok() ? *ran : report(io, ran.error());
  }
  return kExitBadInput;
}

}  // namespace

int report(Io& io, const Error& e) {
  fmt::print(io.err, "lockstep: error ({}): {}\n", errc_name(e.code), e.message);
  return exit_code_for(e.code);
}

int run(const std::vector<std::string>& args, Io io, const cases::BindingSet& bindings) {
  try {
    return run_command_line(args, io, bindings);
  } catch (const std::bad_alloc&) {
    fmt::print(io.err, "lockstep: error (internal): out of memory\n");
    return kExitInternal;
  } catch (const std::exception& e) {
    fmt::print(io.err, "lockstep: internal error: {}\n", e.what());
    return kExitInternal;
  }
}

int run(std::span<const std::string_view> args, Io io, const cases::BindingSet& bindings) {
  try {
    return run(std::vector<std::string>(args.begin(), args.end()), io, bindings);
  } catch (const std::bad_alloc&) {
    fmt::print(io.err, "lockstep: error (internal): out of memory\n");
    return kExitInternal;
  }
}

int run(int argc, const char* const* argv, Io io, const cases::BindingSet& bindings) {
  if (argc > 0 && argv[0] != nullptr && argv[0][0] != '\0') io.program = argv[0];
  try {
    return run(std::vector<std::string>(argv + (argc > 0 ? 1 : 0), argv + (argc > 0 ? argc : 0)), io, bindings);
  } catch (const std::bad_alloc&) {
    fmt::print(io.err, "lockstep: error (internal): out of memory\n");
    return kExitInternal;
  }
}

}  // namespace lockstep::cli
