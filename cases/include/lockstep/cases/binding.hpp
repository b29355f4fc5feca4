// A binding: how to run the port's version of one original function on a case. The cases layer only
// knows the shape; pod::bindings provides POD's (port/bindings/), and any other port can provide its
// own. The replay runs each case through the binding registered for its function's address.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lockstep/cases/arguments.hpp"
#include "lockstep/cases/case.hpp"
#include "lockstep/cases/compare.hpp"

namespace lockstep::cases {

struct Binding {
  GuestAddr address = 0;  ///< the original function's entry
  std::string name;       ///< the port function it runs ("math::dot16")
  /// Runs the port on the case's input bytes and registers; never throws (a port exception becomes
  /// PortEffects::error).
  std::function<PortEffects(const Case&)> run;
  /// Set instead of `run` by a binding that reads its arguments by name (lockstep/cases/arguments.hpp):
  /// it runs with the function's signature from the profile, which whoever holds the profile attaches
  /// (harness::with_signatures: the replay command, the gate, probe).
  std::function<PortEffects(const Case&, const Signature&)> run_with_args{};
  std::shared_ptr<const Signature> signature{};  ///< the profile's, for run_with_args
};

using BindingSet = std::vector<Binding>;

/// Runs the binding on a case: `run`, or `run_with_args` with the attached signature (without one, the
/// effects' error says that the profile is needed).
PortEffects run_binding(const Binding& b, const Case& c);

/// The binding for an address, or nullptr.
const Binding* find_binding(const BindingSet& set, GuestAddr address);

}  // namespace lockstep::cases
