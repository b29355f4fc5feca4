#include "lockstep/cases/case.hpp"

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

const char* returns_name(Returns r) noexcept {
  switch (r) {
    case Returns::kNone: return "none";
    case Returns::kEax: return "eax";
    case Returns::kEdxEax: return "edx:eax";
    case Returns::kSt0: return "st0";
  }
  return "?";
}

std::size_t Case::stale_input_count() const {
  std::size_t n = 0;
  inputs.for_each([&](GuestAddr a, std::uint8_t) { n += is_stale(a) ? 1 : 0; });
  return n;
}

}  // namespace lockstep::cases
