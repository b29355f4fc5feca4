// The access recorder on hand-written machine code with known effects: every test states which
// bytes the code reads before writing and which it writes, and checks the recorder says exactly that.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <tuple>

#include "fixture.hpp"
#include "lockstep/disasm/disasm.hpp"

namespace lockstep::harness::test {
namespace {

std::uint8_t data_byte(GuestAddr a) { return static_cast<std::uint8_t>((a - kData) * 7 + 1); }

std::vector<std::uint8_t> data_bytes(GuestAddr a, std::uint32_t n) {
  std::vector<std::uint8_t> v;
  for (std::uint32_t i = 0; i < n; ++i) v.push_back(data_byte(a + i));
  return v;
}

struct Run {
  Snapshot snap;
  std::unique_ptr<Machine> m;
  CallOutcome out;
};

Run run(const std::string& source, MachineConfig cfg = {}, std::vector<Arg> args = {}) {
  Run r;
  r.snap = make_snapshot(assemble(source));
  auto m = Machine::create(r.snap, std::move(cfg));
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  if (!m.ok()) return r;
  r.m = std::move(*m);
  auto o = r.m->call(watcom_call(kCode, std::move(args)));
  EXPECT_TRUE(o.ok()) << (o.ok() ? "" : o.error().message);
  if (o.ok()) r.out = std::move(*o);
  EXPECT_TRUE(r.out.returned()) << (r.out.fault ? format_fault(*r.out.fault) : "");
  return r;
}

TEST(Recorder, ReadsBeforeWritesAndFinalWrites) {
  // Reads 4 bytes at +0x10, writes 4 at +0x20 twice (final value counts), reads them back (not an
  // input: written first), read-modify-writes +0x30 (input = old value, output = new value).
  auto r = run(R"(
    mov eax, [0x600010]
    mov dword [0x600020], 0x11111111
    mov dword [0x600020], 0x22334455
    mov ecx, [0x600020]
    add dword [0x600030], 1
    ret)");
  const Effects& e = r.out.record.effects;
  EXPECT_EQ(find_bytes(e.inputs, 0x600010, 4), data_bytes(0x600010, 4));
  EXPECT_EQ(find_bytes(e.inputs, 0x600020, 1), std::vector<std::uint8_t>{});  // written before read
  EXPECT_EQ(find_bytes(e.outputs, 0x600020, 4), (std::vector<std::uint8_t>{0x55, 0x44, 0x33, 0x22}));
  EXPECT_EQ(find_bytes(e.inputs, 0x600030, 4), data_bytes(0x600030, 4));
  std::uint32_t old;
  std::memcpy(&old, data_bytes(0x600030, 4).data(), 4);
  EXPECT_EQ(find_bytes(e.outputs, 0x600030, 4), le32(old + 1));
  EXPECT_EQ(byte_count(e.inputs), 8u);  // nothing else: the return address slot is not an input
  EXPECT_EQ(byte_count(e.outputs), 8u);
  EXPECT_EQ(r.out.record.out.ecx, 0x22334455u);
}

TEST(Recorder, PushPopCallRetStayInTheFrame) {
  // push/call write below the entry esp (the callee's frame); pop/ret read what was pushed (not an
  // input). Nothing is read from outside.
  auto r = run(R"(
    push ebx
    push 0x11223344
    call inner
    pop ecx
    pop ebx
    ret
  inner:
    mov eax, [esp+4]
    ret)");
  const Effects& e = r.out.record.effects;
  EXPECT_TRUE(e.inputs.empty());
  EXPECT_TRUE(e.stale_stack_reads.empty());
  EXPECT_TRUE(e.outputs.empty());
  // 3 dwords pushed below entry esp: ebx, the constant, the return address of `call inner`.
  EXPECT_EQ(byte_count(e.frame_writes), 12u);
  EXPECT_EQ(find_bytes(e.frame_writes, e.entry_esp - 8, 4), le32(0x11223344));
  EXPECT_EQ(find_bytes(e.frame_writes, e.entry_esp - 4, 4), le32(0xbbbb0002));  // the thread's ebx
  EXPECT_EQ(r.out.record.out.eax, 0x11223344u);
  EXPECT_EQ(r.out.record.out.ecx, 0x11223344u);
}

TEST(Recorder, StaleStackReadsAreFlagged) {
  // Reads 4 bytes below its entry esp that nobody wrote in this call: stale stack (the snapshot's
  // stack is filled with 0x5a); then writes and reads another slot (frame only).
  auto r = run(R"(
    mov eax, [esp-0x40]
    mov dword [esp-0x20], 7
    mov ecx, [esp-0x20]
    ret)");
  const Effects& e = r.out.record.effects;
  EXPECT_EQ(find_bytes(e.stale_stack_reads, e.entry_esp - 0x40, 4), (std::vector<std::uint8_t>(4, 0x5a)));
  EXPECT_EQ(byte_count(e.stale_stack_reads), 4u);
  EXPECT_TRUE(e.inputs.empty());
  EXPECT_EQ(find_bytes(e.frame_writes, e.entry_esp - 0x20, 4), le32(7));
  EXPECT_TRUE(e.outputs.empty());
}

TEST(Recorder, StackArgumentsAreInputs) {
  // Watcom: five arguments, the fifth on the stack at [esp+4]; the callee pops it (ret 4).
  auto r = run(R"(
    mov eax, [esp+4]
    ret 4)",
               {}, {Arg::u32(1), Arg::u32(2), Arg::u32(3), Arg::u32(4), Arg::u32(0xfeedf00d)});
  const Effects& e = r.out.record.effects;
  EXPECT_EQ(find_bytes(e.inputs, e.entry_esp + 4, 4), le32(0xfeedf00d));
  EXPECT_EQ(byte_count(e.inputs), 4u);
  EXPECT_EQ(r.out.record.out.eax, 0xfeedf00du);
  EXPECT_EQ(r.out.popped, 4);
}

TEST(Recorder, UnalignedAndPageCrossingAccessesAreExactByByte) {
  // 0x600ffe..0x601001 crosses a page: Unicorn 2.0.1 may fire the hook more than once (unicorn-engine/unicorn#1876).
  auto r = run(R"(
    mov eax, [0x600ffe]
    mov dword [0x601ffd], 0xa1b2c3d4
    mov cx, [0x600fff]
    movq xmm0, [0x600ffc]
    movdqu [0x601ff8], xmm0
    ret)");
  const Effects& e = r.out.record.effects;
  EXPECT_EQ(find_bytes(e.inputs, 0x600ffc, 8), data_bytes(0x600ffc, 8));
  EXPECT_EQ(byte_count(e.inputs), 8u);
  // movdqu writes 16 bytes 0x601ff8..0x602007 (crossing), then the dword at 0x601ffd was earlier:
  // final values are movdqu's for the overlap.
  std::vector<std::uint8_t> want(16, 0);
  const auto low = data_bytes(0x600ffc, 8);
  std::copy(low.begin(), low.end(), want.begin());  // movq zeroes the upper half
  EXPECT_EQ(find_bytes(e.outputs, 0x601ff8, 16), want);
  EXPECT_EQ(byte_count(e.outputs), 16u);
}

TEST(Recorder, PageCrossingReadsFiredThreeTimesCountOnce) {
  // Measured on 2.0.1: a page-crossing read fires (addr, size), then the two aligned loads of its
  // slow path. Each instruction alone must give exactly its own bytes.
  for (auto [src, at, n] : {std::tuple{"mov eax, [0x600ffe]", 0x600ffeu, 4u}, std::tuple{"mov ax, [0x600fff]", 0x600fffu, 2u},
                            std::tuple{"fld qword [0x600ffd]", 0x600ffdu, 8u}, std::tuple{"fld tword [0x600ffa]", 0x600ffau, 10u},
                            std::tuple{"mov eax, [0x600ff1]", 0x600ff1u, 4u}}) {
    auto r = run(std::string(src) + "\nret");
    const Effects& e = r.out.record.effects;
    EXPECT_EQ(byte_count(e.inputs), n) << src;
    EXPECT_EQ(find_bytes(e.inputs, at, n), data_bytes(at, n)) << src;
  }
}

TEST(Recorder, RepMovsAndStos) {
  auto r = run(R"(
    cld
    mov esi, 0x600100
    mov edi, 0x600200
    mov ecx, 5
    rep movsd
    mov edi, 0x600300
    mov al, 0xee
    mov ecx, 7
    rep stosb
    ret)");
  const Effects& e = r.out.record.effects;
  EXPECT_EQ(find_bytes(e.inputs, 0x600100, 20), data_bytes(0x600100, 20));
  EXPECT_EQ(byte_count(e.inputs), 20u);
  EXPECT_EQ(find_bytes(e.outputs, 0x600200, 20), data_bytes(0x600100, 20));
  EXPECT_EQ(find_bytes(e.outputs, 0x600300, 7), std::vector<std::uint8_t>(7, 0xee));
  EXPECT_EQ(byte_count(e.outputs), 27u);
}

TEST(Recorder, X87LoadsAndStoresOfEverySize) {
  // m16/m32/m64 integer loads and stores, m32/m64/m80 float loads and stores.
  auto r = run(R"(
    fild word [0x600400]
    fistp word [0x600500]
    fild dword [0x600410]
    fistp dword [0x600510]
    fild qword [0x600420]
    fistp qword [0x600520]
    fld dword [0x600430]
    fstp dword [0x600530]
    fld qword [0x600440]
    fstp qword [0x600540]
    fld tword [0x600450]
    fstp tword [0x600550]
    ret)",
               [] {
                 MachineConfig c;
                 c.default_fpu_control = 0x037f;
                 return c;
               }());
  const Effects& e = r.out.record.effects;
  // The data pattern holds NaNs for some float loads; fst of a quiet NaN keeps its bits, an sNaN is
  // quieted. The sizes are what this test pins; the values are checked for the integer forms.
  for (auto [in, n] : {std::pair{0x600400u, 2u}, {0x600410u, 4u}, {0x600420u, 8u}, {0x600430u, 4u},
                       {0x600440u, 8u}, {0x600450u, 10u}})
    EXPECT_EQ(find_bytes(e.inputs, in, n), data_bytes(in, n)) << std::hex << in;
  EXPECT_EQ(byte_count(e.inputs), 2u + 4 + 8 + 4 + 8 + 10);
  EXPECT_EQ(find_bytes(e.outputs, 0x600500, 2), data_bytes(0x600400, 2));
  EXPECT_EQ(find_bytes(e.outputs, 0x600510, 4), data_bytes(0x600410, 4));
  EXPECT_EQ(find_bytes(e.outputs, 0x600520, 8), data_bytes(0x600420, 8));
  EXPECT_EQ(find_bytes(e.outputs, 0x600530, 4).size(), 4u);
  EXPECT_EQ(find_bytes(e.outputs, 0x600540, 8).size(), 8u);
  EXPECT_EQ(find_bytes(e.outputs, 0x600550, 10).size(), 10u);
  EXPECT_EQ(byte_count(e.outputs), 2u + 4 + 8 + 4 + 8 + 10);
}

TEST(Recorder, X87RoundTripValues) {
  // Known doubles through fld/fstp m64 and m80: bytes must come back exactly.
  const std::string src = R"(
    fld qword [0x600600]
    fld st0
    fstp tword [0x600610]
    fstp qword [0x600620]
    ret)";
  Snapshot snap = make_snapshot(assemble(src));
  const double x = -1234.5678;
  std::uint8_t b[8];
  std::memcpy(b, &x, 8);
  ASSERT_TRUE(snap.write(0x600600, b).ok());
  auto m = Machine::create(snap, {});
  ASSERT_TRUE(m.ok());
  auto o = (*m)->call(watcom_call(kCode));
  ASSERT_TRUE(o.ok() && o->returned());
  const Effects& e = o->record.effects;
  EXPECT_EQ(find_bytes(e.outputs, 0x600620, 8), std::vector<std::uint8_t>(b, b + 8));
  auto ext = find_bytes(e.outputs, 0x600610, 10);
  ASSERT_EQ(ext.size(), 10u);
  std::array<std::uint8_t, 10> a{};
  std::copy(ext.begin(), ext.end(), a.begin());
  EXPECT_EQ(x87_to_double(a), x);
}

TEST(Recorder, Cmpxchg8b) {
  // edx:eax equal to the memory: ecx:ebx is stored; both 8-byte halves recorded.
  const std::string src = R"(
    mov eax, [0x600700]
    mov edx, [0x600704]
    mov ebx, 0x01020304
    mov ecx, 0x05060708
    cmpxchg8b [0x600700]
    ret)";
  auto r = run(src);
  const Effects& e = r.out.record.effects;
  EXPECT_EQ(find_bytes(e.inputs, 0x600700, 8), data_bytes(0x600700, 8));
  EXPECT_EQ(byte_count(e.inputs), 8u);
  EXPECT_EQ(find_bytes(e.outputs, 0x600700, 8),
            (std::vector<std::uint8_t>{0x04, 0x03, 0x02, 0x01, 0x08, 0x07, 0x06, 0x05}));
}

TEST(Recorder, Fxsave) {
  // fxsave stores into the 512-byte area (16-aligned): the control word at offset 0 and ST0..ST7 as
  // 10 bytes each at 0x20 + 16 i. Unicorn 2.0.1 leaves the rest of the area (and MXCSR, with
  // CR4.OSFXSR clear) unwritten: the recorder must report exactly the bytes stored, no more.
  auto r = run(R"(
    fninit
    push word 0x0a7f
    fldcw [esp]
    add esp, 2
    fxsave [0x600800]
    ret)");
  const Effects& e = r.out.record.effects;
  EXPECT_EQ(find_bytes(e.outputs, 0x600800, 2), (std::vector<std::uint8_t>{0x7f, 0x0a}));
  for (GuestAddr i = 0; i < 8; ++i)
    EXPECT_EQ(find_bytes(e.outputs, 0x600820 + 16 * i, 10).size(), 10u) << i;
  // Every recorded byte holds what memory holds now.
  for (const ByteRun& run_ : e.outputs) EXPECT_EQ(*r.m->read(run_.addr, static_cast<std::uint32_t>(run_.bytes.size())), run_.bytes);
  for (const ByteRun& run_ : e.outputs) {
    EXPECT_GE(run_.addr, 0x600800u);
    EXPECT_LE(run_.end(), 0x600a00u);
  }
}

// The address of the first instruction of the assembled code (calls followed) whose text holds
// `needle`, found by disassembling the snapshot's code, not by the recorder.
GuestAddr instruction_with(const Snapshot& snap, const std::string& needle) {
  Disassembler dis;
  for (const Instruction& i : dis.function(snapshot_reader(snap), kCode, 20000, [](GuestAddr) { return true; }))
    if (i.text().find(needle) != std::string::npos) return i.address;
  ADD_FAILURE() << "no instruction with " << needle;
  return 0;
}

TEST(Recorder, NamesTheInstructionThatWroteEachOutputByteLast) {
  // Bytes 0x600040..44: the dword store writes 41..44, the byte store 40, the word store overwrites
  // 42..43; a callee writes 0x600050; rep stosb writes 0x600060..62. Runs are cut where the last
  // writer changes, and only there.
  auto r = run(R"(
    mov dword [0x600041], 0x11111111
    mov byte [0x600040], 1
    mov word [0x600042], 0x2222
    call inner
    mov edi, 0x600060
    mov ecx, 3
    mov al, 7
    rep stosb
    ret
  inner:
    mov dword [0x600050], 5
    ret)");
  const Effects& e = r.out.record.effects;
  const GuestAddr dword_store = instruction_with(r.snap, "0x600041"), byte_store = instruction_with(r.snap, "0x600040"),
                  word_store = instruction_with(r.snap, "0x600042"), callee_store = instruction_with(r.snap, "0x600050"),
                  stos = instruction_with(r.snap, "stos");
  const std::vector<std::tuple<GuestAddr, std::uint32_t, GuestAddr>> want = {
      {0x600040, 1, byte_store}, {0x600041, 1, dword_store}, {0x600042, 2, word_store}, {0x600044, 1, dword_store},
      {0x600050, 4, callee_store}, {0x600060, 3, stos}};
  std::vector<std::tuple<GuestAddr, std::uint32_t, GuestAddr>> got;
  for (const WriterRun& w : e.output_writers) got.emplace_back(w.base, w.length, w.writer);
  EXPECT_EQ(got, want);
  std::uint64_t covered = 0;
  for (const WriterRun& w : e.output_writers) covered += w.length;
  EXPECT_EQ(covered, byte_count(e.outputs)) << "the writer runs cover the outputs, each byte once";
}

TEST(Recorder, PageCrossingWritesKeepOneWriter) {
  // A dword store across the page at 0x601000 (Unicorn may fire the hook for it more than once).
  auto r = run(R"(
    mov dword [0x600ffe], 0x44332211
    ret)");
  const Effects& e = r.out.record.effects;
  ASSERT_EQ(e.output_writers.size(), 1u);
  EXPECT_EQ(e.output_writers[0].base, 0x600ffeu);
  EXPECT_EQ(e.output_writers[0].length, 4u);
  EXPECT_EQ(e.output_writers[0].writer, kCode);
}

TEST(Recorder, OffIsOff) {
  MachineConfig cfg;
  cfg.record = false;
  auto r = run("mov eax, [0x600010]\nmov [0x600020], eax\nret", cfg);
  EXPECT_TRUE(r.out.record.effects.inputs.empty());
  EXPECT_TRUE(r.out.record.effects.outputs.empty());
  // The write happened; reset() finds and restores it without a write hook.
  auto v = r.m->read(0x600020, 4);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, data_bytes(0x600010, 4));
  r.m->reset();
  EXPECT_EQ(*r.m->read(0x600020, 4), data_bytes(0x600020, 4));
}

}  // namespace
}  // namespace lockstep::harness::test
