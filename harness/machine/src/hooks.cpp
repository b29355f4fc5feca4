// The Unicorn hooks: thin trampolines into Machine::Impl (memory accesses into the recorder, faults,
// interrupts and system calls into a pending stop, blocks into the budget, the clock, coverage and
// nested returns, watched entries and stubs), and their installation.
#include <algorithm>
#include <chrono>

#include <unicorn/unicorn.h>

#include "machine_impl.hpp"

namespace lockstep::harness {

namespace {

// Hooks: thin trampolines into Machine::Impl.
[[gnu::flatten]] void hook_mem_read(uc_engine*, uc_mem_type, std::uint64_t addr, int size, std::int64_t, void* user) {
  auto* m = static_cast<Machine::Impl*>(user);
  if (!m->recording.empty()) m->note_read(addr, size);
}

[[gnu::flatten]] void hook_mem_write(uc_engine*, uc_mem_type, std::uint64_t addr, int size, std::int64_t, void* user) {
  static_cast<Machine::Impl*>(user)->note_write(addr, size);
}

bool hook_mem_invalid(uc_engine*, uc_mem_type type, std::uint64_t addr, int size, std::int64_t, void* user) {
  auto* m = static_cast<Machine::Impl*>(user);
  StopKind k = StopKind::kEngineError;
  switch (type) {
    case UC_MEM_READ_UNMAPPED: k = StopKind::kReadUnmapped; break;
    case UC_MEM_WRITE_UNMAPPED: k = StopKind::kWriteUnmapped; break;
    case UC_MEM_FETCH_UNMAPPED: k = StopKind::kFetchUnmapped; break;
    case UC_MEM_READ_PROT: k = StopKind::kReadProtected; break;
    case UC_MEM_WRITE_PROT: k = StopKind::kWriteProtected; break;
    case UC_MEM_FETCH_PROT: k = StopKind::kFetchProtected; break;
    default: break;
  }
  if (!m->pending.set) {
    m->pending.set = true;
    m->pending.kind = k;
    m->pending.address = static_cast<GuestAddr>(addr);
    m->pending.size = static_cast<std::uint32_t>(size);
  }
  return false;  // not handled: Unicorn stops with the matching error
}

void hook_intr(uc_engine*, std::uint32_t intno, void* user) {
  static_cast<Machine::Impl*>(user)->stop_with(StopKind::kInterrupt, 0, 0, intno);
}

void hook_syscall(uc_engine*, void* user) { static_cast<Machine::Impl*>(user)->stop_with(StopKind::kSyscall); }

bool hook_insn_invalid(uc_engine*, void* user) {
  auto* m = static_cast<Machine::Impl*>(user);
  if (!m->pending.set) {
    m->pending.set = true;
    m->pending.kind = StopKind::kInvalidInstruction;
  }
  return false;
}

void hook_block(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user) {
  auto* m = static_cast<Machine::Impl*>(user);
  if (++m->blocks > m->cfg.block_budget && m->cfg.block_budget != 0) {
    m->stop_with(StopKind::kBudgetExceeded);
    return;
  }
  // The wall clock, every 4096 blocks: a clock read costs ~20 ns, and uc_emu_start's own timeout
  // runs a thread polling every 2 us for each call.
  if ((m->blocks & 0xfff) == 0 && m->deadline && std::chrono::steady_clock::now() >= *m->deadline) {
    m->stop_with(StopKind::kTimeout);
    return;
  }
  if (m->block_observer) m->block_observer->on_block(static_cast<GuestAddr>(address), size);
  // A watched call has returned when its return address starts a block with esp above its entry.
  while (!m->frames.empty() && m->frames.back()->depth > 0 && m->frames.back()->ret == address) {
    std::uint32_t esp = 0;
    uc_reg_read(uc, UC_X86_REG_ESP, &esp);
    if (esp <= m->frames.back()->entry_esp) break;
    m->leave_nested(true);
  }
}

void hook_observed(uc_engine*, std::uint64_t address, std::uint32_t, void* user) {
  auto* m = static_cast<Machine::Impl*>(user);
  if (m->instruction_observer) m->instruction_observer->on_instruction(static_cast<GuestAddr>(address), m->read_general_registers());
}

void hook_count(uc_engine*, std::uint64_t, std::uint32_t, void* user) { ++static_cast<Machine::Impl*>(user)->instructions; }

void hook_watched(uc_engine* uc, std::uint64_t address, std::uint32_t, void* user) {
  auto* m = static_cast<Machine::Impl*>(user);
  std::uint32_t esp = 0;
  uc_reg_read(uc, UC_X86_REG_ESP, &esp);
  const GuestAddr fn = static_cast<GuestAddr>(address);
  const std::uint64_t index = m->call_counts[fn]++;
  const Registers in = m->read_registers();
  const bool rec = m->cfg.record && m->observer && m->observer->on_enter(fn, index, in);
  const GuestAddr ret = m->read_u32(esp).value_or(0);
  std::uint32_t depth = 1;
  for (auto& f : m->frames) depth = std::max(depth, f->depth + 1);
  m->push_frame(fn, ret, esp, depth, index, rec, in);
}

void hook_stub(uc_engine* uc, std::uint64_t, std::uint32_t, void* user) {
  auto* s = static_cast<StubRt*>(user);
  if (!s->active) return;
  Machine::Impl* m = s->machine;
  std::uint32_t esp = 0;
  uc_reg_read(uc, UC_X86_REG_ESP, &esp);
  auto ret = m->read_u32(esp);
  if (!ret) {
    m->stop_with(StopKind::kReadUnmapped, esp, 4);
    return;
  }
  switch (s->spec.action) {
    case StubSpec::Action::kRet: break;
    case StubSpec::Action::kRetN: break;
    case StubSpec::Action::kValue: uc_reg_write(uc, UC_X86_REG_EAX, &s->spec.value); break;
    case StubSpec::Action::kTlsBlock: uc_reg_write(uc, UC_X86_REG_EAX, &s->tls_block); break;
  }
  const std::uint32_t pop = s->spec.action == StubSpec::Action::kRet ? 0 : s->spec.pop;
  esp += 4 + pop;
  uc_reg_write(uc, UC_X86_REG_ESP, &esp);
  // Writing EIP inside a code hook makes Unicorn 2 leave the block and continue there.
  uc_reg_write(uc, UC_X86_REG_EIP, &*ret);
}

}  // namespace

Status Machine::Impl::install_hooks() {
  // Hooks, all before the first emulation (unicorn-engine/unicorn#2200).
  uc_hook h;
  auto add = [&](int type, void* cb, void* user, std::uint64_t begin, std::uint64_t end) -> Status {
    if (uc_err err = uc_hook_add(uc, &h, type, cb, user, begin, end); err != UC_ERR_OK)
      return Error::make(Errc::kUnsupported, "cannot add a Unicorn hook (type 0x{:x}): {}", type, uc_strerror(err));
    return {};
  };
  if (cfg.record) {
    LOCKSTEP_TRY_STATUS(add(UC_HOOK_MEM_READ, reinterpret_cast<void*>(&hook_mem_read), this, 1, 0));
    LOCKSTEP_TRY_STATUS(add(UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(&hook_mem_write), this, 1, 0));
  }
  LOCKSTEP_TRY_STATUS(add(UC_HOOK_MEM_INVALID, reinterpret_cast<void*>(&hook_mem_invalid), this, 1, 0));
  LOCKSTEP_TRY_STATUS(add(UC_HOOK_INTR, reinterpret_cast<void*>(&hook_intr), this, 1, 0));
  LOCKSTEP_TRY_STATUS(add(UC_HOOK_INSN_INVALID, reinterpret_cast<void*>(&hook_insn_invalid), this, 1, 0));
  for (int insn : {UC_X86_INS_SYSCALL, UC_X86_INS_SYSENTER}) {
    if (uc_err err = uc_hook_add(uc, &h, UC_HOOK_INSN, reinterpret_cast<void*>(&hook_syscall), this, 1, 0, insn);
        err != UC_ERR_OK)
      return Error::make(Errc::kUnsupported, "cannot hook system call instructions: {}", uc_strerror(err));
  }
  watched = cfg.watched;
  // Always: the budget, nested returns and block observers (coverage) all live in it.
  {
    LOCKSTEP_TRY_STATUS(add(UC_HOOK_BLOCK, reinterpret_cast<void*>(&hook_block), this, 1, 0));
  }
  if (cfg.count_instructions)
    LOCKSTEP_TRY_STATUS(add(UC_HOOK_CODE, reinterpret_cast<void*>(&hook_count), this, 1, 0));
  for (GuestAddr w : watched) LOCKSTEP_TRY_STATUS(add(UC_HOOK_CODE, reinterpret_cast<void*>(&hook_watched), this, w, w));
  for (auto& s : stubs) LOCKSTEP_TRY_STATUS(add(UC_HOOK_CODE, reinterpret_cast<void*>(&hook_stub), s.get(), s->at, s->at));
  for (GuestAddr a : cfg.observed_instructions)
    LOCKSTEP_TRY_STATUS(add(UC_HOOK_CODE, reinterpret_cast<void*>(&hook_observed), this, a, a));
  return {};
}

}  // namespace lockstep::harness
