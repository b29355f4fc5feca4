// The replay gate (lockstep/testing/gate.hpp): a corpus becomes one GoogleTest test per function; a
// failing test's message is the replay report a porter reads.
#include "lockstep/testing/gate.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "lockstep/base/io.hpp"
#include "lockstep/base/numbers.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/profile/corpus_profile.hpp"
#include "lockstep/replay/exclusions.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/replay/replay.hpp"

namespace lockstep::testing {
namespace {

/// (function, case) -> every known difference of it ("different 0x00630880", "register eax") -> why
using KnownDifferences = std::map<std::pair<std::uint32_t, std::uint32_t>, std::map<std::string, std::string>>;

/// What every test of one gate shares (the tests hold it: it lives as long as they do).
struct Gate {
  cases::Corpus corpus;
  KnownDifferences known;
  std::optional<harness::Labeler> labeler;
  std::optional<harness::Profile> profile;  ///< names bytes and arguments; gives bindings their signatures
  cases::BindingSet bindings;
  harness::ExcludedFunctions excluded;  ///< function -> why it is left unchecked on purpose

  harness::Namer namer() const {
    harness::Namer n = harness::corpus_namer(corpus, labeler ? &*labeler : nullptr, 200);
    if (profile) harness::name_arguments(n, *profile);
    return n;
  }
};

const char* diff_kind_name(cases::ByteDiff::Kind k) {
  switch (k) {
    case cases::ByteDiff::Kind::kDifferent: return "different";
    case cases::ByteDiff::Kind::kNotWritten: return "not-written";
    case cases::ByteDiff::Kind::kExtraWrite: return "extra-write";
  }
  return "?";
}

/// A case's differences, one item per byte, register or error, in the known-differences spelling.
std::set<std::string> difference_items(const cases::Comparison& cmp) {
  std::set<std::string> items;
  for (const auto& b : cmp.bytes) items.insert(fmt::format("{} 0x{:08x}", diff_kind_name(b.kind), b.address));
  if (cmp.outside_reads_fail)
    for (auto a : cmp.outside_reads) items.insert(fmt::format("outside-read 0x{:08x}", a));
  for (const auto& r : cmp.registers) items.insert("register " + r.name);
  if (!cmp.port_error.empty()) items.insert("port-error");
  return items;
}

/// Items as known-differences lines (consecutive bytes of one kind on one line), for the message.
std::string as_known_lines(std::uint32_t fn, std::uint32_t id, const std::set<std::string>& items) {
  std::string out;
  std::string kind;
  std::uint64_t start = 0, next = 0;
  auto flush = [&] {
    if (kind.empty()) return;
    out += fmt::format("  0x{:08x}:{}  {} 0x{:08x}{}  <why>\n", fn, id, kind, start,
                       next - start > 1 ? fmt::format("+{}", next - start) : "");
    kind.clear();
  };
  for (const std::string& item : items) {
    const auto sp = item.find(' ');
    const std::string k = item.substr(0, sp);
    if (sp == std::string::npos || k == "register") {
      flush();
      out += fmt::format("  0x{:08x}:{}  {}  <why>\n", fn, id, item);
      continue;
    }
    const std::uint64_t a = std::stoull(item.substr(sp + 1), nullptr, 16);
    if (k == kind && a == next) {
      ++next;
      continue;
    }
    flush();
    kind = k;
    start = a;
    next = a + 1;
  }
  flush();
  return out;
}

const cases::CaseFile* find_file(const cases::Corpus& corpus, std::uint32_t fn) {
  for (const auto& f : corpus.files)
    if (f.function == fn) return &f;
  return nullptr;
}

/// "N of M cases checked" over the tests this process ran, printed when they are done: the gate's
/// summary, as replay's table ends with it.
struct CheckedCount : ::testing::Environment {
  static inline std::uint64_t checked = 0, total = 0, excluded = 0;
  void TearDown() override {
    std::printf("lockstep gate: %llu of %llu cases checked%s\n", static_cast<unsigned long long>(checked),
                static_cast<unsigned long long>(total),
                excluded ? fmt::format(" ({} function(s) excluded, each with its reason)", excluded).c_str() : "");
  }
};

/// What a failing unbound function's message adds when a binding has its name at another address (the
/// profile's or the binding's address typed wrong): the likeliest cause.
std::string binding_elsewhere(const cases::BindingSet& bindings, const std::string& name, std::uint32_t fn) {
  for (const auto& b : bindings)
    if (b.name == name && b.address != fn)
      return fmt::format("; a binding named {} runs for 0x{:08x} instead, which the corpus does not hold at that name: "
                         "one of the two addresses is wrong",
                         name, b.address);
  return "";
}

bool all_empty(const cases::CaseFile& file) {
  for (const auto& c : file.cases)
    if (c.poked() || !c.inputs.empty() || !c.writes.empty() || c.returns != cases::ReturnKind::kNone) return false;
  return !file.cases.empty();
}

class FunctionGate : public ::testing::Test {
 public:
  FunctionGate(std::shared_ptr<const Gate> gate, std::uint32_t fn) : gate_(std::move(gate)), fn_(fn) {}
  void TestBody() override {
    harness::ReplayOptions opt;
    opt.functions = {fn_};
    auto r = harness::replay(gate_->corpus, gate_->bindings, opt);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->functions.size(), 1u);
    const auto& f = r->functions[0];
    CheckedCount::total += f.cases;
    // Nothing checked is no pass: an unbound function, or one without cases, fails unless the
    // exclusions file says why it is left out (then it is skipped, with that reason).
    if (auto ex = gate_->excluded.find(fn_); ex != gate_->excluded.end() && (!f.bound || f.cases == 0)) {
      ++CheckedCount::excluded;
      GTEST_SKIP() << f.name << ": excluded (" << ex->second << "); " << f.cases << " cases, none checked";
    }
    if (!f.bound)
      FAIL() << f.name << ": no binding: its " << f.cases << " cases were never run on the port"
             << binding_elsewhere(gate_->bindings, f.name, fn_)
             << ". Bind it, or list it in the gate's exclusions file with the reason it is left unchecked";
    if (f.cases == 0)
      FAIL() << f.name << ": the corpus holds no case of it: nothing for its binding to run on. Capture cases "
             << "of it, or list it in the gate's exclusions file with the reason";
    CheckedCount::checked += f.cases;
    // Captured cases that read nothing and wrote nothing (and return nothing) are of a stub, not the
    // function: a capture that replaced it with a `ret` records the ret. Matching those would prove
    // nothing. Poked cases are exempt: a search or an analyst chose that state on purpose, e.g. the
    // empty list a guard returns on at once (its evidence is that the port, too, touches nothing).
    if (const auto* file = find_file(gate_->corpus, fn_); file != nullptr && all_empty(*file))
      FAIL() << f.name << ": all " << f.cases << " cases read and write nothing (the capture ran a stub at "
             << fmt::format("{:#010x}", fn_) << "?): the corpus holds no evidence for it";
    std::string reports;
    std::size_t shown = 0, known = 0;
    std::set<std::uint32_t> failing;
    auto namer = gate_->namer();
    for (const auto& c : f.failures) {
      failing.insert(c.c->id);
      const std::set<std::string> items = difference_items(c.comparison);
      auto listed = gate_->known.find({fn_, c.c->id});
      std::set<std::string> unlisted = items, gone;
      if (listed != gate_->known.end()) {
        for (const auto& [item, why] : listed->second) {
          if (!unlisted.erase(item)) gone.insert(item);
        }
      }
      if (unlisted.empty() && gone.empty()) {
        ++known;
        continue;
      }
      if (shown++ < 3) {
        reports += harness::format_mismatch(f, c, namer);
        if (!unlisted.empty())
          reports += "differences not among the known ones, as known-differences lines:\n" +
                     as_known_lines(fn_, c.c->id, unlisted);
        if (!gone.empty())
          reports += "listed as known but no longer there (delete them):\n" + as_known_lines(fn_, c.c->id, gone);
      }
    }
    EXPECT_EQ(f.mismatched, known) << f.mismatched - known << " of " << f.cases << " cases of " << f.name
                                   << " mismatched other than the known differences say; the first:\n" << reports;
    EXPECT_EQ(f.matched + known, f.cases);
    for (const auto& [key, items] : gate_->known) {
      if (key.first != fn_) continue;
      EXPECT_TRUE(failing.count(key.second))
          << f.name << " case " << key.second << " is listed with " << items.size()
          << " known differing bytes (" << items.begin()->second
          << ") but now matches (or is gone): delete its lines from the known-differences file";
    }
    RecordProperty("cases", static_cast<int>(f.cases));
  }

 private:
  std::shared_ptr<const Gate> gate_;
  std::uint32_t fn_;
};

class NothingChecked : public ::testing::Test {
 public:
  explicit NothingChecked(std::string why) : why_(std::move(why)) {}
  void TestBody() override { FAIL() << why_; }

 private:
  std::string why_;
};

/// One line of a known-differences file into `known`; an error message, or "" when it is fine.
std::string parse_known_line(std::string line, KnownDifferences& known) {
  if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
  std::istringstream ls(line);
  std::string id, kind, where, why;
  if (!(ls >> id)) return "";
  const auto colon = id.find(':');
  auto fn = parse_address(id.substr(0, colon));
  auto cid = colon == std::string::npos ? fn : parse_address(id.substr(colon + 1));
  if (colon == std::string::npos || !fn.ok() || !cid.ok())
    return "expected FUNCTION_ADDRESS:CASE_ID KIND ADDRESS[+COUNT] why, got \"" + id + "\"";
  if (!(ls >> kind)) return "no KIND after " + id;
  std::vector<std::string> items;
  if (kind == "port-error") {
    items.push_back(kind);
  } else if (kind == "register") {
    if (!(ls >> where)) return "register without its name";
    items.push_back(kind + " " + where);
  } else if (kind == "outside-read" || kind == "different" || kind == "not-written" || kind == "extra-write") {
    if (!(ls >> where)) return kind + " without ADDRESS[+COUNT]";
    const auto plus = where.find('+');
    auto a = parse_address(where.substr(0, plus));
    auto count = plus == std::string::npos ? Result<std::uint32_t>(1u) : parse_address(where.substr(plus + 1));
    if (!a.ok() || !count.ok() || *count == 0 || std::uint64_t{*a} + *count > (std::uint64_t{1} << 32))
      return "\"" + where + "\" is not ADDRESS or ADDRESS+COUNT";
    for (std::uint32_t k = 0; k < *count; ++k) items.push_back(fmt::format("{} 0x{:08x}", kind, *a + k));
  } else {
    return "unknown KIND \"" + kind + "\" (outside-read, different, not-written, extra-write, register, port-error)";
  }
  std::getline(ls, why);
  const auto text = why.find_first_not_of(' ');
  if (text == std::string::npos) return "no reason given: every known difference says why";
  for (const auto& item : items)
    if (!known[{*fn, *cid}].emplace(item, why.substr(text)).second) return item + " listed twice";
  return "";
}

Result<KnownDifferences> read_known_differences(const std::string& path) {
  // A list of a few hundred lines; 16 MiB bounds a wrong file named by mistake.
  LOCKSTEP_TRY(std::vector<std::uint8_t> bytes, read_file(path, 16u << 20));
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  KnownDifferences known;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (std::string what = parse_known_line(line, known); !what.empty())
      return Error::make(Errc::kMalformed, "{}:{}: {}", path, n, what);
  return known;
}

/// Takes `name VALUE` out of argv (GoogleTest must not see it); `value` keeps its default when absent.
/// True when the flag was given.
bool take_flag(int& argc, char** argv, const char* name, std::string& value) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) != 0) continue;
    value = argv[i + 1];
    for (int j = i; j + 2 <= argc; ++j) argv[j] = argv[j + 2];
    argc -= 2;
    return true;
  }
  return false;
}

}  // namespace

Status register_gate(const GateOptions& options, cases::BindingSet bindings) {
  auto gate = std::make_shared<Gate>();
  gate->bindings = std::move(bindings);
  LOCKSTEP_TRY(gate->corpus, cases::read_corpus(options.corpus));
  if (!options.known_differences.empty()) {
    LOCKSTEP_TRY(gate->known, read_known_differences(options.known_differences));
  }
  if (!options.exclusions.empty()) {
    LOCKSTEP_TRY(std::vector<harness::Exclusion> listed, harness::read_exclusions(options.exclusions));
    LOCKSTEP_TRY(gate->excluded, harness::resolve_exclusions(listed, gate->corpus));
  }
  if (!options.profile.empty()) {
    LOCKSTEP_TRY(harness::Profile profile, harness::load_profile(options.profile));
    gate->profile = std::move(profile);
  } else {
    // No profile given: the one the corpus was captured with, when it can still be read.
    LOCKSTEP_TRY(harness::RecordedProfile recorded,
                 harness::recorded_profile(gate->corpus.manifest, options.corpus, harness::ProfileNeed::kNames));
    for (const std::string& w : recorded.warnings) std::fprintf(stderr, "lockstep gate: warning: %s\n", w.c_str());
    gate->profile = std::move(recorded.profile);
  }
  if (gate->profile) {
    gate->labeler.emplace(*gate->profile);
    gate->bindings = harness::with_signatures(std::move(gate->bindings), *gate->profile);
  }
  for (const auto& [key, why] : gate->known) {
    bool present = false;
    for (const auto& f : gate->corpus.files)
      for (const auto& c : f.cases) present = present || (f.function == key.first && c.id == key.second);
    if (!present)
      return Error::make(Errc::kMalformed, "{} lists case 0x{:08x}:{}, which the corpus {} does not hold: delete its lines",
                         options.known_differences, key.first, key.second, options.corpus);
  }
  std::size_t n = 0, checkable = 0;
  for (const auto& f : gate->corpus.files) {
    if (!options.shard.holds(n++)) continue;
    if (!f.cases.empty() && cases::find_binding(gate->bindings, f.function) != nullptr) ++checkable;
    std::string name = fmt::format("fn_{:08x}_{}", f.function, f.name);
    for (auto& ch : name)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    const std::uint32_t fn = f.function;
    ::testing::RegisterTest(options.suite.c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [gate, fn]() -> ::testing::Test* { return new FunctionGate(gate, fn); });
  }
  // A gate (or a shard of it) in which no function can be checked proves nothing, whatever the
  // exclusions say: one test that fails, saying so.
  if (checkable == 0) {
    const std::string why = fmt::format("no function of {}{} has both a binding and cases: the gate would check "
                                        "nothing",
                                        options.corpus,
                                        options.shard.whole() ? "" : fmt::format(" (shard {}/{})", options.shard.index,
                                                                                 options.shard.count));
    ::testing::RegisterTest(options.suite.c_str(), "nothing_checked", nullptr, nullptr, __FILE__, __LINE__,
                            [why]() -> ::testing::Test* { return new NothingChecked(why); });
  }
  ::testing::AddGlobalTestEnvironment(new CheckedCount);
  return {};
}

int gate_main(int argc, char** argv, GateOptions defaults, cases::BindingSet bindings) {
  const char* program = argc > 0 ? argv[0] : "gate";
  std::string shard = fmt::format("{}/{}", defaults.shard.index, defaults.shard.count);
  const bool other_corpus = take_flag(argc, argv, "--corpus", defaults.corpus);
  take_flag(argc, argv, "--profile", defaults.profile);
  const bool known_given = take_flag(argc, argv, "--known", defaults.known_differences);
  const bool exclusions_given = take_flag(argc, argv, "--exclusions", defaults.exclusions);
  // The built-in known differences and exclusions describe the built-in corpus, case by case and
  // function by function: another corpus takes only the ones given beside it.
  if (other_corpus && !known_given) defaults.known_differences.clear();
  if (other_corpus && !exclusions_given) defaults.exclusions.clear();
  take_flag(argc, argv, "--shard", shard);
  ::testing::InitGoogleTest(&argc, argv);
  auto parsed = parse_shard(shard);
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s: --shard: %s\n", program, parsed.error().message.c_str());
    return kExitBadInput;
  }
  defaults.shard = *parsed;
  if (auto s = register_gate(defaults, std::move(bindings)); !s.ok()) {
    std::fprintf(stderr, "%s: %s\n", program, s.error().message.c_str());
    return exit_code_for(s.error().code);
  }
  return RUN_ALL_TESTS();
}

}  // namespace lockstep::testing
