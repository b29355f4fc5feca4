#include "lockstep/capture/conventions_check.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "lockstep/capture/rerun.hpp"
#include "lockstep/calls/conventions.hpp"

namespace lockstep::capture {
namespace {

using cases::Reg;

constexpr std::array<Reg, 4> kEntryRegisters = {Reg::kEax, Reg::kEbx, Reg::kEcx, Reg::kEdx};
constexpr std::array<std::uint32_t, 2> kEntryFlips = {0x1, 0x10};

/// Where the declared convention puts the function's arguments (dummy values: only the layout counts).
Result<harness::CallPlan> declared_plan(const harness::FunctionSpec& f) {
  std::vector<harness::PlacedArg> args;
  for (const auto& a : f.args) args.push_back({a.type == harness::ArgType::kF64, 0, 0.0});
  return harness::plan_call(f.convention, args);
}

std::int64_t popped(const cases::Case& c) {
  return static_cast<std::int64_t>(c.out.esp) - (static_cast<std::int64_t>(c.in.esp) + 4);
}

/// The rerun did what the case recorded, as far as the caller can see: the same bytes read and
/// written, the same stack pointer after return, the same result (the declared return kind's).
bool same_as_recorded(const cases::Case& c, const Rerun& r) {
  if (!r.outcome.returned()) return false;
  const cases::Case& k = r.as_case;
  if (!(k.writes == c.writes) || !(k.inputs == c.inputs) || k.out.esp != c.out.esp) return false;
  switch (c.returns) {
    case cases::ReturnKind::kNone: return true;
    case cases::ReturnKind::kEax: return k.out.eax == c.out.eax;
    case cases::ReturnKind::kEdxEax: return k.out.eax == c.out.eax && k.out.edx == c.out.edx;
    case cases::ReturnKind::kSt0: return k.out.x87.st[0] == c.out.x87.st[0];
  }
  return true;
}

/// The registers among eax, ebx, ecx, edx whose entry value the first cases of `file` use.
Result<std::vector<Reg>> registers_used(harness::Machine& machine, const cases::CaseFile& file) {
  std::vector<Reg> used;
  for (Reg reg : kEntryRegisters) {
    bool uses = false;
    for (std::size_t i = 0; i < file.cases.size() && i < kConventionRerunCases && !uses; ++i) {
      for (std::uint32_t flip : kEntryFlips) {
        cases::Case changed = file.cases[i];
        changed.in[reg] ^= flip;
        LOCKSTEP_TRY(Rerun r, rerun_case(machine, changed));
        if (!same_as_recorded(file.cases[i], r)) {
          uses = true;
          break;
        }
      }
    }
    if (uses) used.push_back(reg);
  }
  return used;
}

/// What the calls point to: watcom when eax is read, fastcall/thiscall when ecx is, else by the pops.
std::string likely_convention(const std::vector<Reg>& used, std::int64_t pops) {
  auto has = [&](Reg r) { return std::find(used.begin(), used.end(), r) != used.end(); };
  if (has(Reg::kEax) || has(Reg::kEbx)) return "watcom";
  if (has(Reg::kEdx)) return "fastcall";
  if (has(Reg::kEcx)) return "fastcall or thiscall";
  return pops > 0 ? "stdcall" : "cdecl";
}

std::string register_list(const std::vector<Reg>& regs) {
  std::string s;
  for (Reg r : regs) s += (s.empty() ? "" : ", ") + std::string(cases::reg_name(r));
  return s;
}

}  // namespace

Result<std::vector<ConventionDisagreement>> check_conventions(harness::Machine& machine, const harness::Profile& profile,
                                                             const std::vector<cases::CaseFile>& files) {
  std::vector<ConventionDisagreement> out;
  for (const auto& file : files) {
    const harness::FunctionSpec* spec = profile.function_at(file.function);
    if (spec == nullptr || file.cases.empty()) continue;
    LOCKSTEP_TRY(harness::CallPlan plan, declared_plan(*spec));
    const bool custom = spec->convention.kind == cases::Convention::kCustom;
    std::vector<std::string> seen;
    // Bytes popped: every case (the registers say it; no rerun needed).
    std::int64_t pops = 0;
    for (const auto& c : file.cases) {
      pops = popped(c);
      if (custom || pops == static_cast<std::int64_t>(plan.callee_pops)) continue;
      seen.push_back(fmt::format("case {} popped {} bytes on return ({} with these arguments pops {})", c.id, pops,
                                 cases::convention_name(spec->convention.kind), plan.callee_pops));
      break;
    }
    LOCKSTEP_TRY(std::vector<Reg> used, registers_used(machine, file));
    std::vector<Reg> undeclared;
    for (Reg r : used) {
      bool declared = false;
      for (const auto& [reg, value] : plan.registers) declared = declared || reg == r;
      if (!declared) undeclared.push_back(r);
    }
    if (!undeclared.empty())
      seen.push_back(fmt::format("it reads {} before writing {} (its value at entry changes what the call does), "
                                 "which {} passes no argument in",
                                 register_list(undeclared), undeclared.size() == 1 ? "it" : "them",
                                 cases::convention_name(spec->convention.kind)));
    if (seen.empty()) continue;
    ConventionDisagreement d;
    d.function = file.function;
    d.name = spec->name;
    d.declared = cases::convention_name(spec->convention.kind);
    d.observed = seen[0];
    for (std::size_t i = 1; i < seen.size(); ++i) d.observed += "; " + seen[i];
    d.likely = likely_convention(used, pops);
    out.push_back(std::move(d));
  }
  return out;
}

std::string format_disagreement(const ConventionDisagreement& d) {
  return fmt::format("0x{:08x} {} is declared convention = \"{}\", but {}: likely {}", d.function, d.name, d.declared,
                     d.observed, d.likely);
}

}  // namespace lockstep::capture
