// The machine's implementation, shared by machine.cpp (set-up, registers, calls) and hooks.cpp (the
// Unicorn hooks). Private to the machine.
#pragma once

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
#include "lockstep/disasm/disasm.hpp"
#include "lockstep/readers/pe32.hpp"

namespace lockstep::harness {

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
namespace machine_detail {

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

inline std::uint32_t align_up(std::uint64_t v, std::uint32_t a) { return static_cast<std::uint32_t>((v + a - 1) & ~std::uint64_t{a - 1}); }

}  // namespace machine_detail
using machine_detail::align_up;
using machine_detail::Pending;
using machine_detail::StubRt;

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

  // ---- a recorded frame's end (the recorder itself: access_recorder.hpp) ----

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

  /// The harness's own pages in the guest's space (page numbers), placed by place_harness_pages.
  struct HarnessPagesAt {
    std::uint32_t gdt = 0, sentinel = 0, ldt = 0, ldt_pages = 0;
  };

  /// Maps the snapshot, the harness pages, the stubs and the descriptor tables into a new Unicorn
  /// engine, and saves the registers every call starts from (machine.cpp, in the parts below).
  Status setup();
  void mark_snapshot_pages();
  Status place_stack();
  Result<HarnessPagesAt> place_harness_pages();
  /// Returns the pages claimed for stubs outside the snapshot (filled with int3 once mapped).
  Result<std::vector<std::uint32_t>> resolve_stubs();
  void copy_snapshot_bytes();
  Status load_descriptor_tables(const HarnessPagesAt& at, const std::vector<std::uint32_t>& stub_pages);
  Status finish_engine();
  /// Adds every Unicorn hook the config asks for (hooks.cpp), all before the first emulation.
  Status install_hooks();
  Result<CallOutcome> call(const CallSpec& spec);
  Result<CallOutcome> call_from(GuestAddr function, const Registers& entry, ReturnKind returns);
  Result<CallOutcome> run(GuestAddr function, const Registers& regs, ReturnKind returns);
};

}  // namespace lockstep::harness
