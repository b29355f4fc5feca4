// POD's put-back gate with one binding typed at a wrong address (paths::heading's, one byte on): the
// corpus's paths::heading then has cases and no binding, and its test must fail, naming where the
// binding went — never be skipped (a skipped test is a green ctest).
#include "lockstep/testing/gate.hpp"
#include "pod/bindings/bindings.hpp"

int main(int argc, char** argv) {
  lockstep::testing::GateOptions defaults;
  defaults.corpus = LOCKSTEP_SOURCE_DIR "/cases/standin-putback";
  defaults.profile = LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml";
  lockstep::cases::BindingSet bindings = pod::bindings::all();
  for (auto& b : bindings)
    if (b.name == "paths::heading") b.address += 1;
  return lockstep::testing::gate_main(argc, argv, defaults, std::move(bindings));
}
