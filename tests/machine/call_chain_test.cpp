// The call chain a fault report reads back from the stack (harness/machine/src/faults.hpp), without
// Unicorn: guest bytes from a map. Expected values: the x86 encodings of `call rel32` (e8) and
// `call [ebx + 8]` (ff 53 08, ModRM mod 01 reg 2 rm 3).
#include <gtest/gtest.h>

#include <map>

#include "faults.hpp"

namespace lockstep::harness::machine_detail {
namespace {

struct Memory {
  std::map<GuestAddr, std::uint8_t> bytes;
  void put(GuestAddr a, std::initializer_list<std::uint8_t> b) {
    for (std::uint8_t v : b) bytes[a++] = v;
  }
  void put32(GuestAddr a, std::uint32_t v) { put(a, {std::uint8_t(v), std::uint8_t(v >> 8), std::uint8_t(v >> 16), std::uint8_t(v >> 24)}); }
};

TEST(CallChain, FindsDirectAndIndirectCallsAndSkipsData) {
  Memory m;
  // Code at 0x401000: a direct call at 0x401010 to 0x402000 (rel32 = 0x402000 - 0x401015), and an
  // indirect call [ebx + 8] at 0x401020.
  m.put(0x401010, {0xe8});
  m.put32(0x401011, 0x402000 - 0x401015);
  m.put(0x401020, {0xff, 0x53, 0x08});
  // The stack from esp = 0x7000: a data word, the indirect call's return address, a value that
  // points into code but not after a call, the direct call's return address.
  m.put32(0x7000, 0x12345678);
  m.put32(0x7004, 0x401023);
  m.put32(0x7008, 0x401030);
  m.put32(0x700c, 0x401015);
  const ByteAt byte_at = [&](GuestAddr a) -> std::optional<std::uint8_t> {
    if (a >= 0x401000 && a < 0x402000) {
      auto it = m.bytes.find(a);
      return it == m.bytes.end() ? std::uint8_t{0x90} : it->second;  // nop elsewhere in the code page
    }
    auto it = m.bytes.find(a);
    if (it == m.bytes.end()) return std::nullopt;
    return it->second;
  };
  const IsExecutable executable = [](GuestAddr a) { return a >= 0x401000 && a < 0x403000; };
  const std::vector<ChainEntry> chain = scan_call_chain(0x7000, 0x7010, byte_at, executable);
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(chain[0].return_address, 0x401023u);
  EXPECT_EQ(chain[0].call_site, 0x401020u);
  EXPECT_FALSE(chain[0].callee.has_value()) << "indirect: the callee is not in the bytes";
  EXPECT_EQ(chain[1].return_address, 0x401015u);
  EXPECT_EQ(chain[1].call_site, 0x401010u);
  ASSERT_TRUE(chain[1].callee.has_value());
  EXPECT_EQ(*chain[1].callee, 0x402000u);
  // The scan stops at its limit: the entry esp of the call that faulted.
  EXPECT_EQ(scan_call_chain(0x7000, 0x700c, byte_at, executable).size(), 1u);
}

}  // namespace
}  // namespace lockstep::harness::machine_detail
