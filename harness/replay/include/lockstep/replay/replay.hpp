// Replay: run the port's binding on every case of a corpus and compare (cases/docs/case-format.md, "Case semantics").
// Produces the per-function table, a report per mismatch in dynarmic's shape (side by side, `*` on
// each differing byte, bytes grouped by the profile's field names, the original's disassembly), and
// JSON / JUnit reports with a baseline comparison for CI.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/base/parallel.hpp"
#include "lockstep/base/result.hpp"
#include "lockstep/cases/binding.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::harness {

struct ReplayOptions {
  /// Only these functions (empty: all in the corpus).
  std::vector<std::uint32_t> functions;
  /// Only this case: (function, case id).
  std::optional<std::pair<std::uint32_t, std::uint32_t>> only_case;
  /// A read outside the original's read set fails the case (an error by default: the case cannot vouch for that byte).
  bool outside_reads_fail = true;
  /// Threads replaying cases (each with its own replay memory); the result is the same for any number.
  unsigned jobs = 1;
  /// Only the functions of this shard: the n-th function of the corpus (ascending by address, after
  /// `functions` has chosen) goes to shard n % N + 1. The shards' JSON reports merge (merge_reports)
  /// into the report of the whole run.
  Shard shard;
  /// Functions left unchecked on purpose, with the reason (exclusions.hpp): without a binding, or with
  /// no cases, they do not make the run vacuous. One that is bound and has cases is checked as usual.
  std::map<std::uint32_t, std::string> excluded;
};

struct CaseOutcome {
  const cases::Case* c = nullptr;
  cases::Comparison comparison;
};

struct FunctionOutcome {
  std::uint32_t function = 0;
  std::string name;
  bool bound = false;                  ///< the port has a binding for it
  std::uint32_t cases = 0, matched = 0, mismatched = 0;
  std::uint32_t outside_reads = 0;     ///< cases where the port read outside the original's inputs
  std::uint32_t poked = 0;             ///< cases that were poked (counted in the totals too)
  std::vector<CaseOutcome> failures;   ///< every mismatching case
  std::vector<std::uint32_t> failing_ids;  ///< their case ids (kept by a report read back from JSON)
  std::string excluded;                ///< why it is left unchecked on purpose ("" = not excluded)

  /// Cases compared with the port: every case of a bound function.
  std::uint32_t checked() const noexcept { return bound ? cases : 0; }
  /// Why nothing of it was checked and nothing excuses that ("" when it was checked, or is excluded):
  /// "no binding" (cases the port never ran) or "no cases" (nothing for a binding to run on).
  std::string unchecked_reason() const;
};

struct ReplayResult {
  std::vector<FunctionOutcome> functions;
  Shard shard;  ///< the shard this result covers (1/1: the whole corpus)
  std::string corpus_sha256;  ///< the replayed corpus's identity (cases::Corpus::manifest_sha256)
  std::uint32_t total_cases() const;
  std::uint32_t total_matched() const;
  std::uint32_t total_mismatched() const;
  std::uint32_t unbound_functions() const;
  std::uint32_t checked_cases() const;  ///< the N of "N of M cases checked"
  /// Functions neither checked nor excluded (a vacuous part of the verdict).
  std::uint32_t unchecked_functions() const;
  bool all_matched() const { return total_mismatched() == 0; }
  /// One shard of several that drew no function: nothing to check here, and nothing claimed (the
  /// merged reports give the verdict, and merge-reports refuses a whole with nothing checked).
  bool empty_shard() const { return shard.count > 1 && functions.empty(); }
  /// The run proves less than it claims: a function left unchecked without a reason, or no case
  /// checked at all. A vacuous run must not pass (exit kExitUnchecked), even when nothing differed.
  bool vacuous() const { return unchecked_functions() > 0 || (checked_cases() == 0 && !empty_shard()); }
};

/// Each function's signature as the profile declares it (its convention and `args`), by address.
std::map<std::uint32_t, cases::Signature> signatures(const Profile& profile);
/// The bindings, each with its function's signature from the profile attached: what a binding that
/// reads its arguments by name (cases::Arguments) runs with. A binding of a function the profile does
/// not list keeps none.
cases::BindingSet with_signatures(cases::BindingSet bindings, const Profile& profile);

/// Runs the corpus. `corpus` must outlive the result (outcomes point into it).
Result<ReplayResult> replay(const cases::Corpus& corpus, const cases::BindingSet& bindings, const ReplayOptions& opt);

/// The name of the field a byte belongs to: base and size of the field, "car[2]+0x440 engine_speed".
struct FieldName {
  std::uint32_t base = 0;
  std::uint32_t size = 1;
  std::string name;
};
/// What the reports use to name bytes and show code; any part may be empty.
struct Namer {
  std::function<std::optional<FieldName>(std::uint32_t address)> field;
  std::function<std::string(std::uint32_t function)> disassembly;  ///< the original function's listing
  /// For a byte the case records as written by `writer` in `function`'s code: "written last by
  /// 0x...:" and the store's data slice (data_slice.hpp: the instructions that computed the value it
  /// stored and its address, the writer marked `>`), the store found as resolve_writer finds it
  /// (`on_stack`: the byte lies in the call's stack); empty when the listing does not hold `writer`.
  std::function<std::string(std::uint32_t function, std::uint32_t writer, bool on_stack)> writer_context;
  /// What a report's "reproduce" line runs, before the case's `--case`: the executable that ran and
  /// the corpus, as the porter typed them ("build/mygame_lockstep replay corpus").
  std::string replay_command = "lockstep replay CORPUS";
  /// The function's signature (from the profile): names its stack arguments ("throttle (esp+8)") and
  /// lists a mismatching case's arguments; nullptr when unknown.
  std::function<const cases::Signature*(std::uint32_t function)> signature;
};

class Labeler;
/// The namer replay reports use: fields from the profile's labels (when `labels` is given; it must
/// outlive the namer), the original's listing from the code bytes each case file carries, at most
/// `max_instructions` long, its calls' targets named by the profile's functions (or the corpus's).
/// `corpus` must outlive the namer.
Namer corpus_namer(const cases::Corpus& corpus, const Labeler* labels, std::size_t max_instructions = 400);
/// The namer's signatures from `profile` (which must outlive it).
void name_arguments(Namer& namer, const Profile& profile);

/// The per-function table, then the verdict's summary: "N of M cases checked", and what was left
/// unchecked (by function, with what to do about it) or excluded (with the reason).
std::string format_table(const ReplayResult& r);
/// The size a mismatch report grows to before it stops (64 KiB: a few hundred differing fields with
/// their writers, read at a glance); a case writing megabytes differently is summed up past it.
inline constexpr std::size_t kMismatchReportBytes = std::size_t{64} << 10;
/// The report a porter reads for one mismatching case: at most about `max_bytes` (a field and its
/// writer lines past it), then a line saying how many differing bytes, from where, were left out.
std::string format_mismatch(const FunctionOutcome& f, const CaseOutcome& c, const Namer& namer,
                            std::size_t max_bytes = kMismatchReportBytes);

/// The JSON report's version: 2 names the corpus ("corpus": its manifest's SHA-256).
inline constexpr std::uint32_t kReportVersion = 2;
/// Machine-readable reports.
std::string to_json(const ReplayResult& r);
std::string to_junit(const ReplayResult& r);

/// Bounds on a JSON replay report read back (a baseline, a shard's report): an untrusted input
/// (Errc::kLimit past them), the defaults far above any real run; a caller or test passes its own.
struct ReplayReportLimits {
  std::uint64_t max_file_bytes = std::uint64_t{64} << 20;
};
/// The text of a JSON replay report file (for compare_baseline, merge_reports), its size bounded.
Result<std::string> read_replay_report(const std::filesystem::path& path, const ReplayReportLimits& limits = {});

/// Reads JSON reports of the shards of one run (each made with --shard K/N, every K once, in any
/// order) and merges them into the result of the unsharded run: to_json and to_junit of it give
/// what the unsharded run writes. `names` label the reports in errors. The result has no failure
/// details beyond the failing case ids.
Result<ReplayResult> merge_reports(const std::vector<std::string>& json_reports, const std::vector<std::string>& names);

/// Compares with an earlier JSON report: what got better or worse, per function.
struct BaselineDelta {
  std::vector<std::string> better, worse;
};
Result<BaselineDelta> compare_baseline(const ReplayResult& now, const std::string& baseline_json);
std::string format_baseline(const BaselineDelta& d);

}  // namespace lockstep::harness
