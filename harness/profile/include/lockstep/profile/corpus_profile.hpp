// The profile a corpus remembers: a capture records the profile file's path in the manifest (relative
// to the corpus folder when both lie in one tree) and the SHA-256 of its contents. Every tool that
// reads a corpus without being given a profile (the commands, a gate) finds it here, so reports name
// fields by default.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::harness {

/// The path a manifest records for `profile` in a corpus written to `corpus_dir`: relative to the
/// corpus folder when the two share a folder below the file system's root (a checked-in corpus then
/// names no path of one machine), else the absolute path.
std::string manifest_profile_path(const std::filesystem::path& profile, const std::filesystem::path& corpus_dir);

/// Where a path a manifest recorded points, seen from the current folder.
std::filesystem::path resolve_recorded_path(const std::string& recorded, const std::filesystem::path& corpus_dir);

/// The recorded profile, loaded, with what a user should be told about it.
struct RecordedProfile {
  std::optional<Profile> profile;     ///< empty: the corpus records none, or (names only) it cannot be used
  std::filesystem::path path;         ///< the file it came from ("" when none is recorded)
  std::vector<std::string> warnings;  ///< one line each, without the tool's prefix
};

/// Whether the caller can go on without the profile.
enum class ProfileNeed {
  kNames,     ///< only to name addresses in reports: a missing or broken profile is a warning
  kRequired,  ///< runs the original (functions, stubs, drivers): a missing or broken profile is an error
};

/// The profile the manifest of the corpus in `corpus_dir` records. A file whose contents changed since
/// the capture is used with a warning naming both hashes. With kNames, a recorded file that is missing
/// or no longer loads gives a warning and no profile; with kRequired it is an error (kNotFound or the
/// load's), as is a corpus that records none (kUsage).
Result<RecordedProfile> recorded_profile(const cases::Manifest& m, const std::filesystem::path& corpus_dir,
                                         ProfileNeed need);

}  // namespace lockstep::harness
