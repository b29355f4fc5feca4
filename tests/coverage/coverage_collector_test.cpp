// Branch coverage of the original, the parts below the reports: the disassembler's data
// flow, the collector's per-block hit counting and edge inference, condition slices and their
// run-time labels, Machine::call_from, and coverage over a corpus / over driver runs. Every expected
// count follows from coverage_fixture.hpp's assembly and the inputs chosen here.
#include <gtest/gtest.h>

#include <algorithm>

#include "coverage_fixture.hpp"
#include "lockstep/capture/coverage_run.hpp"
#include "lockstep/coverage/coverage.hpp"
#include "lockstep/disasm/disasm.hpp"

namespace lockstep::coverage_test {
namespace {

using harness::BranchSite;
using harness::CoverageCollector;
using harness::Disassembler;
using harness::FunctionCoverage;
using harness::Instruction;
using harness::Machine;
using harness::Registers;
using harness::test::le32;
using harness::test::watcom_call;

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::string list(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return "{" + out + "}";
}

// ---------------------------------------------------------------------------------------------
// 1. Data flow of single instructions (Disassembler::one on nasm's bytes).

Instruction insn(const std::string& source) {
  const auto bytes = harness::test::assemble(source);
  Disassembler d;
  auto i = d.one(bytes, kCode);
  EXPECT_TRUE(i.has_value()) << source;
  return i.value_or(Instruction{});
}

TEST(DisasmDataFlow, ALoadReadsMemoryThroughItsBaseNotTheBaseAsAValue) {
  const Instruction i = insn("mov eax, [esi+4]");
  EXPECT_FALSE(has(i.regs_read, "esi")) << list(i.regs_read);
  EXPECT_TRUE(i.regs_read.empty()) << list(i.regs_read);
  EXPECT_EQ(i.regs_written, std::vector<std::string>{"eax"});
  ASSERT_EQ(i.memory.size(), 1u);
  EXPECT_EQ(i.memory[0].base, "esi");
  EXPECT_EQ(i.memory[0].index, "");
  EXPECT_EQ(i.memory[0].disp, 4);
  EXPECT_EQ(i.memory[0].size, 4);
  EXPECT_EQ(i.memory[0].segment, "");
}

TEST(DisasmDataFlow, ARegisterBothAddressAndValueStaysRead) {
  const Instruction i = insn("add esi, [esi]");
  EXPECT_TRUE(has(i.regs_read, "esi")) << list(i.regs_read);
  EXPECT_TRUE(has(i.regs_written, "esi"));
  EXPECT_TRUE(has(i.regs_written, "flags"));
}

TEST(DisasmDataFlow, CompareReadsBothOperandsAndWritesOnlyFlags) {
  const Instruction r = insn("cmp eax, ebx");
  EXPECT_TRUE(has(r.regs_read, "eax")) << list(r.regs_read);
  EXPECT_TRUE(has(r.regs_read, "ebx")) << list(r.regs_read);
  EXPECT_EQ(r.regs_written, std::vector<std::string>{"flags"});
  EXPECT_TRUE(r.memory.empty());

  const Instruction m = insn("cmp dword [ecx+0x10], 1000");
  EXPECT_FALSE(has(m.regs_read, "ecx")) << list(m.regs_read);
  EXPECT_EQ(m.regs_written, std::vector<std::string>{"flags"});
  ASSERT_EQ(m.memory.size(), 1u);
  EXPECT_EQ(m.memory[0].base, "ecx");
  EXPECT_EQ(m.memory[0].disp, 0x10);
  EXPECT_EQ(m.memory[0].size, 4);

  const Instruction s = insn("cmp eax, [ebx+ecx*4+8]");
  EXPECT_TRUE(has(s.regs_read, "eax"));
  EXPECT_FALSE(has(s.regs_read, "ebx")) << list(s.regs_read);
  EXPECT_FALSE(has(s.regs_read, "ecx")) << list(s.regs_read);
  ASSERT_EQ(s.memory.size(), 1u);
  EXPECT_EQ(s.memory[0].index, "ecx");
  EXPECT_EQ(s.memory[0].scale, 4);
}

TEST(DisasmDataFlow, TestAhReadsEaxWritesFlags) {
  const Instruction i = insn("test ah, 0x41");
  EXPECT_EQ(i.regs_read, std::vector<std::string>{"eax"});
  EXPECT_EQ(i.regs_written, std::vector<std::string>{"flags"});
}

TEST(DisasmDataFlow, FnstswAxReadsTheStatusWordWritesEax) {
  const Instruction i = insn("fnstsw ax");
  EXPECT_EQ(i.regs_read, std::vector<std::string>{"fpsw"});
  EXPECT_EQ(i.regs_written, std::vector<std::string>{"eax"});
  // To memory: no register written.
  const Instruction m = insn("fnstsw [eax]");
  EXPECT_TRUE(has(m.regs_read, "fpsw"));
  EXPECT_FALSE(has(m.regs_written, "eax")) << list(m.regs_written);
  ASSERT_EQ(m.memory.size(), 1u);
  // (Capstone 4 gives this m2byte operand a size of 4; nothing here depends on it.)
}

TEST(DisasmDataFlow, SahfReadsEaxWritesFlags) {
  const Instruction i = insn("sahf");
  EXPECT_TRUE(has(i.regs_read, "eax")) << list(i.regs_read);
  EXPECT_TRUE(has(i.regs_written, "flags")) << list(i.regs_written);
  EXPECT_FALSE(has(i.regs_written, "eax"));
}

TEST(DisasmDataFlow, FcompReadsTheStackWritesTheStatusWord) {
  const Instruction i = insn("fcomp qword [ebx+8]");
  EXPECT_TRUE(has(i.regs_read, "st")) << list(i.regs_read);
  EXPECT_FALSE(has(i.regs_read, "ebx")) << list(i.regs_read);
  EXPECT_TRUE(has(i.regs_written, "fpsw")) << list(i.regs_written);
  EXPECT_FALSE(has(i.regs_written, "flags"));
  ASSERT_EQ(i.memory.size(), 1u);
  EXPECT_EQ(i.memory[0].base, "ebx");
  EXPECT_EQ(i.memory[0].disp, 8);
  EXPECT_EQ(i.memory[0].size, 8);
  // fcomip sets eflags directly, not the status word.
  const Instruction c = insn("fcomip st0, st1");
  EXPECT_TRUE(has(c.regs_written, "flags")) << list(c.regs_written);
  EXPECT_FALSE(has(c.regs_written, "fpsw"));
}

TEST(DisasmDataFlow, ConditionalJumpReadsFlags) {
  const Instruction i = insn("jb $+0x10");
  EXPECT_TRUE(i.is_conditional);
  EXPECT_TRUE(i.is_jump);
  EXPECT_EQ(i.regs_read, std::vector<std::string>{"flags"});
  EXPECT_EQ(i.target, std::optional<GuestAddr>(kCode + 0x10));
}

// lea computes a value from its "address" registers without touching memory: they are read as
// values, so a condition on a lea result must be followed back through them.
TEST(DisasmDataFlow, LeaReadsItsAddressRegistersAsValues) {
  const Instruction i = insn("lea eax, [ecx+edx*2]");
  EXPECT_TRUE(has(i.regs_read, "ecx")) << list(i.regs_read);
  EXPECT_TRUE(has(i.regs_read, "edx")) << list(i.regs_read);
  EXPECT_EQ(i.regs_written, std::vector<std::string>{"eax"});
}

// ---------------------------------------------------------------------------------------------
// 2. The collector on a machine.

struct Rig {
  std::unique_ptr<CoverageCollector> collector;
  std::unique_ptr<Machine> machine;
};

Rig rig(const std::vector<CoverageCollector::Target>& targets,
        const std::function<bool(GuestAddr)>& follow_call = {}) {
  const World& w = world();
  Rig r;
  auto c = CoverageCollector::create(harness::snapshot_reader(w.snapshot), targets, w.labels.get(), follow_call);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  if (!c.ok()) return r;
  r.collector = std::move(*c);
  harness::MachineConfig cfg;
  cfg.observed_instructions = r.collector->observed_instructions();
  r.machine = capture_machine(w, cfg);
  if (!r.machine) return r;
  r.machine->set_block_observer(r.collector.get());
  r.machine->set_instruction_observer(r.collector.get());
  return r;
}

/// Resets, writes, calls fn(eax = arg), tells the collector the run ended; returns eax.
std::uint32_t run(Rig& r, GuestAddr fn, std::uint32_t arg,
                  const std::vector<std::pair<GuestAddr, std::vector<std::uint8_t>>>& writes = {}) {
  r.machine->reset();
  for (const auto& [a, b] : writes) EXPECT_TRUE(r.machine->write(a, b).ok());
  auto out = r.machine->call(watcom_call(fn, {harness::Arg::u32(arg)}));
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message);
  if (!out.ok()) return 0;
  EXPECT_TRUE(out->returned()) << (out->fault ? harness::format_fault(*out->fault) : "");
  r.collector->end_run(!out->returned());
  return out->record.out.eax;
}

std::uint64_t hits_at(const FunctionCoverage& f, GuestAddr a) {
  for (std::size_t i = 0; i < f.listing.size(); ++i)
    if (f.listing[i].address == a) return f.hits[i];
  ADD_FAILURE() << "0x" << std::hex << a << " is not in the listing of " << f.name;
  return ~std::uint64_t{0};
}

bool listed(const FunctionCoverage& f, GuestAddr a) {
  return std::any_of(f.listing.begin(), f.listing.end(), [&](const Instruction& i) { return i.address == a; });
}

std::vector<GuestAddr> slice_addresses(const BranchSite& b) {
  std::vector<GuestAddr> out;
  for (const auto& s : b.condition) out.push_back(s.address);
  return out;
}

TEST(CoverageCollector, HitCountsAndEdgesFollowTheInputs) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  Rig r = rig({{kClassify, "classify"}});
  ASSERT_TRUE(r.machine);
  // speed 1 and 2: jl taken (small); 7: jl falls through, jg falls through (mid).
  EXPECT_EQ(run(r, kClassify, kThing, {{kSpeed, le32(1)}}), 1u);
  EXPECT_EQ(run(r, kClassify, kThing, {{kSpeed, le32(2)}}), 1u);
  EXPECT_EQ(run(r, kClassify, kThing, {{kSpeed, le32(7)}}), 2u);

  ASSERT_EQ(r.collector->functions().size(), 1u);
  const FunctionCoverage& f = r.collector->functions()[0];
  EXPECT_EQ(f.name, "classify");
  // mov, mov, cmp, jl, cmp, jg, mov, ret, mov, ret, mov, ret
  EXPECT_EQ(f.listing.size(), 12u) << harness::format_listing(f.listing);
  EXPECT_EQ(hits_at(f, w.site(kClsMovEcx)), 3u);
  EXPECT_EQ(hits_at(f, w.site(kClsCmp5)), 3u);
  EXPECT_EQ(hits_at(f, w.site(kClsJl)), 3u);
  EXPECT_EQ(hits_at(f, w.site(kClsSmall)), 2u);
  EXPECT_EQ(hits_at(f, w.site(kClsCmp100)), 1u);
  EXPECT_EQ(hits_at(f, w.site(kClsJg)), 1u);
  EXPECT_EQ(hits_at(f, w.site(kClsMid)), 1u);
  EXPECT_EQ(hits_at(f, w.site(kClsHuge)), 0u);
  EXPECT_EQ(f.instructions_covered(), 10u);  // all but the huge path's mov and ret

  ASSERT_EQ(f.branches.size(), 2u);
  const BranchSite* jl = f.branch_at(w.site(kClsJl));
  const BranchSite* jg = f.branch_at(w.site(kClsJg));
  ASSERT_TRUE(jl && jg);
  EXPECT_EQ(jl->target, w.site(kClsSmall));
  EXPECT_EQ(jl->fallthrough, w.site(kClsCmp100));
  EXPECT_EQ(jl->taken, 2u);
  EXPECT_EQ(jl->fell_through, 1u);
  EXPECT_EQ(jg->taken, 0u);  // the untaken edge stays 0
  EXPECT_EQ(jg->fell_through, 1u);
  EXPECT_EQ(f.edges_total(), 4u);
  EXPECT_EQ(f.edges_covered(), 3u);
  EXPECT_EQ(r.collector->count(w.site(kClsJl), harness::Edge::kTaken), 2u);
  EXPECT_EQ(r.collector->count(w.site(kClsJg), harness::Edge::kTaken), 0u);
  EXPECT_EQ(r.collector->report().runs, 3u);
  EXPECT_EQ(r.collector->report().faulted, 0u);

  // thing[1], speed 300: the jg edge is now taken once.
  EXPECT_EQ(run(r, kClassify, kThing + 0x40, {{kSpeed + 0x40, le32(300)}}), 3u);
  const FunctionCoverage& g = r.collector->functions()[0];
  EXPECT_EQ(g.branch_at(w.site(kClsJg))->taken, 1u);
  EXPECT_EQ(hits_at(g, w.site(kClsHuge)), 1u);
  EXPECT_EQ(g.edges_covered(), 4u);
}

TEST(CoverageCollector, ALoopCountsEveryIteration) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  Rig r = rig({{kCountdown, "countdown"}});
  ASSERT_TRUE(r.machine);
  EXPECT_EQ(run(r, kCountdown, 3), 6u);  // 3 + 2 + 1
  const FunctionCoverage* f = &r.collector->functions()[0];
  EXPECT_EQ(hits_at(*f, w.site(kCdXor)), 1u);
  EXPECT_EQ(hits_at(*f, w.site(kCdAdd)), 3u);
  EXPECT_EQ(hits_at(*f, w.site(kCdJnz)), 3u);
  EXPECT_EQ(hits_at(*f, w.site(kCdAfter)), 1u);
  EXPECT_EQ(f->branch_at(w.site(kCdJnz))->taken, 2u);
  EXPECT_EQ(f->branch_at(w.site(kCdJnz))->fell_through, 1u);
  EXPECT_EQ(run(r, kCountdown, 1), 1u);
  f = &r.collector->functions()[0];
  EXPECT_EQ(f->branch_at(w.site(kCdJnz))->taken, 2u);
  EXPECT_EQ(f->branch_at(w.site(kCdJnz))->fell_through, 2u);
  EXPECT_EQ(hits_at(*f, w.site(kCdAdd)), 4u);
}

TEST(CoverageCollector, AConditionOnALoadNamesTheLoadAndTheCompareWithTheFieldName) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  Rig r = rig({{kClassify, "classify"}});
  ASSERT_TRUE(r.machine);
  const BranchSite* jl = r.collector->functions()[0].branch_at(w.site(kClsJl));
  ASSERT_TRUE(jl);
  // mov eax, [ecx+8]; cmp eax, 5; jl: the mov and the cmp, not the `mov ecx, eax` that made the
  // address (ecx only addresses memory).
  EXPECT_EQ(slice_addresses(*jl), (std::vector<GuestAddr>{w.site(kClsMov), w.site(kClsCmp5)}));
  ASSERT_EQ(jl->condition.size(), 2u);
  EXPECT_TRUE(jl->condition[0].has_memory);
  EXPECT_FALSE(jl->condition[1].has_memory);
  EXPECT_TRUE(jl->condition[0].labels.empty());  // not run yet
  // The jg's condition is its own block's compare only.
  EXPECT_EQ(slice_addresses(*r.collector->functions()[0].branch_at(w.site(kClsJg))),
            std::vector<GuestAddr>{w.site(kClsCmp100)});
  // The mov is observed so its operand can be labelled.
  const auto observed = r.collector->observed_instructions();
  EXPECT_TRUE(std::find(observed.begin(), observed.end(), w.site(kClsMov)) != observed.end());

  run(r, kClassify, kThing, {{kSpeed, le32(1)}});
  run(r, kClassify, kThing + 0x40, {{kSpeed + 0x40, le32(1)}});
  run(r, kClassify, kThing, {{kSpeed, le32(9)}});
  const auto& step = r.collector->functions()[0].branch_at(w.site(kClsJl))->condition[0];
  EXPECT_EQ(step.labels, (std::vector<std::string>{"thing[0]+0x8 speed", "thing[1]+0x8 speed"}));
  EXPECT_EQ(step.first_address, std::optional<GuestAddr>(kSpeed));
}

// mov ecx, [eax+0x10]; lea edx, [ecx+8]; cmp edx, 100; jl: the compared value comes from the load
// through the lea, which itself reads no memory.
TEST(CoverageCollector, AConditionThroughALeaIsFollowedBackToTheLoad) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  Rig r = rig({{kLeaCmp, "lea_cmp"}});
  ASSERT_TRUE(r.machine);
  EXPECT_EQ(run(r, kLeaCmp, kThing, {{kCount, le32(3)}}), 1u);
  const BranchSite* jl = r.collector->functions()[0].branch_at(w.site(kLcJl));
  ASSERT_TRUE(jl);
  EXPECT_EQ(jl->taken, 1u);
  EXPECT_EQ(slice_addresses(*jl), (std::vector<GuestAddr>{w.site(kLcLoad), w.site(kLcLea), w.site(kLcCmp)}));
  for (const auto& step : jl->condition) {
    if (step.address == w.site(kLcLea)) {
      EXPECT_FALSE(step.has_memory) << "lea reads no memory";
      EXPECT_TRUE(step.labels.empty()) << step.labels.front();
    }
    if (step.address == w.site(kLcLoad)) {
      EXPECT_EQ(step.labels, std::vector<std::string>{"thing[0]+0x10 count"});
    }
  }
}

// call get_count; cmp eax, 1000; jg: the condition is the named callee's result; the call is its
// source, with the registers it was called with (the search starts from what they point at).
TEST(CoverageCollector, AConditionOnACallResultNamesTheCallAndItsRegisters) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  Rig r = rig({{kViaCall, "via_call"}}, [](GuestAddr a) { return a != kGetCount; });
  ASSERT_TRUE(r.machine);
  const FunctionCoverage& f = r.collector->functions()[0];
  EXPECT_FALSE(listed(f, kGetCount));
  const BranchSite* jg = f.branch_at(w.site(kVcJg));
  ASSERT_TRUE(jg);
  ASSERT_EQ(jg->condition.size(), 2u);  // the call, then the cmp
  EXPECT_EQ(jg->condition[0].address, w.site(kVcCall));
  EXPECT_EQ(jg->condition[0].call_target, std::optional<GuestAddr>(kGetCount));
  EXPECT_FALSE(jg->condition[0].has_memory);
  EXPECT_TRUE(jg->condition[0].call_registers.empty());
  EXPECT_EQ(run(r, kViaCall, kThing, {{kCount, le32(3)}}), 0u);
  EXPECT_EQ(run(r, kViaCall, kThing + 0x40, {{kCount + 0x40, le32(3)}}), 0u);
  const BranchSite* after = r.collector->functions()[0].branch_at(w.site(kVcJg));
  ASSERT_FALSE(after->condition[0].call_registers.empty());
  EXPECT_EQ(after->condition[0].call_registers[0], kThing);  // eax at the first call
  EXPECT_EQ(after->fell_through, 2u);
  EXPECT_EQ(after->taken, 0u);
}

TEST(CoverageCollector, AnX87BranchWithSahfIsFollowedBackToTheFcomp) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  Rig r = rig({{kFless, "fless"}});
  ASSERT_TRUE(r.machine);
  EXPECT_EQ(run(r, kFless, kThing, {{kA, f64_bytes(0.5)}, {kB, f64_bytes(1.0)}}), 1u);  // a < b: jb taken
  EXPECT_EQ(run(r, kFless, kThing, {{kA, f64_bytes(2.0)}, {kB, f64_bytes(1.0)}}), 0u);
  EXPECT_EQ(run(r, kFless, kThing, {{kA, f64_bytes(-3.0)}, {kB, f64_bytes(1.0)}}), 1u);
  const BranchSite* jb = r.collector->functions()[0].branch_at(w.site(kFlJb));
  ASSERT_TRUE(jb);
  EXPECT_EQ(jb->taken, 2u);
  EXPECT_EQ(jb->fell_through, 1u);
  const auto slice = slice_addresses(*jb);
  for (Site s : {kFlFld, kFlFcomp, kFlFnstsw, kFlSahf})
    EXPECT_TRUE(std::find(slice.begin(), slice.end(), w.site(s)) != slice.end()) << "site " << s << " not in the slice";
  EXPECT_TRUE(std::find(slice.begin(), slice.end(), w.site(kFlMovEcx)) == slice.end());
  EXPECT_TRUE(std::is_sorted(slice.begin(), slice.end()));  // oldest first
  for (const auto& step : jb->condition) {
    if (step.address == w.site(kFlFcomp)) {
      EXPECT_EQ(step.labels, std::vector<std::string>{"thing[0]+0x28 b"});
    }
    if (step.address == w.site(kFlFld)) {
      EXPECT_EQ(step.labels, std::vector<std::string>{"thing[0]+0x20 a"});
    }
  }
}

TEST(CoverageCollector, AnX87BranchWithTestAhIsFollowedBackToTheFcomp) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  Rig r = rig({{kFle, "fle"}});
  ASSERT_TRUE(r.machine);
  EXPECT_EQ(run(r, kFle, kThing, {{kA, f64_bytes(1.0)}, {kB, f64_bytes(1.0)}}), 1u);  // equal: C3
  EXPECT_EQ(run(r, kFle, kThing, {{kA, f64_bytes(2.0)}, {kB, f64_bytes(1.0)}}), 0u);
  EXPECT_EQ(run(r, kFle, kThing, {{kA, f64_bytes(0.0)}, {kB, f64_bytes(1.0)}}), 1u);  // below: C0
  const BranchSite* jnz = r.collector->functions()[0].branch_at(w.site(kFeJnz));
  ASSERT_TRUE(jnz);
  EXPECT_EQ(jnz->taken, 2u);
  EXPECT_EQ(jnz->fell_through, 1u);
  const auto slice = slice_addresses(*jnz);
  for (Site s : {kFeFcomp, kFeFnstsw, kFeTest})
    EXPECT_TRUE(std::find(slice.begin(), slice.end(), w.site(s)) != slice.end()) << "site " << s << " not in the slice";
  for (const auto& step : jnz->condition)
    if (step.address == w.site(kFeFcomp)) {
      EXPECT_TRUE(step.has_memory);
      EXPECT_EQ(step.labels, std::vector<std::string>{"thing[0]+0x28 b"});
      EXPECT_EQ(step.first_address, std::optional<GuestAddr>(kB));
    }
}

TEST(CoverageCollector, AnUnnamedHelperIsPartOfTheListingANamedCalleeIsNot) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  // Through CaseRunner: the profile decides which calls are followed.
  auto runner = capture::CaseRunner::create(w.snapshot, w.profile, "", {{kCaller, "caller"}}, w.labels.get());
  ASSERT_TRUE(runner.ok()) << runner.error().message;
  const FunctionCoverage& f = (*runner)->collector().functions()[0];
  EXPECT_TRUE(listed(f, kHelper)) << harness::format_listing(f.listing);
  EXPECT_TRUE(listed(f, w.site(kHeJz)));
  EXPECT_FALSE(listed(f, kNamed)) << harness::format_listing(f.listing);
  EXPECT_FALSE(listed(f, w.site(kNaJz)));
  EXPECT_TRUE(f.branch_at(w.site(kHeJz)) != nullptr);
  EXPECT_TRUE(f.branch_at(w.site(kNaJz)) == nullptr);
  EXPECT_EQ(f.branches.size(), 1u);

  // A re-run case of caller (eax = 5: the helper's inc path) counts the helper's instructions.
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  cases::Case c = record_case(*rec, kCaller, 5, {});
  EXPECT_EQ(c.out.eax, 7u);
  auto rr = (*runner)->run(c);
  ASSERT_TRUE(rr.ok()) << rr.error().message;
  EXPECT_TRUE(rr->same_as_case);
  const FunctionCoverage& g = (*runner)->collector().functions()[0];
  EXPECT_EQ(hits_at(g, w.site(kHeInc)), 1u);
  EXPECT_EQ(g.branch_at(w.site(kHeJz))->fell_through, 1u);
  EXPECT_EQ(g.branch_at(w.site(kHeJz))->taken, 0u);
}

// Two targets whose listings share an unnamed helper (coverage_over_runs with two --fn): the helper's
// branch, run once from `caller`, must show its edge in `caller` — and every function's edge counts
// must add up to its branch's hit count.
TEST(CoverageCollector, ASharedHelpersBranchIsCountedInEveryFunctionListingIt) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  Rig r = rig({{kCaller, "caller"}, {kCaller2, "caller2"}}, [](GuestAddr a) { return a == kHelper; });
  ASSERT_TRUE(r.machine);
  run(r, kCaller, 0);  // helper: eax == 0, jz taken
  const auto& fs = r.collector->functions();
  ASSERT_EQ(fs.size(), 2u);
  const BranchSite* in_caller = fs[0].branch_at(w.site(kHeJz));
  ASSERT_TRUE(in_caller);
  EXPECT_EQ(hits_at(fs[0], w.site(kHeJz)), 1u);
  EXPECT_EQ(in_caller->taken, 1u) << "the helper's jz ran once from caller, taken";
  for (const FunctionCoverage& f : fs)
    for (const BranchSite& b : f.branches)
      EXPECT_EQ(b.taken + b.fell_through, hits_at(f, b.address))
          << f.name << ": branch 0x" << std::hex << b.address << " edge counts do not add up to its hits";
}

// A rep-prefixed instruction is one instruction executed once per call, however many iterations.
TEST(CoverageCollector, ARepInstructionIsCountedOncePerExecution) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  Rig r = rig({{kRepCopy, "rep_copy"}});
  ASSERT_TRUE(r.machine);
  run(r, kRepCopy, kData + 0x200, {});
  const FunctionCoverage& f = r.collector->functions()[0];
  EXPECT_EQ(hits_at(f, kRepCopy), 1u);
  EXPECT_EQ(hits_at(f, w.site(kRcRep)), 1u) << "rep movsb with ecx = 3 ran once";
}

TEST(CoverageCollector, AnIndirectJumpEndsItsPathAndIsListed) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  Rig r = rig({{kSwitchy, "switchy"}});
  ASSERT_TRUE(r.machine);
  const FunctionCoverage& f = r.collector->functions()[0];
  EXPECT_EQ(f.indirect_jumps, std::vector<GuestAddr>{w.site(kSwJmp)});
  EXPECT_FALSE(listed(f, w.site(kSwA)));  // only the table reaches it
  EXPECT_FALSE(listed(f, w.site(kSwB)));
  EXPECT_EQ(f.listing.size(), 5u);  // cmp, ja, jmp [table], xor, ret
  EXPECT_EQ(run(r, kSwitchy, 1), 20u);
  EXPECT_EQ(run(r, kSwitchy, 7), 0u);
  const FunctionCoverage& g = r.collector->functions()[0];
  EXPECT_EQ(hits_at(g, w.site(kSwJmp)), 1u);
  ASSERT_EQ(g.branches.size(), 1u);
  EXPECT_EQ(g.branches[0].taken, 1u);        // ja: 7 > 1
  EXPECT_EQ(g.branches[0].fell_through, 1u);
}

TEST(CoverageCollector, ARunThatFaultsIsCountedAsFaulted) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  Rig r = rig({{kClassify, "classify"}});
  ASSERT_TRUE(r.machine);
  r.machine->reset();
  auto out = r.machine->call(watcom_call(kClassify, {harness::Arg::u32(0x10)}));  // [0x18]: unmapped
  ASSERT_TRUE(out.ok());
  ASSERT_FALSE(out->returned());
  EXPECT_EQ(out->fault->kind, harness::StopKind::kReadUnmapped);
  r.collector->end_run(true);
  run(r, kClassify, kThing, {{kSpeed, le32(7)}});
  const auto rep = r.collector->report();
  EXPECT_EQ(rep.runs, 2u);
  EXPECT_EQ(rep.faulted, 1u);
  const FunctionCoverage& f = rep.functions[0];
  // The faulting run reached no branch: the edges are the good run's alone.
  EXPECT_EQ(f.branch_at(w.site(kClsJl))->taken + f.branch_at(w.site(kClsJl))->fell_through, 1u);
  EXPECT_EQ(hits_at(f, w.site(kClsMid)), 1u);
}

TEST(CoverageCollector, AnEntryThatIsNotCodeIsNotFound) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto c = CoverageCollector::create(harness::snapshot_reader(w.snapshot), {{0x10, "nowhere"}}, w.labels.get());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, Errc::kNotFound);
  EXPECT_NE(c.error().message.find("nowhere"), std::string::npos) << c.error().message;
}

// ---------------------------------------------------------------------------------------------
// 3. Machine::call_from.

TEST(CallFrom, RunsFromTheGivenRegistersAndReturnsToTheSentinel) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto m = capture_machine(w);
  ASSERT_TRUE(m);
  Registers in = m->initial_registers();
  in.ecx = 10;
  in.edx = 100;
  in.ebx = 1000;
  in.esp = harness::test::kEsp - 0x200;
  in.eax = 0xdeadbeef;  // overwritten by the lea
  ASSERT_TRUE(m->write(in.esp, le32(0x11223344)).ok());   // the return slot: replaced by the sentinel
  ASSERT_TRUE(m->write(in.esp + 4, le32(5)).ok());        // the stack argument
  auto o = m->call_from(kCombine, in, harness::ReturnKind::kEax);
  ASSERT_TRUE(o.ok()) << o.error().message;
  ASSERT_TRUE(o->returned()) << harness::format_fault(*o->fault);
  EXPECT_EQ(o->record.out.eax, 10u + 2 * 100u + 1000u + 5u);
  EXPECT_EQ(o->value.eax, 1215u);
  EXPECT_EQ(o->record.out.ecx, 10u);
  EXPECT_EQ(o->record.out.edx, 100u);
  EXPECT_EQ(o->record.out.ebx, 1000u);
  EXPECT_EQ(o->record.out.eip, m->layout().sentinel);
  EXPECT_EQ(o->record.out.esp, in.esp + 8);  // ret 4
  EXPECT_EQ(o->popped, 4);
  EXPECT_EQ(o->record.in.esp, in.esp);
  EXPECT_EQ(o->record.in.eip, kCombine);
  auto slot = m->read(in.esp, 4);
  ASSERT_TRUE(slot.ok());
  EXPECT_EQ(*slot, le32(m->layout().sentinel));
  // The stack argument is an input (read before written); the return slot is not.
  EXPECT_EQ(harness::test::find_bytes(o->record.effects.inputs, in.esp + 4, 4), le32(5));
  EXPECT_TRUE(harness::test::find_bytes(o->record.effects.inputs, in.esp, 4).empty());
}

TEST(CallFrom, AnEspOutsideTheStackIsAUsageError) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto m = capture_machine(w);
  ASSERT_TRUE(m);
  Registers in = m->initial_registers();
  for (GuestAddr esp : {kData + 0x100, m->layout().stack_high, GuestAddr{0x10}}) {
    in.esp = esp;
    auto o = m->call_from(kCombine, in, harness::ReturnKind::kEax);
    ASSERT_FALSE(o.ok()) << "esp 0x" << std::hex << esp;
    EXPECT_EQ(o.error().code, Errc::kUsage);
  }
  // The machine still works afterwards.
  in.esp = harness::test::kEsp - 0x100;
  auto o = m->call_from(kCombine, in, harness::ReturnKind::kEax);
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_TRUE(o->returned());
}

// ---------------------------------------------------------------------------------------------
// Coverage over a corpus (cases re-run) and over driver runs.

TEST(CoverageOverCorpus, CountsEachCasesRerunAndTheDivergedOnes) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  cases::Corpus corpus;
  cases::CaseFile file;
  file.function = kClassify;
  file.name = "classify";
  file.cases.push_back(record_case(*rec, kClassify, kThing, {{kSpeed, le32(1)}}, 0));    // small
  file.cases.push_back(record_case(*rec, kClassify, kThing, {{kSpeed, le32(7)}}, 1));    // mid
  file.cases.push_back(record_case(*rec, kClassify, kThing, {{kSpeed, le32(300)}}, 2));  // huge
  cases::Case tampered = record_case(*rec, kClassify, kThing, {{kSpeed, le32(2)}}, 3);   // small
  tampered.out.eax = 9;  // the recording says 9; the rerun returns 1
  file.cases.push_back(tampered);
  cases::Case poked = record_case(*rec, kClassify, kThing, {{kSpeed, le32(2)}}, 4);
  poked.pokes.push_back({kSpeed, le32(8)});  // rerun as mid; a poked case's difference is no divergence
  file.cases.push_back(poked);
  corpus.files.push_back(file);

  capture::CoverageOptions opt;
  std::uint64_t last_done = 0, last_total = 0;
  opt.progress = [&](std::uint64_t d, std::uint64_t t) { last_done = d, last_total = t; };
  auto rep = capture::coverage_over_corpus(w.snapshot, w.profile, corpus, w.labels.get(), opt);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(rep->runs, 5u);
  EXPECT_EQ(rep->faulted, 0u);
  EXPECT_EQ(rep->diverged, 1u);
  EXPECT_EQ(last_done, 5u);
  EXPECT_EQ(last_total, 5u);
  ASSERT_EQ(rep->functions.size(), 1u);
  const FunctionCoverage& f = rep->functions[0];
  EXPECT_EQ(f.name, "classify");
  EXPECT_EQ(f.branch_at(w.site(kClsJl))->taken, 2u);        // speeds 1 and 2
  EXPECT_EQ(f.branch_at(w.site(kClsJl))->fell_through, 3u); // 7, 300, poked 8
  EXPECT_EQ(f.branch_at(w.site(kClsJg))->taken, 1u);
  EXPECT_EQ(f.branch_at(w.site(kClsJg))->fell_through, 2u);

  opt.functions = {kFless};
  auto missing = capture::coverage_over_corpus(w.snapshot, w.profile, corpus, w.labels.get(), opt);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Errc::kNotFound);
}

// A corpus captured from a call list needs no [[driver]] to be re-run: on a profile without one its
// cases run on the profile's stubs alone (as the call list's capture ran them), with the counts the
// driver's machine gives (the fixture's driver switches on no stubs).
TEST(CoverageOverCorpus, NeedsNoDriverForACallListCorpus) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  cases::Corpus corpus;
  cases::CaseFile file;
  file.function = kClassify;
  file.name = "classify";
  file.cases.push_back(record_case(*rec, kClassify, kThing, {{kSpeed, le32(1)}}, 0));    // small
  file.cases.push_back(record_case(*rec, kClassify, kThing, {{kSpeed, le32(300)}}, 1));  // huge
  corpus.files.push_back(file);
  harness::Profile no_driver = w.profile;
  no_driver.drivers.clear();
  ASSERT_EQ(no_driver.driver_for_record("CTRL"), nullptr);

  auto rep = capture::coverage_over_corpus(w.snapshot, no_driver, corpus, w.labels.get(), {});
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(rep->runs, 2u);
  EXPECT_EQ(rep->diverged, 0u);
  ASSERT_EQ(rep->functions.size(), 1u);
  EXPECT_EQ(rep->functions[0].branch_at(w.site(kClsJl))->taken, 1u);        // speed 1
  EXPECT_EQ(rep->functions[0].branch_at(w.site(kClsJl))->fell_through, 1u); // 300
  // A driver named that the profile lacks is still refused.
  capture::CoverageOptions named;
  named.driver = "drive";
  auto refused = capture::coverage_over_corpus(w.snapshot, no_driver, corpus, w.labels.get(), named);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, Errc::kNotFound);
}

TEST(CoverageOverRuns, CountsNestedCallsOverEveryDriverRun) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  capture::StateLog log;
  auto ctrl = [](std::int32_t racer, std::uint32_t step, std::int32_t speed) {
    capture::Record r;
    r.kind = capture::RecordKind::kCtrl;
    r.step = step;
    r.instance = racer;
    r.blocks.push_back({kSpeed + 0x40 * static_cast<std::uint32_t>(racer), le32(static_cast<std::uint32_t>(speed))});
    return r;
  };
  log.records = {ctrl(0, 0, 1), ctrl(1, 0, 7), ctrl(0, 1, 300)};
  capture::Record phys;  // a record of another kind: not a run
  phys.kind = capture::RecordKind::kPhys;
  phys.instance = 0;
  log.records.push_back(phys);

  capture::CoverageOptions opt;
  opt.functions = {kClassify};
  auto rep = capture::coverage_over_runs(w.snapshot, log, w.profile, w.labels.get(), opt);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(rep->runs, 3u);
  ASSERT_EQ(rep->functions.size(), 1u);
  const FunctionCoverage& f = rep->functions[0];
  EXPECT_EQ(f.branch_at(w.site(kClsJl))->taken, 1u);
  EXPECT_EQ(f.branch_at(w.site(kClsJl))->fell_through, 2u);
  EXPECT_EQ(f.branch_at(w.site(kClsJg))->taken, 1u);
  EXPECT_EQ(f.branch_at(w.site(kClsJg))->fell_through, 1u);
  EXPECT_EQ(hits_at(f, w.site(kClsMovEcx)), 3u);
  EXPECT_EQ(f.branch_at(w.site(kClsJl))->condition[0].labels,
            (std::vector<std::string>{"thing[0]+0x8 speed", "thing[1]+0x8 speed"}));

  opt.functions.clear();
  auto none = capture::coverage_over_runs(w.snapshot, log, w.profile, w.labels.get(), opt);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, Errc::kUsage);
}

}  // namespace
}  // namespace lockstep::coverage_test
