// The profile a corpus remembers (corpus_profile.hpp).
#include "lockstep/profile/corpus_profile.hpp"

#include <fmt/format.h>

#include "lockstep/base/io.hpp"

namespace lockstep::harness {
namespace {

namespace fs = std::filesystem;

/// Absolute and lexically normal, without a trailing separator; symlinks are not followed, so a
/// tree reached through a link keeps the relative paths it was written with.
fs::path absolute_normal(const fs::path& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  if (ec) a = p;
  a = a.lexically_normal();
  if (a.filename().empty() && a.has_parent_path() && a != a.root_path()) a = a.parent_path();
  return a;
}

}  // namespace

std::string manifest_profile_path(const fs::path& profile, const fs::path& corpus_dir) {
  const fs::path p = absolute_normal(profile), c = absolute_normal(corpus_dir);
  // One tree: the root and at least the first folder below it in common.
  auto pi = p.begin(), ci = c.begin();
  int shared = 0;
  for (; pi != p.end() && ci != c.end() && *pi == *ci; ++pi, ++ci) ++shared;
  if (shared < 2 || !p.has_root_directory()) return p.generic_string();
  return p.lexically_relative(c).generic_string();
}

fs::path resolve_recorded_path(const std::string& recorded, const fs::path& corpus_dir) {
  const fs::path p(recorded);
  return p.is_absolute() ? p : (corpus_dir / p).lexically_normal();
}

Result<RecordedProfile> recorded_profile(const cases::Manifest& m, const fs::path& corpus_dir, ProfileNeed need) {
  RecordedProfile out;
  if (m.profile_path.empty()) {
    if (need == ProfileNeed::kNames) return out;
    return Error::make(Errc::kUsage,
                       "the corpus records no profile (captured before lockstep recorded one): pass --profile FILE");
  }
  out.path = resolve_recorded_path(m.profile_path, corpus_dir);
  auto bytes = read_file(out.path, ProfileLimits{}.max_file_bytes);
  if (!bytes.ok()) {
    if (need == ProfileNeed::kRequired)
      return Error::make(Errc::kNotFound, "the profile the corpus was captured with, {}, cannot be read ({}): pass "
                         "--profile FILE", out.path.string(), bytes.error().message);
    out.warnings.push_back(fmt::format("the profile the corpus was captured with, {}, cannot be read ({}); reports "
                                       "name addresses only (pass --profile FILE for names)",
                                       out.path.string(), bytes.error().message));
    return out;
  }
  const std::string now = to_hex(sha256(*bytes));
  if (now != m.profile_sha256)
    out.warnings.push_back(fmt::format("the profile {} changed since the capture (sha256 {} then, {} now); using it "
                                       "anyway", out.path.string(), m.profile_sha256, now));
  auto profile =
      parse_profile(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), out.path.string());
  if (!profile.ok()) {
    if (need == ProfileNeed::kRequired) return profile.error();
    out.warnings.push_back(fmt::format("the profile the corpus was captured with no longer loads ({}); reports name "
                                       "addresses only", profile.error().message));
    return out;
  }
  out.profile = std::move(*profile);
  return out;
}

}  // namespace lockstep::harness
