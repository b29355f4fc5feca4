// Numeric options, parsed strictly (lockstep/base/numbers.hpp): every command refuses "-1", "1e23",
// "", "18446744073709551616" and any value past the option's range with a usage error (exit 2),
// instead of wrapping it into a huge value or "no limit".
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include <CLI/CLI.hpp>

#include "lockstep/base/numbers.hpp"
#include "lockstep/base/parallel.hpp"
#include "lockstep/machine/machine.hpp"

#include "run_limits.hpp"  // add_run_limits, with the other numeric options

namespace lockstep::cli {

/// `name N` into `target`: unsigned decimal or 0x-hex in [min, max]. `name` is CLI11's ("-j,--jobs");
/// errors name the option by its last spelling ("--jobs").
template <typename T>
CLI::Option* add_unsigned_option(CLI::App& app, const std::string& name, T& target, const std::string& help,
                                 std::uint64_t min = 0, std::uint64_t max = std::numeric_limits<T>::max()) {
  static_assert(std::is_unsigned_v<T>, "signed options need their own parser");
  const std::string shown = name.substr(name.rfind(',') + 1);  // npos + 1 == 0: the whole name
  CLI::Option* opt = app.add_option_function<std::string>(
      name,
      [&target, shown, min, max](const std::string& text) {
        auto v = parse_unsigned(text, max);
        if (!v.ok()) throw CLI::ValidationError(shown, v.error().message);
        if (*v < min) throw CLI::ValidationError(shown, fmt::format("'{}' is below the smallest value allowed ({})", text, min));
        target = static_cast<T>(*v);
      },
      help);
  opt->type_name("N");
  return opt;
}

/// `-j,--jobs N` into `jobs`: threads, 1..kMaxJobs (default: what `jobs` holds).
CLI::Option* add_jobs_option(CLI::App& app, unsigned& jobs, const std::string& help);

/// `--shard K/N` into `shard`: shard K of N, 1 <= K <= N <= kMaxShards (lockstep/base/parallel.hpp).
CLI::Option* add_shard_option(CLI::App& app, Shard& shard, const std::string& help);

}  // namespace lockstep::cli
