// A game's bindings against its profile: the original's functions are typed twice, once in the
// profile ([[function]]: address and name) and once in the bindings (lockstep::cases::Binding: the
// address a binding runs for and its name). This check holds the two together, so a function is
// named the same and sits at the same address wherever it is written:
// - a binding's address is a profile function's, and the binding has that function's name;
// - a binding's name is a profile function's, and the binding has that function's address;
// - no two bindings share an address or a name;
// - a declared binding's port function takes and returns what the profile's args and returns say
//   (lockstep/cases/declared.hpp), so a signature the two disagree on fails here, before any case runs;
// - every profile function has a binding, except those the game leaves unbound on purpose, each with
//   its reason (functions of the original's machinery the port does not cover: drivers, library code,
//   the recorder's hooks).
#pragma once

#include <string>
#include <vector>

#include "lockstep/cases/binding.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::testing {

/// What a game's bindings and its profile say differently.
struct BindingsAgainstProfile {
  /// One sentence each, in binding order: a name or an address the two disagree on, a binding of a
  /// function the profile does not list, two bindings of one function.
  std::vector<std::string> disagreements;
  /// The profile's functions no binding runs, by name, in profile order.
  std::vector<std::string> unbound;
};

BindingsAgainstProfile check_bindings(const cases::BindingSet& bindings, const harness::Profile& profile);

/// A profile function a game leaves without a binding, and why.
struct Unbound {
  std::string function;  ///< the profile's name for it
  std::string why;       ///< never blank
};

/// GoogleTest assertions over check_bindings(): the profile at `profile_path` reads; no
/// disagreement; the unbound functions are exactly `deliberately_unbound` (a function listed there
/// that has a binding, or is not in the profile, fails too, so the list stays true), each with a reason.
void expect_bindings_match_profile(const cases::BindingSet& bindings, const std::string& profile_path,
                                   const std::vector<Unbound>& deliberately_unbound);

}  // namespace lockstep::testing
