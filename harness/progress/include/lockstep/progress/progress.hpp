// A port's progress over a profile: for every function the profile lists (and any a corpus holds
// beyond it) whether the port binds it, its cases, how many matched, the original's code size and
// its branch coverage; totals per module (the name's namespace, "math" for math::dot16) and overall.
// Reports: text, lockstep's JSON, objdiff's report (its report.proto as JSON, which decomp.dev and
// objdiff's own tools read), a Markdown summary of the changes since an earlier JSON report, and a
// static HTML page. harness/docs/progress.md describes them.
//
// "Matched" is lockstep's own measure: every case of the function replayed equal, byte for byte.
// A function without cases is never matched, whatever its binding: nothing vouches for it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/binding.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/snapshot/snapshot.hpp"
#include "lockstep/readers/symbols.hpp"

namespace lockstep::harness {

/// Where a function's code size came from.
enum class CodeSizeSource {
  kSymbol,    ///< the size the symbol table records (ELF st_size)
  kCapstone,  ///< the bytes of the instructions reached from the entry (Disassembler::function) in the snapshot
  kCorpus,    ///< the code bytes a case file carries (from the entry, as far as the capture's listing reached)
  kNone,      ///< no snapshot, symbol or case file holds it
};
const char* code_size_source_name(CodeSizeSource s) noexcept;  ///< "symbol", "capstone", "corpus", "none"

struct FunctionProgress {
  GuestAddr address = 0;
  std::string name;    ///< the profile's name (or the corpus's, for a function the profile lacks)
  std::string module;  ///< the namespace of the name; "(global)" for a name without one
  bool in_profile = false;
  bool bound = false;  ///< the port has a binding for it
  std::uint32_t cases = 0, matched = 0, mismatched = 0, poked = 0;
  /// The first mismatching case: its corpus (as given) and id.
  std::optional<std::pair<std::string, std::uint32_t>> first_mismatch;
  std::uint32_t code_bytes = 0;
  CodeSizeSource code_source = CodeSizeSource::kNone;
  std::optional<std::uint32_t> edges_covered, edges_total;  ///< from coverage reports, when given
  std::string coverage_page;  ///< the function's page of a coverage HTML report, when one exists

  /// Every case matched (and there is at least one; an unbound function's cases match none).
  bool all_matched() const noexcept { return cases > 0 && matched == cases; }
  /// Cases matched / cases, in per cent (0 for a function without cases).
  double fuzzy_percent() const noexcept { return cases ? 100.0 * matched / cases : 0.0; }
};

/// Totals over a module's functions (or all of them).
struct ProgressTotals {
  std::string name;
  std::uint32_t functions = 0, bound = 0, with_cases = 0, matched_functions = 0;
  std::uint64_t code_bytes = 0, matched_code_bytes = 0;
  std::uint64_t cases = 0, matched_cases = 0, mismatched_cases = 0;
  std::uint64_t edges_covered = 0, edges_total = 0;
  void add(const FunctionProgress& f);
};

struct ProgressReport {
  std::string profile;               ///< the profile's name
  std::vector<std::string> corpora;  ///< as given
  std::vector<FunctionProgress> functions;  ///< ascending by address
  std::vector<ProgressTotals> modules;      ///< ascending by name
  ProgressTotals total;
};

/// What a progress report is made from. Only `profile` and `bindings` are required.
struct ProgressInputs {
  const Profile* profile = nullptr;
  const cases::BindingSet* bindings = nullptr;
  std::vector<std::pair<std::string, const cases::Corpus*>> corpora;  ///< (name as given, corpus)
  const Snapshot* snapshot = nullptr;      ///< code sizes by Capstone where no symbol gives one
  const SymbolTable* symbols = nullptr;    ///< code sizes where the table records them
  /// Measure with Capstone (when a snapshot is given) following the calls to where the profile names
  /// no function (private helpers, as the capture does), even where a symbol records a size.
  bool follow_helpers = false;
  std::vector<std::pair<std::string, std::string>> coverage_json;  ///< (name, `coverage --json` text)
  std::vector<std::filesystem::path> coverage_html;  ///< `coverage --html` folders to link pages of
  unsigned jobs = 1;
};

/// Replays every corpus on the bindings and builds the report. Errors: a corpus's replay error, a
/// coverage report that is not lockstep's coverage JSON (kMalformed naming it).
Result<ProgressReport> make_progress(const ProgressInputs& in);

/// Per module a line of totals, then the functions (status, cases, code bytes, coverage), then the
/// overall totals.
std::string format_progress(const ProgressReport& r);
/// "format": "lockstep-progress", "version": 1: the corpora, totals, modules and every function.
std::string progress_json(const ProgressReport& r);
/// objdiff's Report (report.proto, version 2) as protobuf's JSON mapping with the proto field names
/// (as objdiff writes it): a unit per module, a function item per function (size = code bytes,
/// fuzzy_match_percent = cases matched / cases), measures per unit and overall; 64-bit counts as
/// strings, as the mapping writes uint64.
std::string objdiff_report_json(const ProgressReport& r);

/// What changed since an earlier progress_json report.
struct ProgressChange {
  GuestAddr address = 0;
  std::string name;
  std::uint32_t cases_before = 0, cases_now = 0, matched_before = 0, matched_now = 0;
  std::optional<std::pair<std::string, std::uint32_t>> first_mismatch;  ///< now
};
struct ProgressChanges {
  std::vector<ProgressChange> newly_matched;  ///< not all matched before, all matched now
  /// More mismatching cases than before, or all matched before and not now (a binding gone).
  std::vector<ProgressChange> regressed;
  std::vector<ProgressChange> new_functions;  ///< not in the earlier report
  std::vector<ProgressChange> removed;        ///< in the earlier report only
  ProgressTotals before, now;
  bool any_regression() const noexcept { return !regressed.empty(); }
};
/// Bounds on a progress_json report read back (`progress --changes OLD.json`): an untrusted input
/// (Errc::kLimit past them), the defaults far above any real report; a caller or test passes its own.
struct ProgressReportLimits {
  std::uint64_t max_file_bytes = std::uint64_t{64} << 20;
};
/// The text of a progress_json report file (for compare_progress), its size bounded.
Result<std::string> read_progress_report(const std::filesystem::path& path, const ProgressReportLimits& limits = {});
/// Errors: kMalformed when `old_json` is not a lockstep-progress report (naming `what`).
Result<ProgressChanges> compare_progress(const ProgressReport& now, const std::string& old_json, std::string_view what);
/// A short Markdown summary for a pull request: totals before → now, then the newly matched, the
/// regressed (each with its first mismatching case), the new functions and the case counts.
std::string format_changes_markdown(const ProgressChanges& c);

/// Writes `dir`/index.html: totals, a bar per module (functions matched, code bytes behind them), an
/// SVG chart of matched functions and code bytes per module, and every function's row linking its
/// coverage page where one exists (relative to `dir`). No scripts, no external resources; written
/// atomically. Errors as write_file_atomic's.
Status write_progress_html(const ProgressReport& r, const std::filesystem::path& dir);

}  // namespace lockstep::harness
