// Which direct calls of an original function lead into its own code: the rule coverage and the case
// files' code share. Private to the capture layer.
#pragma once

#include <functional>

#include "lockstep/profile/profile.hpp"

namespace lockstep::capture::detail {

/// A call's target is the calling function's private helper (its code, as the stand-in's C body behind
/// a thunk at the original's address) when the profile names no function there; stubs, which the
/// profile also lists, are never helpers: they are not the original's code. `profile` must outlive it.
inline std::function<bool(harness::GuestAddr)> private_helpers(const harness::Profile& profile) {
  return [&profile](harness::GuestAddr target) {
    if (profile.function_at(target)) return false;
    for (const auto& s : profile.stubs)
      if (s.address && *s.address == target) return false;
    return true;
  };
}

}  // namespace lockstep::capture::detail
