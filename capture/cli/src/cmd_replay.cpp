// lockstep replay CORPUS: runs the port's binding on every case and compares every byte.
// lockstep merge-reports SHARD.json...: the report of a whole run from its shards' JSON reports.
// Exit code 0 every case checked and matched, 1 a mismatch, 7 a vacuous verdict (a function left
// unchecked without a reason, or no case checked: harness/docs/verdict.md), 2 bad input.
#include <fstream>
#include <iostream>

#include <fmt/ostream.h>

#include "lockstep/base/io.hpp"
#include "lockstep/base/parallel.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/replay/exclusions.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/replay/replay.hpp"

#include "command.hpp"
#include "corpus_args.hpp"
#include "corpus_profile.hpp"
#include "numeric_option.hpp"

namespace lockstep::cli {
namespace {

struct ReplayArgs {
  std::string corpus;
  std::vector<std::string> functions;
  std::string one_case;
  std::string profile;
  bool no_profile = false;
  std::string json, junit, baseline;
  bool allow_outside = false;
  std::size_t max_reports = 10;
  unsigned jobs = 1;
  Shard shard;
  std::vector<std::string> exclusion_files, excludes;  ///< --exclusions FILE, --exclude FUNCTION=REASON
  const cases::BindingSet* bindings = nullptr;  ///< the game's port (run's caller's)
};

/// --exclusions files and --exclude flags, resolved against the corpus.
Result<harness::ExcludedFunctions> read_excluded(const ReplayArgs& a, const cases::Corpus& corpus) {
  std::vector<harness::Exclusion> all;
  for (const auto& path : a.exclusion_files) {
    LOCKSTEP_TRY(std::vector<harness::Exclusion> listed, harness::read_exclusions(path));
    all.insert(all.end(), listed.begin(), listed.end());
  }
  for (const auto& flag : a.excludes) {
    LOCKSTEP_TRY(harness::Exclusion e, harness::parse_exclude_flag(flag));
    all.push_back(std::move(e));
  }
  return harness::resolve_exclusions(all, corpus);
}

/// The verdict's exit code: a mismatch first, then a vacuous run (harness/docs/verdict.md).
int verdict_code(const harness::ReplayResult& r) {
  if (!r.all_matched()) return kExitMismatch;
  return r.vacuous() ? kExitUnchecked : kExitOk;
}

// A word as a shell reads it back: as it is when it holds nothing the shell would change, else quoted.
std::string shell_word(std::string_view w) {
  const bool plain = !w.empty() && w.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                       "0123456789_./:+-=,@%") == std::string_view::npos;
  if (plain) return std::string(w);
  std::string q = "'";
  for (char ch : w) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

// The JSON and JUnit reports a replay writes (also of merged shards).
Status write_reports(const harness::ReplayResult& result, const std::string& json, const std::string& junit) {
  if (!json.empty())
    if (auto s = write_file_atomic(json, harness::to_json(result)); !s.ok()) return s.error();
  if (!junit.empty())
    if (auto s = write_file_atomic(junit, harness::to_junit(result)); !s.ok()) return s.error();
  return {};
}

Result<int> run_replay(const ReplayArgs& a, Io& io) {
  auto corpus = cases::read_corpus(a.corpus);
  if (!corpus.ok()) return corpus.error();
  harness::ReplayOptions opt;
  opt.outside_reads_fail = !a.allow_outside;
  opt.jobs = a.jobs;
  opt.shard = a.shard;
  auto fns = resolve_functions(a.functions, *corpus);
  if (!fns.ok()) return fns.error();
  opt.functions = *fns;
  auto excluded = read_excluded(a, *corpus);
  if (!excluded.ok()) return excluded.error();
  opt.excluded = std::move(*excluded);
  if (!a.one_case.empty()) {
    auto id = parse_case_id(a.one_case, *corpus);
    if (!id.ok()) return id.error();
    opt.only_case = *id;
  }
  std::optional<harness::Labeler> labeler;
  std::optional<harness::Profile> profile;  // names bytes, and gives bindings that read arguments by name their args
  if (!a.no_profile) {
    auto p = corpus_profile(corpus->manifest, a.corpus, a.profile, harness::ProfileNeed::kNames, io);
    if (!p.ok()) return p.error();
    if (*p) {
      profile = **p;
      labeler.emplace(*profile);
    }
  }
  // The baseline is read before the replay: a bad one is refused before anything runs.
  std::optional<std::string> baseline;
  if (!a.baseline.empty()) {
    auto text = harness::read_replay_report(a.baseline);
    if (!text.ok()) return text.error();
    baseline.emplace(std::move(*text));
  }
  const cases::BindingSet bindings = profile ? harness::with_signatures(*a.bindings, *profile) : *a.bindings;
  auto result = harness::replay(*corpus, bindings, opt);
  if (!result.ok()) return result.error();

  harness::Namer namer = harness::corpus_namer(*corpus, labeler ? &*labeler : nullptr);
  if (profile) harness::name_arguments(namer, *profile);
  namer.replay_command = fmt::format("{} replay {}", shell_word(io.program), shell_word(a.corpus));

  std::size_t shown = 0;
  for (const auto& f : result->functions)
    for (const auto& c : f.failures)
      if (shown++ < a.max_reports) io.out << harness::format_mismatch(f, c, namer) << "\n";
  if (shown > a.max_reports)
    fmt::print(io.out, "({} more mismatching cases not shown; --max-reports N shows more)\n\n", shown - a.max_reports);
  io.out << harness::format_table(*result);

  if (baseline) {
    auto delta = harness::compare_baseline(*result, *baseline);
    if (!delta.ok()) return delta.error().wrap("baseline {}", a.baseline);
    fmt::print(io.out, "against the baseline {}:\n{}", a.baseline, harness::format_baseline(*delta));
  }
  LOCKSTEP_TRY_STATUS(write_reports(*result, a.json, a.junit));
  return verdict_code(*result);
}

Action setup_replay(CLI::App& app, const cases::BindingSet& bindings) {
  auto a = std::make_shared<ReplayArgs>();
  a->bindings = &bindings;
  app.add_option("corpus", a->corpus, "Corpus folder (manifest.json + case files)")->required();
  app.add_option("--fn", a->functions, "Only these functions (name or address); repeatable");
  app.add_option("--case", a->one_case, "Only this case: FUNCTION:ID (e.g. 0x0041af80:12)");
  auto* profile = app.add_option("--profile", a->profile,
                                  "Profile of the original: its labels name the differing bytes (default: the one "
                                  "the corpus was captured with)");
  app.add_flag("--no-profile", a->no_profile, "Name no fields: not even the profile the corpus was captured with")
      ->excludes(profile);
  app.add_option("--json", a->json, "Write a JSON report here");
  app.add_option("--junit", a->junit, "Write a JUnit XML report here");
  app.add_option("--baseline", a->baseline, "An earlier --json report: list what got better or worse");
  app.add_flag("--allow-outside-reads", a->allow_outside,
               "Do not fail a case when the port reads bytes the original never read (still reported)");
  app.add_option("--exclusions", a->exclusion_files,
                 "File of functions left unchecked on purpose, one `FUNCTION REASON` a line; repeatable. Without "
                 "one, a function with cases but no binding, or with no cases, fails the verdict (exit 7)");
  app.add_option("--exclude", a->excludes, "FUNCTION=REASON: one function left unchecked on purpose; repeatable");
  add_unsigned_option(app, "--max-reports", a->max_reports, "Mismatch reports to print (default 10)");
  add_jobs_option(app, a->jobs, "Threads replaying cases (default 1); the reports are the same for any N");
  add_shard_option(app, a->shard,
                   "K/N: only shard K of N (the corpus's functions dealt out in address order); "
                   "merge the shards' --json reports with `lockstep merge-reports`");
  return [a](Io& io) -> Result<int> { return run_replay(*a, io); };
}

struct MergeArgs {
  std::vector<std::string> reports;
  std::string json, junit;
};

Result<int> run_merge(const MergeArgs& a, Io& io) {
  std::vector<std::string> texts;
  for (const auto& path : a.reports) {
    auto text = harness::read_replay_report(path);
    if (!text.ok()) return text.error();
    texts.emplace_back(std::move(*text));
  }
  auto merged = harness::merge_reports(texts, a.reports);
  if (!merged.ok()) return merged.error();
  io.out << harness::format_table(*merged);
  LOCKSTEP_TRY_STATUS(write_reports(*merged, a.json, a.junit));
  return verdict_code(*merged);
}

Action setup_merge(CLI::App& app, const cases::BindingSet& /*bindings: runs no port*/) {
  auto a = std::make_shared<MergeArgs>();
  app.add_option("reports", a->reports, "The --json reports of `lockstep replay --shard K/N`, every K once")
      ->required();
  app.add_option("--json", a->json, "Write the merged JSON report here (the unsharded run's)");
  app.add_option("--junit", a->junit, "Write the merged JUnit XML report here (the unsharded run's)");
  return [a](Io& io) -> Result<int> { return run_merge(*a, io); };
}

}  // namespace

Command replay_command() {
  return {"replay", "Replay the port on a corpus of captured cases; compare every byte", setup_replay};
}
Command merge_reports_command() {
  return {"merge-reports", "Merge the JSON reports of a sharded replay into the whole run's JSON / JUnit", setup_merge};
}

}  // namespace lockstep::cli
