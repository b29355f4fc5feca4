#include "corpus_profile.hpp"

#include <fmt/ostream.h>

#include "lockstep/base/io.hpp"
#include "lockstep/profile/corpus_profile.hpp"

namespace lockstep::cli {

namespace fs = std::filesystem;

std::string manifest_profile_path(const fs::path& profile, const fs::path& corpus_dir) {
  return harness::manifest_profile_path(profile, corpus_dir);
}

void rebase_profile_path(cases::Manifest& m, const fs::path& from_dir, const fs::path& to_dir) {
  if (m.profile_path.empty()) return;
  m.profile_path = manifest_profile_path(harness::resolve_recorded_path(m.profile_path, from_dir), to_dir);
}

Result<std::optional<harness::Profile>> corpus_profile(const cases::Manifest& m, const fs::path& corpus_dir,
                                                       const std::string& given, harness::ProfileNeed need, Io& io) {
  if (!given.empty()) {
    LOCKSTEP_TRY(auto p, harness::load_profile(given));
    return std::optional<harness::Profile>(std::move(p));
  }
  LOCKSTEP_TRY(harness::RecordedProfile recorded, harness::recorded_profile(m, corpus_dir, need));
  for (const std::string& w : recorded.warnings) fmt::print(io.err, "lockstep: warning: {}\n", w);
  return std::move(recorded.profile);
}

}  // namespace lockstep::cli
