// The replay gate: a corpus becomes one GoogleTest test per function; a failing test's message is the
// replay report a porter reads (the differing bytes by field, the original's disassembly).
//
//   gate_test [--corpus DIR] [--profile FILE] [--known FILE] [--shard K/N] [gtest flags]
// Defaults: the checked-in stand-in corpus (cases/standin) and POD's profile.
//
// --shard K/N registers only shard K's functions, dealt out as `lockstep replay --shard` deals them
// (the n-th function of the corpus to shard n % N + 1): N CI jobs each run one shard, and their
// JUnit reports (--gtest_output=xml:FILE) together hold the unsharded run's tests and outcomes.
//
// --known FILE lists cases known to differ, one per line: `FUNCTION_ADDRESS:CASE_ID  why` (# starts a
// comment). The search's poked states find real differences the port has not caught up with; they are
// listed there with the reason, so the gate still fails on any NEW difference, and also when a listed
// case starts to match (the list must stay true: delete its line).
#include <gtest/gtest.h>

#ifndef GATE_DEFAULT_CORPUS
#define GATE_DEFAULT_CORPUS LOCKSTEP_SOURCE_DIR "/cases/standin"
#endif

#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "lockstep/base/parallel.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/harness/labels.hpp"
#include "lockstep/harness/profile.hpp"
#include "lockstep/harness/replay.hpp"
#include "pod/bindings/bindings.hpp"

namespace {

using namespace lockstep;

struct Gate {
  cases::Corpus corpus;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> known;  // (function, case) -> why
  std::optional<harness::Labeler> labeler;
  cases::BindingSet bindings = pod::bindings::all();

  harness::Namer namer() { return harness::corpus_namer(corpus, labeler ? &*labeler : nullptr, 200); }
};

Gate* g_gate = nullptr;

const cases::CaseFile* find_file(std::uint32_t fn) {
  for (const auto& f : g_gate->corpus.files)
    if (f.function == fn) return &f;
  return nullptr;
}

bool all_empty(const cases::CaseFile& file) {
  for (const auto& c : file.cases)
    if (!c.inputs.empty() || !c.writes.empty() || c.returns != cases::Returns::kNone) return false;
  return !file.cases.empty();
}

class FunctionGate : public ::testing::Test {
 public:
  explicit FunctionGate(std::uint32_t fn) : fn_(fn) {}
  void TestBody() override {
    harness::ReplayOptions opt;
    opt.functions = {fn_};
    auto r = harness::replay(g_gate->corpus, g_gate->bindings, opt);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->functions.size(), 1u);
    const auto& f = r->functions[0];
    if (!f.bound) GTEST_SKIP() << f.name << ": no binding yet (" << f.cases << " cases)";
    // No cases is no evidence: skipped, not passed (the stand-in's run never called it).
    if (f.cases == 0) GTEST_SKIP() << f.name << ": the corpus holds no case of it";
    // Cases that read nothing and wrote nothing (and return nothing) are of a stub, not the function:
    // a capture that replaced it with a `ret` records the ret. Matching those would prove nothing.
    if (const auto* file = find_file(fn_); file != nullptr && all_empty(*file))
      FAIL() << f.name << ": all " << f.cases << " cases read and write nothing (the capture ran a stub at "
             << fmt::format("{:#010x}", fn_) << "?): the corpus holds no evidence for it";
    std::string reports;
    std::size_t shown = 0, known = 0;
    std::set<std::uint32_t> failing;
    auto namer = g_gate->namer();
    for (const auto& c : f.failures) {
      failing.insert(c.c->id);
      if (g_gate->known.count({fn_, c.c->id})) {
        ++known;
        continue;
      }
      if (shown++ < 3) reports += harness::format_mismatch(f, c, namer);
    }
    EXPECT_EQ(f.mismatched, known) << f.mismatched - known << " of " << f.cases << " cases of " << f.name
                                   << " mismatched (not among the known differences); the first:\n" << reports;
    EXPECT_EQ(f.matched + known, f.cases);
    for (const auto& [key, why] : g_gate->known) {
      if (key.first != fn_) continue;
      EXPECT_TRUE(failing.count(key.second))
          << f.name << " case " << key.second << " is listed as a known difference (" << why
          << ") but now matches (or is gone): delete its line from the known-differences file";
    }
    RecordProperty("cases", static_cast<int>(f.cases));
  }

 private:
  std::uint32_t fn_;
};

std::string flag(int& argc, char** argv, const char* name, std::string def) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) {
      std::string v = argv[i + 1];
      for (int j = i; j + 2 < argc + 1; ++j) argv[j] = argv[j + 2];
      argc -= 2;
      return v;
    }
  }
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus_dir = flag(argc, argv, "--corpus", GATE_DEFAULT_CORPUS);
  std::string profile = flag(argc, argv, "--profile", LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml");
#ifdef GATE_DEFAULT_KNOWN
  std::string known = flag(argc, argv, "--known", GATE_DEFAULT_KNOWN);
#else
  std::string known = flag(argc, argv, "--known", "");
#endif
  auto shard = parse_shard(flag(argc, argv, "--shard", "1/1"));
  if (!shard.ok()) {
    fprintf(stderr, "gate_test: %s\n", shard.error().message.c_str());
    return 2;
  }
  ::testing::InitGoogleTest(&argc, argv);
  auto gate = std::make_unique<Gate>();
  auto corpus = cases::read_corpus(corpus_dir);
  if (!corpus.ok()) {
    fprintf(stderr, "gate_test: %s\n", corpus.error().message.c_str());
    return 2;
  }
  gate->corpus = std::move(corpus).value();
  if (!known.empty()) {
    std::ifstream in(known);
    if (!in) {
      fprintf(stderr, "gate_test: cannot read the known differences %s\n", known.c_str());
      return 2;
    }
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
      std::istringstream ls(line);
      std::string id, why;
      if (!(ls >> id)) continue;
      std::getline(ls, why);
      const auto colon = id.find(':');
      auto fn = harness::parse_u32(id.substr(0, colon));
      auto cid = colon == std::string::npos ? fn : harness::parse_u32(id.substr(colon + 1));
      if (colon == std::string::npos || !fn.ok() || !cid.ok()) {
        fprintf(stderr, "gate_test: %s:%d: expected FUNCTION_ADDRESS:CASE_ID, got \"%s\"\n", known.c_str(), n, id.c_str());
        return 2;
      }
      gate->known[{*fn, *cid}] = why.empty() ? "no reason given" : why.substr(why.find_first_not_of(' '));
    }
  }
  if (auto p = harness::load_profile(profile); p.ok()) gate->labeler.emplace(*p);
  for (const auto& [key, why] : gate->known) {
    bool present = false;
    for (const auto& f : gate->corpus.files)
      for (const auto& c : f.cases) present = present || (f.function == key.first && c.id == key.second);
    if (!present) {
      fprintf(stderr, "gate_test: %s lists case 0x%08x:%u, which the corpus does not hold: delete its line\n",
              known.c_str(), key.first, key.second);
      return 1;
    }
  }
  g_gate = gate.get();
  std::size_t n = 0;
  for (const auto& f : g_gate->corpus.files) {
    if (!shard->holds(n++)) continue;
    std::string name = fmt::format("fn_{:08x}_{}", f.function, f.name);
    for (auto& ch : name)
      if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
    std::uint32_t fn = f.function;
    ::testing::RegisterTest("Gate", name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [fn]() -> ::testing::Test* { return new FunctionGate(fn); });
  }
  return RUN_ALL_TESTS();
}
