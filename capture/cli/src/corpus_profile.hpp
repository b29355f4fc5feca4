// The profile a corpus remembers: capture records the profile file's path (relative to the corpus
// folder when both lie in one tree) and the SHA-256 of its contents; replay, probe and coverage read
// it back when no --profile is given, so reports name fields without the user naming the profile.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/profile/corpus_profile.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::cli {

/// The path a manifest records for `profile` in a corpus written to `corpus_dir`: relative to the
/// corpus folder when the two share a folder below the file system's root (a checked-in corpus then
/// names no path of one machine), else the absolute path.
std::string manifest_profile_path(const std::filesystem::path& profile, const std::filesystem::path& corpus_dir);

/// A manifest's profile path as seen from another corpus folder (a corpus made from another's manifest).
void rebase_profile_path(cases::Manifest& m, const std::filesystem::path& from_dir,
                         const std::filesystem::path& to_dir);

/// The profile a command on the corpus in `corpus_dir` uses: `given` (--profile) when not empty,
/// else the one the manifest records. A recorded file whose contents changed since the capture gets a
/// one-line warning on io.err naming both hashes and is used anyway. With kNames a recorded file that
/// is missing or no longer loads is a warning and the result holds no profile; with kRequired it is
/// an error (kNotFound or the load's), as is a corpus that records none.
Result<std::optional<harness::Profile>> corpus_profile(const cases::Manifest& m, const std::filesystem::path& corpus_dir,
                                                       const std::string& given, harness::ProfileNeed need, Io& io);

}  // namespace lockstep::cli
