#include "lockstep/disasm/disasm.hpp"

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

namespace {

// The 32-bit register a Capstone register id is part of ("eax" for al), "" for others.
std::string full_register(csh handle, unsigned reg) {
  switch (reg) {
    case X86_REG_AL: case X86_REG_AH: case X86_REG_AX: case X86_REG_EAX: return "eax";
    case X86_REG_BL: case X86_REG_BH: case X86_REG_BX: case X86_REG_EBX: return "ebx";
    case X86_REG_CL: case X86_REG_CH: case X86_REG_CX: case X86_REG_ECX: return "ecx";
    case X86_REG_DL: case X86_REG_DH: case X86_REG_DX: case X86_REG_EDX: return "edx";
    case X86_REG_SI: case X86_REG_ESI: return "esi";
    case X86_REG_DI: case X86_REG_EDI: return "edi";
    case X86_REG_BP: case X86_REG_EBP: return "ebp";
    case X86_REG_SP: case X86_REG_ESP: return "esp";
    case X86_REG_EFLAGS: return "flags";
    case X86_REG_FPSW: return "fpsw";
    case X86_REG_INVALID: return "";
    default: break;
  }
  if (reg >= X86_REG_ST0 && reg <= X86_REG_ST7) return "st";
  const char* n = cs_reg_name(handle, reg);
  return n ? n : "";
}

void add_unique(std::vector<std::string>& v, const std::string& r) {
  if (!r.empty() && std::find(v.begin(), v.end(), r) == v.end()) v.push_back(r);
}

// Registers read and written, flags included, x87 by mnemonic (Capstone 4 leaves most x87 register
// access out): every f* instruction reads and writes the stack; the compares also write the status
// word; fnstsw/fstsw read it; fcomi & co. write eflags.
void data_flow(csh handle, const cs_insn& insn, Instruction& out) {
  const cs_x86& x = insn.detail->x86;
  // lea computes with its address registers and touches no memory; neither does a multi-byte nop.
  if (insn.id == X86_INS_LEA || insn.id == X86_INS_NOP) {
    for (std::uint8_t i = 0; i < x.op_count; ++i) {
      const cs_x86_op& op = x.operands[i];
      if (op.type == X86_OP_MEM && insn.id == X86_INS_LEA) {
        add_unique(out.regs_read, full_register(handle, op.mem.base));
        add_unique(out.regs_read, full_register(handle, op.mem.index));
      } else if (op.type == X86_OP_REG && i == 0) {  // lea's destination
        add_unique(out.regs_written, full_register(handle, op.reg));
      }
    }
    return;
  }
  std::vector<unsigned> address_regs;
  for (std::uint8_t i = 0; i < x.op_count; ++i) {
    const cs_x86_op& op = x.operands[i];
    if (op.type != X86_OP_MEM) continue;
    out.memory.push_back(MemoryOperand{
        .segment = op.mem.segment == X86_REG_FS ? "fs" : op.mem.segment == X86_REG_GS ? "gs" : "",
        .base = full_register(handle, op.mem.base),
        .index = full_register(handle, op.mem.index),
        .scale = op.mem.scale,
        .disp = op.mem.disp,
        .size = op.size,
    });
    address_regs.push_back(op.mem.base);
    address_regs.push_back(op.mem.index);
  }
  const std::string& mn = out.mnemonic;
  if (!mn.empty() && mn[0] == 'f' && mn != "fwait") {
    const bool compare = mn.rfind("fcom", 0) == 0 || mn.rfind("fucom", 0) == 0 || mn == "ftst" || mn == "fxam";
    const bool comi = mn.find("comi") != std::string::npos;
    if (mn == "fnstsw" || mn == "fstsw") {
      add_unique(out.regs_read, "fpsw");
      if (!out.memory.empty()) return;  // fnstsw [mem]
      add_unique(out.regs_written, "eax");
      return;
    }
    // Every other x87 instruction is taken to read and write the register stack.
    add_unique(out.regs_read, "st");
    add_unique(out.regs_written, "st");
    if (compare && !comi) add_unique(out.regs_written, "fpsw");
    if (comi) add_unique(out.regs_written, "flags");
    return;
  }
  cs_regs read{}, write{};
  std::uint8_t nread = 0, nwrite = 0;
  if (cs_regs_access(handle, &insn, read, &nread, write, &nwrite) != CS_ERR_OK) return;
  // A register counts as read for its value only when it is not just an address part (mov eax,
  // [esi+4] reads esi to address memory, not as data). An operand both addressing and read as a
  // value (add esi, [esi]) keeps it: cs_regs_access lists it once, so check the explicit operands.
  std::vector<unsigned> value_regs;
  for (std::uint8_t i = 0; i < x.op_count; ++i)
    if (x.operands[i].type == X86_OP_REG && (x.operands[i].access & CS_AC_READ)) value_regs.push_back(x.operands[i].reg);
  for (std::uint8_t i = 0; i < nread; ++i) {
    const unsigned r = read[i];
    const bool addressing = std::find(address_regs.begin(), address_regs.end(), r) != address_regs.end();
    const bool value = std::find(value_regs.begin(), value_regs.end(), r) != value_regs.end();
    if (addressing && !value) continue;
    add_unique(out.regs_read, full_register(handle, r));
  }
  for (std::uint8_t i = 0; i < nwrite; ++i) add_unique(out.regs_written, full_register(handle, write[i]));
  // Flags as Capstone's eflags bits say (cs_regs_access does not always list EFLAGS).
  constexpr std::uint64_t kTests = X86_EFLAGS_TEST_OF | X86_EFLAGS_TEST_SF | X86_EFLAGS_TEST_ZF | X86_EFLAGS_TEST_PF |
                                   X86_EFLAGS_TEST_CF | X86_EFLAGS_TEST_NT | X86_EFLAGS_TEST_DF | X86_EFLAGS_TEST_RF |
                                   X86_EFLAGS_TEST_IF | X86_EFLAGS_TEST_TF | X86_EFLAGS_TEST_AF;
  if (x.eflags & kTests) add_unique(out.regs_read, "flags");
  if (x.eflags & ~kTests) add_unique(out.regs_written, "flags");
  if (out.is_conditional) add_unique(out.regs_read, "flags");
}

}  // namespace

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
    data_flow(impl_->handle, *insn, out);
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
  return function(read, entry, max_instructions, {});
}

std::vector<Instruction> Disassembler::function(const ReadMemory& read, GuestAddr entry, std::size_t max_instructions,
                                                const std::function<bool(GuestAddr)>& follow_call) const {
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
      const bool follow = insn->is_jump || (insn->is_call && follow_call && insn->target && follow_call(*insn->target));
      if (follow && insn->target && queued.insert(*insn->target).second) work.push_back(*insn->target);
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

std::string format_listing(const std::vector<Instruction>& listing, const CodeNamer& name_of) {
  std::string out;
  for (const Instruction& i : listing) {
    std::string hex;
    for (std::uint8_t b : i.bytes) hex += fmt::format("{:02x} ", b);
    std::string text = i.text();
    if (name_of && i.target && (i.is_call || i.is_jump)) {
      const std::string name = name_of(*i.target);
      if (!name.empty()) text = fmt::format("{} 0x{:08x} <{}>", i.mnemonic, *i.target, name);
    }
    out += fmt::format("  {:08x}  {:<24} {}\n", i.address, hex, text);
  }
  return out;
}

}  // namespace lockstep::harness
