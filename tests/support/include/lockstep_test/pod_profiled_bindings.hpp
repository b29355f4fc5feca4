// POD's bindings as the tools run them: each with its function's signature from the checked-in
// profile (harness/profiles/pod.toml) attached, which a declared binding needs to run (it takes the
// profile's args; lockstep/cases/declared.hpp). For a test that runs bindings itself.
#pragma once

#include "lockstep/cases/binding.hpp"

namespace lockstep::testing {

/// pod::bindings::all() with pod.toml's signatures; aborts, saying why, when the profile does not read.
cases::BindingSet pod_profiled_bindings();

}  // namespace lockstep::testing
