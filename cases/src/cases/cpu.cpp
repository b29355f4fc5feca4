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
