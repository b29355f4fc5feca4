#include "lockstep/cases/compare.hpp"

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
      // Bit for bit: the 80-bit value, not the double nearest it (a port at 64-bit precision must
      // give every bit the original's x87 kept).
      const x87::Extended o = x87::Extended::from_bytes(c.out.x87.st[0]);
      if (!port.st0) {
        out.registers.push_back({"st0", format_extended(o), "(none)"});
      } else if (*port.st0 != o) {
        out.registers.push_back({"st0", format_extended(o), format_extended(*port.st0)});
      }
      break;
    }
  }
  return out;
}

std::string format_extended(const x87::Extended& v) { return fmt::format("{} ({})", v.decimal(), v.hex()); }

}  // namespace lockstep::cases
