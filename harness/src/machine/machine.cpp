// The Unicorn machine (see machine.hpp and harness/docs/machine.md).
#include "lockstep/harness/machine.hpp"

#include <algorithm>
#include <chrono>
#include <array>
#include <bit>
#include <cassert>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <unicorn/unicorn.h>

#include "descriptor_tables.hpp"
#include "access_shadow.hpp"
#include "access_recorder.hpp"
#include "address_space.hpp"
#include "faults.hpp"
#include "harness_pages.hpp"
#include "zeroed_table.hpp"
#include "lockstep/harness/disasm.hpp"
#include "lockstep/harness/pe32.hpp"

namespace lockstep::harness {
namespace {

using machine_detail::kPageSize;
using machine_detail::kByteRead;
using machine_detail::kByteWritten;
using machine_detail::Shadow;
using machine_detail::ShadowPage;
using machine_detail::ShadowPool;
using machine_detail::ZeroedTable;
using machine_detail::kPageCount;
using machine_detail::kPresent;
using machine_detail::PageKind;
using machine_detail::kUnmapped;
using machine_detail::kSnapshotPage;
using machine_detail::kHarnessInternal;
using machine_detail::kHarnessData;
using machine_detail::Mapping;
using machine_detail::Frame;
struct StubRt {
  StubSpec spec;
  GuestAddr at = 0;
  GuestAddr tls_block = 0;
  bool active = true;
  Machine::Impl* machine = nullptr;
};

struct Pending {
  bool set = false;
  StopKind kind = StopKind::kEngineError;
  GuestAddr address = 0;
  std::uint32_t size = 0;
  std::uint32_t interrupt = 0;
};

std::uint32_t align_up(std::uint64_t v, std::uint32_t a) { return static_cast<std::uint32_t>((v + a - 1) & ~std::uint64_t{a - 1}); }

}  // namespace

// The engine and its guest memory (the address space), the recorder, calls and stubs.
struct Machine::Impl : machine_detail::AddressSpace, machine_detail::AccessRecorder {
  MachineConfig cfg;
  MachineLayout layout;
  uc_context* baseline = nullptr;
  Disassembler dis;

  Thread thread;
  std::vector<std::unique_ptr<StubRt>> stubs;
  std::vector<GuestAddr> watched;
  std::unordered_map<GuestAddr, std::uint64_t> call_counts;
  CallObserver* observer = nullptr;
  BlockObserver* block_observer = nullptr;
  InstructionObserver* instruction_observer = nullptr;

  std::uint64_t blocks = 0;
  std::uint64_t instructions = 0;
  /// cfg.timeout_ms as a point in time for the running call (checked by the block hook).
  std::optional<std::chrono::steady_clock::time_point> deadline;
  Pending pending;
  GuestAddr scratch_next = 0;
  GuestAddr top_entry_esp = 0;

  Impl(const Snapshot& s, MachineConfig c)
      : AddressSpace(s), AccessRecorder(static_cast<AddressSpace&>(*this)), cfg(std::move(c)) {}
  /// The engine closes before the address space unmaps the host pages it ran on.
  ~Impl() {
    frames.clear();
    if (baseline) uc_context_free(baseline);
    if (uc) uc_close(uc);
    uc = nullptr;
  }

  /// Every byte written since the last reset back to the snapshot's, scratch emptied.
  void reset_memory() {
    restore(cfg.record);
    scratch_next = layout.scratch;
  }

  std::string disassemble(GuestAddr a) const {
    auto bytes = read_some(a, 16);
    if (bytes.empty()) return "(unmapped)";
    auto insn = dis.one(bytes, a);
    if (!insn) {
      std::string hex;
      for (std::size_t i = 0; i < std::min<std::size_t>(bytes.size(), 4); ++i) hex += fmt::format("{:02x} ", bytes[i]);
      return fmt::format("(not an instruction: {}...)", hex);
    }
    return insn->text();
  }

  // ---- registers ----

  /// The general registers, eip and eflags only (x87 left at its defaults): cheap enough for a hook.
  Registers read_general_registers() {
    Registers r;
    int ids[] = {UC_X86_REG_EAX, UC_X86_REG_ECX, UC_X86_REG_EDX, UC_X86_REG_EBX, UC_X86_REG_ESP,
                 UC_X86_REG_EBP, UC_X86_REG_ESI, UC_X86_REG_EDI, UC_X86_REG_EIP, UC_X86_REG_EFLAGS};
    std::uint32_t* dst[] = {&r.eax, &r.ecx, &r.edx, &r.ebx, &r.esp, &r.ebp, &r.esi, &r.edi, &r.eip, &r.eflags};
    void* ptrs[10];
    for (int i = 0; i < 10; ++i) ptrs[i] = dst[i];
    uc_reg_read_batch(uc, ids, ptrs, 10);
    return r;
  }

  Registers read_registers() {
    Registers r = read_general_registers();
    std::uint16_t cw = 0, sw = 0, tag = 0;
    std::uint32_t mxcsr = 0;
    uc_reg_read(uc, UC_X86_REG_FPCW, &cw);
    uc_reg_read(uc, UC_X86_REG_FPSW, &sw);
    uc_reg_read(uc, UC_X86_REG_FPTAG, &tag);
    uc_reg_read(uc, UC_X86_REG_MXCSR, &mxcsr);
    r.x87.control = cw;
    r.x87.status = sw;
    r.x87.tag = tag;  // Unicorn computes the full tag word (00 valid, 01 zero, 10 special, 11 empty)
    r.x87.mxcsr = mxcsr;
    const unsigned top = (sw >> 11) & 7;
    for (unsigned i = 0; i < 8; ++i) {
      // UC_X86_REG_FP0..7 are the physical registers; ST(i) is physical (TOP + i) & 7 (tested).
      std::uint8_t buf[16] = {};
      uc_reg_read(uc, UC_X86_REG_FP0 + static_cast<int>((top + i) & 7), buf);
      std::memcpy(r.x87.st[i].data(), buf, 10);
    }
    return r;
  }

  void write_registers(const Registers& r) {
    int ids[] = {UC_X86_REG_EAX, UC_X86_REG_ECX, UC_X86_REG_EDX, UC_X86_REG_EBX, UC_X86_REG_ESP,
                 UC_X86_REG_EBP, UC_X86_REG_ESI, UC_X86_REG_EDI, UC_X86_REG_EIP, UC_X86_REG_EFLAGS};
    const std::uint32_t vals[] = {r.eax, r.ecx, r.edx, r.ebx, r.esp, r.ebp, r.esi, r.edi, r.eip, r.eflags};
    for (int i = 0; i < 10; ++i) uc_reg_write(uc, ids[i], &vals[i]);
    std::uint16_t cw = r.x87.control, sw = r.x87.status, tag = r.x87.tag;
    std::uint32_t mxcsr = r.x87.mxcsr;
    uc_reg_write(uc, UC_X86_REG_FPCW, &cw);
    uc_reg_write(uc, UC_X86_REG_FPSW, &sw);  // sets TOP from bits 11..13
    const unsigned top = (sw >> 11) & 7;
    for (unsigned i = 0; i < 8; ++i) {
      std::uint8_t buf[16] = {};
      std::memcpy(buf, r.x87.st[i].data(), 10);
      uc_reg_write(uc, UC_X86_REG_FP0 + static_cast<int>((top + i) & 7), buf);
    }
    uc_reg_write(uc, UC_X86_REG_FPTAG, &tag);  // after the values: 11 marks a register empty
    uc_reg_write(uc, UC_X86_REG_MXCSR, &mxcsr);
  }

  Registers initial_registers() const {
    Registers r;
    r.eax = thread.eax; r.ecx = thread.ecx; r.edx = thread.edx; r.ebx = thread.ebx;
    r.esp = thread.esp; r.ebp = thread.ebp; r.esi = thread.esi; r.edi = thread.edi;
    r.eip = thread.eip;
    // Only the flags a program can set matter; keep IF (bit 9) and the reserved bit 1 as Linux does.
    r.eflags = (thread.eflags & 0x00000cd5u) | 0x202u;
    if (thread.x87_valid) {
      r.x87 = thread.x87;
    } else {
      r.x87 = X87State{};
      r.x87.control = cfg.default_fpu_control;
      r.x87.mxcsr = cfg.default_mxcsr;
    }
    return r;
  }

  // ---- recorder: access_recorder.hpp; a frame's end ----

  CallRecord finish_frame(Frame& f, bool complete) {
    CallRecord r;
    r.function = f.function;
    r.return_address = f.ret;
    r.depth = f.depth;
    r.call_index = f.call_index;
    r.in = f.in;
    r.out = read_registers();
    r.complete = complete;
    if (f.recording) r.effects = effects_of(f);
    return r;
  }

  /// Ends the innermost nested frame and hands it to the observer.
  void leave_nested(bool complete) {
    std::unique_ptr<Frame> f = std::move(frames.back());
    frames.pop_back();
    if (f->recording) {
      rebuild_recording();
      if (observer) observer->on_leave(finish_frame(*f, complete));
    }
  }

  // ---- faults ----

  void stop_with(StopKind k, GuestAddr address = 0, std::uint32_t size = 0, std::uint32_t intno = 0) {
    if (pending.set) return;
    pending.set = true;
    pending.kind = k;
    pending.address = address;
    pending.size = size;
    pending.interrupt = intno;
    uc_emu_stop(uc);
  }

  std::vector<ChainEntry> scan_call_chain(GuestAddr esp) const {
    return machine_detail::scan_call_chain(
        esp, std::min<GuestAddr>(top_entry_esp, esp + 0x10000),
        [this](GuestAddr a) -> std::optional<std::uint8_t> {
          auto b = read_some(a, 1);
          if (b.empty()) return std::nullopt;
          return b[0];
        },
        [this](GuestAddr a) {
          const std::uint8_t prot = page_prot[a >> 12];
          return (prot & kPresent) && (prot & kProtExec);
        });
  }

  Fault make_fault(StopKind kind, GuestAddr address, std::uint32_t size, std::uint32_t intno, uc_err err) {
    Fault f;
    f.kind = kind;
    f.registers = read_registers();
    f.eip = f.registers.eip;
    f.address = address;
    f.size = size;
    f.interrupt = intno;
    if (kind == StopKind::kInterrupt) {
      // Unicorn reports int n / int3 with eip after the instruction; point at the instruction.
      auto b = read_some(f.eip - 2, 2);
      if (b.size() == 2 && b[0] == 0xcd && b[1] == intno) f.eip -= 2;
      else if (intno == 3 && b.size() == 2 && b[1] == 0xcc) f.eip -= 1;
    }
    if (kind == StopKind::kFetchUnmapped || kind == StopKind::kFetchProtected) f.eip = address;
    std::optional<ImportTrap> trap;
    if (kind == StopKind::kInterrupt && intno == 3 && (trap = import_trap_at(snap, f.eip))) {
      kind = f.kind = StopKind::kImportWithoutStub;
      f.address = trap->iat_slot;
    }
    f.instruction = disassemble(f.eip);
    for (auto& fr : frames)
      if (fr->depth > 0) f.watched_chain.push_back(fr->function);
    f.call_chain = scan_call_chain(f.registers.esp);
    switch (kind) {
      case StopKind::kReadUnmapped:
      case StopKind::kReadProtected:
        f.message = fmt::format("{}: read of {} bytes at 0x{:08x}", stop_kind_name(kind), size, address);
        break;
      case StopKind::kWriteUnmapped:
      case StopKind::kWriteProtected:
        f.message = fmt::format("{}: write of {} bytes at 0x{:08x}", stop_kind_name(kind), size, address);
        break;
      case StopKind::kFetchUnmapped:
        f.message = fmt::format("fetch-unmapped: code at 0x{:08x} is outside the snapshot (a call to a "
                                "function the snapshot does not hold? stub it in the profile)", address);
        break;
      case StopKind::kFetchProtected:
        f.message = fmt::format("fetch-protected: 0x{:08x} is not executable", address);
        break;
      case StopKind::kInvalidInstruction:
        f.message = fmt::format("invalid-instruction at 0x{:08x}", f.eip);
        break;
      case StopKind::kInterrupt:
        f.message = intno == 0 ? fmt::format("interrupt 0 (divide error) at 0x{:08x}", f.eip)
                               : fmt::format("interrupt 0x{:x} at 0x{:08x}{}", intno, f.eip,
                                             intno == 0x80 ? " (a Linux system call)" : "");
        break;
      case StopKind::kImportWithoutStub:
        f.message = fmt::format("{}: add a [[stub]] (pointer = 0x{:08x}, its IAT slot): the original called an "
                                "import the image alone does not have",
                                trap->label, trap->iat_slot);
        break;
      case StopKind::kSyscall: f.message = fmt::format("syscall at 0x{:08x}: system calls are not emulated", f.eip); break;
      case StopKind::kBudgetExceeded:
        f.message = fmt::format("budget-exceeded: {} blocks executed (block_budget {})", blocks, cfg.block_budget);
        break;
      case StopKind::kTimeout: f.message = fmt::format("timeout after {} ms", cfg.timeout_ms); break;
      case StopKind::kUnexpectedStop:
        f.message = fmt::format("unexpected-stop: emulation ended at 0x{:08x}, not at the return sentinel", f.eip);
        break;
      case StopKind::kEngineError:
        f.message = fmt::format("engine-error: {}", uc_strerror(err));
        break;
      case StopKind::kReturned: break;
    }
    return f;
  }

  // ---- set-up ----

  Status setup();
  Result<CallOutcome> call(const CallSpec& spec);
  Result<CallOutcome> call_from(GuestAddr function, const Registers& entry, ReturnKind returns);
  Result<CallOutcome> run(GuestAddr function, const Registers& regs, ReturnKind returns);
};

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

Status Machine::Impl::setup() {
  if (cfg.thread >= snap.threads.size())
    return Error::make(Errc::kUsage, "the snapshot has {} thread(s); thread index {} does not exist",
                       snap.threads.size(), cfg.thread);
  LOCKSTEP_TRY_STATUS(snap.validate());
  thread = snap.threads[cfg.thread];

  // Pages of the snapshot, protections merged by union (see machine.hpp).
  for (const Region& r : snap.regions) {
    const std::uint32_t first = r.base / kPageSize;
    const std::uint32_t last = static_cast<std::uint32_t>((r.end() - 1) / kPageSize);
    for (std::uint32_t p = first; p <= last; ++p) {
      page_prot[p] = static_cast<std::uint8_t>(page_prot[p] | kPresent | (r.prot & 7));
      page_kind[p] = kSnapshotPage;
    }
  }

  // The stack: the region holding the thread's esp, extended downwards when that space is free.
  const Region* stack = snap.find(thread.esp);
  if (!stack)
    return Error::make(Errc::kUsage, "thread {}'s esp 0x{:08x} lies in no region of the snapshot: no stack to call on",
                       thread.tid, thread.esp);
  layout.stack_low = stack->base & ~(kPageSize - 1);
  layout.stack_high = align_up(stack->end(), kPageSize);
  if (cfg.stack_extension) {
    const std::uint32_t n = align_up(cfg.stack_extension, kPageSize) / kPageSize;
    const std::uint32_t low = layout.stack_low / kPageSize;
    if (low > n && free_pages(low - n, n)) {
      claim(low - n, n, kProtRead | kProtWrite, kHarnessData);
      layout.stack_low -= n * kPageSize;
    }
  }
  stack_low = layout.stack_low;  // the recorder's view of the stack
  stack_high = layout.stack_high;

  // Harness pages: GDT, sentinel, scratch, TLS blocks.
  std::uint32_t tls_bytes = 0;
  for (const StubSpec& s : cfg.stubs)
    if (s.action == StubSpec::Action::kTlsBlock) tls_bytes += align_up(std::max<std::uint32_t>(s.block_size, 16), 16);
  const machine_detail::HarnessPages plan =
      machine_detail::plan_harness_pages(cfg.scratch_size, tls_bytes, machine_detail::ldt_entries_needed(snap, thread));
  auto free_at = find_free(plan.total);
  if (!free_at)
    return Error::make(Errc::kLimit, "no free 0x{:x}-byte range left in the 32-bit space for the harness",
                       std::uint64_t{plan.total} * kPageSize);
  const std::uint32_t gdt_page = *free_at + plan.gdt;
  const std::uint32_t sentinel_page = *free_at + plan.sentinel;
  const std::uint32_t scratch_page = *free_at + plan.scratch, scratch_pages = plan.scratch_pages;
  const std::uint32_t tls_page = *free_at + plan.tls, tls_pages = plan.tls_pages;
  const std::uint32_t ldt_page = *free_at + plan.ldt, ldt_pages = plan.ldt_pages;
  claim(gdt_page, 1, kProtRead | kProtWrite, kHarnessInternal);
  claim(sentinel_page, 1, kProtRead | kProtExec, kHarnessInternal);
  claim(scratch_page, scratch_pages, kProtRead | kProtWrite, kHarnessData);
  claim(tls_page, tls_pages, kProtRead | kProtWrite, kHarnessData);
  if (ldt_pages) claim(ldt_page, ldt_pages, kProtRead | kProtWrite, kHarnessInternal);
  layout.ldt = ldt_pages ? ldt_page * kPageSize : 0;
  layout.gdt = gdt_page * kPageSize;
  layout.sentinel = sentinel_page * kPageSize;
  layout.scratch = scratch_page * kPageSize;
  layout.scratch_size = scratch_pages * kPageSize;
  layout.tls_blocks = tls_page * kPageSize;
  scratch_next = layout.scratch;

  // Stubs: resolve pointers through the snapshot; targets outside it get a harness page (int3).
  GuestAddr tls_next = layout.tls_blocks;
  std::vector<std::uint32_t> stub_pages;
  for (const StubSpec& s : cfg.stubs) {
    auto rt = std::make_unique<StubRt>();
    rt->spec = s;
    rt->active = s.active;
    rt->machine = this;
    if (s.address) {
      rt->at = *s.address;
    } else if (s.pointer) {
      auto bytes = snap.read(*s.pointer, 4);
      if (!bytes.ok())
        return Error::make(Errc::kUsage, "stub '{}': its pointer 0x{:08x} is not in the snapshot", s.name, *s.pointer);
      std::memcpy(&rt->at, bytes->data(), 4);
    } else {
      return Error::make(Errc::kUsage, "stub '{}' has neither address nor pointer", s.name);
    }
    if (s.action == StubSpec::Action::kTlsBlock) {
      rt->tls_block = tls_next;
      tls_next += align_up(std::max<std::uint32_t>(s.block_size, 16), 16);
    }
    const std::uint32_t p = rt->at / kPageSize;
    if (!(page_prot[p] & kPresent)) {
      claim(p, 1, kProtRead | kProtExec, kHarnessInternal);
      stub_pages.push_back(p);
    } else if (!(page_prot[p] & kProtExec)) {
      return Error::make(Errc::kUsage, "stub '{}' at 0x{:08x}: that address is in non-executable memory ({})", s.name,
                         rt->at, prot_string(page_prot[p] & 7));
    }
    stubs.push_back(std::move(rt));
  }

  if (uc_err err = uc_open(UC_ARCH_X86, UC_MODE_32, &uc); err != UC_ERR_OK)
    return Error::make(Errc::kUnsupported, "Unicorn cannot open an x86-32 engine: {}", uc_strerror(err));
  LOCKSTEP_TRY_STATUS(map_all());
  for (const Region& r : snap.regions) {
    // Copy region bytes into the host pages. The host pages arrive zeroed and cost nothing until
    // written, so zero bytes are not copied: a recording's mostly empty 8 MiB stack stays untouched.
    std::uint64_t done = 0;
    while (done < r.bytes.size()) {
      const std::uint64_t a = r.base + done;
      const std::uint32_t off = static_cast<std::uint32_t>(a % kPageSize);
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(r.bytes.size() - done, kPageSize - off));
      const std::uint8_t* from = r.bytes.data() + done;
      const bool zero = from[0] == 0 && std::memcmp(from, from + 1, n - 1) == 0;
      if (!zero) std::memcpy(host_page[a / kPageSize] + off, from, n);
      done += n;
    }
  }
  std::memset(host_page[sentinel_page], 0xcc, kPageSize);  // anything but the exit itself traps
  for (std::uint32_t p : stub_pages) std::memset(host_page[p], 0xcc, kPageSize);

  // GDT and LDT (descriptor_tables.hpp; machine.hpp says why SS gets its own descriptor).
  LOCKSTEP_TRY(const machine_detail::DescriptorTables tables,
               machine_detail::build_descriptor_tables(snap, thread, layout.ldt));
  const std::uint16_t cs = tables.cs, ds = tables.ds, es = tables.es, fs = tables.fs, gs = tables.gs, ss = tables.ss;
  std::memcpy(host_page[gdt_page], tables.gdt.data(), kPageSize);
  if (!tables.ldt.empty()) {
    std::memcpy(host_page[ldt_page], tables.ldt.data(), tables.ldt.size() * 8);
    for (std::uint32_t p = ldt_page; p < ldt_page + ldt_pages; ++p)
      internal_pristine[p].assign(host_page[p], host_page[p] + kPageSize);
  }
  internal_pristine[gdt_page].assign(host_page[gdt_page], host_page[gdt_page] + kPageSize);
  internal_pristine[sentinel_page].assign(host_page[sentinel_page], host_page[sentinel_page] + kPageSize);
  for (std::uint32_t p : stub_pages) internal_pristine[p].assign(host_page[p], host_page[p] + kPageSize);

  uc_x86_mmr gdtr{};
  gdtr.base = layout.gdt;
  gdtr.limit = kPageSize - 1;
  if (uc_err err = uc_reg_write(uc, UC_X86_REG_GDTR, &gdtr); err != UC_ERR_OK)
    return Error::make(Errc::kUnsupported, "cannot set the GDT: {}", uc_strerror(err));
  if (!tables.ldt.empty()) {
    // LDTR as `lldt` would load it: the selector of its GDT descriptor, and the table's base and limit.
    uc_x86_mmr ldtr{};
    ldtr.selector = tables.ldt_selector;
    ldtr.base = layout.ldt;
    ldtr.limit = static_cast<std::uint32_t>(tables.ldt.size() * 8 - 1);
    ldtr.flags = 0x82u << 8;  // QEMU keeps a descriptor's access byte in bits 8..15 of its flags
    if (uc_err err = uc_reg_write(uc, UC_X86_REG_LDTR, &ldtr); err != UC_ERR_OK)
      return Error::make(Errc::kUnsupported, "cannot set the LDT: {}", uc_strerror(err));
  }
  // SS first: it must match the CPL (0) before anything else is loaded.
  const std::pair<int, std::uint16_t> segs[] = {{UC_X86_REG_SS, ss}, {UC_X86_REG_CS, cs}, {UC_X86_REG_DS, ds},
                                                {UC_X86_REG_ES, es}, {UC_X86_REG_FS, fs}, {UC_X86_REG_GS, gs}};
  for (auto [reg, sel] : segs) {
    std::uint32_t v = sel;
    if (uc_err err = uc_reg_write(uc, reg, &v); err != UC_ERR_OK)
      return Error::make(Errc::kUnsupported, "cannot load segment selector 0x{:04x}: {}", sel, uc_strerror(err));
  }

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

  std::uint64_t exit = layout.sentinel;
  if (uc_ctl_exits_enable(uc) != UC_ERR_OK || uc_ctl_set_exits(uc, &exit, std::size_t{1}) != UC_ERR_OK)
    return Error::make(Errc::kUnsupported, "this Unicorn has no exit list (uc_ctl_set_exits)");

  if (uc_err err = uc_context_alloc(uc, &baseline); err != UC_ERR_OK)
    return Error::make(Errc::kUnsupported, "cannot allocate a Unicorn context: {}", uc_strerror(err));
  write_registers(initial_registers());
  uc_context_save(uc, baseline);  // save before any restore (unicorn-engine/unicorn#2319)
  return {};
}

Result<CallOutcome> Machine::Impl::call(const CallSpec& spec) {
  // Arguments: blocks into scratch, then the convention's plan.
  std::vector<PlacedArg> placed;
  for (const Arg& a : spec.args) {
    PlacedArg p;
    if (a.kind == Arg::Kind::kF64) {
      p.is_f64 = true;
      p.f64 = a.f64;
    } else if (a.kind == Arg::Kind::kBlock) {
      const std::uint64_t at = align_up(scratch_next, 16);
      if (at + a.block.size() > std::uint64_t{layout.scratch} + layout.scratch_size)
        return Error::make(Errc::kLimit, "argument block of {} bytes does not fit in the machine's scratch ({} bytes)",
                           a.block.size(), layout.scratch_size);
      LOCKSTEP_TRY_STATUS(host_write(static_cast<GuestAddr>(at), a.block));
      p.word = static_cast<GuestAddr>(at);
      scratch_next = static_cast<GuestAddr>(at + a.block.size());
    } else {
      p.word = a.word;
    }
    placed.push_back(p);
  }
  LOCKSTEP_TRY(CallPlan plan, plan_call(spec.convention, placed));
  const std::uint32_t top = (thread.esp - cfg.stack_gap) & ~15u;
  const std::uint64_t need = plan.stack.size() + 4;
  if (top < layout.stack_low + need + 0x1000 || thread.esp < cfg.stack_gap)
    return Error::make(Errc::kLimit, "the stack (0x{:08x}..0x{:08x}) has no room below esp 0x{:08x} for the call",
                       layout.stack_low, layout.stack_high, thread.esp);
  const GuestAddr entry_esp = static_cast<GuestAddr>(top - need);
  // The return address (the sentinel the run stops at), little-endian, then the stack arguments.
  std::vector<std::uint8_t> frame;
  frame.reserve(4 + plan.stack.size());
  for (int shift = 0; shift < 32; shift += 8) frame.push_back(static_cast<std::uint8_t>(layout.sentinel >> shift));
  frame.insert(frame.end(), plan.stack.begin(), plan.stack.end());
  LOCKSTEP_TRY_STATUS(host_write(entry_esp, frame));

  uc_context_restore(uc, baseline);
  Registers regs = initial_registers();
  for (auto [reg, v] : plan.registers) regs[reg] = v;
  regs.esp = entry_esp;
  regs.eip = spec.function;
  return run(spec.function, regs, spec.returns);
}

Result<CallOutcome> Machine::Impl::call_from(GuestAddr function, const Registers& entry, ReturnKind returns) {
  const GuestAddr entry_esp = entry.esp;
  if (entry_esp < layout.stack_low + 0x1000 || entry_esp > layout.stack_high - 4)
    return Error::make(Errc::kUsage,
                       "entry esp 0x{:08x} is not inside the machine's stack 0x{:08x}..0x{:08x} (with a page free below)",
                       entry_esp, layout.stack_low, layout.stack_high);
  // The return address slot holds the sentinel: the call ends where the harness's calls end.
  std::uint8_t ret[4];
  std::memcpy(ret, &layout.sentinel, 4);
  LOCKSTEP_TRY_STATUS(host_write(entry_esp, ret));
  uc_context_restore(uc, baseline);
  Registers regs = entry;
  regs.eip = function;
  return run(function, regs, returns);
}

Result<CallOutcome> Machine::Impl::run(GuestAddr function, const Registers& regs, ReturnKind returns) {
  const GuestAddr entry_esp = regs.esp;
  write_registers(regs);

  CallOutcome out;
  out.record.function = function;
  out.record.return_address = layout.sentinel;
  out.record.in = read_registers();
  frames.clear();
  recording.clear();
  writer_floor = ~GuestAddr{0};
  top_entry_esp = entry_esp;
  pending = Pending{};
  blocks = 0;
  instructions = 0;
  deadline.reset();
  if (cfg.timeout_ms != 0) deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(cfg.timeout_ms);
  if (cfg.record) push_frame(function, layout.sentinel, entry_esp, 0, 0, true, out.record.in);

  const uc_err err = uc_emu_start(uc, function, 0, 0, 0);
  out.blocks = blocks;
  out.instructions = instructions;
  const Registers after = read_registers();
  std::optional<Fault> fault;
  if (pending.set) {
    fault = make_fault(pending.kind, pending.address, pending.size, pending.interrupt, err);
  } else if (err != UC_ERR_OK) {
    StopKind k = StopKind::kEngineError;
    if (err == UC_ERR_INSN_INVALID) k = StopKind::kInvalidInstruction;
    fault = make_fault(k, after.eip, 0, 0, err);
  } else if (after.eip != layout.sentinel) {
    std::size_t timed_out = 0;
    uc_query(uc, UC_QUERY_TIMEOUT, &timed_out);
    fault = make_fault(timed_out ? StopKind::kTimeout : StopKind::kUnexpectedStop, after.eip, 0, 0, err);
  }
  // Watched calls still open: the ones returning to the sentinel finished with this call.
  while (!frames.empty() && frames.back()->depth > 0) {
    const bool done = !fault && frames.back()->ret == layout.sentinel && after.esp > frames.back()->entry_esp;
    leave_nested(done);
  }
  if (!frames.empty()) {
    CallRecord r = finish_frame(*frames.back(), !fault);
    frames.clear();
    recording.clear();
    r.in = out.record.in;
    out.record = std::move(r);
  } else {
    out.record.out = after;
    out.record.complete = !fault;
  }
  out.record.effects.entry_esp = entry_esp;
  out.record.effects.stack_low = layout.stack_low;
  out.value = return_value(returns, after);
  out.popped = static_cast<std::int64_t>(after.esp) - (static_cast<std::int64_t>(entry_esp) + 4);
  out.fault = std::move(fault);
  return out;
}

// ---- Machine ----

MachineConfig config_from_profile(const Profile& profile) {
  MachineConfig c;
  c.default_fpu_control = profile.fpu_control_word;
  c.default_mxcsr = profile.mxcsr;
  c.stubs = profile.stubs;
  return c;
}

Machine::Machine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Machine::~Machine() = default;

Result<std::unique_ptr<Machine>> Machine::create(const Snapshot& snapshot, MachineConfig config) {
  auto impl = std::make_unique<Impl>(snapshot, std::move(config));
  LOCKSTEP_TRY_STATUS(impl->setup());
  return std::unique_ptr<Machine>(new Machine(std::move(impl)));
}

void Machine::reset() {
  impl_->reset_memory();
  uc_context_restore(impl_->uc, impl_->baseline);
}

Result<CallOutcome> Machine::call(const CallSpec& spec) { return impl_->call(spec); }

Result<CallOutcome> Machine::call_from(GuestAddr function, const Registers& entry, ReturnKind returns) {
  return impl_->call_from(function, entry, returns);
}

void Machine::set_block_observer(BlockObserver* observer) noexcept { impl_->block_observer = observer; }
void Machine::set_instruction_observer(InstructionObserver* observer) noexcept { impl_->instruction_observer = observer; }

Status Machine::write(GuestAddr address, std::span<const std::uint8_t> bytes) {
  return impl_->host_write(address, bytes);
}

Result<std::vector<std::uint8_t>> Machine::read(GuestAddr address, std::uint32_t size) const {
  return impl_->host_read(address, size);
}

bool Machine::is_mapped(GuestAddr address) const noexcept { return impl_->host_page[address / kPageSize] != nullptr; }

Status Machine::set_stub_active(std::string_view name, bool active) {
  bool found = false;
  for (auto& s : impl_->stubs)
    if (s->spec.name == name) {
      s->active = active;
      found = true;
    }
  if (!found) return Error::make(Errc::kNotFound, "no stub named '{}'", name);
  return {};
}

Result<GuestAddr> Machine::stub_address(std::string_view name) const {
  for (auto& s : impl_->stubs)
    if (s->spec.name == name) return s->at;
  return Error::make(Errc::kNotFound, "no stub named '{}'", name);
}

void Machine::set_observer(CallObserver* observer) noexcept { impl_->observer = observer; }
const MachineLayout& Machine::layout() const noexcept { return impl_->layout; }
const MachineConfig& Machine::config() const noexcept { return impl_->cfg; }
Registers Machine::initial_registers() const { return impl_->initial_registers(); }
std::string Machine::disassemble(GuestAddr address) const { return impl_->disassemble(address); }

}  // namespace lockstep::harness
