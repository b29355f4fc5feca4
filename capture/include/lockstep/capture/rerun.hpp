// Re-running a case on the original: the call a case recorded, run again under the Unicorn machine
// from the case's own state, optionally poked. What `lockstep probe` shows beside the port, what
// coverage re-runs over a corpus, and what the edge search mutates.
//
// The state a rerun starts from: the snapshot the case was captured on, with every input byte of the
// case (stale stack reads included) laid over it at the value the original read, the pokes laid over
// that, and the CPU at the case's entry registers (x87 included; the return-address slot holds the
// machine's sentinel). Bytes the case never read keep the snapshot's values: unpoked, the original
// reads none of them (that is what the case's input set means), so the rerun reproduces the case
// exactly — rerun_case checks it. Poked, the original may take another path and read bytes the case
// never read; those reads are listed (`reads_outside_case`) because their values come from the
// snapshot, not from the moment of the call.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/capture/driver.hpp"
#include "lockstep/cases/case.hpp"
#include "lockstep/machine/machine.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::capture {

/// A machine to rerun cases on: the driver's (its stubs switched on, as they were during capture),
/// recording on. `driver` empty: the profile's first driver on CTRL records, or, when the profile has
/// none (a corpus captured from a call list), the profile's stubs alone, as capture_calls ran them.
Result<std::unique_ptr<harness::Machine>> rerun_machine(const harness::Snapshot& snapshot,
                                                        const harness::Profile& profile, const std::string& driver,
                                                        harness::MachineConfig cfg = {});

struct Rerun {
  /// The call as it ran (fault, registers, effects).
  harness::CallOutcome outcome;
  /// The rerun as a case: the original case's identity and origin, the pokes listed, inputs and
  /// writes as this run observed them. Meaningful when the call returned.
  cases::Case as_case;
  /// Unpoked: the rerun wrote the same bytes and returned the same registers as the case recorded.
  /// Poked: whether the rerun's effects equal the case's (false is the usual, interesting answer).
  bool same_as_case = false;
  /// Bytes the rerun read before writing that the case does not hold as inputs (their values came
  /// from the snapshot). Empty for an unpoked rerun of a faithful case.
  std::vector<cases::GuestAddr> reads_outside_case;
};

/// Resets the machine, lays the case's inputs and the pokes, and runs the case's function from its
/// entry registers. Errors: an input or poke byte outside mapped memory (kUsage), an entry esp
/// outside the machine's stack (the case was captured on another snapshot: kUsage).
Result<Rerun> rerun_case(harness::Machine& machine, const cases::Case& c, std::span<const cases::Poke> pokes = {});

/// The case with the pokes applied to its inputs (the port's side of a probe: the port reads the
/// poked values where the original would). Bytes poked outside the inputs are added as inputs.
cases::Case poke_inputs(const cases::Case& c, std::span<const cases::Poke> pokes);

}  // namespace lockstep::capture
