// lockstep progress CORPUS... --profile P: the port's progress over the profile's functions (text,
// JSON, objdiff's report, an HTML page), or with --changes OLD.json a Markdown summary of what changed.
// Exit code 0 (a report, not a gate: `replay` gates), 1 with --changes when a function regressed,
// 2 bad input.
#include <fmt/ostream.h>

#include "lockstep/base/io.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/coverage/coverage_report.hpp"
#include "lockstep/load/load.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/profile/profile_symbols.hpp"
#include "lockstep/progress/progress.hpp"

#include "command.hpp"
#include "numeric_option.hpp"

namespace lockstep::cli {
namespace {

struct ProgressArgs {
  std::vector<std::string> corpora;
  std::string profile, snapshot, symbols, symbols_format = "auto";
  bool follow_helpers = false;
  std::vector<std::string> coverage_json, coverage_html;
  std::string json, objdiff, html, changes;
  unsigned jobs = 1;
  const cases::BindingSet* bindings = nullptr;
};

// The symbols a --snapshot file carries when it is an executable (none is no error: a dump has none).
Result<std::optional<harness::SymbolTable>> snapshot_symbols(const std::string& path) {
  LOCKSTEP_TRY(auto head, read_file(path, harness::SymbolLimits{}.max_file_bytes));
  if (!harness::has_symbol_table_magic(head)) return std::optional<harness::SymbolTable>{};
  auto t = harness::read_symbol_table(head, path);
  if (!t.ok() && t.error().code == Errc::kNotFound) return std::optional<harness::SymbolTable>{};
  if (!t.ok()) return t.error();
  return std::optional<harness::SymbolTable>(std::move(*t));
}

Status write_outputs(const ProgressArgs& a, const harness::ProgressReport& r) {
  if (!a.json.empty()) LOCKSTEP_TRY_STATUS(write_file_atomic(a.json, harness::progress_json(r)));
  if (!a.objdiff.empty()) LOCKSTEP_TRY_STATUS(write_file_atomic(a.objdiff, harness::objdiff_report_json(r)));
  if (!a.html.empty()) LOCKSTEP_TRY_STATUS(harness::write_progress_html(r, a.html));
  return {};
}

Result<int> run_progress(const ProgressArgs& a, Io& io) {
  auto profile = harness::load_profile(a.profile);
  if (!profile.ok()) return profile.error();
  // Everything is read before anything runs: a bad earlier report or coverage file is refused first.
  std::optional<std::string> old_report;
  if (!a.changes.empty()) {
    auto text = harness::read_progress_report(a.changes);
    if (!text.ok()) return text.error();
    old_report.emplace(std::move(*text));
  }
  std::vector<cases::Corpus> corpora;
  corpora.reserve(a.corpora.size());
  for (const auto& path : a.corpora) {
    auto c = cases::read_corpus(path);
    if (!c.ok()) return c.error();
    corpora.push_back(std::move(*c));
  }
  harness::ProgressInputs in;
  in.profile = &*profile;
  in.bindings = a.bindings;
  in.jobs = a.jobs;
  in.follow_helpers = a.follow_helpers;
  for (std::size_t i = 0; i < corpora.size(); ++i) in.corpora.emplace_back(a.corpora[i], &corpora[i]);
  std::optional<harness::Snapshot> snapshot;
  std::optional<harness::SymbolTable> symbols;
  if (!a.snapshot.empty()) {
    auto s = harness::load_snapshot(a.snapshot);
    if (!s.ok()) return s.error();
    snapshot.emplace(std::move(*s));
    in.snapshot = &*snapshot;
    if (a.symbols.empty()) {
      auto t = snapshot_symbols(a.snapshot);
      if (!t.ok()) return t.error();
      symbols = std::move(*t);
    }
  }
  if (!a.symbols.empty()) {
    auto format = harness::parse_symbol_file_format(a.symbols_format);
    if (!format.ok()) return format.error();
    auto t = harness::load_symbol_file(a.symbols, {.format = *format, .segment_bases = {}, .limits = {}});
    if (!t.ok()) return t.error();
    symbols = std::move(*t);
  }
  if (symbols) in.symbols = &*symbols;
  for (const auto& path : a.coverage_json) {
    auto text = harness::read_coverage_report(path);
    if (!text.ok()) return text.error();
    in.coverage_json.emplace_back(path, std::move(*text));
  }
  for (const auto& dir : a.coverage_html) in.coverage_html.emplace_back(dir);

  auto r = harness::make_progress(in);
  if (!r.ok()) return r.error();
  if (auto s = write_outputs(a, *r); !s.ok()) return s.error();
  if (!old_report) {
    io.out << harness::format_progress(*r);
    return kExitOk;
  }
  auto changes = harness::compare_progress(*r, *old_report, a.changes);
  if (!changes.ok()) return changes.error();
  io.out << harness::format_changes_markdown(*changes);
  return changes->any_regression() ? kExitMismatch : kExitOk;
}

Action setup_progress(CLI::App& app, const cases::BindingSet& bindings) {
  auto a = std::make_shared<ProgressArgs>();
  a->bindings = &bindings;
  app.add_option("corpora", a->corpora, "Corpus folders (manifest.json + case files), one or more")->required();
  app.add_option("--profile", a->profile, "The profile: every function it lists is reported, ported or not")
      ->required();
  app.add_option("--snapshot", a->snapshot,
                 "A snapshot or the original's image (any format `lockstep info` reads): code sizes by Capstone, "
                 "and by its symbol table when it is an executable that has one");
  app.add_option("--symbols", a->symbols,
                 "Code sizes from this symbol file (ELF/PE, Ghidra CSV/XML) rather than the snapshot's");
  app.add_option("--symbols-format", a->symbols_format, "auto (default), executable, ghidra-csv, ghidra-xml");
  app.add_flag("--follow-helpers", a->follow_helpers,
               "Code sizes by Capstone in the snapshot, following calls to where the profile names no function "
               "(private helpers, as the capture does), even where a symbol records a size");
  app.add_option("--coverage", a->coverage_json, "A `lockstep coverage --json` report: branch edges; repeatable");
  app.add_option("--coverage-html", a->coverage_html,
                 "A `lockstep coverage --html` folder: the HTML page links each function's page; repeatable");
  app.add_option("--json", a->json, "Write lockstep's JSON progress report here (what --changes reads)");
  app.add_option("--objdiff", a->objdiff, "Write objdiff's report format (report.proto as JSON) here");
  app.add_option("--html", a->html, "Write a static progress page into this folder (index.html)");
  app.add_option("--changes", a->changes,
                 "An earlier --json report: print a Markdown summary of the changes instead (exit 1 on a regression)");
  add_jobs_option(app, a->jobs, "Threads replaying cases (default 1); the report is the same for any N");
  return [a](Io& io) -> Result<int> { return run_progress(*a, io); };
}

}  // namespace

Command progress_command() {
  return {"progress", "A port's progress over a profile and corpora: text, JSON, objdiff's report, HTML, changes",
          setup_progress};
}

}  // namespace lockstep::cli
