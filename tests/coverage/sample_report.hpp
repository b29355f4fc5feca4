// The hand-made CoverageReport the coverage report tests share (tests/coverage/): a listing Capstone
// decodes from hand-written bytes, with hits and edge counts chosen by hand, so the report tests do
// not depend on the collector.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lockstep/coverage/coverage.hpp"
#include "lockstep/disasm/disasm.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::harness::test {

// The sample report. F1 at 0x401000, laid out by hand (rel8/rel32 computed from the addresses):
//   401000 55                push ebp                          hits 5
//   401001 8b 46 39          mov eax, dword ptr [esi + 0x39]   5
//   401004 3d 00 80 00 00    cmp eax, 0x8000                   5
//   401009 7c 03             jl 0x40100e      B1: taken 3, fallthrough 2  (both covered)
//   40100b 3b 46 39          cmp eax, dword ptr [esi + 0x39]   2
//   40100e 7e 0b             jle 0x40101b     B2: taken 5, fallthrough 0  (ran, one way)
//   401010 e8 eb ff 0f 00    call 0x501000                     0
//   401015 85 c0             test eax, eax                     0
//   401017 74 02             je 0x40101b      B3: 0 / 0 (never reached)   0
//   401019 31 c0             xor eax, eax                      0
//   40101b 5d                pop ebp                           5
//   40101c c3                ret                               5
// → instructions 8/12 (four rows at 0), edges 3/6 (B1 two, B2 one, B3 none).
// F2 at 0x402000, named with HTML's special characters: one `jmp [eax*4 + 0x403000]` run once, an
// indirect jump, listing truncated → instructions 1/1, edges 0/0.
// F3 at 0x404000, unnamed, never run: test [esi], eax; jne 0x404005; nop; ret → 0/4, edges 0/2.
// Totals: 3 functions, instructions 9/17, edges 3/8.

inline constexpr const char* kOddName = "odd<name> & \"q\" 'x'";
inline constexpr const char* kSlidingLabel = "car[2]+0x111 point[1].sliding";
inline constexpr const char* kSlidingLabel2 = "car[3]+0x111 point[1].sliding";
inline constexpr const char* kCoveredLabel = "car[0]+0x39 covered_only_label";

inline std::vector<Instruction> decode(GuestAddr at, const std::vector<std::vector<std::uint8_t>>& code) {
  Disassembler d;
  std::vector<Instruction> out;
  for (const auto& bytes : code) {
    auto in = d.one(bytes, at);
    EXPECT_TRUE(in) << "bytes at 0x" << std::hex << at << " do not decode";
    if (!in) return out;
    EXPECT_EQ(in->bytes.size(), bytes.size());
    out.push_back(*in);
    at += static_cast<GuestAddr>(bytes.size());
  }
  return out;
}

inline BranchSite branch(const Instruction& in, std::uint64_t taken, std::uint64_t fell_through) {
  BranchSite b;
  b.address = in.address;
  b.text = in.text();
  EXPECT_TRUE(in.is_conditional && in.target) << in.text();
  b.target = in.target.value_or(0);
  b.fallthrough = in.address + static_cast<GuestAddr>(in.bytes.size());
  b.taken = taken;
  b.fell_through = fell_through;
  return b;
}

inline ConditionStep step(const Instruction& in, bool has_memory, std::vector<std::string> labels = {}) {
  ConditionStep s;
  s.address = in.address;
  s.text = in.text();
  s.has_memory = has_memory;
  s.labels = std::move(labels);
  return s;
}

inline CoverageReport sample_report() {
  CoverageReport r;
  r.source = "hand-made <sample> & co";
  r.runs = 5;
  r.faulted = 1;
  r.diverged = 0;

  FunctionCoverage f1;
  f1.entry = 0x401000;
  f1.name = "tyres::sample";
  f1.listing = decode(0x401000, {{0x55},
                                 {0x8b, 0x46, 0x39},
                                 {0x3d, 0x00, 0x80, 0x00, 0x00},
                                 {0x7c, 0x03},
                                 {0x3b, 0x46, 0x39},
                                 {0x7e, 0x0b},
                                 {0xe8, 0xeb, 0xff, 0x0f, 0x00},
                                 {0x85, 0xc0},
                                 {0x74, 0x02},
                                 {0x31, 0xc0},
                                 {0x5d},
                                 {0xc3}});
  EXPECT_EQ(f1.listing.size(), 12u);
  if (f1.listing.size() != 12) return r;
  f1.hits = {5, 5, 5, 5, 2, 5, 0, 0, 0, 0, 5, 5};
  const auto& L = f1.listing;
  BranchSite b1 = branch(L[3], 3, 2);
  b1.condition = {step(L[1], true, {kCoveredLabel}), step(L[2], false)};
  BranchSite b2 = branch(L[5], 5, 0);
  b2.condition = {step(L[4], true, {kSlidingLabel, kSlidingLabel2})};
  b2.condition[0].first_address = 0x630950;
  BranchSite b3 = branch(L[8], 0, 0);
  ConditionStep call = step(L[6], false);
  call.call_target = 0x501000;
  b3.condition = {call, step(L[7], false)};
  f1.branches = {b1, b2, b3};
  r.functions.push_back(f1);

  FunctionCoverage f2;
  f2.entry = 0x402000;
  f2.name = kOddName;
  f2.listing = decode(0x402000, {{0xff, 0x24, 0x85, 0x00, 0x30, 0x40, 0x00}});
  f2.hits = {1};
  f2.indirect_jumps = {0x402000};
  f2.truncated = true;
  r.functions.push_back(f2);

  FunctionCoverage f3;
  f3.entry = 0x404000;
  f3.listing = decode(0x404000, {{0x85, 0x06}, {0x75, 0x01}, {0x90}, {0xc3}});
  f3.hits = {0, 0, 0, 0};
  if (f3.listing.size() == 4) {
    BranchSite b = branch(f3.listing[1], 0, 0);
    b.condition = {step(f3.listing[0], true)};  // never ran: no labels
    f3.branches = {b};
  }
  r.functions.push_back(f3);
  return r;
}

inline Profile sample_profile() {
  Profile p;
  p.name = "sample";
  FunctionSpec length16;
  length16.address = 0x501000;
  length16.name = "Tables::length16";
  p.functions.push_back(length16);
  return p;
}

}  // namespace lockstep::harness::test
