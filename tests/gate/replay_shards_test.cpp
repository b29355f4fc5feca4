// Replay on several threads and in shards gives the report of one thread on the whole corpus: the
// JSON and JUnit reports are compared as text. The port matches every checked-in case, so a broken
// port is replayed too ("standin, broken port": every third function writes one byte wrong in every
// other case), to give mismatching cases and failing case ids for the reports to carry over.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "lockstep/cases/corpus.hpp"
#include "lockstep/replay/replay.hpp"
#include "pod/bindings/bindings.hpp"
#include "lockstep_test/pod_profiled_bindings.hpp"

namespace {

using namespace lockstep;

const cases::Corpus& corpus(const std::string& name) {
  static std::map<std::string, cases::Corpus> loaded;
  auto it = loaded.find(name);
  if (it == loaded.end()) {
    auto c = cases::read_corpus(std::string(LOCKSTEP_SOURCE_DIR "/cases/") + name);
    EXPECT_TRUE(c.ok()) << c.error().message;
    it = loaded.emplace(name, c.ok() ? std::move(c).value() : cases::Corpus{}).first;
  }
  return it->second;
}

constexpr const char* kBroken = "standin, broken port";

/// POD's bindings with every third one made wrong on odd case ids: one written byte flipped, or an
/// extra byte written where the case wrote nothing.
cases::BindingSet broken_bindings() {
  cases::BindingSet set = lockstep::testing::pod_profiled_bindings();
  for (std::size_t i = 0; i < set.size(); i += 3) {
    set[i] = cases::with_edited_effects(std::move(set[i]), [](const cases::Case& c, cases::PortEffects& e) {
      if (c.id % 2 == 1) {
        const auto runs = e.writes.runs();
        if (!runs.empty() && !runs.front().bytes.empty()) {
          const auto at = runs.front().base;
          const std::uint8_t flipped = static_cast<std::uint8_t>(runs.front().bytes.front() ^ 0x01);
          e.writes.set(at, flipped);
        } else {
          e.writes.set(0x00630838, 0x5a);  // a byte of car[0] the case never wrote
        }
      }
    });
  }
  return set;
}

harness::ReplayResult replay(const std::string& name, unsigned jobs, Shard shard = {}) {
  const bool broken = name == kBroken;
  static const cases::BindingSet good = lockstep::testing::pod_profiled_bindings(), bad = broken_bindings();
  harness::ReplayOptions opt;
  opt.jobs = jobs;
  opt.shard = shard;
  auto r = harness::replay(corpus(broken ? "standin" : name), broken ? bad : good, opt);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? std::move(r).value() : harness::ReplayResult{};
}

class ReplayParallel : public ::testing::TestWithParam<std::string> {};

TEST_P(ReplayParallel, AnyNumberOfThreadsGivesTheSameReports) {
  const auto& c = corpus(GetParam() == kBroken ? "standin" : GetParam());
  ASSERT_FALSE(c.files.empty());
  const auto one = replay(GetParam(), 1);
  ASSERT_GT(one.total_cases(), 0u);
  for (unsigned jobs : {2u, 3u, 8u}) {
    const auto many = replay(GetParam(), jobs);
    EXPECT_EQ(harness::to_json(many), harness::to_json(one)) << jobs << " threads";
    EXPECT_EQ(harness::to_junit(many), harness::to_junit(one)) << jobs << " threads";
    // The failures are the same cases, in the same order (what the mismatch reports print).
    for (std::size_t f = 0; f < one.functions.size(); ++f) {
      ASSERT_EQ(many.functions[f].failures.size(), one.functions[f].failures.size());
      for (std::size_t i = 0; i < one.functions[f].failures.size(); ++i)
        EXPECT_EQ(many.functions[f].failures[i].c, one.functions[f].failures[i].c);
    }
  }
}

TEST_P(ReplayParallel, ShardsMergeIntoTheWholeRun) {
  const auto whole = replay(GetParam(), 1);
  for (unsigned n : {2u, 3u, 7u}) {
    std::vector<std::string> reports, names;
    std::uint32_t cases = 0;
    for (unsigned k = n; k >= 1; --k) {  // in reverse order: the merge sorts
      const auto part = replay(GetParam(), 2, Shard{k, n});
      cases += part.total_cases();
      reports.push_back(harness::to_json(part));
      names.push_back(std::to_string(k));
    }
    EXPECT_EQ(cases, whole.total_cases()) << n << " shards";
    auto merged = harness::merge_reports(reports, names);
    ASSERT_TRUE(merged.ok()) << merged.error().message;
    EXPECT_EQ(harness::to_json(*merged), harness::to_json(whole)) << n << " shards";
    EXPECT_EQ(harness::to_junit(*merged), harness::to_junit(whole)) << n << " shards";
  }
}

std::string test_name(const ::testing::TestParamInfo<std::string>& param) {
  std::string n = param.param;
  std::replace_if(n.begin(), n.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(Corpora, ReplayParallel, ::testing::Values("standin", "standin-search", kBroken), test_name);

TEST(ReplayShards, TheBrokenPortHasMismatchesToCarry) {
  // Otherwise the tests above would not show that failing case ids survive threads and the merge.
  const auto r = replay(kBroken, 1);
  EXPECT_GT(r.total_mismatched(), 100u);
  EXPECT_LT(r.total_mismatched(), r.total_cases());
}

TEST(ReplayShards, MergeRefusesAMissingARepeatedOrAForeignShard) {
  const std::string s1 = harness::to_json(replay("standin", 1, Shard{1, 3}));
  const std::string s2 = harness::to_json(replay("standin", 1, Shard{2, 3}));
  const std::string s3 = harness::to_json(replay("standin", 1, Shard{3, 3}));
  const std::string half = harness::to_json(replay("standin", 1, Shard{1, 2}));
  const std::string whole = harness::to_json(replay("standin", 1));
  EXPECT_FALSE(harness::merge_reports({s1, s2}, {"a", "b"}).ok());            // 3/3 missing
  EXPECT_FALSE(harness::merge_reports({s1, s2, s2, s3}, {"a", "b", "c", "d"}).ok());  // 2/3 twice
  EXPECT_FALSE(harness::merge_reports({s1, s2, half}, {"a", "b", "c"}).ok());  // a shard of 2
  EXPECT_FALSE(harness::merge_reports({whole, s1}, {"a", "b"}).ok());        // a whole run and a shard
  EXPECT_FALSE(harness::merge_reports({"{}"}, {"a"}).ok());                  // not a report
  auto alone = harness::merge_reports({whole}, {"a"});
  ASSERT_TRUE(alone.ok()) << alone.error().message;
  EXPECT_EQ(harness::to_json(*alone), whole);
}

TEST(ReplayShards, EveryFunctionIsInExactlyOneShard) {
  const auto& c = corpus("standin");
  std::vector<std::uint32_t> seen;
  for (unsigned k = 1; k <= 4; ++k)
    for (const auto& f : replay("standin", 1, Shard{k, 4}).functions) seen.push_back(f.function);
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), c.files.size());
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], c.files[i].function);
}

}  // namespace
