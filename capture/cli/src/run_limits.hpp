// The limits of every run of the original, for every command that runs it (call, check-steps,
// capture with a step log or a call list, coverage, probe): `--budget N` translated blocks and
// `--timeout SECONDS` of wall clock per run, with the same defaults everywhere, and one function
// that puts them into a machine's configuration.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "lockstep/machine/machine.hpp"

namespace lockstep::cli {

/// The command line's default wall-clock limit per emulated run (seconds): a call that loops for
/// ever (a jump to itself poked at its entry) is stopped even when nobody passed --timeout.
inline constexpr std::uint32_t kDefaultTimeoutSeconds = 60;

/// `--budget N` (translated blocks per run, 0 = none; default MachineConfig's) and `--timeout SECONDS`
/// (wall clock per run, 0 = none; default kDefaultTimeoutSeconds) into `limits` (its block_budget and
/// timeout_ms). `what` names the run in the help ("the call", "one step"). `budget_name` is the
/// budget option's name ("--budget"; a command whose --budget counts something else names it otherwise).
void add_run_limits(CLI::App& app, harness::MachineConfig& limits, const std::string& what,
                    const std::string& budget_name = "--budget");

/// The limits the command line set, laid into the configuration of a machine that runs the original.
void apply_run_limits(const harness::MachineConfig& limits, harness::MachineConfig& machine);

}  // namespace lockstep::cli
