#include "lockstep/cases/case.hpp"

#include <algorithm>
#include <iterator>

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

namespace {

// The entry registers a poke may set, in RegisterBit order.
struct PokableRegister {
  const char* name;
  std::uint32_t Registers::*field;
};
constexpr PokableRegister kPokable[] = {{"eax", &Registers::eax}, {"ebx", &Registers::ebx}, {"ecx", &Registers::ecx},
                                        {"edx", &Registers::edx}, {"esi", &Registers::esi}, {"edi", &Registers::edi},
                                        {"ebp", &Registers::ebp}};

}  // namespace

std::string poked_register_names(std::uint16_t mask) {
  std::string out;
  for (unsigned i = 0; i < std::size(kPokable); ++i) {
    if (!(mask & (1u << i))) continue;
    if (!out.empty()) out += ' ';
    out += kPokable[i].name;
  }
  return out;
}

bool poke_register(Case& c, std::string_view name, std::uint32_t value) {
  for (unsigned i = 0; i < std::size(kPokable); ++i) {
    if (name != kPokable[i].name) continue;
    c.in.*kPokable[i].field = value;
    c.poked_registers = static_cast<std::uint16_t>(c.poked_registers | (1u << i));
    return true;
  }
  return false;
}

std::size_t Case::stale_input_count() const {
  std::size_t n = 0;
  inputs.for_each([&](GuestAddr a, std::uint8_t) { n += is_stale(a) ? 1 : 0; });
  return n;
}

std::optional<GuestAddr> Case::writer_of(GuestAddr a) const {
  if (writers.empty()) return std::nullopt;
  auto it = std::upper_bound(writers.begin(), writers.end(), a,
                             [](GuestAddr x, const WriterRun& r) { return x < r.base; });
  if (it == writers.begin()) return std::nullopt;
  --it;
  if (a >= it->end()) return std::nullopt;
  return it->writer;
}

}  // namespace lockstep::cases
