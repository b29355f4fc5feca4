// The test PE's 16.16 routine called under the Unicorn machine through its Watcom-convention thunk
// (a in eax, b in edx → eax), from the image alone (snapshot_from_image plus a stack and a thread),
// against the same C routine compiled natively into this test.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "lockstep/machine/machine.hpp"
#include "lockstep/readers/pe32.hpp"
#include "pe/fixmul.h"

namespace lockstep::harness {
namespace {

#ifdef LOCKSTEP_TEST_PE

GuestAddr symbol(const std::string& name) {
  std::ifstream in(LOCKSTEP_TEST_PE_NM);
  std::string line;
  std::smatch m;
  const std::regex re("^([0-9a-f]{8}) \\S " + name + "$");
  while (std::getline(in, line))
    if (std::regex_search(line, m, re)) return static_cast<GuestAddr>(std::stoul(m[1], nullptr, 16));
  ADD_FAILURE() << name << " not in " << LOCKSTEP_TEST_PE_NM;
  return 0;
}

TEST(Pe32Machine, WatcomThunkGivesTheNativeRoutinesResults) {
  auto img = load_pe32(LOCKSTEP_TEST_PE);
  ASSERT_TRUE(img.ok()) << img.error().message;
  Snapshot snap = snapshot_from_image(*img);
  // A stack and a thread: the image alone has neither.
  Region stack;
  stack.base = 0x00200000;
  stack.bytes.assign(0x10000, 0);
  stack.name = "test stack";
  snap.regions.push_back(std::move(stack));
  snap.sort_regions();
  Thread t;
  t.tid = 1;
  t.esp = 0x0020f000;
  t.cs = 0x23;
  t.ds = t.es = t.ss = 0x2b;
  t.ecx = 0xC0C0C0C0;
  t.ebx = 0xB0B0B0B0;
  snap.threads.push_back(t);
  ASSERT_TRUE(snap.validate().ok());

  MachineConfig cfg;
  cfg.default_fpu_control = 0x027f;
  auto m = Machine::create(snap, cfg);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const GuestAddr thunk = symbol("_fixmul_watcom");
  const std::int32_t values[] = {0, 1, -1, 0x10000, -0x10000, 0x18000, 0x7fffffff, -0x7fffffff - 1, 0x12345678,
                                 -0x00abcdef, 0x00008000, 3};
  int calls = 0;
  for (std::int32_t a : values)
    for (std::int32_t b : values) {
      (*m)->reset();
      CallSpec spec;
      spec.function = thunk;
      spec.convention = {Convention::kWatcom, {}};
      spec.args = {Arg::i32(a), Arg::i32(b)};
      spec.returns = ReturnKind::kEax;
      auto o = (*m)->call(spec);
      ASSERT_TRUE(o.ok()) << o.error().message;
      ASSERT_TRUE(o->returned()) << format_fault(*o->fault);
      EXPECT_EQ(static_cast<std::int32_t>(o->value.eax), fixmul_c(a, b)) << a << " * " << b;
      // Watcom's convention: everything but eax preserved (the thunk saves ecx and edx).
      EXPECT_EQ(o->record.out.ecx, o->record.in.ecx);
      EXPECT_EQ(o->record.out.edx, o->record.in.edx);
      EXPECT_EQ(o->record.out.ebx, o->record.in.ebx);
      EXPECT_EQ(o->popped, 0);
      ++calls;
    }
  EXPECT_EQ(calls, 144);
}

#else

TEST(Pe32Machine, WatcomThunkGivesTheNativeRoutinesResults) {
  GTEST_SKIP() << "i686-w64-mingw32-gcc was not found at configure time: no test PE built";
}

#endif

}  // namespace
}  // namespace lockstep::harness
