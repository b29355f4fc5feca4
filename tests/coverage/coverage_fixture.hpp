// Shared by the coverage collector and search tests: one nasm program of small functions
// with known branches, a profile naming them (a struct + instance at kData so the Labeler names the
// bytes a condition reads), and helpers to record cases from Machine::call.
//
// Every expected number in the tests comes from this assembly and the inputs the tests choose. Sites
// (branch and instruction addresses) are taken from a table nasm writes at kCode + kSiteTable, never
// from the disassembler under test.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fixture.hpp"  // tests/machine: kCode, kData, kStack, make_snapshot, assemble, le32, watcom_call
#include "lockstep/capture/capture.hpp"
#include "lockstep/cases/case.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/machine/machine.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::coverage_test {

using harness::GuestAddr;
using harness::test::kCode;
using harness::test::kData;

// Function entries (fixed offsets: `times` pads each to its slot).
inline constexpr GuestAddr kClassify = kCode + 0x000;  // ecx <- eax; speed <5: 1, >100: 3, else 2
inline constexpr GuestAddr kCountdown = kCode + 0x080; // eax = n >= 1: sum n..1 in a loop
inline constexpr GuestAddr kFless = kCode + 0x100;     // a < b (x87, fnstsw ax; sahf; jb)
inline constexpr GuestAddr kFle = kCode + 0x180;       // a <= b (x87, fnstsw ax; test ah, 0x41; jnz)
inline constexpr GuestAddr kRareInt = kCode + 0x200;   // count > 1000 (rare): returns the flags byte
inline constexpr GuestAddr kCaller = kCode + 0x280;    // calls the unnamed helper, then `named`
inline constexpr GuestAddr kHelper = kCode + 0x300;    // unnamed in the profile: eax == 0 ? 0 : eax + 1
inline constexpr GuestAddr kNamed = kCode + 0x380;     // named in the profile: eax = 7, with a branch
inline constexpr GuestAddr kDrive = kCode + 0x400;     // the driver: calls classify
inline constexpr GuestAddr kCombine = kCode + 0x480;   // eax = ecx + 2 edx + ebx + [esp+4]; ret 4
inline constexpr GuestAddr kCaller2 = kCode + 0x500;   // also calls the unnamed helper
inline constexpr GuestAddr kRepCopy = kCode + 0x580;   // rep movsb of 3 bytes, eax -> eax + 0x100
inline constexpr GuestAddr kLeaCmp = kCode + 0x600;    // count + 8 < 100 through a lea
inline constexpr GuestAddr kViaCall = kCode + 0x680;   // get_count(thing) > 1000 (rare)
inline constexpr GuestAddr kGetCount = kCode + 0x700;  // named in the profile: eax = thing.count
inline constexpr GuestAddr kBothBig = kCode + 0x780;   // (thing[0].count & speed) > 0x1000 (rare)
inline constexpr GuestAddr kSwitchy = kCode + 0x800;   // a jump table: eax 0 -> 10, 1 -> 20, else 0
inline constexpr GuestAddr kRegGt = kCode + 0x880;     // eax > 1000 (rare): a register input only

// The instance the functions read (thing[0]; thing[1] follows at +0x40).
inline constexpr GuestAddr kThing = kData + 0x100;
inline constexpr GuestAddr kSpeed = kThing + 0x08;   // i32
inline constexpr GuestAddr kCount = kThing + 0x10;   // i32
inline constexpr GuestAddr kA = kThing + 0x20;       // f64
inline constexpr GuestAddr kB = kThing + 0x28;       // f64
inline constexpr GuestAddr kFlags = kThing + 0x30;   // u8

inline constexpr std::uint32_t kSiteTable = 0x1800;
/// The sites nasm writes at kCode + kSiteTable, in this order.
enum Site : int {
  kClsMovEcx, kClsMov, kClsCmp5, kClsJl, kClsCmp100, kClsJg, kClsSmall, kClsHuge, kClsMid,
  kCdXor, kCdAdd, kCdJnz, kCdAfter,
  kFlMovEcx, kFlFld, kFlFcomp, kFlFnstsw, kFlSahf, kFlJb,
  kFeFld, kFeFcomp, kFeFnstsw, kFeTest, kFeJnz,
  kRiCmp, kRiJg, kRiRare,
  kCaCall1, kCaCall2,
  kHeJz, kHeInc,
  kNaJz,
  kRcRep,
  kLcLoad, kLcLea, kLcCmp, kLcJl,
  kVcCall, kVcJg,
  kBbJg, kSwJmp, kSwA, kSwB,
  kRgJg,
  kSiteCount
};

inline const char* kProgram = R"(
classify:
  s_cls_mov_ecx: mov ecx, eax
  s_cls_mov:     mov eax, [ecx+8]          ; thing.speed
  s_cls_cmp5:    cmp eax, 5
  s_cls_jl:      jl cls_small_l
  s_cls_cmp100:  cmp eax, 100
  s_cls_jg:      jg cls_huge_l
  s_cls_mid:     mov eax, 2
                 ret
  cls_small_l:
  s_cls_small:   mov eax, 1
                 ret
  cls_huge_l:
  s_cls_huge:    mov eax, 3
                 ret
  times 0x080-($-$$) db 0xcc
countdown:
  s_cd_xor:      xor edx, edx
  cd_loop:
  s_cd_add:      add edx, eax
                 dec eax
  s_cd_jnz:      jnz cd_loop
  s_cd_after:    mov eax, edx
                 ret
  times 0x100-($-$$) db 0xcc
fless:
  s_fl_mov_ecx:  mov ecx, eax
  s_fl_fld:      fld qword [ecx+0x20]      ; thing.a
  s_fl_fcomp:    fcomp qword [ecx+0x28]    ; thing.b
  s_fl_fnstsw:   fnstsw ax
  s_fl_sahf:     sahf
  s_fl_jb:       jb fl_below
                 xor eax, eax
                 ret
  fl_below:        mov eax, 1
                 ret
  times 0x180-($-$$) db 0xcc
fle:
                 mov ecx, eax
  s_fe_fld:      fld qword [ecx+0x20]
  s_fe_fcomp:    fcomp qword [ecx+0x28]
  s_fe_fnstsw:   fnstsw ax
  s_fe_test:     test ah, 0x41
  s_fe_jnz:      jnz fe_le
                 xor eax, eax
                 ret
  fe_le:           mov eax, 1
                 ret
  times 0x200-($-$$) db 0xcc
rare_int:
                 mov ecx, eax
  s_ri_cmp:      cmp dword [ecx+0x10], 1000   ; thing.count
  s_ri_jg:       jg ri_rare_l
                 xor eax, eax
                 ret
  ri_rare_l:
  s_ri_rare:     movzx eax, byte [ecx+0x30]   ; thing.flags: only the rare path reads it
                 ret
  times 0x280-($-$$) db 0xcc
caller:
  s_ca_call1:    call helper
  s_ca_call2:    call named
                 ret
  times 0x300-($-$$) db 0xcc
helper:
                 test eax, eax
  s_he_jz:       jz he_zero
  s_he_inc:      inc eax
  he_zero:         ret
  times 0x380-($-$$) db 0xcc
named:
                 test eax, eax
  s_na_jz:       jz na_z
                 nop
  na_z:            mov eax, 7
                 ret
  times 0x400-($-$$) db 0xcc
drive:
                 call classify
                 ret
  times 0x480-($-$$) db 0xcc
combine:
                 lea eax, [ecx+edx*2]
                 add eax, ebx
                 add eax, [esp+4]
                 ret 4
  times 0x500-($-$$) db 0xcc
caller2:
                 call helper
                 ret
  times 0x580-($-$$) db 0xcc
rep_copy:
                 mov esi, eax
                 lea edi, [eax+0x100]
                 mov ecx, 3
                 cld
  s_rc_rep:      rep movsb
                 ret
  times 0x600-($-$$) db 0xcc
lea_cmp:
  s_lc_load:     mov ecx, [eax+0x10]          ; thing.count
  s_lc_lea:      lea edx, [ecx+8]             ; a value, no memory access
  s_lc_cmp:      cmp edx, 100
  s_lc_jl:       jl lc_small
                 xor eax, eax
                 ret
  lc_small:      mov eax, 1
                 ret
  times 0x680-($-$$) db 0xcc
via_call:
  s_vc_call:     call get_count               ; named: its result is the compared value
                 cmp eax, 1000
  s_vc_jg:       jg vc_rare
                 xor eax, eax
                 ret
  vc_rare:       mov eax, 1
                 ret
  times 0x700-($-$$) db 0xcc
get_count:
                 mov eax, [eax+0x10]          ; thing.count
                 ret
  times 0x780-($-$$) db 0xcc
both_big:
                 mov ecx, 0x600100            ; thing[0] by address: no register input
                 mov eax, [ecx+0x10]          ; thing.count
                 and eax, [ecx+0x08]          ; thing.speed
                 cmp eax, 0x1000
  s_bb_jg:       jg bb_rare                   ; needs both fields changed at once
                 xor eax, eax
                 ret
  bb_rare:       mov eax, 1
                 ret
  times 0x800-($-$$) db 0xcc
switchy:
                 cmp eax, 1
                 ja sw_default
  s_sw_jmp:      jmp [sw_table + eax*4]
  sw_default:    xor eax, eax
                 ret
  s_sw_a:        mov eax, 10
                 ret
  s_sw_b:        mov eax, 20
                 ret
  sw_table:      dd s_sw_a, s_sw_b
  times 0x880-($-$$) db 0xcc
reg_gt:
                 cmp eax, 1000                ; a value in a register, no memory input
  s_rg_jg:       jg rg_rare
                 xor eax, eax
                 ret
  rg_rare:       mov eax, 1
                 ret
  times 0x1800-($-$$) db 0xcc
  dd s_cls_mov_ecx, s_cls_mov, s_cls_cmp5, s_cls_jl, s_cls_cmp100, s_cls_jg, s_cls_small, s_cls_huge, s_cls_mid
  dd s_cd_xor, s_cd_add, s_cd_jnz, s_cd_after
  dd s_fl_mov_ecx, s_fl_fld, s_fl_fcomp, s_fl_fnstsw, s_fl_sahf, s_fl_jb
  dd s_fe_fld, s_fe_fcomp, s_fe_fnstsw, s_fe_test, s_fe_jnz
  dd s_ri_cmp, s_ri_jg, s_ri_rare
  dd s_ca_call1, s_ca_call2
  dd s_he_jz, s_he_inc
  dd s_na_jz
  dd s_rc_rep
  dd s_lc_load, s_lc_lea, s_lc_cmp, s_lc_jl
  dd s_vc_call, s_vc_jg
  dd s_bb_jg, s_sw_jmp, s_sw_a, s_sw_b
  dd s_rg_jg
)";

inline const char* kProfile = R"(
[profile]
name = "coverage-test"

[[function]]
address = 0x401000
name = "classify"
convention = "watcom"
args = ["thing:ptr"]
returns = "eax"

[[function]]
address = 0x401080
name = "countdown"
convention = "watcom"
args = ["n:u32"]
returns = "eax"

[[function]]
address = 0x401100
name = "fless"
convention = "watcom"
args = ["thing:ptr"]
returns = "eax"

[[function]]
address = 0x401180
name = "fle"
convention = "watcom"
args = ["thing:ptr"]
returns = "eax"

[[function]]
address = 0x401200
name = "rare_int"
convention = "watcom"
args = ["thing:ptr"]
returns = "eax"

[[function]]
address = 0x401280
name = "caller"
convention = "watcom"
returns = "eax"

[[function]]
address = 0x401380
name = "named"
convention = "watcom"
returns = "eax"

[[function]]
address = 0x401400
name = "drive"
convention = "watcom"
args = ["thing:ptr"]
returns = "eax"

[[function]]
address = 0x401500
name = "caller2"
convention = "watcom"
returns = "eax"

[[function]]
address = 0x401580
name = "rep_copy"
convention = "watcom"
returns = "none"

[[function]]
address = 0x401600
name = "lea_cmp"
convention = "watcom"
args = ["thing:ptr"]
returns = "eax"

[[function]]
address = 0x401680
name = "via_call"
convention = "watcom"
args = ["thing:ptr"]
returns = "eax"

[[function]]
address = 0x401700
name = "get_count"
convention = "watcom"
args = ["thing:ptr"]
returns = "eax"

[[function]]
address = 0x401780
name = "both_big"
convention = "watcom"
args = ["thing:ptr"]
returns = "eax"

[[function]]
address = 0x401800
name = "switchy"
convention = "watcom"
args = ["i:u32"]
returns = "eax"

[[function]]
address = 0x401880
name = "reg_gt"
convention = "watcom"
args = ["n:i32"]
returns = "eax"

[[struct]]
name = "thing"
size = 0x40
fields = [
  { offset = 0x08, size = 4, name = "speed" },
  { offset = 0x10, size = 4, name = "count" },
  { offset = 0x20, size = 8, name = "a" },
  { offset = 0x28, size = 8, name = "b" },
  { offset = 0x30, size = 1, name = "flags" },
]

[[instance]]
name = "thing"
struct = "thing"
base = 0x600100
count = 2

[[driver]]
name = "drive"
function = "drive"
args = ["thing"]
)";

/// The assembled program, the snapshot, the profile and its labels, made once per test process.
struct World {
  std::vector<std::uint8_t> code;
  harness::Snapshot snapshot;
  harness::Profile profile;
  std::unique_ptr<harness::Labeler> labels;
  GuestAddr sites[kSiteCount] = {};
  bool ok = false;
  GuestAddr site(Site s) const { return sites[s]; }
};

inline const World& world() {
  static World w = [] {
    World x;
    x.code = harness::test::assemble(kProgram);
    if (x.code.size() < kSiteTable + 4 * kSiteCount) {
      ADD_FAILURE() << "the program did not assemble to its site table";
      return x;
    }
    for (int i = 0; i < kSiteCount; ++i) std::memcpy(&x.sites[i], x.code.data() + kSiteTable + 4 * i, 4);
    x.snapshot = harness::test::make_snapshot(x.code);
    auto p = harness::parse_profile(kProfile, "coverage-test.toml");
    if (!p.ok()) {
      ADD_FAILURE() << p.error().message;
      return x;
    }
    x.profile = std::move(*p);
    x.labels = std::make_unique<harness::Labeler>(x.profile);
    x.ok = true;
    return x;
  }();
  return w;
}

/// The fixture's data pattern (make_snapshot): the snapshot's byte at `a` in the data region.
inline std::uint8_t snapshot_data_byte(GuestAddr a) { return static_cast<std::uint8_t>((a - kData) * 7 + 1); }

inline std::vector<std::uint8_t> f64_bytes(double v) {
  std::vector<std::uint8_t> b(8);
  std::memcpy(b.data(), &v, 8);
  return b;
}

/// A machine configured like a capture's (the profile's FPU default and stubs), recording on.
inline std::unique_ptr<harness::Machine> capture_machine(const World& w, harness::MachineConfig extra = {}) {
  harness::MachineConfig cfg = harness::config_from_profile(w.profile);
  cfg.observed_instructions = extra.observed_instructions;
  auto m = harness::Machine::create(w.snapshot, cfg);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? std::move(*m) : nullptr;
}

/// One call of `fn` with eax = `arg`, after writing `pokes` (address, bytes) on the reset machine,
/// recorded as a case (to_case) with id `id`.
inline cases::Case record_case(harness::Machine& m, GuestAddr fn, std::uint32_t arg,
                               const std::vector<std::pair<GuestAddr, std::vector<std::uint8_t>>>& writes,
                               std::uint32_t id = 0) {
  m.reset();
  for (const auto& [a, b] : writes) EXPECT_TRUE(m.write(a, b).ok());
  auto out = m.call(harness::test::watcom_call(fn, {harness::Arg::u32(arg)}));
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message);
  if (!out.ok()) return {};
  EXPECT_TRUE(out->returned()) << (out->fault ? harness::format_fault(*out->fault) : "");
  capture::RunOrigin origin;
  origin.snapshot_sha256 = "test";
  origin.record = "CTRL";
  cases::Case c = capture::to_case(out->record, world().profile.function_at(fn), origin);
  c.id = id;
  return c;
}

}  // namespace lockstep::coverage_test
