#include "lockstep/harness/disasm.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <map>
#include <set>

#include <capstone/capstone.h>
#include <fmt/format.h>

namespace lockstep::harness {

std::string Instruction::text() const {
  return operands.empty() ? mnemonic : mnemonic + " " + operands;
}

ReadMemory snapshot_reader(const Snapshot& snapshot) {
  return [&snapshot](GuestAddr address, std::uint32_t size) {
    std::vector<std::uint8_t> out;
    for (std::uint32_t i = 0; i < size; ++i) {
      const std::uint64_t a = std::uint64_t{address} + i;
      if (a >= (std::uint64_t{1} << 32)) break;
      const Region* r = snapshot.find(static_cast<GuestAddr>(a));
      if (!r) break;
      out.push_back(r->bytes[static_cast<std::size_t>(a - r->base)]);
    }
    return out;
  };
}

struct Disassembler::Impl {
  csh handle = 0;
};

Disassembler::Disassembler() : impl_(std::make_unique<Impl>()) {
  // Capstone only fails here for an architecture it was built without; x86 is always in Debian's.
  [[maybe_unused]] cs_err err = cs_open(CS_ARCH_X86, CS_MODE_32, &impl_->handle);
  assert(err == CS_ERR_OK);
  cs_option(impl_->handle, CS_OPT_DETAIL, CS_OPT_ON);
}

Disassembler::~Disassembler() { cs_close(&impl_->handle); }

std::optional<Instruction> Disassembler::one(std::span<const std::uint8_t> bytes, GuestAddr address) const {
  cs_insn* insn = nullptr;
  const std::size_t n = cs_disasm(impl_->handle, bytes.data(), bytes.size(), address, 1, &insn);
  if (n == 0) return std::nullopt;
  Instruction out;
  out.address = static_cast<GuestAddr>(insn->address);
  out.bytes.assign(insn->bytes, insn->bytes + insn->size);
  out.mnemonic = insn->mnemonic;
  out.operands = insn->op_str;
  if (insn->detail) {
    const cs_detail& d = *insn->detail;
    for (std::uint8_t i = 0; i < d.groups_count; ++i) {
      switch (d.groups[i]) {
        case CS_GRP_CALL: out.is_call = true; break;
        case CS_GRP_RET: out.is_ret = true; break;
        case CS_GRP_JUMP: out.is_jump = true; break;
        case CS_GRP_INT: out.is_interrupt = true; break;
        default: break;
      }
    }
    if (insn->id == X86_INS_SYSCALL || insn->id == X86_INS_SYSENTER) out.is_interrupt = true;
    if (out.is_jump && insn->id != X86_INS_JMP && insn->id != X86_INS_LJMP) out.is_conditional = true;
    if ((out.is_jump || out.is_call) && d.x86.op_count == 1 && d.x86.operands[0].type == X86_OP_IMM)
      out.target = static_cast<GuestAddr>(d.x86.operands[0].imm);
  }
  cs_free(insn, n);
  return out;
}

std::optional<Instruction> Disassembler::at(const ReadMemory& read, GuestAddr address) const {
  const std::vector<std::uint8_t> bytes = read(address, 16);
  if (bytes.empty()) return std::nullopt;
  return one(bytes, address);
}

std::vector<Instruction> Disassembler::function(const ReadMemory& read, GuestAddr entry,
                                                std::size_t max_instructions) const {
  std::map<GuestAddr, Instruction> seen;
  std::vector<GuestAddr> work{entry};
  std::set<GuestAddr> queued{entry};
  while (!work.empty() && seen.size() < max_instructions) {
    GuestAddr pc = work.back();
    work.pop_back();
    while (seen.size() < max_instructions && !seen.count(pc)) {
      auto insn = at(read, pc);
      if (!insn) break;
      const GuestAddr next = pc + static_cast<GuestAddr>(insn->bytes.size());
      const bool ends = insn->is_ret || (insn->is_jump && !insn->is_conditional) || insn->mnemonic == "hlt" ||
                        insn->mnemonic == "ud2";
      if (insn->is_jump && insn->target && queued.insert(*insn->target).second) work.push_back(*insn->target);
      seen.emplace(pc, std::move(*insn));
      if (ends) break;
      pc = next;
    }
  }
  std::vector<Instruction> out;
  out.reserve(seen.size());
  for (auto& [a, i] : seen) out.push_back(std::move(i));
  return out;
}

std::string format_listing(const std::vector<Instruction>& listing) {
  std::string out;
  for (const Instruction& i : listing) {
    std::string hex;
    for (std::uint8_t b : i.bytes) hex += fmt::format("{:02x} ", b);
    out += fmt::format("  {:08x}  {:<24} {}\n", i.address, hex, i.text());
  }
  return out;
}

}  // namespace lockstep::harness
