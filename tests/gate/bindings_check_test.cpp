// lockstep::testing::check_bindings on a small profile and bindings wrong on purpose: each way the
// two can disagree is reported, and expect_bindings_match_profile fails on it.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "lockstep/cases/declared.hpp"
#include "lockstep/testing/bindings_check.hpp"

namespace {

using lockstep::cases::Binding;
using lockstep::cases::BindingSet;
using lockstep::testing::check_bindings;

constexpr const char* kProfile = R"(
[[function]]
address = 0x401000
name = "math::add"
convention = "watcom"
returns = "none"

[[function]]
address = 0x401100
name = "math::sub"
convention = "watcom"
returns = "none"

[[function]]
address = 0x401200
name = "driver::main"
convention = "watcom"
returns = "none"
)";

lockstep::harness::Profile profile() {
  auto p = lockstep::harness::parse_profile(kProfile, "game.toml");
  EXPECT_TRUE(p.ok()) << p.error().message;
  return p.ok() ? std::move(*p) : lockstep::harness::Profile{};
}

Binding bound(lockstep::cases::GuestAddr address, std::string name) { return {address, std::move(name), {}}; }

bool mentions(const std::vector<std::string>& sentences, const std::string& part) {
  return std::any_of(sentences.begin(), sentences.end(),
                     [&](const std::string& s) { return s.find(part) != std::string::npos; });
}

TEST(BindingsCheck, AgreeingBindingsLeaveOnlyTheUnbound) {
  const auto found = check_bindings({bound(0x401000, "math::add"), bound(0x401100, "math::sub")}, profile());
  EXPECT_TRUE(found.disagreements.empty()) << found.disagreements.front();
  EXPECT_EQ(found.unbound, std::vector<std::string>{"driver::main"});
}

/// A port's memory for the declared bindings below (never run here).
struct NoMemory {
  explicit NoMemory(lockstep::cases::ReplayMemory&) {}
};
std::int32_t add(NoMemory&, std::int32_t a, std::int32_t b) { return a + b; }
void sub(NoMemory&) {}

TEST(BindingsCheck, ADeclaredBindingThatDoesNotFitItsProfileFunctionIsReported) {
  // math::add's port takes two words and returns one; the profile lists no args and returns none.
  // math::sub's takes nothing and returns nothing, as the profile says: it fits.
  const auto found = check_bindings({lockstep::cases::declared<NoMemory>(0x401000, "math::add", &add),
                                     lockstep::cases::declared<NoMemory>(0x401100, "math::sub", &sub)},
                                    profile());
  ASSERT_EQ(found.disagreements.size(), 1u);
  EXPECT_TRUE(mentions(found.disagreements, "binding 'math::add' (0x00401000): the port function takes 2 argument(s) "
                                            "after its memory, the profile lists 0"))
      << found.disagreements.front();
  EXPECT_TRUE(mentions(found.disagreements, "(line 2)")) << found.disagreements.front();
}

TEST(BindingsCheck, ANameTheProfileGivesAnotherAddressIsReported) {
  const auto found = check_bindings({bound(0x401000, "math::sub")}, profile());
  ASSERT_EQ(found.disagreements.size(), 2u);
  // Both ways: 0x401000 is math::add in the profile, and math::sub sits at 0x401100.
  EXPECT_TRUE(mentions(found.disagreements, "names 0x00401000 'math::add'"));
  EXPECT_TRUE(mentions(found.disagreements, "puts 'math::sub' at 0x00401100"));
  EXPECT_EQ(found.unbound, (std::vector<std::string>{"math::sub", "driver::main"}));
}

TEST(BindingsCheck, ARenamedBindingIsReported) {
  const auto found = check_bindings({bound(0x401000, "arith::add")}, profile());
  ASSERT_EQ(found.disagreements.size(), 1u);
  EXPECT_TRUE(mentions(found.disagreements, "binding 'arith::add' (0x00401000): game.toml (line 2) names 0x00401000 'math::add'"));
}

TEST(BindingsCheck, AMovedBindingIsReported) {
  const auto found = check_bindings({bound(0x401004, "math::add")}, profile());
  ASSERT_EQ(found.disagreements.size(), 1u);
  EXPECT_TRUE(mentions(found.disagreements, "puts 'math::add' at 0x00401000"));
  EXPECT_TRUE(mentions(found.unbound, "math::add"));
}

TEST(BindingsCheck, ABindingOfNoProfileFunctionIsReported) {
  const auto found = check_bindings({bound(0x402000, "math::mul")}, profile());
  ASSERT_EQ(found.disagreements.size(), 1u);
  EXPECT_TRUE(mentions(found.disagreements, "lists no function at 0x00402000 and none named 'math::mul'"));
}

TEST(BindingsCheck, TwoBindingsOfOneFunctionAreReported) {
  const auto by_address = check_bindings({bound(0x401000, "math::add"), bound(0x401000, "math::add")}, profile());
  EXPECT_TRUE(mentions(by_address.disagreements, "0x00401000 already has binding 'math::add'"));
  EXPECT_TRUE(mentions(by_address.disagreements, "the name is already binding 0x00401000's"));
}

TEST(BindingsCheck, TheAssertionsFailOnADisagreementAndOnAWrongUnboundList) {
  const std::string path = LOCKSTEP_TEST_PROFILE;  // a profile file: the assertions read it themselves
  auto p = lockstep::harness::load_profile(path);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_GE(p->functions.size(), 2u);
  const auto& first = p->functions[0];
  BindingSet all;
  for (const auto& f : p->functions) all.push_back(bound(f.address, f.name));

  lockstep::testing::expect_bindings_match_profile(all, path, {});  // passes: every function bound
  BindingSet renamed = all;
  renamed[0].name += "_renamed";
  EXPECT_NONFATAL_FAILURE(lockstep::testing::expect_bindings_match_profile(renamed, path, {}), "names 0x");
  BindingSet missing(all.begin() + 1, all.end());
  EXPECT_NONFATAL_FAILURE(lockstep::testing::expect_bindings_match_profile(missing, path, {}), "has no binding");
  lockstep::testing::expect_bindings_match_profile(missing, path, {{first.name, "not ported"}});
  EXPECT_NONFATAL_FAILURE(lockstep::testing::expect_bindings_match_profile(all, path, {{first.name, "not ported"}}),
                          "it has a binding");
  EXPECT_NONFATAL_FAILURE(lockstep::testing::expect_bindings_match_profile(missing, path, {{first.name, " "}}),
                          "without a reason");
  EXPECT_NONFATAL_FAILURE(
      lockstep::testing::expect_bindings_match_profile(all, path, {{"no::such_function", "gone"}}), "has no such function");
}

}  // namespace
