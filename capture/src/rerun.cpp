#include "lockstep/capture/rerun.hpp"

#include <algorithm>

#include "lockstep/capture/capture.hpp"

namespace lockstep::capture {

Result<std::unique_ptr<harness::Machine>> rerun_machine(const harness::Snapshot& snapshot,
                                                        const harness::Profile& profile, const std::string& driver,
                                                        harness::MachineConfig cfg) {
  cfg.record = true;
  if (driver.empty() && !profile.driver_for_record("CTRL")) {
    // A corpus captured from a call list on a profile without drivers: its cases ran on the
    // profile's stubs alone (capture_calls), and so do their reruns.
    const harness::MachineConfig from_profile = harness::config_from_profile(profile);
    cfg.default_fpu_control = from_profile.default_fpu_control;
    cfg.default_mxcsr = from_profile.default_mxcsr;
    cfg.stubs = from_profile.stubs;
    return harness::Machine::create(snapshot, std::move(cfg));
  }
  LOCKSTEP_TRY(ResolvedDriver resolved, resolve_driver(profile, driver));
  return driver_machine(snapshot, profile, resolved, std::move(cfg));
}

cases::Case poke_inputs(const cases::Case& c, std::span<const cases::Poke> pokes) {
  cases::Case out = c;
  for (const cases::Poke& p : pokes) out.inputs.set(p.address, p.bytes);
  out.pokes.assign(pokes.begin(), pokes.end());
  return out;
}

Result<Rerun> rerun_case(harness::Machine& machine, const cases::Case& c, std::span<const cases::Poke> pokes) {
  machine.reset();
  for (const auto& run : c.inputs.runs())
    if (auto w = machine.write(run.base, run.bytes); !w.ok())
      return Error::make(Errc::kUsage,
                         "case {} of 0x{:08x}: its input bytes at 0x{:08x} (+{}) are not mapped in this snapshot; "
                         "was the corpus captured on another one?",
                         c.id, c.function, run.base, run.bytes.size());
  for (const cases::Poke& p : pokes)
    if (auto w = machine.write(p.address, p.bytes); !w.ok())
      return Error::make(Errc::kUsage, "poke at 0x{:08x} ({} bytes): {}", p.address, p.bytes.size(), w.error().message);

  LOCKSTEP_TRY(harness::CallOutcome outcome, machine.call_from(c.function, c.in, c.returns));

  Rerun r;
  RunOrigin origin{c.origin.snapshot_sha256, c.origin.record, c.origin.record_index, c.origin.step, c.origin.instance};
  r.as_case = to_case(outcome.record, nullptr, origin);
  r.as_case.id = c.id;
  r.as_case.name = c.name;
  r.as_case.convention = c.convention;
  r.as_case.returns = c.returns;
  r.as_case.origin = c.origin;
  r.as_case.pokes.assign(pokes.begin(), pokes.end());
  r.as_case.poked_registers = c.poked_registers;
  r.as_case.note = c.note;
  // The registers in are the case's (the machine reads them back after writing, which is the same).
  r.as_case.in = c.in;
  if (outcome.returned()) {
    r.as_case.inputs.for_each([&](cases::GuestAddr a, std::uint8_t) {
      bool poked = false;
      for (const cases::Poke& p : pokes)
        if (a >= p.address && a - p.address < p.bytes.size()) poked = true;
      if (!poked && !c.inputs.contains(a)) r.reads_outside_case.push_back(a);
    });
    const auto& o = r.as_case.out;
    const auto& e = c.out;
    bool regs_same = o.eax == e.eax && o.edx == e.edx && o.esp == e.esp;
    if (c.returns == cases::ReturnKind::kSt0) regs_same = regs_same && o.x87.st[0] == e.x87.st[0];
    r.same_as_case = regs_same && r.as_case.writes == c.writes;
  }
  r.outcome = std::move(outcome);
  return r;
}

}  // namespace lockstep::capture
