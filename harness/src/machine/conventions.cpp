#include "lockstep/harness/conventions.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace lockstep::harness {

Result<CallPlan> plan_call(const CallingConvention& cc, std::span<const PlacedArg> args) {
  std::vector<Reg> regs;
  bool callee_pops = true;
  switch (cc.kind) {
    case Convention::kWatcom: regs = {Reg::kEax, Reg::kEdx, Reg::kEbx, Reg::kEcx}; break;
    case Convention::kCdecl: callee_pops = false; break;
    case Convention::kStdcall: break;
    case Convention::kFastcall: regs = {Reg::kEcx, Reg::kEdx}; break;
    case Convention::kThiscall: regs = {Reg::kEcx}; break;
    case Convention::kCustom:
      if (cc.registers.empty())
        return Error::make(Errc::kUsage, "a custom calling convention needs its argument registers");
      regs = cc.registers;
      for (std::size_t i = 0; i < regs.size(); ++i)
        for (std::size_t j = i + 1; j < regs.size(); ++j)
          if (regs[i] == regs[j])
            return Error::make(Errc::kUsage, "custom calling convention lists {} twice", reg_name(regs[i]));
      break;
  }
  CallPlan plan;
  std::size_t next_reg = 0;
  for (const PlacedArg& a : args) {
    if (!a.is_f64 && next_reg < regs.size()) {
      plan.registers.emplace_back(regs[next_reg++], a.word);
      continue;
    }
    // Doubles always go on the stack; words once the registers are used up. Arguments are pushed
    // right to left, so the first stack argument lies lowest: appending in order gives that layout.
    std::uint8_t buf[8];
    if (a.is_f64) {
      std::memcpy(buf, &a.f64, 8);
      plan.stack.insert(plan.stack.end(), buf, buf + 8);
    } else {
      std::memcpy(buf, &a.word, 4);
      plan.stack.insert(plan.stack.end(), buf, buf + 4);
    }
  }
  plan.callee_pops = callee_pops ? static_cast<std::uint32_t>(plan.stack.size()) : 0;
  return plan;
}

double x87_to_double(const std::array<std::uint8_t, 10>& ext) noexcept {
  std::uint64_t mant;
  std::memcpy(&mant, ext.data(), 8);
  const std::uint16_t se = static_cast<std::uint16_t>(ext[8] | (ext[9] << 8));
  const bool neg = (se & 0x8000) != 0;
  const int exp = se & 0x7fff;
  double r;
  if (exp == 0x7fff) {
    r = (mant << 1) == 0 ? HUGE_VAL : std::nan("");
  } else if (mant == 0) {
    r = 0.0;
  } else {
    // Round the 64-bit significand to 53 bits, to nearest even.
    std::uint64_t top = mant >> 11;
    const std::uint64_t rest = mant & 0x7ff;
    if (rest > 0x400 || (rest == 0x400 && (top & 1))) ++top;
    // exp 0 is a denormal (no bias adjustment beyond 1 - bias); values below double's range round
    // twice (here and in ldexp), a case real x87 code under 53-bit precision never produces.
    const int e = (exp == 0 ? 1 : exp) - 16383 - 52;
    r = std::ldexp(static_cast<double>(top), e);
  }
  return neg ? -r : r;
}

std::array<std::uint8_t, 10> double_to_x87(double d) noexcept {
  std::uint64_t bits;
  std::memcpy(&bits, &d, 8);
  const bool neg = (bits >> 63) != 0;
  const int exp = static_cast<int>((bits >> 52) & 0x7ff);
  std::uint64_t frac = bits & ((std::uint64_t{1} << 52) - 1);
  std::uint64_t mant = 0;
  int e = 0;
  if (exp == 0x7ff) {
    e = 0x7fff;
    mant = (std::uint64_t{1} << 63) | (frac << 11);
  } else if (exp == 0) {
    if (frac != 0) {  // a double denormal is a normal extended value
      int shift = 0;
      while (!(frac & (std::uint64_t{1} << 52))) { frac <<= 1; ++shift; }
      e = 1 - 1023 - shift + 16383;
      mant = frac << 11;
    }
  } else {
    e = exp - 1023 + 16383;
    mant = (std::uint64_t{1} << 63) | (frac << 11);
  }
  std::array<std::uint8_t, 10> out{};
  std::memcpy(out.data(), &mant, 8);
  const std::uint16_t se = static_cast<std::uint16_t>(e | (neg ? 0x8000 : 0));
  out[8] = static_cast<std::uint8_t>(se);
  out[9] = static_cast<std::uint8_t>(se >> 8);
  return out;
}

ReturnValue return_value(ReturnKind kind, const Registers& out) {
  ReturnValue v;
  v.kind = kind;
  v.eax = out.eax;
  v.edx = out.edx;
  v.st0 = x87_to_double(out.x87.st[0]);
  return v;
}

std::string format_return(const ReturnValue& v) {
  switch (v.kind) {
    case ReturnKind::kNone: return "(no return value)";
    case ReturnKind::kEax:
      return fmt::format("eax = 0x{:08x} ({})", v.eax, static_cast<std::int32_t>(v.eax));
    case ReturnKind::kEdxEax:
      return fmt::format("edx:eax = 0x{:016x} ({})", v.edx_eax(), static_cast<std::int64_t>(v.edx_eax()));
    case ReturnKind::kSt0: return fmt::format("st0 = {:.17g}", v.st0);
  }
  return "?";
}

std::uint64_t byte_count(const std::vector<ByteRun>& runs) noexcept {
  std::uint64_t n = 0;
  for (const ByteRun& r : runs) n += r.bytes.size();
  return n;
}

}  // namespace lockstep::harness
