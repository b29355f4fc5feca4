// A game's bindings against its profile (lockstep/testing/bindings_check.hpp).
#include "lockstep/testing/bindings_check.hpp"

#include <gtest/gtest.h>

#include <set>
#include <unordered_map>

#include <fmt/format.h>

namespace lockstep::testing {

BindingsAgainstProfile check_bindings(const cases::BindingSet& bindings, const harness::Profile& profile) {
  BindingsAgainstProfile out;
  std::unordered_map<std::string, const harness::FunctionSpec*> by_name;
  std::unordered_map<cases::GuestAddr, const harness::FunctionSpec*> by_address;
  for (const harness::FunctionSpec& f : profile.functions) {
    by_name.emplace(f.name, &f);
    by_address.emplace(f.address, &f);
  }
  std::unordered_map<cases::GuestAddr, std::string> bound_addresses;  // address -> the first binding's name
  std::unordered_map<std::string, cases::GuestAddr> bound_names;      // name -> the first binding's address
  std::set<cases::GuestAddr> bound_functions;                         // profile functions some binding runs
  for (const cases::Binding& b : bindings) {
    const std::string binding = fmt::format("binding '{}' (0x{:08x})", b.name, b.address);
    if (auto [it, fresh] = bound_addresses.try_emplace(b.address, b.name); !fresh)
      out.disagreements.push_back(fmt::format("{}: 0x{:08x} already has binding '{}'", binding, b.address, it->second));
    if (auto [it, fresh] = bound_names.try_emplace(b.name, b.address); !fresh)
      out.disagreements.push_back(fmt::format("{}: the name is already binding 0x{:08x}'s", binding, it->second));
    const auto at = by_address.find(b.address);
    const auto named = by_name.find(b.name);
    if (at == by_address.end() && named == by_name.end()) {
      out.disagreements.push_back(
          fmt::format("{}: {} lists no function at 0x{:08x} and none named '{}'", binding, profile.source, b.address, b.name));
      continue;
    }
    if (at != by_address.end()) {
      const harness::FunctionSpec& f = *at->second;
      bound_functions.insert(b.address);
      if (f.name != b.name)
        out.disagreements.push_back(
            fmt::format("{}: {} (line {}) names 0x{:08x} '{}'", binding, profile.source, f.line, b.address, f.name));
      if (b.declared) {
        const std::string misfit = cases::declared_misfit(binding, *b.declared, {f.convention, f.args, f.returns});
        if (!misfit.empty()) out.disagreements.push_back(fmt::format("{} (line {})", misfit, f.line));
      }
    }
    if (named != by_name.end() && named->second->address != b.address)
      out.disagreements.push_back(fmt::format("{}: {} (line {}) puts '{}' at 0x{:08x}", binding, profile.source,
                                              named->second->line, b.name, named->second->address));
  }
  for (const harness::FunctionSpec& f : profile.functions)
    if (!bound_functions.count(f.address)) out.unbound.push_back(f.name);
  return out;
}

void expect_bindings_match_profile(const cases::BindingSet& bindings, const std::string& profile_path,
                                   const std::vector<Unbound>& deliberately_unbound) {
  auto profile = harness::load_profile(profile_path);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  const BindingsAgainstProfile found = check_bindings(bindings, *profile);
  for (const std::string& d : found.disagreements) ADD_FAILURE() << d;

  std::set<std::string> listed;
  for (const Unbound& u : deliberately_unbound) {
    EXPECT_TRUE(listed.insert(u.function).second) << "'" << u.function << "' is listed as unbound twice";
    EXPECT_NE(u.why.find_first_not_of(" \t\r\n"), std::string::npos)
        << "'" << u.function << "' is listed as unbound without a reason";
  }
  const std::set<std::string> unbound(found.unbound.begin(), found.unbound.end());
  for (const std::string& name : found.unbound)
    EXPECT_TRUE(listed.count(name)) << profile_path << ": function '" << name
                                    << "' has no binding: bind it, or list it as deliberately unbound with the reason";
  for (const Unbound& u : deliberately_unbound) {
    if (unbound.count(u.function)) continue;
    if (profile->function_by_name(u.function) == nullptr)
      ADD_FAILURE() << "'" << u.function << "' is listed as unbound, but " << profile_path << " has no such function";
    else
      ADD_FAILURE() << "'" << u.function << "' is listed as unbound, but it has a binding: take it off the list";
  }
}

}  // namespace lockstep::testing
