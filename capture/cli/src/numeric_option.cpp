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

}  // namespace lockstep::cli
