#include "lockstep_test/pod_profiled_bindings.hpp"

#include <cstdio>
#include <cstdlib>

#include "lockstep/profile/profile.hpp"
#include "lockstep/replay/replay.hpp"
#include "pod/bindings/bindings.hpp"

namespace lockstep::testing {

cases::BindingSet pod_profiled_bindings() {
  static const cases::BindingSet bindings = [] {
    auto profile = harness::load_profile(LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml");
    if (!profile.ok()) {
      std::fprintf(stderr, "POD's profile does not read: %s\n", profile.error().message.c_str());
      std::abort();
    }
    return harness::with_signatures(pod::bindings::all(), *profile);
  }();
  return bindings;
}

}  // namespace lockstep::testing
