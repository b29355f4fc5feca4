// Declared bindings (lockstep/cases/declared.hpp) on hand-made cases: the port function gets the
// profile's arguments in order from where the convention put them, its result lands in the register
// the profile names, and a port function that does not fit the profile's signature is refused on
// every case with a message naming both sides. The expected values are worked out by hand from the
// cases below, not taken from the code under test.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>

#include "lockstep/cases/declared.hpp"

namespace {

using namespace lockstep::cases;

/// A port's memory over a case: what a game's own memory class is to the port.
class ToyMemory {
 public:
  explicit ToyMemory(ReplayMemory& m) : m_(m) {}
  std::uint32_t u32(GuestAddr a) { return static_cast<std::uint32_t>(m_.load_le(a, 4)); }
  void put_u32(GuestAddr a, std::uint32_t v) { m_.store_le(a, v, 4); }

 private:
  ReplayMemory& m_;
};

// Port functions of each shape a declared binding takes.
std::int32_t add_to(ToyMemory& m, GuestAddr counter, std::int32_t amount) {
  const auto v = static_cast<std::int32_t>(m.u32(counter)) + amount;
  m.put_u32(counter, static_cast<std::uint32_t>(v));
  return v;
}
void store_scaled(ToyMemory& m, GuestAddr out, float scale, double offset) {
  m.put_u32(out, static_cast<std::uint32_t>(static_cast<double>(scale) * 4.0 + offset));
}
std::uint64_t widen(ToyMemory&, std::uint32_t low) { return (std::uint64_t{low} << 32) | 0x1234u; }
double halve(float x) { return static_cast<double>(x) / 2.0; }
bool is_odd(ToyMemory&, std::uint32_t v) { return (v & 1u) != 0; }

constexpr GuestAddr kCounter = 0x1000;
constexpr GuestAddr kStack = 0x8000;  // the case's entry esp

Signature watcom(std::vector<ArgSpec> args, ReturnKind returns) {
  return Signature{CallingConvention{Convention::kWatcom, {}}, std::move(args), returns};
}

Case a_case() {
  Case c;
  c.name = "toy";
  c.in.esp = kStack;
  c.stack_low = kStack - 0x1000;
  c.stack_high = kStack + 0x1000;
  return c;
}

TEST(Declared, RegisterArgumentsInOrderAndTheResultInEax) {
  Case c = a_case();
  c.in.eax = kCounter;
  c.in.edx = static_cast<std::uint32_t>(-3);
  c.inputs.set(kCounter, std::vector<std::uint8_t>{10, 0, 0, 0});
  const Binding b = declared<ToyMemory>(0x401000, "toy::add_to", &add_to);
  ASSERT_TRUE(b.declared.has_value());
  EXPECT_EQ(b.declared->returns, ReturnKind::kEax);
  const PortEffects fx = b.run_with_args(c, watcom({{"counter", ArgType::kPtr}, {"amount", ArgType::kI32}}, ReturnKind::kEax));
  EXPECT_EQ(fx.error, "");
  EXPECT_EQ(fx.eax, 7u);  // 10 + (-3)
  EXPECT_EQ(fx.writes.get(kCounter), std::optional<std::uint8_t>(7));
  EXPECT_TRUE(fx.outside_reads.empty());
}

TEST(Declared, StackArgumentsAFloatAndADouble) {
  // cdecl: out at esp+4, scale (f32) at esp+8, offset (f64) at esp+12..19.
  Case c = a_case();
  const std::uint32_t out = 0x2000, scale = std::bit_cast<std::uint32_t>(2.5f);
  const std::uint64_t offset = std::bit_cast<std::uint64_t>(1.0);
  for (unsigned i = 0; i < 4; ++i) {
    c.inputs.set(kStack + 4 + i, static_cast<std::uint8_t>(out >> (8 * i)));
    c.inputs.set(kStack + 8 + i, static_cast<std::uint8_t>(scale >> (8 * i)));
  }
  for (unsigned i = 0; i < 8; ++i) c.inputs.set(kStack + 12 + i, static_cast<std::uint8_t>(offset >> (8 * i)));
  const Binding b = declared<ToyMemory>(0x401100, "toy::store_scaled", &store_scaled);
  const Signature s{CallingConvention{Convention::kCdecl, {}},
                    {{"out", ArgType::kPtr}, {"scale", ArgType::kF32}, {"offset", ArgType::kF64}},
                    ReturnKind::kNone};
  const PortEffects fx = b.run_with_args(c, s);
  EXPECT_EQ(fx.error, "");
  EXPECT_EQ(fx.writes.get(out), std::optional<std::uint8_t>(11));  // 2.5 * 4 + 1
}

TEST(Declared, WideIntegerInEdxEaxFloatingPointInSt0BoolAsOneOrZero) {
  Case c = a_case();
  c.in.eax = 0xabcd;
  const PortEffects wide = declared<ToyMemory>(0x401200, "toy::widen", &widen)
                               .run_with_args(c, watcom({{"low", ArgType::kU32}}, ReturnKind::kEdxEax));
  EXPECT_EQ(wide.error, "");
  EXPECT_EQ(wide.eax, 0x1234u);
  EXPECT_EQ(wide.edx, 0xabcdu);

  c.in.eax = std::bit_cast<std::uint32_t>(3.0f);
  const PortEffects half = declared<ToyMemory>(0x401300, "toy::halve", &halve)
                               .run_with_args(c, watcom({{"x", ArgType::kF32}}, ReturnKind::kSt0));
  EXPECT_EQ(half.error, "");
  ASSERT_TRUE(half.st0.has_value());
  EXPECT_EQ(half.st0->to_double(), 1.5);

  c.in.eax = 0xffffff03;
  const PortEffects odd = declared<ToyMemory>(0x401400, "toy::is_odd", &is_odd)
                              .run_with_args(c, watcom({{"v", ArgType::kU32}}, ReturnKind::kEax));
  EXPECT_EQ(odd.eax, 1u);
}

TEST(Declared, AMisfitIsThePortErrorOfEveryCaseAndRunsNothing) {
  Case c = a_case();
  c.in.eax = kCounter;
  c.inputs.set(kCounter, std::vector<std::uint8_t>{10, 0, 0, 0});
  const Binding b = declared<ToyMemory>(0x401000, "toy::add_to", &add_to);
  // One argument fewer than the port takes.
  PortEffects fx = b.run_with_args(c, watcom({{"counter", ArgType::kPtr}}, ReturnKind::kEax));
  EXPECT_NE(fx.error.find("takes 2 argument(s) after its memory, the profile lists 1"), std::string::npos) << fx.error;
  EXPECT_NE(fx.error.find("args = [counter:ptr]"), std::string::npos) << fx.error;
  EXPECT_TRUE(fx.writes.empty());  // refused before the port ran
  // The return the profile forgot.
  fx = b.run_with_args(c, watcom({{"counter", ArgType::kPtr}, {"amount", ArgType::kI32}}, ReturnKind::kNone));
  EXPECT_NE(fx.error.find("the port function returns eax, the profile says none"), std::string::npos) << fx.error;
  // A double where the port takes a word.
  fx = b.run_with_args(c, watcom({{"counter", ArgType::kPtr}, {"amount", ArgType::kF64}}, ReturnKind::kEax));
  EXPECT_NE(fx.error.find("its argument 2 is a 32-bit integer, which the profile's 'amount:f64' is not"),
            std::string::npos)
      << fx.error;
}

TEST(Declared, MisfitSaysNothingWhenTheTwoAgree) {
  const DeclaredShape shape{{DeclaredShape::Param::kWord, DeclaredShape::Param::kFloat}, ReturnKind::kSt0};
  // A float the profile passes as its bits (u32) fits a float parameter; any 32-bit kind fits a word.
  EXPECT_EQ(declared_misfit("f", shape, watcom({{"a", ArgType::kPtr}, {"b", ArgType::kU32}}, ReturnKind::kSt0)), "");
  EXPECT_EQ(declared_misfit("f", shape, watcom({{"a", ArgType::kI32}, {"b", ArgType::kF32}}, ReturnKind::kSt0)), "");
  EXPECT_NE(declared_misfit("f", shape, watcom({{"a", ArgType::kF32}, {"b", ArgType::kI32}}, ReturnKind::kSt0)), "");
}

TEST(Declared, RunBindingWithoutAProfileSaysWhatIsMissing) {
  const Binding b = declared<ToyMemory>(0x401000, "toy::add_to", &add_to);
  const PortEffects fx = run_binding(b, a_case());
  EXPECT_NE(fx.error.find("no profile gave the function's args"), std::string::npos) << fx.error;
}

TEST(Declared, EditedEffectsApplyToADeclaredBinding) {
  Case c = a_case();
  c.in.eax = kCounter;
  c.inputs.set(kCounter, std::vector<std::uint8_t>{10, 0, 0, 0});
  Binding b = with_edited_effects(declared<ToyMemory>(0x401000, "toy::add_to", &add_to),
                                  [](const Case&, PortEffects& fx) { fx.eax ^= 1; });
  b.signature = std::make_shared<const Signature>(
      watcom({{"counter", ArgType::kPtr}, {"amount", ArgType::kI32}}, ReturnKind::kEax));
  EXPECT_EQ(run_binding(b, c).eax, 11u);  // 10 + 0, then the edit's flipped bit
}

}  // namespace
