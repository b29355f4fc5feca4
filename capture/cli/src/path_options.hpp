// What every command's options are checked for before its action runs, in one place (cli.cpp calls
// it after parsing, for whichever command was chosen): no option given an empty value (an unset
// variable in a script: `--json "$OUT"`), and no output that would replace an input of the same
// command or another of its outputs — compared by file identity (device and inode), so a link, "./x"
// and "x" are one file. Options are known by name: a new option named like these is checked too.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "lockstep/base/result.hpp"

namespace lockstep::cli {

/// What a path option is to its command.
enum class PathRole {
  kNone,    ///< not a path (or a flag)
  kInput,   ///< read: a snapshot, a profile, a corpus, a step log, a report
  kOutput,  ///< written (a file or a folder): replaced whole
};

/// The role of `opt` by its names ("--json", "-o", the positional "corpus"); flags have none.
PathRole path_role(const CLI::Option& opt);

/// The chosen command's values checked: kUsage for an empty value of any option, for an output that
/// is an input (or lies inside an input folder, or is a folder holding an input), and for two outputs
/// naming one file. Character devices and FIFOs (/dev/null, /dev/stdout) are written in place and may
/// be named more than once.
Status check_option_values(const CLI::App& command);

}  // namespace lockstep::cli
