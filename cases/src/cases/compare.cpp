#include "lockstep/cases/compare.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace lockstep::cases {

Comparison compare(const Case& c, const PortEffects& port, const CompareOptions& opt) {
  Comparison out;
  out.outside_reads_fail = opt.outside_reads_fail;
  out.outside_reads = port.outside_reads;
  out.port_error = port.error;
  // Both maps are walked in address order, each lookup by a cursor that only moves forward, and a
  // run the other side holds whole and equal is passed over with one memcmp: the comparison costs
  // one pass over the written bytes, byte by byte only where something differs.
  // Bytes the original wrote: the port must have written each with the same value.
  ByteMap::Cursor port_at(port.writes);
  c.writes.for_each_run([&](GuestAddr base, std::span<const std::uint8_t> bytes) {
    if (const std::uint8_t* p = port_at.bytes_at(base, bytes.size());
        p && std::memcmp(p, bytes.data(), bytes.size()) == 0)
      return;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const GuestAddr a = static_cast<GuestAddr>(base + i);
      const std::uint8_t v = bytes[i];
      auto p = port_at.get(a);
      if (!p) {
        out.bytes.push_back({a, ByteDiff::Kind::kNotWritten, v, std::nullopt, c.inputs.get(a)});
      } else if (*p != v) {
        out.bytes.push_back({a, ByteDiff::Kind::kDifferent, v, *p, c.inputs.get(a)});
      }
    }
  });
  // Bytes the port wrote that the original left alone (at or above the entry stack pointer: the port
  // has no stack frame of its own in guest memory, so every port write counts).
  ByteMap::Cursor original_at(c.writes);
  port.writes.for_each_run([&](GuestAddr base, std::span<const std::uint8_t> bytes) {
    if (original_at.bytes_at(base, bytes.size())) return;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const GuestAddr a = static_cast<GuestAddr>(base + i);
      if (!original_at.get(a))
        out.bytes.push_back({a, ByteDiff::Kind::kExtraWrite, std::nullopt, bytes[i], c.inputs.get(a)});
    }
  });
  if (!out.bytes.empty())
    std::sort(out.bytes.begin(), out.bytes.end(),
            [](const ByteDiff& a, const ByteDiff& b) { return a.address < b.address; });
  auto reg = [&](const char* name, std::uint32_t o, std::uint32_t p) {
    if (o != p) out.registers.push_back({name, fmt::format("{:08x}", o), fmt::format("{:08x}", p)});
  };
  switch (c.returns) {
    case ReturnKind::kNone: break;
    case ReturnKind::kEax: reg("eax", c.out.eax, port.eax); break;
    case ReturnKind::kEdxEax:
      reg("eax", c.out.eax, port.eax);
      reg("edx", c.out.edx, port.edx);
      break;
    case ReturnKind::kSt0: {
      const auto& o = c.out.x87.st[0];
      if (!port.st0) {
        out.registers.push_back({"st0", fmt::format("{}", f80_to_f64(o)), "(none)"});
      } else if (f64_to_f80(*port.st0) != o) {
        out.registers.push_back({"st0", fmt::format("{} ({:02x})", f80_to_f64(o), fmt::join(o.rbegin(), o.rend(), "")),
                                 fmt::format("{}", *port.st0)});
      }
      break;
    }
  }
  return out;
}

std::array<std::uint8_t, 10> f64_to_f80(double v) {
  std::array<std::uint8_t, 10> r{};
  std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
  const bool neg = bits >> 63;
  const int exp = static_cast<int>((bits >> 52) & 0x7ff);
  std::uint64_t frac = bits & ((std::uint64_t{1} << 52) - 1);
  std::uint64_t mant = 0;
  int e80 = 0;
  if (exp == 0 && frac == 0) {
    mant = 0;
    e80 = 0;
  } else if (exp == 0x7ff) {
    e80 = 0x7fff;
    mant = (std::uint64_t{1} << 63) | (frac << 11);
  } else if (exp == 0) {  // subnormal double: normalise (the 80-bit format has the range)
    int shift = std::countl_zero(frac) - 11;  // bring the leading 1 to bit 52
    frac <<= shift;
    e80 = 1 - 1023 + 16383 - shift;
    mant = frac << 11;
  } else {
    e80 = exp - 1023 + 16383;
    mant = (std::uint64_t{1} << 63) | (frac << 11);
  }
  std::memcpy(r.data(), &mant, 8);
  std::uint16_t se = static_cast<std::uint16_t>(e80 | (neg ? 0x8000 : 0));
  std::memcpy(r.data() + 8, &se, 2);
  return r;
}

double f80_to_f64(const std::array<std::uint8_t, 10>& v) {
  std::uint64_t mant;
  std::uint16_t se;
  std::memcpy(&mant, v.data(), 8);
  std::memcpy(&se, v.data() + 8, 2);
  const bool neg = se >> 15;
  const int e = se & 0x7fff;
  double r;
  if (e == 0 && mant == 0) r = 0.0;
  else if (e == 0x7fff) r = (mant << 1) ? NAN : INFINITY;
  else r = std::ldexp(static_cast<double>(mant), e - 16383 - 63);  // rounds to nearest (host default)
  return neg ? -r : r;
}

}  // namespace lockstep::cases

#include "lockstep/cases/binding.hpp"

namespace lockstep::cases {

const Binding* find_binding(const BindingSet& set, GuestAddr address) {
  for (const auto& b : set)
    if (b.address == address) return &b;
  return nullptr;
}

}  // namespace lockstep::cases
