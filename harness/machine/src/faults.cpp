// Fault reports: stop kinds by name, the multi-line report, the call chain read back from the stack.
#include "faults.hpp"

#include <array>
#include <tuple>

#include <fmt/format.h>

namespace lockstep::harness {

const char* stop_kind_name(StopKind k) noexcept {
  switch (k) {
    case StopKind::kReturned: return "returned";
    case StopKind::kReadUnmapped: return "read-unmapped";
    case StopKind::kWriteUnmapped: return "write-unmapped";
    case StopKind::kFetchUnmapped: return "fetch-unmapped";
    case StopKind::kReadProtected: return "read-protected";
    case StopKind::kWriteProtected: return "write-protected";
    case StopKind::kFetchProtected: return "fetch-protected";
    case StopKind::kInvalidInstruction: return "invalid-instruction";
    case StopKind::kInterrupt: return "interrupt";
    case StopKind::kSyscall: return "syscall";
    case StopKind::kImportWithoutStub: return "import-without-stub";
    case StopKind::kBudgetExceeded: return "budget-exceeded";
    case StopKind::kTimeout: return "timeout";
    case StopKind::kUnexpectedStop: return "unexpected-stop";
    case StopKind::kEngineError: return "engine-error";
  }
  return "?";
}

std::string format_fault(const Fault& f) {
  std::string out = fmt::format("guest fault: {}\n  at 0x{:08x}: {}\n", f.message, f.eip, f.instruction);
  const Registers& r = f.registers;
  out += fmt::format("  eax {:08x}  ebx {:08x}  ecx {:08x}  edx {:08x}\n", r.eax, r.ebx, r.ecx, r.edx);
  out += fmt::format("  esi {:08x}  edi {:08x}  ebp {:08x}  esp {:08x}\n", r.esi, r.edi, r.ebp, r.esp);
  out += fmt::format("  eip {:08x}  eflags {:08x}  fpu cw {:04x} sw {:04x}\n", r.eip, r.eflags, r.x87.control,
                     r.x87.status);
  if (!f.watched_chain.empty()) {
    out += "  inside watched calls:";
    for (GuestAddr a : f.watched_chain) out += fmt::format(" 0x{:08x}", a);
    out += "\n";
  }
  out += "  call chain (innermost first, from the stack):\n";
  out += fmt::format("    0x{:08x}  (fault)\n", f.eip);
  for (const ChainEntry& c : f.call_chain) {
    if (c.callee)
      out += fmt::format("    0x{:08x}  called 0x{:08x} from 0x{:08x}\n", c.return_address, *c.callee, c.call_site);
    else
      out += fmt::format("    0x{:08x}  indirect call from 0x{:08x}\n", c.return_address, c.call_site);
  }
  return out;
}

namespace machine_detail {

std::vector<ChainEntry> scan_call_chain(GuestAddr esp, GuestAddr limit, const ByteAt& byte_at,
                                        const IsExecutable& executable) {
  auto u32_at = [&](GuestAddr a) -> std::optional<std::uint32_t> {
    std::uint32_t v = 0;
    for (GuestAddr k = 0; k < 4; ++k) {
      if (a + k < a) return std::nullopt;  // past 4 GiB
      auto b = byte_at(a + k);
      if (!b) return std::nullopt;
      v |= std::uint32_t{*b} << (8 * k);
    }
    return v;
  };
  std::vector<ChainEntry> out;
  for (GuestAddr a = esp; a < limit && a >= esp; a += 4) {
    auto v = u32_at(a);
    if (!v || *v < 8) continue;
    if (!executable(*v)) continue;
    // The 7 bytes before v (any that are unmapped read as 0, which matches no call encoding here).
    std::array<std::uint8_t, 8> b{};
    for (int k = 1; k <= 7; ++k) b[static_cast<std::size_t>(k)] = byte_at(*v - static_cast<GuestAddr>(k)).value_or(0);
    auto at = [&](int back) { return b[static_cast<std::size_t>(back)]; };  // byte at v - back
    ChainEntry e;
    e.return_address = *v;
    bool is_call = false;
    if (at(5) == 0xe8) {
      const std::uint32_t rel = static_cast<std::uint32_t>(at(4)) | static_cast<std::uint32_t>(at(3)) << 8 |
                                static_cast<std::uint32_t>(at(2)) << 16 | static_cast<std::uint32_t>(at(1)) << 24;
      e.call_site = *v - 5;
      e.callee = *v + rel;
      is_call = true;
    } else {
      auto ff2 = [&](int back, int mod, bool sib, bool rm5) {
        if (at(back) != 0xff) return false;
        const std::uint8_t m = at(back - 1);
        if (((m >> 3) & 7) != 2 || (m >> 6) != mod) return false;
        const int rm = m & 7;
        if (sib) return rm == 4;
        if (rm5) return rm == 5;
        return rm != 4 && (mod != 0 || rm != 5);
      };
      for (auto [back, mod, sib, rm5] : {std::tuple{2, 3, false, false}, std::tuple{2, 0, false, false},
                                         std::tuple{3, 1, false, false}, std::tuple{3, 0, true, false},
                                         std::tuple{4, 1, true, false}, std::tuple{6, 2, false, false},
                                         std::tuple{6, 0, false, true}, std::tuple{7, 2, true, false},
                                         std::tuple{7, 0, true, false}}) {
        if (ff2(back, mod, sib, rm5)) {
          e.call_site = *v - static_cast<GuestAddr>(back);
          is_call = true;
          break;
        }
      }
    }
    if (is_call) out.push_back(e);
  }
  return out;
}

}  // namespace machine_detail
}  // namespace lockstep::harness
