// Capstone disassembly.
#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>

#include "fixture.hpp"
#include "lockstep/disasm/data_slice.hpp"
#include "lockstep/disasm/disasm.hpp"

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


// The addresses of the listing's instructions with these texts ("mov dword ptr [ebx + 0x10], esi"),
// ascending; the first call for "call".
std::vector<GuestAddr> addresses_of(const std::vector<Instruction>& listing, const std::vector<std::string>& texts) {
  std::vector<GuestAddr> out;
  for (const auto& t : texts) {
    auto it = std::find_if(listing.begin(), listing.end(),
                           [&t](const Instruction& i) { return t == "call" ? i.is_call : i.text() == t; });
    EXPECT_NE(it, listing.end()) << "no '" << t << "' in the listing:\n" << format_listing(listing);
    if (it != listing.end()) out.push_back(it->address);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The value stored came from a call two blocks up, its address from the first argument; the
// instructions just before the store (pushes and pops) computed neither. The expected slice is read
// off the code by hand.
TEST(DataSlice, FollowsTheValueBackThroughBlocksToTheCall) {
  auto code = assemble(R"(
    push ebx
    mov ebx, [esp + 8]        ; the first argument: where to store
    push 5
    call helper               ; eax = the value
    add esp, 4
    mov esi, eax
    test ebx, ebx
    jz done
    push edx
    pop edx
    add esi, 3
    push ecx
    pop ecx
    mov [ebx + 0x10], esi     ; the store
  done:
    pop ebx
    ret
  helper:
    mov eax, 7
    ret)");
  const Snapshot snap = make_snapshot(code);
  Disassembler d;
  const auto listing = d.function(snapshot_reader(snap), kCode);
  const GuestAddr store = addresses_of(listing, {"mov dword ptr [ebx + 0x10], esi"})[0];
  const DataSlice s = data_slice(listing, kCode, store);
  EXPECT_EQ(s.instructions, addresses_of(listing, {"mov ebx, dword ptr [esp + 8]", "call", "mov esi, eax", "add esi, 3",
                                                   "mov dword ptr [ebx + 0x10], esi"}));
  EXPECT_EQ(s.from_caller, std::vector<std::string>{"esp+4"});  // the first argument, above the return address
  EXPECT_FALSE(s.truncated);
  // Printed: the writer marked, `...` where the listing skips, no push or pop of the block.
  const std::string text = format_data_slice(listing, kCode, store);
  EXPECT_NE(text.find("> "), std::string::npos) << text;
  EXPECT_NE(text.find("...\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("push"), std::string::npos) << text;
  EXPECT_EQ(text.find("pop"), std::string::npos) << text;
  EXPECT_NE(text.find("from the caller: esp+4"), std::string::npos) << text;
}

// x87: the stored float is the product of two loads through the register stack (an fxch between),
// spilled to a stack slot and loaded back; the constant's fld that is popped unused is not in it.
TEST(DataSlice, FollowsTheX87StackAndStackSlots) {
  auto code = assemble(R"(
    sub esp, 4
    mov eax, [esp + 8]
    fld1                        ; popped unused below
    fstp st0
    fld dword [eax]             ; a
    fld dword [eax + 4]         ; b
    fxch st1
    fmulp st1, st0              ; a * b
    fstp dword [esp]            ; spilled
    fld dword [esp]             ; and back
    fstp dword [eax + 8]        ; the store
    add esp, 4
    ret)");
  const Snapshot snap = make_snapshot(code);
  Disassembler d;
  const auto listing = d.function(snapshot_reader(snap), kCode);
  ASSERT_GE(listing.size(), 11u);
  const GuestAddr store = listing[10].address;  // fstp dword [eax + 8]
  ASSERT_EQ(listing[10].mnemonic, "fstp");
  std::vector<GuestAddr> want;
  for (std::size_t k : {1u, 4u, 5u, 6u, 7u, 8u, 9u, 10u}) want.push_back(listing[k].address);
  EXPECT_EQ(data_slice(listing, kCode, store).instructions, want) << format_data_slice(listing, kCode, store);
}

// Unicorn notes an x87 store's write at the last integer memory access before it: the store is found
// after it, the one addressing the stack for a stack byte, else the other.
TEST(DataSlice, FindsTheX87StoreAfterTheNotedInstruction) {
  auto code = assemble(R"(
    mov eax, [esp + 4]
    fld dword [eax]
    fst dword [esp - 8]
    fstp dword [eax + 8]
    mov [eax + 12], ecx
    ret)");
  const Snapshot snap = make_snapshot(code);
  Disassembler d;
  const auto listing = d.function(snapshot_reader(snap), kCode);
  ASSERT_EQ(listing.size(), 6u);
  const ResolvedWriter heap = resolve_writer(listing, listing[0].address, false);
  EXPECT_TRUE(heap.moved);
  EXPECT_EQ(heap.address, listing[3].address);
  const ResolvedWriter stack = resolve_writer(listing, listing[0].address, true);
  EXPECT_EQ(stack.address, listing[2].address);
  // A noted instruction that writes memory is the writer.
  EXPECT_FALSE(resolve_writer(listing, listing[4].address, false).moved);
}

// A direct call's target is shown by the name the caller gives it.
TEST(Disasm, ListingNamesCallTargets) {
  auto code = assemble(R"(
    call other
    ret
  other:
    ret)");
  const Snapshot snap = make_snapshot(code);
  Disassembler d;
  const auto listing = d.function(snapshot_reader(snap), kCode);
  const GuestAddr other = kCode + 6;
  const std::string named = format_listing(listing, [other](GuestAddr a) { return a == other ? "world::step" : ""; });
  EXPECT_NE(named.find(fmt::format("call 0x{:08x} <world::step>", other)), std::string::npos) << named;
  EXPECT_EQ(format_listing(listing).find('<'), std::string::npos);
}

}  // namespace
}  // namespace lockstep::harness::test
