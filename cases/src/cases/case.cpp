#include "lockstep/cases/case.hpp"

#include <algorithm>

namespace lockstep::cases {

std::string poked_register_names(std::uint16_t mask) {
  std::string out;
  for (Reg r : kRegs) {
    if (!(mask & register_bit(r))) continue;
    if (!out.empty()) out += ' ';
    out += reg_name(r);
  }
  return out;
}

void poke_register(Case& c, Reg r, std::uint32_t value) {
  c.in[r] = value;
  c.poked_registers = static_cast<std::uint16_t>(c.poked_registers | register_bit(r));
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
