// The Unicorn machine: a whole-process snapshot as ONE Unicorn engine, reused across calls, that
// calls the original's functions the way the game calls them and records every byte they touch.
//
// Contract (dynarmic style):
// - Machine::create() takes the snapshot and a MachineConfig whose every field has a documented
//   default. Input errors (a config that makes no sense, a snapshot that cannot be mapped, an
//   argument block that does not fit) are Results.
// - A guest event (a fault, a system call, an invalid instruction, a budget running out) is never a
//   crash and never an Error: call() returns a CallOutcome whose `fault` says what happened, where,
//   with the instruction disassembled, the registers and the call chain.
// - The snapshot must outlive the machine: restoring memory between calls reads its bytes.
//
// Memory: every page a snapshot region touches is mapped (zero-copy, uc_mem_map_ptr) with the union
// of the protections of the regions on it (a page shared by code and data is therefore executable:
// code on it must run; real snapshots are page-aligned and never hit this). Data and stack pages are
// never executable. Below the stack region, `stack_extension` bytes are mapped if free (Linux's
// [stack] grows on demand and a snapshot holds only what was touched). The harness owns a few pages
// at a free address: the GDT, the sentinel return page, scratch memory for argument blocks, the
// tls_block stubs' blocks.
//
// Segments: UC_X86_REG_FS_BASE/GS_BASE do nothing in 32-bit mode (unicorn-engine/unicorn#1529), so the machine writes a
// GDT: flat code (DPL 3) and data (DPL 3) descriptors at the snapshot thread's cs/ds/es indexes, a
// data descriptor based at fs_base at fs's index and one at gs_base at gs's index, and a flat DPL 0
// stack descriptor at a free index for ss (Unicorn runs at CPL 0, and SS must match the CPL; the
// guest therefore sees ss = that index << 3, not the snapshot's selector). A Watcom memmove that
// reloads es from the stack works; fs:/gs: reads see the thread's TEB or TLS block.
// When the process has an LDT (Snapshot::ldt: Wine's per-thread TEB selectors) or the thread holds a
// selector with TI = 1, the machine also builds an LDT in its own pages and loads LDTR, so FS, GS
// and any data selector in the LDT work (src/machine/descriptor_tables.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/calls/conventions.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/calls/recorder.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness {

struct MachineConfig {
  /// x87 control word a call starts with when the snapshot's thread has no FPU state
  /// (Thread::x87_valid false). 0x037f is what fninit sets; POD's thread runs 0x027f (profile).
  std::uint16_t default_fpu_control = 0x037f;
  /// MXCSR when the thread has no FPU state.
  std::uint32_t default_mxcsr = 0x1f80;
  /// Index into Snapshot::threads of the thread whose registers, segments and stack a call uses.
  std::size_t thread = 0;
  /// Byte-level access recording: one UC_HOOK_MEM_READ + one UC_HOOK_MEM_WRITE hook, registered
  /// before the first emulation. Also gives exact restores (only pages written are copied back).
  /// Off: no memory hooks at all (1.2-1.4x faster, tests/bench), CallRecord::effects stay empty, and reset()
  /// compares every writable page with the snapshot.
  bool record = true;
  /// Translated blocks a call may execute before it is stopped (StopKind::kBudgetExceeded); counted
  /// by a UC_HOOK_BLOCK, never by uc_emu_start's `count` (which costs 5-10x). 0 = no block budget.
  std::uint64_t block_budget = 100'000'000;
  /// Counts every instruction executed (a UC_HOOK_CODE on all code: 5-10x slower). For calibrating
  /// benchmarks and for reports that need exact counts, never for normal runs.
  bool count_instructions = false;
  /// Wall-clock limit per call in milliseconds, read by the block hook every 4096 blocks; 0 = none.
  std::uint32_t timeout_ms = 0;
  /// Bytes left free below the snapshot thread's esp before a call's arguments (its live frames
  /// above stay untouched).
  std::uint32_t stack_gap = 0x100;
  /// Bytes mapped (read/write) below the stack region when that space is free. 0 = none.
  std::uint32_t stack_extension = 0x40000;
  /// Harness scratch memory for argument blocks (Arg::bytes), reset by reset().
  std::uint32_t scratch_size = 0x100000;
  /// Stubs (from the profile). `pointer` stubs are resolved through the snapshot; a target outside
  /// every region gets a harness page mapped there.
  std::vector<StubSpec> stubs;
  /// Functions whose every call inside a run is offered to the CallObserver (nested capture). Their
  /// entry hooks must exist before the first emulation, so they are fixed here.
  std::vector<GuestAddr> watched;
  /// Instructions whose every execution is shown to the InstructionObserver with the registers
  /// (coverage labels a condition's memory operands this way). One code hook each, fixed here.
  std::vector<GuestAddr> observed_instructions;
};

/// A config with the profile's FPU defaults and stubs (driver-only stubs inactive).
MachineConfig config_from_profile(const Profile& profile);

/// Why a call stopped.
enum class StopKind {
  kReturned,            ///< reached the sentinel return address
  kReadUnmapped,
  kWriteUnmapped,
  kFetchUnmapped,       ///< includes calls to addresses outside the snapshot
  kReadProtected,
  kWriteProtected,
  kFetchProtected,      ///< e.g. jumping into data (never executable)
  kInvalidInstruction,
  kInterrupt,           ///< int N, int3, or a CPU exception (divide error is interrupt 0)
  kSyscall,             ///< syscall / sysenter
  kImportWithoutStub,   ///< reached the trap of an import no [[stub]] replaces (pe32.hpp import_trap_at)
  kBudgetExceeded,      ///< MachineConfig::block_budget
  kTimeout,             ///< MachineConfig::timeout_ms
  kUnexpectedStop,      ///< emulation ended elsewhere without an error (hlt at CPL 0)
  kEngineError,         ///< Unicorn reported an error it gives no detail for
};
const char* stop_kind_name(StopKind k) noexcept;  ///< "read-unmapped", ...

/// A return address found on the stack at the fault, innermost first.
struct ChainEntry {
  GuestAddr return_address = 0;  ///< where the call returns to
  GuestAddr call_site = 0;       ///< the call instruction before it
  std::optional<GuestAddr> callee;  ///< the called address when the call is direct (e8 rel32)
};

/// A guest event that stopped a call.
struct Fault {
  StopKind kind = StopKind::kEngineError;
  GuestAddr eip = 0;             ///< the instruction that faulted (best effort: see machine.md)
  GuestAddr address = 0;         ///< the memory address for memory faults; eip otherwise
  std::uint32_t size = 0;        ///< access size for memory faults
  std::uint32_t interrupt = 0;   ///< interrupt number (kInterrupt)
  std::string instruction;       ///< "mov eax, dword ptr [ecx + 4]" or "(unreadable)"
  Registers registers;
  /// Return addresses on the stack between esp and the call's entry esp that follow a call
  /// instruction (a heuristic scan: see machine.md), innermost first.
  std::vector<ChainEntry> call_chain;
  /// Watched functions active at the fault (exact), outermost first.
  std::vector<GuestAddr> watched_chain;
  std::string message;           ///< one line: "read-unmapped: read of 4 bytes at 0x00000010"
};

/// A multi-line report: kind, address, instruction, registers, call chain.
std::string format_fault(const Fault& f);

/// What call() needs.
struct CallSpec {
  GuestAddr function = 0;
  CallingConvention convention;
  std::vector<Arg> args;
  ReturnKind returns = ReturnKind::kEax;
};

struct CallOutcome {
  std::optional<Fault> fault;     ///< empty when the call returned
  CallRecord record;              ///< registers in/out; effects when MachineConfig::record
  ReturnValue value;              ///< per CallSpec::returns (valid when returned)
  std::uint64_t blocks = 0;       ///< translated blocks executed (when a block hook is installed)
  std::uint64_t instructions = 0; ///< instructions executed (MachineConfig::count_instructions only)
  /// esp after return minus (entry esp + 4): the bytes the callee popped.
  std::int64_t popped = 0;
  bool returned() const noexcept { return !fault.has_value(); }
};

/// Receives every translated block the machine executes, in order (coverage: instruction hit counts
/// and which edge each conditional branch took). A block is straight-line code ending at a branch, a
/// page end or QEMU's block size limit; `size` is its length in bytes.
class BlockObserver {
 public:
  virtual ~BlockObserver() = default;
  virtual void on_block(GuestAddr address, std::uint32_t size) = 0;
};

/// Shown each execution of MachineConfig::observed_instructions, before the instruction runs, with the
/// general registers, eip and eflags (the x87 part of `registers` is not read: too costly per hook).
class InstructionObserver {
 public:
  virtual ~InstructionObserver() = default;
  virtual void on_instruction(GuestAddr address, const Registers& registers) = 0;
};

/// Where the harness put its own pages.
struct MachineLayout {
  GuestAddr gdt = 0;
  GuestAddr ldt = 0;          ///< the LDT (0: the snapshot and thread need none)
  GuestAddr sentinel = 0;     ///< the return address every call returns to (an exit)
  GuestAddr scratch = 0;
  std::uint32_t scratch_size = 0;
  GuestAddr tls_blocks = 0;   ///< tls_block stubs' blocks
  GuestAddr stack_low = 0;    ///< the stack mapping [stack_low, stack_high) (extension included)
  GuestAddr stack_high = 0;
};

class Machine {
 public:
  /// Maps the snapshot, builds the GDT, installs stubs and hooks. Errors: kUsage (bad thread index,
  /// a stub pointer outside the snapshot), kMalformed (regions that cannot be mapped), kLimit (no
  /// free address range for the harness pages).
  static Result<std::unique_ptr<Machine>> create(const Snapshot& snapshot, MachineConfig config);
  ~Machine();
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  /// Restores every byte written since the last reset (by guest code or by write()) to the
  /// snapshot's value, empties scratch, and restores the CPU context.
  void reset();

  /// Runs one call on the current memory (call reset() first for a clean state). The CPU starts
  /// from the snapshot thread's registers, the arguments placed per convention, the return address
  /// the sentinel. Errors only for bad input (a block too large for scratch, a stack that cannot
  /// hold the arguments); a guest fault is CallOutcome::fault.
  Result<CallOutcome> call(const CallSpec& spec);

  /// Runs `function` from exactly these registers (a case's entry state: esp points at the return
  /// address slot, which gets the sentinel; eip is set to `function`), on the current memory. For
  /// re-running a recorded call. Errors: kUsage when entry.esp is outside the machine's stack.
  Result<CallOutcome> call_from(GuestAddr function, const Registers& entry, ReturnKind returns);

  /// Host-side memory access (not recorded; written pages are restored by reset()). Fails
  /// (kNotFound) when any byte is unmapped.
  Status write(GuestAddr address, std::span<const std::uint8_t> bytes);
  Result<std::vector<std::uint8_t>> read(GuestAddr address, std::uint32_t size) const;
  bool is_mapped(GuestAddr address) const noexcept;

  /// Turns the named stub on or off (kNotFound if there is none).
  Status set_stub_active(std::string_view name, bool active);
  /// The address a stub sits at (pointers resolved), or kNotFound.
  Result<GuestAddr> stub_address(std::string_view name) const;

  /// The observer offered every call of MachineConfig::watched (null: none).
  void set_observer(CallObserver* observer) noexcept;
  /// The observer shown every executed block (null: none).
  void set_block_observer(BlockObserver* observer) noexcept;
  /// The observer shown MachineConfig::observed_instructions (null: none).
  void set_instruction_observer(InstructionObserver* observer) noexcept;

  const MachineLayout& layout() const noexcept;
  const MachineConfig& config() const noexcept;
  /// The registers a call starts from (thread registers, FPU per config) before arguments.
  Registers initial_registers() const;
  /// The instruction at `address` disassembled ("(unreadable)" if unmapped).
  std::string disassemble(GuestAddr address) const;

  struct Impl;

 private:
  explicit Machine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lockstep::harness
