// The Unicorn machine (see machine.hpp and harness/docs/machine.md): set-up (mapping the snapshot,
// the harness pages, stubs, descriptor tables), calls and runs, and the public Machine.
#include "lockstep/machine/machine.hpp"

#include <cstring>

#include <fmt/format.h>
#include <unicorn/unicorn.h>

#include "machine_impl.hpp"

namespace lockstep::harness {

Status Machine::Impl::setup() {
  if (cfg.thread >= snap.threads.size())
    return Error::make(Errc::kUsage, "the snapshot has {} thread(s); thread index {} does not exist",
                       snap.threads.size(), cfg.thread);
  LOCKSTEP_TRY_STATUS(snap.validate());
  thread = snap.threads[cfg.thread];
  mark_snapshot_pages();
  LOCKSTEP_TRY_STATUS(place_stack());
  LOCKSTEP_TRY(const HarnessPagesAt at, place_harness_pages());
  LOCKSTEP_TRY(const std::vector<std::uint32_t> stub_pages, resolve_stubs());

  if (uc_err err = uc_open(UC_ARCH_X86, UC_MODE_32, &uc); err != UC_ERR_OK)
    return Error::make(Errc::kUnsupported, "Unicorn cannot open an x86-32 engine: {}", uc_strerror(err));
  LOCKSTEP_TRY_STATUS(map_all());
  copy_snapshot_bytes();
  std::memset(host_page[at.sentinel], 0xcc, kPageSize);  // anything but the exit itself traps
  for (std::uint32_t p : stub_pages) std::memset(host_page[p], 0xcc, kPageSize);
  LOCKSTEP_TRY_STATUS(load_descriptor_tables(at, stub_pages));
  LOCKSTEP_TRY_STATUS(install_hooks());
  return finish_engine();
}

// Pages of the snapshot, protections merged by union (see machine.hpp).
void Machine::Impl::mark_snapshot_pages() {
  for (const Region& r : snap.regions) {
    const std::uint32_t first = r.base / kPageSize;
    const std::uint32_t last = static_cast<std::uint32_t>((r.end() - 1) / kPageSize);
    for (std::uint32_t p = first; p <= last; ++p) {
      page_prot[p] = static_cast<std::uint8_t>(page_prot[p] | kPresent | (r.prot & 7));
      page_kind[p] = kSnapshotPage;
    }
  }
}

// The stack: the region holding the thread's esp, extended downwards when that space is free.
Status Machine::Impl::place_stack() {
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
  return {};
}

// Harness pages: GDT, sentinel, scratch, TLS blocks, and the LDT when the thread's selectors need one.
Result<Machine::Impl::HarnessPagesAt> Machine::Impl::place_harness_pages() {
  std::uint32_t tls_bytes = 0;
  for (const StubSpec& s : cfg.stubs)
    if (s.action == StubSpec::Action::kTlsBlock) tls_bytes += align_up(std::max<std::uint32_t>(s.block_size, 16), 16);
  const machine_detail::HarnessPages plan =
      machine_detail::plan_harness_pages(cfg.scratch_size, tls_bytes, machine_detail::ldt_entries_needed(snap, thread));
  auto free_at = find_free(plan.total);
  if (!free_at)
    return Error::make(Errc::kLimit, "no free 0x{:x}-byte range left in the 32-bit space for the harness",
                       std::uint64_t{plan.total} * kPageSize);
  HarnessPagesAt at;
  at.gdt = *free_at + plan.gdt;
  at.sentinel = *free_at + plan.sentinel;
  const std::uint32_t scratch_page = *free_at + plan.scratch, scratch_pages = plan.scratch_pages;
  const std::uint32_t tls_page = *free_at + plan.tls, tls_pages = plan.tls_pages;
  at.ldt = *free_at + plan.ldt;
  at.ldt_pages = plan.ldt_pages;
  claim(at.gdt, 1, kProtRead | kProtWrite, kHarnessInternal);
  claim(at.sentinel, 1, kProtRead | kProtExec, kHarnessInternal);
  claim(scratch_page, scratch_pages, kProtRead | kProtWrite, kHarnessData);
  claim(tls_page, tls_pages, kProtRead | kProtWrite, kHarnessData);
  if (at.ldt_pages) claim(at.ldt, at.ldt_pages, kProtRead | kProtWrite, kHarnessInternal);
  layout.ldt = at.ldt_pages ? at.ldt * kPageSize : 0;
  layout.gdt = at.gdt * kPageSize;
  layout.sentinel = at.sentinel * kPageSize;
  layout.scratch = scratch_page * kPageSize;
  layout.scratch_size = scratch_pages * kPageSize;
  layout.tls_blocks = tls_page * kPageSize;
  scratch_next = layout.scratch;
  return at;
}

// Stubs: resolve pointers through the snapshot; targets outside it get a harness page (int3).
Result<std::vector<std::uint32_t>> Machine::Impl::resolve_stubs() {
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
  return stub_pages;
}

// Copies region bytes into the host pages. The host pages arrive zeroed and cost nothing until
// written, so zero bytes are not copied: a recording's mostly empty 8 MiB stack stays untouched.
void Machine::Impl::copy_snapshot_bytes() {
  for (const Region& r : snap.regions) {
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
}

// GDT and LDT (descriptor_tables.hpp; machine.hpp says why SS gets its own descriptor), the
// internal pages' pristine copies, and the segment registers.
Status Machine::Impl::load_descriptor_tables(const HarnessPagesAt& at, const std::vector<std::uint32_t>& stub_pages) {
  LOCKSTEP_TRY(const machine_detail::DescriptorTables tables,
               machine_detail::build_descriptor_tables(snap, thread, layout.ldt));
  const std::uint16_t cs = tables.cs, ds = tables.ds, es = tables.es, fs = tables.fs, gs = tables.gs, ss = tables.ss;
  std::memcpy(host_page[at.gdt], tables.gdt.data(), kPageSize);
  if (!tables.ldt.empty()) {
    std::memcpy(host_page[at.ldt], tables.ldt.data(), tables.ldt.size() * 8);
    for (std::uint32_t p = at.ldt; p < at.ldt + at.ldt_pages; ++p)
      internal_pristine[p].assign(host_page[p], host_page[p] + kPageSize);
  }
  internal_pristine[at.gdt].assign(host_page[at.gdt], host_page[at.gdt] + kPageSize);
  internal_pristine[at.sentinel].assign(host_page[at.sentinel], host_page[at.sentinel] + kPageSize);
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
  return {};
}

// The exit list (the return sentinel) and the baseline context every call starts from.
Status Machine::Impl::finish_engine() {
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
