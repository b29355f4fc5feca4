// Conventions verified at capture: what each captured call of the original did, against the calling
// convention its profile entry declares (capture/docs/conventions.md).
//
// Two things a call shows:
// - the bytes the callee popped on return (esp after `ret` minus entry esp + 4): cdecl pops none;
//   stdcall, fastcall, thiscall and watcom pop their stack arguments (conventions.hpp plan_call);
// - the argument registers it reads before writing them: a register whose value at entry changes
//   what the call does. The check re-runs a few cases of each function from their own state
//   (rerun.hpp) with one of eax, ebx, ecx, edx changed (its lowest bit, then bit 4); a rerun that
//   writes other bytes, reads other bytes, returns another result, pops another amount or faults
//   used that register's entry value. A register the declared convention passes no argument in must
//   not be used so.
// A disagreement is reported per function with the convention the calls point to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/case_file.hpp"
#include "lockstep/machine/machine.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::capture {

struct ConventionDisagreement {
  std::uint32_t function = 0;
  std::string name;
  std::string declared;  ///< "cdecl"
  std::string observed;  ///< "case 3 popped 8 bytes (cdecl pops none); it reads ecx before writing it"
  std::string likely;    ///< "stdcall" (what the calls point to; "" when no listed convention fits)
};

/// Cases of each function re-run for the register check (every case is checked for the bytes popped).
inline constexpr std::size_t kConventionRerunCases = 2;

/// Checks the cases of `files` against the profile's declared conventions, re-running on `machine`
/// (reset before each rerun; made as the capture's was, so stubs are the same). Functions the profile
/// does not list are skipped. Errors: a rerun that cannot start (kUsage, as rerun_case).
Result<std::vector<ConventionDisagreement>> check_conventions(harness::Machine& machine, const harness::Profile& profile,
                                                             const std::vector<cases::CaseFile>& files);

/// "capture: 0x08049210 tank::fuel is declared cdecl, but case 0 popped 8 bytes ...; likely stdcall"
std::string format_disagreement(const ConventionDisagreement& d);

}  // namespace lockstep::capture
