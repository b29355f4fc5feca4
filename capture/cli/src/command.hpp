// What the commands share inside lockstep::cli: the shape of a command, the error report, and the
// list of every command (cli.cpp puts them on the command line; one cmd_*.cpp defines each).
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <vector>
#include <string>

#include <CLI/CLI.hpp>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/binding.hpp"
#include "lockstep/cli/cli.hpp"

namespace lockstep::cli {

/// What runs when a command is chosen: the exit code of a command that ran (lockstep::ExitCode: 0, or
/// its worst outcome, a mismatch, a fault, a search that found nothing), or the Error that stopped it,
/// which run() reports once ("lockstep: error (kind): message") and turns into its exit code.
using Action = std::function<Result<int>(Io&)>;

/// A subcommand: `setup` adds its options to `app` and returns the action run when it is chosen. The
/// bindings are `run`'s caller's (the game's port); they outlive the action.
struct Command {
  std::string name;
  std::string help;
  std::function<Action(CLI::App& app, const cases::BindingSet& bindings)> setup;
};

/// Prints an Error as "lockstep: error (kind): message" and returns its exit code.
int report(Io& io, const Error& e);

/// The whole command line: every command (all_commands) with its options, and the action of each
/// into `actions`. run() parses with it; tests walk its options.
std::unique_ptr<CLI::App> make_command_line(const cases::BindingSet& bindings,
                                            std::vector<std::pair<CLI::App*, Action>>& actions);

// Every command, one function each (cmd_<name>.cpp).
Command snapshot_command();
Command info_command();
Command call_command();
Command check_steps_command();
Command capture_command();
Command replay_command();
Command merge_reports_command();
Command coverage_command();
Command progress_command();
Command profile_command();
Command probe_command();
Command version_command();
Command record_command();

}  // namespace lockstep::cli
