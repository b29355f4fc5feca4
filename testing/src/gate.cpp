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
// --known FILE lists the differences known, byte by byte, one line per stretch:
//   FUNCTION_ADDRESS:CASE_ID  KIND ADDRESS[+COUNT]  why
// KIND is outside-read (the port read bytes the original never read), different (both wrote, other
// values), not-written (the original wrote, the port did not), extra-write (the port wrote a byte
// the original left alone), register (ADDRESS is the register's name: eax, edx, st0) or port-error
// (no ADDRESS). # starts a comment. The search's poked states find real differences the port has not
// caught up with; each is listed with its reason, so the gate fails on any difference not listed --
// a new byte of a listed case too -- and when a listed difference goes away (the list must stay
// true: delete its line).
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

#include "lockstep/base/numbers.hpp"
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
  /// (function, case) -> every known difference of it ("different 0x00630880", "register eax") -> why
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::map<std::string, std::string>> known;
  std::optional<harness::Labeler> labeler;
  cases::BindingSet bindings = pod::bindings::all();

  harness::Namer namer() { return harness::corpus_namer(corpus, labeler ? &*labeler : nullptr, 200); }
};

Gate* g_gate = nullptr;

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

const cases::CaseFile* find_file(std::uint32_t fn) {
  for (const auto& f : g_gate->corpus.files)
    if (f.function == fn) return &f;
  return nullptr;
}

bool all_empty(const cases::CaseFile& file) {
  for (const auto& c : file.cases)
    if (c.poked() || !c.inputs.empty() || !c.writes.empty() || c.returns != cases::Returns::kNone) return false;
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
    // Captured cases that read nothing and wrote nothing (and return nothing) are of a stub, not the
    // function: a capture that replaced it with a `ret` records the ret. Matching those would prove
    // nothing. Poked cases are exempt: a search or an analyst chose that state on purpose, e.g. the
    // empty list a guard returns on at once (its evidence is that the port, too, touches nothing).
    if (const auto* file = find_file(fn_); file != nullptr && all_empty(*file))
      FAIL() << f.name << ": all " << f.cases << " cases read and write nothing (the capture ran a stub at "
             << fmt::format("{:#010x}", fn_) << "?): the corpus holds no evidence for it";
    std::string reports;
    std::size_t shown = 0, known = 0;
    std::set<std::uint32_t> failing;
    auto namer = g_gate->namer();
    for (const auto& c : f.failures) {
      failing.insert(c.c->id);
      const std::set<std::string> items = difference_items(c.comparison);
      auto listed = g_gate->known.find({fn_, c.c->id});
      std::set<std::string> unlisted = items, gone;
      if (listed != g_gate->known.end()) {
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
    for (const auto& [key, items] : g_gate->known) {
      if (key.first != fn_) continue;
      EXPECT_TRUE(failing.count(key.second))
          << f.name << " case " << key.second << " is listed with " << items.size()
          << " known differing bytes (" << items.begin()->second
          << ") but now matches (or is gone): delete its lines from the known-differences file";
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
      std::string id, kind, where, why;
      if (!(ls >> id)) continue;
      auto fail = [&](const std::string& what) {
        fprintf(stderr, "gate_test: %s:%d: %s\n", known.c_str(), n, what.c_str());
        return 2;
      };
      const auto colon = id.find(':');
      auto fn = parse_address(id.substr(0, colon));
      auto cid = colon == std::string::npos ? fn : parse_address(id.substr(colon + 1));
      if (colon == std::string::npos || !fn.ok() || !cid.ok())
        return fail("expected FUNCTION_ADDRESS:CASE_ID KIND ADDRESS[+COUNT] why, got \"" + id + "\"");
      if (!(ls >> kind)) return fail("no KIND after " + id);
      std::vector<std::string> items;
      if (kind == "port-error") {
        items.push_back(kind);
      } else if (kind == "register") {
        if (!(ls >> where)) return fail("register without its name");
        items.push_back(kind + " " + where);
      } else if (kind == "outside-read" || kind == "different" || kind == "not-written" || kind == "extra-write") {
        if (!(ls >> where)) return fail(kind + " without ADDRESS[+COUNT]");
        const auto plus = where.find('+');
        auto a = parse_address(where.substr(0, plus));
        auto count = plus == std::string::npos ? Result<std::uint32_t>(1u) : parse_address(where.substr(plus + 1));
        if (!a.ok() || !count.ok() || *count == 0 || std::uint64_t{*a} + *count > (std::uint64_t{1} << 32))
          return fail("\"" + where + "\" is not ADDRESS or ADDRESS+COUNT");
        for (std::uint32_t k = 0; k < *count; ++k) items.push_back(fmt::format("{} 0x{:08x}", kind, *a + k));
      } else {
        return fail("unknown KIND \"" + kind + "\" (outside-read, different, not-written, extra-write, register, "
                    "port-error)");
      }
      std::getline(ls, why);
      const auto text = why.find_first_not_of(' ');
      if (text == std::string::npos) return fail("no reason given: every known difference says why");
      for (const auto& item : items)
        if (!gate->known[{*fn, *cid}].emplace(item, why.substr(text)).second) return fail(item + " listed twice");
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
