// Re-running cases (rerun_case, poke_inputs), one case probed (probe_case), the edge search
// (search_edge, parse_edge_goal), appending poked cases to a corpus (add_cases) and a corpus's search
// (search_corpus_edges, add_found_states): the parts of `lockstep probe` below the command. Cases are
// recorded from Machine::call (to_case) on coverage_fixture.hpp's hand-written functions.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "coverage_fixture.hpp"
#include "lockstep/capture/corpus_search.hpp"
#include "lockstep/capture/coverage_run.hpp"
#include "lockstep/capture/rerun.hpp"
#include "lockstep/capture/search.hpp"
#include "lockstep/cases/corpus.hpp"

namespace lockstep::coverage_test {
namespace {

using harness::test::le32;

std::unique_ptr<harness::Machine> rerun_machine_for(const World& w) {
  auto m = capture::rerun_machine(w.snapshot, w.profile, "");
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? std::move(*m) : nullptr;
}

// ---------------------------------------------------------------------------------------------
// 4. rerun_case

TEST(Rerun, AnUnpokedCaseReproducesItselfFromItsOwnInputs) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  auto m = rerun_machine_for(w);
  ASSERT_TRUE(rec && m);
  // The rare path, recorded on a state the snapshot does not hold (the snapshot's count is
  // negative): only laying the case's inputs makes the rerun take it again.
  cases::Case c = record_case(*rec, kRareInt, kThing, {{kCount, le32(2000)}, {kFlags, {0x42}}});
  ASSERT_EQ(c.out.eax, 0x42u);
  ASSERT_TRUE(c.inputs.contains(kCount));
  ASSERT_TRUE(c.inputs.contains(kFlags));
  auto r = capture::rerun_case(*m, c);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->outcome.returned()) << harness::format_fault(*r->outcome.fault);
  EXPECT_TRUE(r->same_as_case);
  EXPECT_TRUE(r->reads_outside_case.empty());
  EXPECT_EQ(r->outcome.record.out.eax, 0x42u);
  EXPECT_EQ(r->as_case.inputs, c.inputs);
  EXPECT_EQ(r->as_case.writes, c.writes);
  EXPECT_EQ(r->as_case.id, c.id);
  EXPECT_FALSE(r->as_case.poked());

  // The common path too, on the same machine (reset between reruns).
  cases::Case d = record_case(*rec, kRareInt, kThing, {{kCount, le32(5)}});
  EXPECT_FALSE(d.inputs.contains(kFlags));
  auto s = capture::rerun_case(*m, d);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(s->same_as_case);
  EXPECT_TRUE(s->reads_outside_case.empty());
  EXPECT_EQ(s->outcome.record.out.eax, 0u);
}

TEST(Rerun, APokeDownAnotherBranchListsTheByteTheCaseNeverRead) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  auto m = rerun_machine_for(w);
  ASSERT_TRUE(rec && m);
  cases::Case c = record_case(*rec, kRareInt, kThing, {{kCount, le32(5)}});
  const std::vector<cases::Poke> pokes{{kCount, le32(2000)}};
  auto r = capture::rerun_case(*m, c, pokes);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->outcome.returned());
  EXPECT_FALSE(r->same_as_case);
  EXPECT_EQ(r->reads_outside_case, std::vector<cases::GuestAddr>{kFlags});
  // The flags byte the rare path read came from the snapshot.
  EXPECT_EQ(r->outcome.record.out.eax, snapshot_data_byte(kFlags));
  EXPECT_TRUE(r->as_case.poked());
  EXPECT_EQ(r->as_case.pokes, pokes);
  EXPECT_EQ(r->as_case.inputs.get(kCount), std::optional<std::uint8_t>(le32(2000)[0]));

  // Unpoked again on the same machine: back to the case.
  auto again = capture::rerun_case(*m, c);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->same_as_case);
  EXPECT_TRUE(again->reads_outside_case.empty());
}

TEST(Rerun, PokesAndCasesOutsideTheMachineAreUsageErrors) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  auto m = rerun_machine_for(w);
  ASSERT_TRUE(rec && m);
  cases::Case c = record_case(*rec, kRareInt, kThing, {{kCount, le32(5)}});
  const std::vector<cases::Poke> unmapped{{0x10, {1, 2}}};
  auto r = capture::rerun_case(*m, c, unmapped);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::kUsage);
  cases::Case far = c;
  far.in.esp = kData + 0x800;  // captured on another snapshot
  auto f = capture::rerun_case(*m, far);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, Errc::kUsage);
  cases::Case bad_input = c;
  bad_input.inputs.set(0x20, std::vector<std::uint8_t>{7});
  auto b = capture::rerun_case(*m, bad_input);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code, Errc::kUsage);
}

TEST(Rerun, PokeInputsReplacesAndAddsInputBytes) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  cases::Case c = record_case(*rec, kRareInt, kThing, {{kCount, le32(5)}});
  const std::vector<cases::Poke> pokes{{kCount + 1, {0x12}}, {kFlags, {0x99}}};
  cases::Case p = capture::poke_inputs(c, pokes);
  EXPECT_EQ(p.inputs.get(kCount), std::optional<std::uint8_t>(5));
  EXPECT_EQ(p.inputs.get(kCount + 1), std::optional<std::uint8_t>(0x12));
  EXPECT_EQ(p.inputs.get(kFlags), std::optional<std::uint8_t>(0x99));
  EXPECT_FALSE(c.inputs.contains(kFlags));
  EXPECT_EQ(p.pokes, pokes);
  EXPECT_TRUE(p.poked());
  EXPECT_EQ(p.out, c.out);
}

// ---------------------------------------------------------------------------------------------
// 5. search_edge

cases::CaseFile case_file(GuestAddr fn, const std::string& name, std::vector<cases::Case> cs) {
  cases::CaseFile f;
  f.function = fn;
  f.name = name;
  for (std::size_t i = 0; i < cs.size(); ++i) cs[i].id = static_cast<std::uint32_t>(i);
  f.cases = std::move(cs);
  return f;
}

std::unique_ptr<capture::CaseRunner> runner_for(const World& w, GuestAddr fn, const std::string& name) {
  auto r = capture::CaseRunner::create(w.snapshot, w.profile, "", {{fn, name}}, w.labels.get());
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(*r) : nullptr;
}

// probe_case: the plain run reproduces the case; the poked run's edges are its own, not added to the
// plain run's (the collector's counts add up over runs: the difference is the probe's job).
TEST(ProbeCase, ThePokedRunsEdgesAreCountedApartFromThePlainRuns) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  const cases::Case c = record_case(*rec, kRareInt, kThing, {{kCount, le32(5)}});  // the common path
  auto runner = runner_for(w, kRareInt, "rare_int");
  ASSERT_TRUE(runner);
  const std::vector<cases::Poke> pokes{{kCount, le32(2000)}};  // past 1000: `jg rare` taken
  auto p = capture::probe_case(*runner, c, c, pokes);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_TRUE(p->plain.same_as_case);
  ASSERT_TRUE(p->poked.outcome.returned());
  EXPECT_FALSE(p->poked.same_as_case);
  EXPECT_EQ(p->poked.outcome.record.out.eax, snapshot_data_byte(kFlags));  // the rare path returns the flags
  auto at = [&](const std::vector<harness::BranchSite>& sites) {
    auto it = std::find_if(sites.begin(), sites.end(),
                           [&](const harness::BranchSite& b) { return b.address == w.site(kRiJg); });
    return it == sites.end() ? harness::BranchSite{} : *it;
  };
  const harness::BranchSite plain = at(p->plain_branches), poked = at(p->poked_branches);
  EXPECT_EQ(plain.address, w.site(kRiJg));
  EXPECT_EQ(plain.taken, 0u);
  EXPECT_EQ(plain.fell_through, 1u);
  EXPECT_EQ(poked.taken, 1u);
  EXPECT_EQ(poked.fell_through, 0u);  // the plain run's fall-through is not counted again
}

TEST(SearchEdge, FindsAPokeThatTakesARareIntegerEdge) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  // Neither case takes `jg rare` (count > 1000).
  const auto file = case_file(kRareInt, "rare_int",
                              {record_case(*rec, kRareInt, kThing, {{kCount, le32(5)}}),
                               record_case(*rec, kRareInt, kThing, {{kCount, le32(700)}})});
  auto runner = runner_for(w, kRareInt, "rare_int");
  ASSERT_TRUE(runner);
  const capture::EdgeGoal goal{w.site(kRiJg), harness::Edge::kTaken};
  capture::SearchOptions opt;
  opt.budget = 200;
  auto res = capture::search_edge(*runner, file, goal, w.labels.get(), opt);
  ASSERT_TRUE(res.ok()) << res.error().message;
  ASSERT_TRUE(res->found) << "runs " << res->runs;
  EXPECT_FALSE(res->already_taken);
  EXPECT_LE(res->runs, opt.budget);
  EXPECT_EQ(res->reaching_cases, 2u);
  ASSERT_FALSE(res->pokes.empty());
  EXPECT_NE(res->how.find("count"), std::string::npos) << res->how;
  ASSERT_TRUE(res->found_case.has_value());
  const cases::Case& fc = *res->found_case;
  EXPECT_TRUE(fc.poked());
  EXPECT_EQ(fc.function, kRareInt);
  EXPECT_NE(fc.note.find(fmt::format("0x{:08x}", w.site(kRiJg))), std::string::npos) << fc.note;
  EXPECT_NE(fc.note.find("taken"), std::string::npos) << fc.note;
  // The found state really is past the threshold, and it read the rare path's byte.
  std::uint32_t count = 0;
  for (std::uint32_t i = 0; i < 4; ++i) count |= std::uint32_t{fc.inputs.get(kCount + i).value_or(0)} << (8 * i);
  EXPECT_GT(static_cast<std::int32_t>(count), 1000) << "count 0x" << std::hex << count;
  EXPECT_TRUE(fc.inputs.contains(kFlags));
  EXPECT_EQ(fc.out.eax, snapshot_data_byte(kFlags));

  // Re-run on its own (as coverage over the corpus will), it takes the edge again.
  auto again = runner_for(w, kRareInt, "rare_int");
  ASSERT_TRUE(again);
  auto r = again->run(fc, fc.pokes);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(again->collector().count(w.site(kRiJg), harness::Edge::kTaken), 1u);
  EXPECT_EQ(r->outcome.record.out.eax, snapshot_data_byte(kFlags));
}

TEST(SearchEdge, FindsAPokeThatTakesAnX87Edge) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  // a >= b in both: `jb below` never taken.
  const auto file = case_file(kFless, "fless",
                              {record_case(*rec, kFless, kThing, {{kA, f64_bytes(5.0)}, {kB, f64_bytes(1.0)}}),
                               record_case(*rec, kFless, kThing, {{kA, f64_bytes(3.0)}, {kB, f64_bytes(2.5)}})});
  ASSERT_EQ(file.cases[0].out.eax, 0u);
  ASSERT_EQ(file.cases[1].out.eax, 0u);
  auto runner = runner_for(w, kFless, "fless");
  ASSERT_TRUE(runner);
  capture::SearchOptions opt;
  opt.budget = 300;
  auto res = capture::search_edge(*runner, file, {w.site(kFlJb), harness::Edge::kTaken}, w.labels.get(), opt);
  ASSERT_TRUE(res.ok()) << res.error().message;
  ASSERT_TRUE(res->found) << "runs " << res->runs;
  EXPECT_LE(res->runs, opt.budget);
  ASSERT_TRUE(res->found_case);
  EXPECT_TRUE(res->found_case->poked());
  EXPECT_EQ(res->found_case->out.eax, 1u);  // a < b now
  double a = 0, b = 0;
  std::vector<std::uint8_t> ab(16);
  for (std::uint32_t i = 0; i < 16; ++i) ab[i] = res->found_case->inputs.get(kA + i).value_or(0);
  std::memcpy(&a, ab.data(), 8);
  std::memcpy(&b, ab.data() + 8, 8);
  EXPECT_LT(a, b) << res->how;
  EXPECT_NE(res->found_case->note.find(fmt::format("0x{:08x}", w.site(kFlJb))), std::string::npos);
}

// The compared value is a named callee's result: the search starts from the bytes the call's
// registers point at.
TEST(SearchEdge, FindsAPokeThroughACallResult) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  const auto file = case_file(kViaCall, "via_call", {record_case(*rec, kViaCall, kThing, {{kCount, le32(9)}})});
  ASSERT_EQ(file.cases[0].out.eax, 0u);
  auto runner = runner_for(w, kViaCall, "via_call");
  ASSERT_TRUE(runner);
  capture::SearchOptions opt;
  opt.budget = 100;
  auto res = capture::search_edge(*runner, file, {w.site(kVcJg), harness::Edge::kTaken}, w.labels.get(), opt);
  ASSERT_TRUE(res.ok()) << res.error().message;
  ASSERT_TRUE(res->found) << "runs " << res->runs;
  EXPECT_EQ(res->found_case->out.eax, 1u);
  // The state found is thing.count changed, not the pointer argument moved (a misaligned pointer to
  // the struct is a state no game reaches).
  EXPECT_EQ(res->poked_registers, 0u) << res->how;
  ASSERT_EQ(res->pokes.size(), 1u) << res->how;
  EXPECT_EQ(res->pokes[0].address, kCount) << res->how;
}

// (count & speed) > 0x1000: no single mutation of either field does it (5 & anything the single
// mutations give stays small), a pair does: the random combinations, reproducible by their seed.
TEST(SearchEdge, CombinationsFindWhatNoSingleMutationDoesAndAreReproducible) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  const auto file =
      case_file(kBothBig, "both_big", {record_case(*rec, kBothBig, kThing, {{kCount, le32(5)}, {kSpeed, le32(5)}})});
  ASSERT_EQ(file.cases[0].out.eax, 0u);
  capture::SearchOptions opt;
  opt.budget = 2000;
  opt.seed = 7;
  auto search = [&] {
    auto runner = runner_for(w, kBothBig, "both_big");
    EXPECT_TRUE(runner);
    return capture::search_edge(*runner, file, {w.site(kBbJg), harness::Edge::kTaken}, w.labels.get(), opt);
  };
  auto res = search();
  ASSERT_TRUE(res.ok()) << res.error().message;
  ASSERT_TRUE(res->found) << "runs " << res->runs;
  EXPECT_GE(res->pokes.size(), 2u) << res->how;
  std::printf("combination search: %u runs, %s\n", res->runs, res->how.c_str());
  EXPECT_GT(res->runs, 20u);  // the single mutations (13 per field) were spent first
  EXPECT_LE(res->runs, opt.budget);
  EXPECT_EQ(res->found_case->out.eax, 1u);
  auto again = search();
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE(again->found);
  EXPECT_EQ(again->pokes, res->pokes);
  EXPECT_EQ(again->runs, res->runs);
}

// cmp eax, 1000; jg: the only input is a register; the found state sets it in the entry registers
// and says so (poked_registers), with no memory poke.
TEST(SearchEdge, FindsAnEntryRegisterValue) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  const auto file = case_file(kRegGt, "reg_gt", {record_case(*rec, kRegGt, 12, {})});
  ASSERT_EQ(file.cases[0].out.eax, 0u);
  auto runner = runner_for(w, kRegGt, "reg_gt");
  ASSERT_TRUE(runner);
  capture::SearchOptions opt;
  opt.budget = 100;
  auto res = capture::search_edge(*runner, file, {w.site(kRgJg), harness::Edge::kTaken}, w.labels.get(), opt);
  ASSERT_TRUE(res.ok()) << res.error().message;
  ASSERT_TRUE(res->found) << "runs " << res->runs;
  EXPECT_TRUE(res->pokes.empty());
  EXPECT_EQ(res->poked_registers, cases::kPokedEax);
  ASSERT_TRUE(res->found_case);
  const cases::Case& fc = *res->found_case;
  EXPECT_TRUE(fc.poked());
  EXPECT_EQ(fc.poked_registers, cases::kPokedEax);
  EXPECT_GT(static_cast<std::int32_t>(fc.in.eax), 1000);
  EXPECT_EQ(fc.out.eax, 1u);
  // Re-run from its own entry registers, the found case takes the edge again.
  auto m = rerun_machine_for(w);
  ASSERT_TRUE(m);
  auto r = capture::rerun_case(*m, fc, fc.pokes);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->outcome.record.out.eax, 1u);
  EXPECT_TRUE(r->same_as_case);
}

TEST(SearchEdge, AFallthroughGoalIsSearchedToo) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  // Every case takes `jg rare`; the goal is its fallthrough.
  const auto file = case_file(kRareInt, "rare_int", {record_case(*rec, kRareInt, kThing, {{kCount, le32(5000)}})});
  auto runner = runner_for(w, kRareInt, "rare_int");
  ASSERT_TRUE(runner);
  auto res = capture::search_edge(*runner, file, {w.site(kRiJg), harness::Edge::kFallthrough}, w.labels.get());
  ASSERT_TRUE(res.ok()) << res.error().message;
  ASSERT_TRUE(res->found);
  EXPECT_EQ(res->found_case->out.eax, 0u);
  EXPECT_NE(res->found_case->note.find("fallthrough"), std::string::npos) << res->found_case->note;
}

TEST(SearchEdge, AnEdgeAlreadyTakenNeedsNoSearch) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  const auto file = case_file(kRareInt, "rare_int",
                              {record_case(*rec, kRareInt, kThing, {{kCount, le32(5)}}),
                               record_case(*rec, kRareInt, kThing, {{kCount, le32(2000)}})});
  auto runner = runner_for(w, kRareInt, "rare_int");
  ASSERT_TRUE(runner);
  auto res = capture::search_edge(*runner, file, {w.site(kRiJg), harness::Edge::kTaken}, w.labels.get());
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_TRUE(res->already_taken);
  EXPECT_FALSE(res->found);
  EXPECT_EQ(res->start_case, 1u);
  EXPECT_EQ(res->runs, 2u);
  EXPECT_TRUE(res->pokes.empty());
}

TEST(SearchEdge, AGoalThatIsNotABranchOfTheFunctionIsNotFound) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  const auto file = case_file(kRareInt, "rare_int", {record_case(*rec, kRareInt, kThing, {{kCount, le32(5)}})});
  auto runner = runner_for(w, kRareInt, "rare_int");
  ASSERT_TRUE(runner);
  for (GuestAddr not_a_branch : {w.site(kRiCmp), w.site(kClsJl), GuestAddr{0x12345678}}) {
    auto res = capture::search_edge(*runner, file, {not_a_branch, harness::Edge::kTaken}, w.labels.get());
    ASSERT_FALSE(res.ok()) << std::hex << not_a_branch;
    EXPECT_EQ(res.error().code, Errc::kNotFound);
  }
}

TEST(SearchEdge, ABudgetTooSmallReportsNotFound) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  const auto file = case_file(kRareInt, "rare_int",
                              {record_case(*rec, kRareInt, kThing, {{kCount, le32(5)}}),
                               record_case(*rec, kRareInt, kThing, {{kCount, le32(7)}})});
  auto runner = runner_for(w, kRareInt, "rare_int");
  ASSERT_TRUE(runner);
  capture::SearchOptions opt;
  opt.budget = 4;  // 2 runs of the start cases + 2 mutations (0, x/16 of 5): none exceeds 1000
  auto res = capture::search_edge(*runner, file, {w.site(kRiJg), harness::Edge::kTaken}, w.labels.get(), opt);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_FALSE(res->found);
  EXPECT_FALSE(res->already_taken);
  EXPECT_FALSE(res->found_case.has_value());
  EXPECT_LE(res->runs, 4u);
  EXPECT_EQ(runner->collector().count(w.site(kRiJg), harness::Edge::kTaken), 0u);
}

TEST(ParseEdgeGoal, AcceptsAddressColonEdge) {
  auto t = capture::parse_edge_goal("0x41b0a4:taken");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->branch, 0x41b0a4u);
  EXPECT_EQ(t->edge, harness::Edge::kTaken);
  auto f = capture::parse_edge_goal("0x41b0a4:fallthrough");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->branch, 0x41b0a4u);
  EXPECT_EQ(f->edge, harness::Edge::kFallthrough);
}

TEST(ParseEdgeGoal, RefusesWhatIsNotAnEdge) {
  for (const char* bad : {"0x41b0a4", "0x41b0a4:", "0x41b0a4:sideways", ":taken", "nowhere:taken", "taken",
                          "0x41b0a4:TAKEN ", ""}) {
    auto r = capture::parse_edge_goal(bad);
    EXPECT_FALSE(r.ok()) << "\"" << bad << "\" accepted";
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, Errc::kUsage) << bad << ": " << r.error().message;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 6. add_cases

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() / fmt::format("lockstep-add-cases-{}-{}", ::getpid(), std::rand());
    std::filesystem::remove_all(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

void expect_same_files(const std::vector<cases::CaseFile>& a, const std::vector<cases::CaseFile>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].function, b[i].function);
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].code_base, b[i].code_base);
    EXPECT_EQ(a[i].code, b[i].code);
    EXPECT_TRUE(a[i].cases == b[i].cases) << "cases of 0x" << std::hex << a[i].function << " differ";
  }
}

TEST(AddCases, AppendsWithTheNextIdsAndUpdatesTheManifest) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  TempDir dir;
  cases::CaseFile cls;
  cls.function = kClassify;
  cls.name = "classify";
  cls.code_base = kClassify;
  cls.code.assign(w.code.begin(), w.code.begin() + 0x40);
  cls.cases.push_back(record_case(*rec, kClassify, kThing, {{kSpeed, le32(1)}}, 0));
  cls.cases.push_back(record_case(*rec, kClassify, kThing, {{kSpeed, le32(7)}}, 5));  // ids need not be dense
  cases::Manifest man;
  man.profile = "coverage-test";
  man.snapshot_sha256 = "ab";
  man.command = "lockstep capture ...";
  man.driver = "drive";
  ASSERT_TRUE(cases::write_corpus(dir.path, man, {cls}).ok());
  auto corpus = cases::read_corpus(dir.path);
  ASSERT_TRUE(corpus.ok()) << corpus.error().message;

  cases::Case p1 = record_case(*rec, kClassify, kThing, {{kSpeed, le32(300)}});
  p1.pokes.push_back({kSpeed, le32(300)});
  p1.note = "search: edge taken";
  cases::Case p2 = p1;
  p2.pokes[0].bytes = le32(400);
  cases::Case r1 = record_case(*rec, kRareInt, kThing, {{kCount, le32(2000)}});
  r1.pokes.push_back({kCount, le32(2000)});
  auto ids = cases::add_cases(dir.path, *corpus, {p1, p2, r1});
  ASSERT_TRUE(ids.ok()) << ids.error().message;
  EXPECT_EQ(*ids, (std::vector<std::uint32_t>{6, 7, 0}));

  auto man2 = cases::read_manifest(dir.path);
  ASSERT_TRUE(man2.ok()) << man2.error().message;
  EXPECT_EQ(man2->profile, "coverage-test");
  EXPECT_EQ(man2->driver, "drive");
  EXPECT_EQ(man2->command, "lockstep capture ...");
  ASSERT_EQ(man2->functions.size(), 2u);
  EXPECT_EQ(man2->functions[0].function, kClassify);
  EXPECT_EQ(man2->functions[0].cases, 4u);
  EXPECT_EQ(man2->functions[0].poked, 2u);
  EXPECT_EQ(man2->functions[1].function, kRareInt);
  EXPECT_EQ(man2->functions[1].name, "rare_int");
  EXPECT_EQ(man2->functions[1].cases, 1u);
  EXPECT_EQ(man2->functions[1].poked, 1u);
  EXPECT_EQ(man2->functions[1].file, cases::case_file_name(kRareInt, "rare_int"));
  EXPECT_TRUE(std::filesystem::exists(dir.path / man2->functions[1].file));
  // The in-memory corpus was updated the same way.
  EXPECT_EQ(corpus->manifest.functions.size(), 2u);

  auto back = cases::read_corpus(dir.path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same_files(back->files, corpus->files);
  ASSERT_EQ(back->files.size(), 2u);
  const auto& cs = back->files[0].cases;
  ASSERT_EQ(cs.size(), 4u);
  EXPECT_EQ(cs[0].id, 0u);
  EXPECT_EQ(cs[1].id, 5u);
  EXPECT_EQ(cs[2].id, 6u);
  EXPECT_EQ(cs[3].id, 7u);
  EXPECT_EQ(cs[3].pokes[0].bytes, le32(400));
  EXPECT_EQ(cs[2].note, "search: edge taken");
  EXPECT_EQ(back->files[0].code, cls.code);  // the existing file's code bytes kept
  EXPECT_EQ(back->files[1].cases[0].id, 0u);

  // And once more: the ids continue.
  cases::Case p3 = p1;
  auto more = cases::add_cases(dir.path, *back, {p3});
  ASSERT_TRUE(more.ok()) << more.error().message;
  EXPECT_EQ(*more, std::vector<std::uint32_t>{8});
  auto man3 = cases::read_manifest(dir.path);
  ASSERT_TRUE(man3.ok());
  EXPECT_EQ(man3->functions[0].cases, 5u);
  EXPECT_EQ(man3->functions[0].poked, 3u);
}

// A state found by setting entry registers only (no memory poke) is poked all the same.
TEST(AddCases, ARegisterPokedCaseCountsAsPokedAndReadsBack) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  TempDir dir;
  cases::CaseFile f;
  f.function = kRegGt;
  f.name = "reg_gt";
  f.cases.push_back(record_case(*rec, kRegGt, 12, {}, 0));
  ASSERT_TRUE(cases::write_corpus(dir.path, {}, {f}).ok());
  auto corpus = cases::read_corpus(dir.path);
  ASSERT_TRUE(corpus.ok()) << corpus.error().message;
  cases::Case r = record_case(*rec, kRegGt, 5000, {});
  r.poked_registers = cases::kPokedEax | cases::kPokedEcx;
  ASSERT_TRUE(r.pokes.empty());
  auto ids = cases::add_cases(dir.path, *corpus, {r});
  ASSERT_TRUE(ids.ok()) << ids.error().message;
  EXPECT_EQ(*ids, std::vector<std::uint32_t>{1});
  auto man = cases::read_manifest(dir.path);
  ASSERT_TRUE(man.ok());
  ASSERT_EQ(man->functions.size(), 1u);
  EXPECT_EQ(man->functions[0].cases, 2u);
  EXPECT_EQ(man->functions[0].poked, 1u);
  auto back = cases::read_corpus(dir.path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same_files(back->files, corpus->files);
  EXPECT_EQ(back->files[0].cases[1].poked_registers, cases::kPokedEax | cases::kPokedEcx);
  EXPECT_EQ(back->files[0].cases[1].in.eax, 5000u);
}

// ---------------------------------------------------------------------------------------------
// 7. search_corpus_edges, add_found_states (lockstep probe --search --edge untaken, --into)

/// A binding that answers what the original did (`right`), or a wrong eax.
cases::Binding answering(GuestAddr fn, bool right) {
  return {fn, "port", [right](const cases::Case& c) {
            cases::PortEffects fx;
            fx.writes = c.writes;
            fx.eax = right ? c.out.eax : c.out.eax ^ 0xffu;
            fx.edx = c.out.edx;
            return fx;
          }};
}

cases::Corpus rare_int_corpus(const World& w, harness::Machine& rec) {
  cases::Corpus corpus;
  corpus.manifest.snapshot_sha256 = "ab";
  corpus.files.push_back(case_file(kRareInt, "rare_int",
                                   {record_case(rec, kRareInt, kThing, {{kCount, le32(5)}}),
                                    record_case(rec, kRareInt, kThing, {{kCount, le32(700)}})}));
  corpus.files.back().code_base = kRareInt;
  corpus.files.back().code.assign(w.code.begin(), w.code.begin() + 0x10);
  return corpus;
}

TEST(SearchCorpusEdges, FindsTheUntakenEdgeAndReplaysThePortOnIt) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  const cases::Corpus corpus = rare_int_corpus(w, *rec);
  capture::CorpusSearchOptions opt;
  opt.search.budget = 200;
  for (const bool right : {true, false}) {
    auto r = capture::search_corpus_edges(corpus, w.snapshot, w.profile, w.labels.get(), {answering(kRareInt, right)}, opt);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->functions.size(), 1u);
    const capture::FunctionEdgeSearch& f = r->functions[0];
    EXPECT_EQ(f.search.name, "rare_int");
    ASSERT_EQ(f.verdicts.size(), f.search.searches.size());
    EXPECT_EQ(f.covered + f.search.searches.size(), f.search.edges_total);
    // `jg rare` taken is among the untaken edges, and the search reaches it.
    const auto it = std::find_if(f.search.searches.begin(), f.search.searches.end(), [&](const capture::EdgeSearch& e) {
      return e.goal.branch == w.site(kRiJg) && e.goal.edge == harness::Edge::kTaken;
    });
    ASSERT_NE(it, f.search.searches.end());
    ASSERT_TRUE(it->result.found);
    const auto& verdict = f.verdicts[static_cast<std::size_t>(it - f.search.searches.begin())];
    ASSERT_TRUE(verdict.has_value());
    EXPECT_TRUE(verdict->bound);
    EXPECT_EQ(verdict->matched, right);
    EXPECT_EQ(verdict->differing_registers, right ? 0u : 1u);
    EXPECT_GE(f.reached, 1u);
    EXPECT_EQ(r->found.size(), static_cast<std::size_t>(std::count_if(
                                   f.verdicts.begin(), f.verdicts.end(), [](const auto& v) { return v.has_value(); })));
    EXPECT_EQ(r->differing, right ? std::vector<std::string>{} : std::vector<std::string>(r->found.size(), "rare_int"));
  }
  // No binding: the states are found, nothing is compared.
  auto unbound = capture::search_corpus_edges(corpus, w.snapshot, w.profile, w.labels.get(), {}, opt);
  ASSERT_TRUE(unbound.ok()) << unbound.error().message;
  ASSERT_FALSE(unbound->found.empty());
  EXPECT_TRUE(unbound->differing.empty());
  for (const auto& v : unbound->functions[0].verdicts) {
    if (v) { EXPECT_FALSE(v->bound); }
  }
  // A function the corpus has no cases of.
  opt.functions = {kRareInt, 0x1234};
  auto missing = capture::search_corpus_edges(corpus, w.snapshot, w.profile, w.labels.get(), {}, opt);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Errc::kNotFound);
  EXPECT_EQ(missing.error().message, "the corpus has no cases of 0x00001234");
}

TEST(AddFoundStates, AFreshCorpusTakesTheSearchedManifestAndTheOriginalsCode) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  TempDir searched_dir, into_dir;
  cases::Corpus corpus = rare_int_corpus(w, *rec);
  corpus.manifest.driver = "drive";
  corpus.manifest.profile_path = "../profile.toml";
  corpus.manifest.profile_sha256 = std::string(64, '0');
  ASSERT_TRUE(cases::write_corpus(searched_dir.path, corpus.manifest, corpus.files).ok());
  auto searched = cases::read_corpus(searched_dir.path);
  ASSERT_TRUE(searched.ok()) << searched.error().message;
  cases::Case found = record_case(*rec, kRareInt, kThing, {{kCount, le32(2000)}});
  found.pokes.push_back({kCount, le32(2000)});

  const capture::FoundStatesDestination to{searched_dir.path.string(), into_dir.path.string(), "lockstep probe ...",
                                           "elsewhere/profile.toml"};
  auto ids = capture::add_found_states(*searched, {found, found}, to);
  ASSERT_TRUE(ids.ok()) << ids.error().message;
  EXPECT_EQ(*ids, (std::vector<std::uint32_t>{0, 1}));
  auto made = cases::read_corpus(into_dir.path);
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_EQ(made->manifest.snapshot_sha256, "ab");
  EXPECT_EQ(made->manifest.driver, "drive");
  EXPECT_EQ(made->manifest.command, "lockstep probe ...");
  EXPECT_EQ(made->manifest.profile_path, "elsewhere/profile.toml");
  ASSERT_EQ(made->files.size(), 1u);
  EXPECT_EQ(made->files[0].code, searched->files[0].code);
  EXPECT_EQ(made->files[0].cases.size(), 2u);
  // The searched corpus is left as it was.
  auto again = cases::read_corpus(searched_dir.path);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->files[0].cases.size(), 2u);

  // Into it again: appended, with the next ids and the manifest it has.
  auto more = capture::add_found_states(*searched, {found}, {searched_dir.path.string(), into_dir.path.string(), "other", "other"});
  ASSERT_TRUE(more.ok()) << more.error().message;
  EXPECT_EQ(*more, std::vector<std::uint32_t>{2});
  EXPECT_EQ(cases::read_manifest(into_dir.path)->command, "lockstep probe ...");

  // No destination of its own: into the searched corpus.
  auto home = capture::add_found_states(*searched, {found}, {searched_dir.path.string(), "", "", ""});
  ASSERT_TRUE(home.ok()) << home.error().message;
  EXPECT_EQ(*home, std::vector<std::uint32_t>{2});
  EXPECT_EQ(cases::read_corpus(searched_dir.path)->files[0].cases.size(), 3u);
}

TEST(AddFoundStates, ACorpusOfAnotherSnapshotIsRefused) {
  const World& w = world();
  ASSERT_TRUE(w.ok);
  auto rec = capture_machine(w);
  ASSERT_TRUE(rec);
  TempDir other_dir;
  cases::Corpus corpus = rare_int_corpus(w, *rec);
  cases::Manifest other = corpus.manifest;
  other.snapshot_sha256 = "cd";
  ASSERT_TRUE(cases::write_corpus(other_dir.path, other, corpus.files).ok());
  cases::Case found = record_case(*rec, kRareInt, kThing, {{kCount, le32(2000)}});
  found.pokes.push_back({kCount, le32(2000)});
  auto r = capture::add_found_states(corpus, {found}, {"SEARCHED", other_dir.path.string(), "", ""});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::kUsage);
  EXPECT_NE(r.error().message.find("captured on another snapshot (cd) than SEARCHED (ab)"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(cases::read_corpus(other_dir.path)->files[0].cases.size(), 2u);  // untouched
}

}  // namespace
}  // namespace lockstep::coverage_test
