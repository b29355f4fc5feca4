// Capstone disassembly.
#include <gtest/gtest.h>

#include "fixture.hpp"
#include "lockstep/harness/disasm.hpp"

namespace lockstep::harness::test {
namespace {

TEST(Disasm, OneInstruction) {
  Disassembler d;
  const std::uint8_t mov[] = {0x8b, 0x41, 0x04};
  auto i = d.one(mov, 0x401000);
  ASSERT_TRUE(i);
  EXPECT_EQ(i->text(), "mov eax, dword ptr [ecx + 4]");
  EXPECT_EQ(i->bytes.size(), 3u);
  const std::uint8_t call[] = {0xe8, 0x0b, 0x00, 0x00, 0x00};
  i = d.one(call, 0x401000);
  ASSERT_TRUE(i);
  EXPECT_TRUE(i->is_call);
  EXPECT_EQ(i->target, std::optional<GuestAddr>(0x401010));
  const std::uint8_t bad[] = {0x8b};  // mov without its ModRM byte
  EXPECT_FALSE(d.one(bad, 0));
}

TEST(Disasm, FunctionFollowsJumpsNotCalls) {
  auto code = assemble(R"(
    test eax, eax
    jz skip
    call other
    jmp done
  skip:
    xor eax, eax
  done:
    ret
    db 0xcc, 0xcc
  other:
    ret)");
  Snapshot s = make_snapshot(code);
  Disassembler d;
  auto listing = d.function(snapshot_reader(s), kCode);
  std::vector<std::string> texts;
  for (auto& i : listing) texts.push_back(i.mnemonic);
  EXPECT_EQ(texts, (std::vector<std::string>{"test", "je", "call", "jmp", "xor", "ret"}));
  EXPECT_TRUE(listing[1].is_conditional);
  EXPECT_NE(format_listing(listing).find("00401000"), std::string::npos);
}

}  // namespace
}  // namespace lockstep::harness::test
