#include "numeric_option.hpp"

#include <fmt/format.h>

namespace lockstep::cli {

CLI::Option* add_jobs_option(CLI::App& app, unsigned& jobs, const std::string& help) {
  return add_unsigned_option(app, "-j,--jobs", jobs, help, 1, kMaxJobs);
}

CLI::Option* add_shard_option(CLI::App& app, Shard& shard, const std::string& help) {
  return app
      .add_option_function<std::string>(
          "--shard",
          [&shard](const std::string& text) {
            auto s = parse_shard(text);
            if (!s.ok()) throw CLI::ValidationError(s.error().message);  // it names --shard itself
            shard = *s;
          },
          help)
      ->type_name("K/N");
}

void add_run_limits(CLI::App& app, harness::MachineConfig& cfg, const std::string& what) {
  cfg.timeout_ms = kDefaultTimeoutSeconds * 1000;
  add_unsigned_option(app, "--budget", cfg.block_budget,
                      fmt::format("Translated blocks {} may run before it is stopped (default {}; 0 = no limit)", what,
                                  harness::MachineConfig{}.block_budget));
  // Given in seconds, kept in milliseconds.
  constexpr std::uint64_t kMaxSeconds = std::numeric_limits<std::uint32_t>::max() / 1000;
  app.add_option_function<std::string>(
         "--timeout",
         [&cfg](const std::string& text) {
           auto v = parse_unsigned(text, kMaxSeconds);
           if (!v.ok()) throw CLI::ValidationError("--timeout", v.error().message);
           cfg.timeout_ms = static_cast<std::uint32_t>(*v * 1000);
         },
         fmt::format("Seconds (wall clock) {} may run before it is stopped (default {}; 0 = no limit)", what,
                     kDefaultTimeoutSeconds))
      ->type_name("SECONDS");
}

}  // namespace lockstep::cli
