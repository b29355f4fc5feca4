// The machine: conventions, segments, the FPU, stubs, faults, reuse across calls, nested calls.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "fixture.hpp"

namespace lockstep::harness::test {
namespace {

std::unique_ptr<Machine> machine(const Snapshot& s, MachineConfig cfg = {}) {
  auto m = Machine::create(s, std::move(cfg));
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? std::move(*m) : nullptr;
}

CallOutcome must_call(Machine& m, const CallSpec& spec) {
  auto o = m.call(spec);
  EXPECT_TRUE(o.ok()) << (o.ok() ? "" : o.error().message);
  if (!o.ok()) return {};
  EXPECT_TRUE(o->returned()) << (o->fault ? format_fault(*o->fault) : "");
  return std::move(*o);
}

TEST(Conventions, PlanPlacesRegistersThenStack) {
  PlacedArg a[6];
  for (int i = 0; i < 6; ++i) a[i].word = static_cast<std::uint32_t>(i + 1);
  auto w = plan_call({Convention::kWatcom, {}}, a);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->registers.size(), 4u);
  EXPECT_EQ(w->registers[0], (std::pair{Reg::kEax, 1u}));
  EXPECT_EQ(w->registers[1], (std::pair{Reg::kEdx, 2u}));
  EXPECT_EQ(w->registers[2], (std::pair{Reg::kEbx, 3u}));
  EXPECT_EQ(w->registers[3], (std::pair{Reg::kEcx, 4u}));
  EXPECT_EQ(w->stack, (std::vector<std::uint8_t>{5, 0, 0, 0, 6, 0, 0, 0}));
  EXPECT_EQ(w->callee_pops, 8u);
  auto c = plan_call({Convention::kCdecl, {}}, std::span(a, 2));
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->registers.empty());
  EXPECT_EQ(c->callee_pops, 0u);
  auto f = plan_call({Convention::kFastcall, {}}, std::span(a, 3));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->registers[0].first, Reg::kEcx);
  EXPECT_EQ(f->registers[1].first, Reg::kEdx);
  EXPECT_EQ(f->stack.size(), 4u);
  EXPECT_FALSE(plan_call({Convention::kCustom, {}}, a).ok());
  EXPECT_FALSE(plan_call({Convention::kCustom, {Reg::kEsi, Reg::kEsi}}, a).ok());
}

TEST(Conventions, EveryConventionRunsAndReturns) {
  // One function per convention, each returning the arguments combined so their order shows.
  const std::string src = R"(
  watcom:                      ; a*1 + b*2 + c*4 + d*8 + e*16 + f*32, ret 8
    lea eax, [eax + edx*2]
    lea eax, [eax + ebx*4]
    lea eax, [eax + ecx*8]
    mov edx, [esp+4]
    shl edx, 4
    add eax, edx
    mov edx, [esp+8]
    shl edx, 5
    add eax, edx
    ret 8
    align 16
  cdecl:                       ; a - b
    mov eax, [esp+4]
    sub eax, [esp+8]
    ret
    align 16
  stdcall:                     ; a - b, pops 8
    mov eax, [esp+4]
    sub eax, [esp+8]
    ret 8
    align 16
  fastcall:                    ; ecx - edx - [esp+4], pops 4
    mov eax, ecx
    sub eax, edx
    sub eax, [esp+4]
    ret 4
    align 16
  thiscall:                    ; ecx - [esp+4]
    mov eax, ecx
    sub eax, [esp+4]
    ret 4
    align 16
  custom:                      ; esi - edi
    mov eax, esi
    sub eax, edi
    ret
    align 16
  wide:                        ; edx:eax = eax * edx (64-bit)
    mul edx
    ret
    align 16
  fpu:                         ; st0 = [esp+4] (double) / 4
    fld qword [esp+4]
    push dword 4
    fidiv dword [esp]
    add esp, 4
    ret 8
    align 16
  block:                       ; sum of the 5 bytes at eax
    movzx ecx, byte [eax]
    movzx edx, byte [eax+1]
    add ecx, edx
    movzx edx, byte [eax+2]
    add ecx, edx
    movzx edx, byte [eax+3]
    add ecx, edx
    movzx edx, byte [eax+4]
    add ecx, edx
    mov eax, ecx
    ret
  )";
  auto code = assemble(src);
  Snapshot s = make_snapshot(code);
  auto m = machine(s);
  ASSERT_TRUE(m);
  // nasm gives no label map: find each function by its first instruction (all start 16-aligned).
  auto find = [&](const std::string& first) {
    for (GuestAddr a = kCode; a < kCode + code.size(); ++a)
      if (a % 16 == 0 && m->disassemble(a) == first) return a;
    ADD_FAILURE() << "no function starting with " << first;
    return GuestAddr{0};
  };
  const GuestAddr watcom = kCode;
  const GuestAddr cdecl_fn = find("mov eax, dword ptr [esp + 4]");
  const GuestAddr stdcall_fn = cdecl_fn + 16;
  const GuestAddr fastcall_fn = find("mov eax, ecx");
  const GuestAddr thiscall_fn = fastcall_fn + 16;
  const GuestAddr custom_fn = find("mov eax, esi");
  const GuestAddr wide_fn = find("mul edx");
  const GuestAddr fpu_fn = find("fld qword ptr [esp + 4]");
  const GuestAddr block_fn = find("movzx ecx, byte ptr [eax]");

  auto o = must_call(*m, watcom_call(watcom, {Arg::u32(1), Arg::u32(1), Arg::u32(1), Arg::u32(1), Arg::u32(1), Arg::u32(1)}));
  EXPECT_EQ(o.value.eax, 63u);
  EXPECT_EQ(o.popped, 8);
  o = must_call(*m, watcom_call(watcom, {Arg::u32(1), Arg::u32(0), Arg::u32(0), Arg::u32(0), Arg::u32(0), Arg::u32(2)}));
  EXPECT_EQ(o.value.eax, 65u);

  CallSpec c;
  c.convention.kind = Convention::kCdecl;
  c.function = cdecl_fn;
  c.args = {Arg::u32(10), Arg::u32(3)};
  o = must_call(*m, c);
  EXPECT_EQ(o.value.eax, 7u);
  EXPECT_EQ(o.popped, 0);
  c.convention.kind = Convention::kStdcall;
  c.function = stdcall_fn;
  o = must_call(*m, c);
  EXPECT_EQ(o.value.eax, 7u);
  EXPECT_EQ(o.popped, 8);
  c.convention.kind = Convention::kFastcall;
  c.function = fastcall_fn;
  c.args = {Arg::u32(100), Arg::u32(10), Arg::u32(1)};
  o = must_call(*m, c);
  EXPECT_EQ(o.value.eax, 89u);
  EXPECT_EQ(o.popped, 4);
  c.convention.kind = Convention::kThiscall;
  c.function = thiscall_fn;
  c.args = {Arg::u32(100), Arg::u32(1)};
  o = must_call(*m, c);
  EXPECT_EQ(o.value.eax, 99u);
  c.convention = {Convention::kCustom, {Reg::kEsi, Reg::kEdi}};
  c.function = custom_fn;
  c.args = {Arg::i32(5), Arg::i32(8)};
  o = must_call(*m, c);
  EXPECT_EQ(static_cast<std::int32_t>(o.value.eax), -3);

  o = must_call(*m, watcom_call(wide_fn, {Arg::u32(0x80000000u), Arg::u32(6)}, ReturnKind::kEdxEax));
  EXPECT_EQ(o.value.edx_eax(), 0x80000000ull * 6);
  o = must_call(*m, watcom_call(fpu_fn, {Arg::f(10.0)}, ReturnKind::kSt0));
  EXPECT_EQ(o.value.st0, 2.5);
  EXPECT_EQ(o.popped, 8);
  o = must_call(*m, watcom_call(block_fn, {Arg::bytes({1, 2, 3, 4, 250})}));
  EXPECT_EQ(o.value.eax, 260u);
  // The block lies in scratch: it is one of the call's inputs.
  EXPECT_EQ(find_bytes(o.record.effects.inputs, m->layout().scratch, 5), (std::vector<std::uint8_t>{1, 2, 3, 4, 250}));
}

TEST(Segments, EsReloadAndGsReadsWork) {
  // Watcom's memmove reloads es from the stack; fs:/gs: reads see the thread's base.
  auto code = assemble(R"(
    push es
    pop es
    mov eax, [gs:0x10]
    mov edi, 0x600100
    mov ecx, 4
    mov esi, 0x600000
    rep movsb
    ret)");
  Snapshot s = make_snapshot(code);
  auto m = machine(s);
  ASSERT_TRUE(m);
  auto o = must_call(*m, watcom_call(kCode));
  EXPECT_EQ(o.value.eax, 0x93929190u);  // TLS bytes are 0x80 + offset
  EXPECT_EQ(find_bytes(o.record.effects.inputs, kTls + 0x10, 4), (std::vector<std::uint8_t>{0x90, 0x91, 0x92, 0x93}));
  // The GDT reads of the es reload are harness memory: not in the effects.
  for (const ByteRun& r : o.record.effects.inputs) EXPECT_NE(r.addr & ~0xfffu, m->layout().gdt);
}

TEST(Segments, WindowsFsIsTheTeb) {
  auto code = assemble("mov eax, [fs:0x18]\nmov edx, fs\nret");
  Snapshot s = make_snapshot(code, /*windows=*/true);
  auto m = machine(s);
  ASSERT_TRUE(m);
  auto o = must_call(*m, watcom_call(kCode));
  EXPECT_EQ(o.value.eax, 0x9b9a9998u);
  EXPECT_EQ(o.record.out.edx & 0xffff, 0x3bu);  // the snapshot's selector
}

/// Runs 1/3 (or x/y) under a given control word and returns the 80-bit result.
std::array<std::uint8_t, 10> third(std::uint16_t cw, bool from_thread) {
  auto code = assemble(R"(
    fld1
    push dword 3
    fidiv dword [esp]
    add esp, 4
    fstp tword [0x600900]
    fnstcw [0x600910]
    ret)");
  Snapshot s = make_snapshot(code);
  MachineConfig cfg;
  if (from_thread) {
    s.threads[0].x87_valid = true;
    s.threads[0].x87.control = cw;
    cfg.default_fpu_control = 0x037f;  // must not be used
  } else {
    cfg.default_fpu_control = cw;
  }
  auto m = machine(s, cfg);
  std::array<std::uint8_t, 10> out{};
  if (!m) return out;
  auto o = must_call(*m, watcom_call(kCode));
  auto b = find_bytes(o.record.effects.outputs, 0x600900, 10);
  EXPECT_EQ(b.size(), 10u);
  std::copy(b.begin(), b.end(), out.begin());
  EXPECT_EQ(find_bytes(o.record.effects.outputs, 0x600910, 2),
            (std::vector<std::uint8_t>{static_cast<std::uint8_t>(cw), static_cast<std::uint8_t>(cw >> 8)}));
  EXPECT_EQ(o.record.in.x87.control, cw);
  return out;
}

std::uint64_t mantissa(const std::array<std::uint8_t, 10>& e) {
  std::uint64_t m;
  std::memcpy(&m, e.data(), 8);
  return m;
}

TEST(Fpu, ControlWordSetsPrecisionAndRounding) {
  // 1/3 = 0.0101...b. 64-bit precision (0x037f) keeps the full 0xaaaa...ab significand; 53-bit
  // (0x027f, POD's) rounds to the nearest double: the low 11 bits are zero and the value is 1.0/3.0.
  const auto p64 = third(0x037f, false), p53 = third(0x027f, false);
  EXPECT_EQ(mantissa(p64), 0xaaaaaaaaaaaaaaabull);
  EXPECT_EQ(mantissa(p53) & 0x7ff, 0u);
  EXPECT_EQ(x87_to_double(p53), 1.0 / 3.0);
  // Rounding control (bits 10..11) at 53 bits: down (0x067f) and up (0x0a7f) differ by one ulp.
  const auto down = third(0x067f, false), up = third(0x0a7f, false);
  EXPECT_EQ(mantissa(up) - mantissa(down), 0x800u);
  EXPECT_EQ(mantissa(down), mantissa(p53));  // 1/3's tail 0.0101.. rounds down at nearest too
  // 24-bit precision.
  const auto p24 = third(0x007f, false);
  EXPECT_EQ(mantissa(p24) & 0xffffffffffull, 0u);
  // The thread's own control word wins over the default when the snapshot has FPU state.
  EXPECT_EQ(mantissa(third(0x027f, true)), mantissa(p53));
}

TEST(Fpu, ThreadStackRegistersAreLoadedInStackOrder) {
  auto code = assemble("fstp qword [0x600a00]\nfstp qword [0x600a08]\nret");
  Snapshot s = make_snapshot(code);
  X87State& x = s.threads[0].x87;
  s.threads[0].x87_valid = true;
  x.control = 0x027f;
  x.status = 6 << 11;  // TOP = 6: two values on the stack
  x.tag = 0x0fff;      // physical 6 and 7 valid
  x.st[0] = double_to_x87(1.25);
  x.st[1] = double_to_x87(-7.5);
  auto m = machine(s);
  ASSERT_TRUE(m);
  auto o = must_call(*m, watcom_call(kCode));
  double a, b;
  auto ba = find_bytes(o.record.effects.outputs, 0x600a00, 8), bb = find_bytes(o.record.effects.outputs, 0x600a08, 8);
  ASSERT_EQ(ba.size(), 8u);
  ASSERT_EQ(bb.size(), 8u);
  std::memcpy(&a, ba.data(), 8);
  std::memcpy(&b, bb.data(), 8);
  EXPECT_EQ(a, 1.25);
  EXPECT_EQ(b, -7.5);
  EXPECT_EQ(o.record.in.x87.st[0], double_to_x87(1.25));
  EXPECT_EQ(o.record.in.x87.tag, 0x0fff);
  EXPECT_EQ(o.record.out.x87.tag, 0xffff);  // both popped: empty
}

Fault must_fault(const std::string& src, StopKind kind, MachineConfig cfg = {}) {
  Snapshot s = make_snapshot(assemble(src));
  auto m = machine(s, cfg);
  if (!m) return {};
  auto o = m->call(watcom_call(kCode));
  EXPECT_TRUE(o.ok());
  if (!o.ok()) return {};
  EXPECT_FALSE(o->returned());
  if (!o->fault) return {};
  EXPECT_EQ(o->fault->kind, kind) << format_fault(*o->fault);
  EXPECT_FALSE(o->record.complete);
  return *o->fault;
}

TEST(Faults, UnmappedReadNamesAddressInstructionAndChain) {
  Fault f = must_fault(R"(
    call inner
    ret
  inner:
    mov ecx, 0x10
    mov eax, [ecx+4]
    ret)", StopKind::kReadUnmapped);
  EXPECT_EQ(f.address, 0x14u);
  EXPECT_EQ(f.instruction, "mov eax, dword ptr [ecx + 4]");
  EXPECT_EQ(f.eip, kCode + 11);  // call(5) ret(1) mov ecx(5)
  ASSERT_EQ(f.call_chain.size(), 1u);
  EXPECT_EQ(f.call_chain[0].return_address, kCode + 5);
  EXPECT_EQ(f.call_chain[0].callee, std::optional<GuestAddr>(kCode + 6));
  EXPECT_NE(format_fault(f).find("0x00000014"), std::string::npos);
}

TEST(Faults, EveryKindStopsTheCall) {
  must_fault("mov dword [0x10], 1\nret", StopKind::kWriteUnmapped);
  Fault f = must_fault("mov eax, 0x12345678\ncall eax\nret", StopKind::kFetchUnmapped);
  EXPECT_EQ(f.eip, 0x12345678u);
  ASSERT_FALSE(f.call_chain.empty());
  EXPECT_EQ(f.call_chain[0].return_address, kCode + 7);  // after `call eax` (2 bytes)
  must_fault("mov byte [0x401000], 0x90\nret", StopKind::kWriteProtected);
  must_fault("mov eax, 0x600000\njmp eax", StopKind::kFetchProtected);  // data is never executable
  f = must_fault("ud2", StopKind::kInvalidInstruction);
  EXPECT_EQ(f.eip, kCode);
  f = must_fault("nop\nint 0x80\nret", StopKind::kInterrupt);
  EXPECT_EQ(f.interrupt, 0x80u);
  EXPECT_EQ(f.eip, kCode + 1);
  EXPECT_EQ(f.instruction, "int 0x80");
  f = must_fault("xor ecx, ecx\ndiv ecx\nret", StopKind::kInterrupt);
  EXPECT_EQ(f.interrupt, 0u);
  must_fault("sysenter", StopKind::kSyscall);
  must_fault("hlt\nret", StopKind::kUnexpectedStop);  // CPL 0: hlt ends emulation quietly
  MachineConfig small;
  small.block_budget = 1000;
  f = must_fault("spin: jmp spin", StopKind::kBudgetExceeded, small);
  EXPECT_EQ(f.eip, kCode);
}

TEST(Faults, TimeoutStopsARunawayCallWithoutABlockBudget) {
  MachineConfig cfg;
  cfg.block_budget = 0;
  cfg.timeout_ms = 50;
  must_fault("spin: jmp spin", StopKind::kTimeout, cfg);
}

TEST(Machine, OneEngineReusedAndResetRestoresMemory) {
  auto code = assemble(R"(
    mov eax, [0x600040]
    inc eax
    mov [0x600040], eax
    ret)");
  Snapshot s = make_snapshot(code);
  auto m = machine(s);
  ASSERT_TRUE(m);
  const auto before = *m->read(0x600040, 4);
  auto a = must_call(*m, watcom_call(kCode));
  auto b = must_call(*m, watcom_call(kCode));  // no reset: sees the first call's write
  EXPECT_EQ(b.value.eax, a.value.eax + 1);
  m->reset();
  EXPECT_EQ(*m->read(0x600040, 4), before);
  auto c = must_call(*m, watcom_call(kCode));
  EXPECT_EQ(c.value.eax, a.value.eax);
  EXPECT_EQ(c.record.effects.inputs.size(), a.record.effects.inputs.size());
  // Host-side writes (CTRL records, pokes) are restored as well.
  ASSERT_TRUE(m->write(0x600040, le32(0x1000)).ok());
  EXPECT_EQ(must_call(*m, watcom_call(kCode)).value.eax, 0x1001u);
  m->reset();
  EXPECT_EQ(*m->read(0x600040, 4), before);
  EXPECT_FALSE(m->write(0x10, le32(1)).ok());
}

TEST(Stubs, RetValueRetNAndTlsBlock) {
  // main calls four stubbed functions (at addresses holding ud2, which would fault if run).
  auto code = assemble(R"(
    push 0x77
    call 0x401100          ; ret_n 4 -> pops the 0x77
    call 0x401110          ; value 0x1234
    mov esi, eax
    call 0x401120          ; ret: nothing happens
    call [0x600f00]        ; pointer stub: tls_block
    mov edi, eax
    mov ecx, [eax]         ; the block is zeroed
    mov dword [eax+4], 9   ; and writable
    mov eax, esi
    ret
    times 0x100-($-$$) db 0xcc
    ud2
    times 0x110-($-$$) db 0xcc
    ud2
    times 0x120-($-$$) db 0xcc
    ud2)");
  Snapshot s = make_snapshot(code);
  ASSERT_TRUE(s.write(0x600f00, le32(0x00500000)).ok());  // points outside the snapshot
  MachineConfig cfg;
  StubSpec a;
  a.name = "pops";
  a.address = 0x401100;
  a.action = StubSpec::Action::kRetN;
  a.pop = 4;
  StubSpec b;
  b.name = "value";
  b.address = 0x401110;
  b.action = StubSpec::Action::kValue;
  b.value = 0x1234;
  StubSpec c;
  c.name = "plain";
  c.address = 0x401120;
  StubSpec d;
  d.name = "tls";
  d.pointer = 0x600f00;
  d.action = StubSpec::Action::kTlsBlock;
  d.block_size = 0x40;
  cfg.stubs = {a, b, c, d};
  auto m = machine(s, cfg);
  ASSERT_TRUE(m);
  EXPECT_EQ(*m->stub_address("tls"), 0x00500000u);
  auto o = must_call(*m, watcom_call(kCode));
  EXPECT_EQ(o.value.eax, 0x1234u);
  EXPECT_EQ(o.record.out.edi, m->layout().tls_blocks);
  EXPECT_EQ(o.record.out.ecx, 0u);
  EXPECT_EQ(o.record.out.esp, o.record.in.esp + 4);  // every push was popped
  EXPECT_EQ(find_bytes(o.record.effects.outputs, m->layout().tls_blocks + 4, 4), le32(9));
  // Turned off, the original code runs: the ud2 faults.
  ASSERT_TRUE(m->set_stub_active("plain", false).ok());
  m->reset();
  auto f = m->call(watcom_call(kCode));
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->fault);
  EXPECT_EQ(f->fault->kind, StopKind::kInvalidInstruction);
  EXPECT_EQ(f->fault->eip, 0x401120u);
  EXPECT_FALSE(m->set_stub_active("nope", true).ok());
}

class Collect : public CallObserver {
 public:
  bool on_enter(GuestAddr, std::uint64_t index, const Registers&) override { return index != skip; }
  void on_leave(const CallRecord& r) override { calls.push_back(r); }
  std::vector<CallRecord> calls;
  std::uint64_t skip = ~0ull;
};

TEST(Nested, EveryWatchedCallIsRecordedOnItsOwn) {
  // outer reads +0x50 and calls inner twice; inner reads [eax] and writes [eax+0x100], reading a
  // value outer wrote first (so for inner it is an input, for outer it is not).
  auto code = assemble(R"(
  outer:
    mov ecx, [0x600050]
    mov [0x600060], ecx
    mov eax, 0x600060
    call inner
    mov eax, 0x600070
    call inner
    ret
    align 16
  inner:
    push ebx
    mov ebx, [eax]
    add ebx, 1
    mov [eax+0x100], ebx
    pop ebx
    ret)");
  Snapshot s = make_snapshot(code);
  MachineConfig cfg;
  const GuestAddr inner = kCode + 0x30;  // outer is 33 bytes; inner starts at the next 16
  ASSERT_EQ(code[0x30], 0x53);          // push ebx
  cfg.watched = {inner};
  auto m = machine(s, cfg);
  ASSERT_TRUE(m);
  Collect obs;
  m->set_observer(&obs);
  auto o = must_call(*m, watcom_call(kCode));
  ASSERT_EQ(obs.calls.size(), 2u);
  const CallRecord& c0 = obs.calls[0];
  EXPECT_TRUE(c0.complete);
  EXPECT_EQ(c0.function, inner);
  EXPECT_EQ(c0.depth, 1u);
  EXPECT_EQ(c0.call_index, 0u);
  EXPECT_EQ(c0.return_address, kCode + 22);  // 6 + 6 + 5 + 5: after the first call
  EXPECT_EQ(c0.in.eax, 0x600060u);
  const std::vector<std::uint8_t> v50 = {static_cast<std::uint8_t>(0x50 * 7 + 1), static_cast<std::uint8_t>(0x51 * 7 + 1),
                                         static_cast<std::uint8_t>(0x52 * 7 + 1), static_cast<std::uint8_t>(0x53 * 7 + 1)};
  EXPECT_EQ(find_bytes(c0.effects.inputs, 0x600060, 4), v50);  // written by outer, input to inner
  EXPECT_EQ(byte_count(c0.effects.inputs), 4u);
  EXPECT_EQ(byte_count(c0.effects.outputs), 4u);
  EXPECT_EQ(byte_count(c0.effects.frame_writes), 4u);  // push ebx
  std::uint32_t x;
  std::memcpy(&x, v50.data(), 4);
  EXPECT_EQ(find_bytes(c0.effects.outputs, 0x600160, 4), le32(x + 1));
  EXPECT_EQ(obs.calls[1].call_index, 1u);
  EXPECT_EQ(find_bytes(obs.calls[1].effects.inputs, 0x600070, 4).size(), 4u);
  // The outer record holds both: +0x60 is not its input (it wrote it first); +0x50 and +0x70 are.
  EXPECT_TRUE(find_bytes(o.record.effects.inputs, 0x600060, 1).empty());
  EXPECT_EQ(find_bytes(o.record.effects.inputs, 0x600050, 4), v50);
  EXPECT_EQ(find_bytes(o.record.effects.outputs, 0x600160, 4), le32(x + 1));
  // Sampling: a call the observer declines is not recorded, later ones are.
  m->reset();
  obs.calls.clear();
  obs.skip = 2;  // the first call of this run is the machine's third of `inner`
  must_call(*m, watcom_call(kCode));
  ASSERT_EQ(obs.calls.size(), 1u);
  EXPECT_EQ(obs.calls[0].call_index, 3u);
}

TEST(Nested, ARunThatFaultsHandsOverIncompleteCalls) {
  auto code = assemble(R"(
    call inner
    ret
    align 16
  inner:
    mov dword [0x600000], 1
    mov eax, [0x20]
    ret)");
  Snapshot s = make_snapshot(code);
  MachineConfig cfg;
  cfg.watched = {kCode + 0x10};
  auto m = machine(s, cfg);
  ASSERT_TRUE(m);
  Collect obs;
  m->set_observer(&obs);
  auto o = m->call(watcom_call(kCode));
  ASSERT_TRUE(o.ok());
  ASSERT_TRUE(o->fault);
  EXPECT_EQ(o->fault->watched_chain, std::vector<GuestAddr>{kCode + 0x10});
  ASSERT_EQ(obs.calls.size(), 1u);
  EXPECT_FALSE(obs.calls[0].complete);
  EXPECT_EQ(byte_count(obs.calls[0].effects.outputs), 4u);
}

TEST(Machine, BadInputIsAnError) {
  Snapshot s = make_snapshot(assemble("ret"));
  MachineConfig cfg;
  cfg.thread = 3;
  EXPECT_EQ(Machine::create(s, cfg).error().code, Errc::kUsage);
  Snapshot nostack = s;
  nostack.threads[0].esp = 0x10;
  EXPECT_EQ(Machine::create(nostack, {}).error().code, Errc::kUsage);
  MachineConfig bad;
  StubSpec st;
  st.name = "x";
  st.pointer = 0x12345678;
  bad.stubs = {st};
  EXPECT_EQ(Machine::create(s, bad).error().code, Errc::kUsage);
  auto m = machine(s);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->call(watcom_call(kCode, {Arg::bytes(std::vector<std::uint8_t>(0x200000))})).error().code, Errc::kLimit);
}

}  // namespace
}  // namespace lockstep::harness::test
