#include "corpus_profile.hpp"

#include <fmt/ostream.h>

#include "lockstep/base/io.hpp"

namespace lockstep::cli {
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

/// Where a recorded path points, seen from the current folder.
fs::path resolve_recorded(const std::string& recorded, const fs::path& corpus_dir) {
  const fs::path p(recorded);
  return p.is_absolute() ? p : (corpus_dir / p).lexically_normal();
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

void record_profile(cases::Manifest& m, const fs::path& profile, std::span<const std::uint8_t> contents,
                    const fs::path& corpus_dir) {
  m.profile_path = manifest_profile_path(profile, corpus_dir);
  m.profile_sha256 = to_hex(sha256(contents));
}

void rebase_profile_path(cases::Manifest& m, const fs::path& from_dir, const fs::path& to_dir) {
  if (m.profile_path.empty()) return;
  m.profile_path = manifest_profile_path(resolve_recorded(m.profile_path, from_dir), to_dir);
}

Result<std::optional<harness::Profile>> corpus_profile(const cases::Manifest& m, const fs::path& corpus_dir,
                                                       const std::string& given, ProfileUse use, Io& io) {
  if (!given.empty()) {
    LOCKSTEP_TRY(auto p, harness::load_profile(given));
    return std::optional<harness::Profile>(std::move(p));
  }
  if (m.profile_path.empty()) {
    if (use == ProfileUse::kNames) return std::optional<harness::Profile>();
    return Error::make(Errc::kUsage,
                       "the corpus records no profile (captured before lockstep recorded one): pass --profile FILE");
  }
  const fs::path path = resolve_recorded(m.profile_path, corpus_dir);
  auto bytes = read_file(path, std::uint64_t{16} << 20);  // a profile's limit (load_profile's)
  if (!bytes.ok()) {
    if (use == ProfileUse::kRequired)
      return Error::make(Errc::kNotFound, "the profile the corpus was captured with, {}, cannot be read ({}): pass "
                         "--profile FILE", path.string(), bytes.error().message);
    fmt::print(io.err, "lockstep: warning: the profile the corpus was captured with, {}, cannot be read ({}); "
               "reports name addresses only (pass --profile FILE for names)\n", path.string(), bytes.error().message);
    return std::optional<harness::Profile>();
  }
  const std::string now = to_hex(sha256(*bytes));
  if (now != m.profile_sha256)
    fmt::print(io.err, "lockstep: warning: the profile {} changed since the capture (sha256 {} then, {} now); "
               "using it anyway\n", path.string(), m.profile_sha256, now);
  auto profile = harness::parse_profile(
      std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), path.string());
  if (!profile.ok()) {
    if (use == ProfileUse::kRequired) return profile.error();
    fmt::print(io.err, "lockstep: warning: the profile the corpus was captured with no longer loads ({}); reports "
               "name addresses only\n", profile.error().message);
    return std::optional<harness::Profile>();
  }
  return std::optional<harness::Profile>(std::move(*profile));
}

}  // namespace lockstep::cli
