#include "run_limits.hpp"

#include <limits>

#include <fmt/format.h>

#include "numeric_option.hpp"

namespace lockstep::cli {

void add_run_limits(CLI::App& app, harness::MachineConfig& limits, const std::string& what,
                    const std::string& budget_name) {
  limits.timeout_ms = kDefaultTimeoutSeconds * 1000;
  add_unsigned_option(app, budget_name, limits.block_budget,
                      fmt::format("Translated blocks {} may run before it is stopped (default {}; 0 = no limit)", what,
                                  harness::MachineConfig{}.block_budget));
  // Given in seconds, kept in milliseconds.
  constexpr std::uint64_t kMaxSeconds = std::numeric_limits<std::uint32_t>::max() / 1000;
  app.add_option_function<std::string>(
         "--timeout",
         [&limits](const std::string& text) {
           auto v = parse_unsigned(text, kMaxSeconds);
           if (!v.ok()) throw CLI::ValidationError("--timeout", v.error().message);
           limits.timeout_ms = static_cast<std::uint32_t>(*v * 1000);
         },
         fmt::format("Seconds (wall clock) {} may run before it is stopped (default {}; 0 = no limit)", what,
                     kDefaultTimeoutSeconds))
      ->type_name("SECONDS");
}

void apply_run_limits(const harness::MachineConfig& limits, harness::MachineConfig& machine) {
  machine.block_budget = limits.block_budget;
  machine.timeout_ms = limits.timeout_ms;
}

}  // namespace lockstep::cli
