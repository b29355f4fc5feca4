#include "lockstep/calls/conventions.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "lockstep/cases/arguments.hpp"

namespace lockstep::harness {

Result<CallPlan> plan_call(const CallingConvention& cc, std::span<const PlacedArg> args) {
  const std::vector<Reg> regs = argument_registers(cc);
  const bool callee_pops = cc.kind != Convention::kCdecl;
  if (cc.kind == Convention::kCustom) {
    if (cc.registers.empty())
      return Error::make(Errc::kUsage, "a custom calling convention needs its argument registers");
    for (std::size_t i = 0; i < regs.size(); ++i)
      for (std::size_t j = i + 1; j < regs.size(); ++j)
        if (regs[i] == regs[j])
          return Error::make(Errc::kUsage, "custom calling convention lists {} twice", reg_name(regs[i]));
  }
  // Where each goes: the rule a binding reads the arguments back by (cases::place_arguments).
  std::vector<cases::ArgSpec> kinds;
  for (const PlacedArg& a : args) kinds.push_back({"", a.is_f64 ? cases::ArgType::kF64 : cases::ArgType::kU32});
  LOCKSTEP_TRY(const std::vector<cases::ArgPlace> places, cases::place_arguments(cc, kinds));
  CallPlan plan;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const PlacedArg& a = args[i];
    if (places[i].reg) {
      plan.registers.emplace_back(*places[i].reg, a.word);
      continue;
    }
    // Stack arguments in order from esp+4 upward (pushed right to left).
    std::uint8_t buf[8];
    if (a.is_f64) std::memcpy(buf, &a.f64, 8);
    else std::memcpy(buf, &a.word, 4);
    plan.stack.insert(plan.stack.end(), buf, buf + places[i].size);
  }
  plan.callee_pops = callee_pops ? static_cast<std::uint32_t>(plan.stack.size()) : 0;
  return plan;
}

double x87_to_double(const std::array<std::uint8_t, 10>& ext) noexcept {
  return x87::Extended::from_bytes(ext).to_double();
}

std::array<std::uint8_t, 10> double_to_x87(double d) noexcept { return x87::Extended(d).bytes(); }

ReturnValue return_value(ReturnKind kind, const Registers& out) {
  ReturnValue v;
  v.kind = kind;
  v.eax = out.eax;
  v.edx = out.edx;
  v.st0 = x87_to_double(out.x87.st[0]);
  v.st0_extended = x87::Extended::from_bytes(out.x87.st[0]);
  return v;
}

std::string format_return(const ReturnValue& v) {
  switch (v.kind) {
    case ReturnKind::kNone: return "(no return value)";
    case ReturnKind::kEax:
      return fmt::format("eax = 0x{:08x} ({})", v.eax, static_cast<std::int32_t>(v.eax));
    case ReturnKind::kEdxEax:
      return fmt::format("edx:eax = 0x{:016x} ({})", v.edx_eax(), static_cast<std::int64_t>(v.edx_eax()));
    case ReturnKind::kSt0: return fmt::format("st0 = {} ({})", v.st0_extended.decimal(), v.st0_extended.hex());
  }
  return "?";
}

std::uint64_t byte_count(const std::vector<ByteRun>& runs) noexcept {
  std::uint64_t n = 0;
  for (const ByteRun& r : runs) n += r.bytes.size();
  return n;
}

}  // namespace lockstep::harness
