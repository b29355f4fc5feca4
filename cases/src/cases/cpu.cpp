#include "lockstep/cases/cpu.hpp"

namespace lockstep::cases {

const char* convention_name(Convention c) noexcept {
  switch (c) {
    case Convention::kWatcom: return "watcom";
    case Convention::kCdecl: return "cdecl";
    case Convention::kStdcall: return "stdcall";
    case Convention::kFastcall: return "fastcall";
    case Convention::kThiscall: return "thiscall";
    case Convention::kCustom: return "custom";
  }
  return "?";
}

Result<Convention> parse_convention(std::string_view s) {
  for (Convention c : {Convention::kWatcom, Convention::kCdecl, Convention::kStdcall, Convention::kFastcall,
                       Convention::kThiscall, Convention::kCustom})
    if (s == convention_name(c)) return c;
  return Error::make(Errc::kUsage,
                     "unknown calling convention '{}' (watcom, cdecl, stdcall, fastcall, thiscall, custom)", s);
}

const char* return_kind_name(ReturnKind k) noexcept {
  switch (k) {
    case ReturnKind::kNone: return "none";
    case ReturnKind::kEax: return "eax";
    case ReturnKind::kEdxEax: return "edx:eax";
    case ReturnKind::kSt0: return "st0";
  }
  return "?";
}

Result<ReturnKind> parse_return_kind(std::string_view s) {
  for (ReturnKind k : {ReturnKind::kNone, ReturnKind::kEax, ReturnKind::kEdxEax, ReturnKind::kSt0})
    if (s == return_kind_name(k)) return k;
  return Error::make(Errc::kUsage, "unknown return kind '{}' (none, eax, edx:eax, st0)", s);
}

std::vector<Reg> argument_registers(const CallingConvention& cc) {
  switch (cc.kind) {
    case Convention::kWatcom: return {Reg::kEax, Reg::kEdx, Reg::kEbx, Reg::kEcx};
    case Convention::kCdecl:
    case Convention::kStdcall: return {};
    case Convention::kFastcall: return {Reg::kEcx, Reg::kEdx};
    case Convention::kThiscall: return {Reg::kEcx};
    case Convention::kCustom: return cc.registers;
  }
  return {};
}

const char* arg_type_name(ArgType t) noexcept {
  switch (t) {
    case ArgType::kU32: return "u32";
    case ArgType::kI32: return "i32";
    case ArgType::kPtr: return "ptr";
    case ArgType::kF64: return "f64";
    case ArgType::kF32: return "f32";
  }
  return "?";
}

Result<ArgType> parse_arg_type(std::string_view s) {
  for (ArgType t : {ArgType::kU32, ArgType::kI32, ArgType::kPtr, ArgType::kF64, ArgType::kF32})
    if (s == arg_type_name(t)) return t;
  return Error::make(Errc::kUsage, "unknown argument kind '{}' (u32, i32, ptr, f32, f64)", s);
}

const char* reg_name(Reg r) noexcept {
  switch (r) {
    case Reg::kEax: return "eax";
    case Reg::kEbx: return "ebx";
    case Reg::kEcx: return "ecx";
    case Reg::kEdx: return "edx";
    case Reg::kEsi: return "esi";
    case Reg::kEdi: return "edi";
    case Reg::kEbp: return "ebp";
  }
  return "?";
}

std::optional<Reg> reg_named(std::string_view s) noexcept {
  for (Reg r : kRegs)
    if (s == reg_name(r)) return r;
  return std::nullopt;
}

Result<Reg> parse_reg(std::string_view s) {
  if (auto r = reg_named(s)) return *r;
  return Error::make(Errc::kUsage, "unknown register '{}' (eax, ebx, ecx, edx, esi, edi, ebp)", s);
}

std::uint32_t& Registers::operator[](Reg r) noexcept {
  switch (r) {
    case Reg::kEax: return eax;
    case Reg::kEbx: return ebx;
    case Reg::kEcx: return ecx;
    case Reg::kEdx: return edx;
    case Reg::kEsi: return esi;
    case Reg::kEdi: return edi;
    case Reg::kEbp: return ebp;
  }
  return eax;
}

std::uint32_t Registers::operator[](Reg r) const noexcept { return const_cast<Registers&>(*this)[r]; }

}  // namespace lockstep::cases
