// The `[[record]]` tables of a profile (record_points.hpp), read after the rest of it: their
// expressions name the profile's instances, labels and functions.
#pragma once

#include <string>

#include <toml++/toml.h>

#include "lockstep/base/result.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::harness {

/// Reads every `[[record]]` of `root` into profile.record_points; kMalformed with the line on an
/// unknown key, a bad expression, an unknown name or tag.
Status read_record_points(const toml::table& root, const std::string& source, Profile& profile);

}  // namespace lockstep::harness
