// A binding: how to run the port's version of one original function on a case. The cases layer only
// knows the shape; pod::bindings provides POD's (port/bindings/), and any other port can provide its
// own. The replay runs each case through the binding registered for its function's address.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lockstep/cases/case.hpp"
#include "lockstep/cases/compare.hpp"

namespace lockstep::cases {

struct Binding {
  GuestAddr address = 0;  ///< the original function's entry
  std::string name;       ///< the port function it runs ("math::dot16")
  /// Runs the port on the case's input bytes and registers; never throws (a port exception becomes
  /// PortEffects::error).
  std::function<PortEffects(const Case&)> run;
};

using BindingSet = std::vector<Binding>;

/// The binding for an address, or nullptr.
const Binding* find_binding(const BindingSet& set, GuestAddr address);

}  // namespace lockstep::cases
