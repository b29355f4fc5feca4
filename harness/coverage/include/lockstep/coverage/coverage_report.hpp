// Reports of a CoverageReport (coverage.hpp): the terminal summary, JSON, and a static HTML report
// (an index and one page per function, annotated disassembly) that opens in a browser with no server.
#pragma once

#include <filesystem>
#include <string>

#include "lockstep/base/result.hpp"
#include "lockstep/coverage/coverage.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::harness {

/// Per function: instructions covered / total, edges covered / total, notes (indirect jumps whose
/// targets were not followed, a truncated listing), then every untaken edge with its branch
/// instruction, the edge, and the condition's instructions with their operand labels, e.g.
///   tyres::tyres  0x0041af80  instructions 212/240  edges 30/34
///     untaken    0x0041b0a4  jl 0x41b0c2  taken edge (to 0x0041b0c2); fallthrough followed 17 times
///         0x0041b09e  cmp eax, dword ptr [esi + 0x39]  ; car[2]+0x111 point[1].sliding
///     unreached  0x0041b0b0  je 0x41b0d0  both edges (...): the branch never ran
///         0x0041b0a9  call 0x4164e0  ; <- result of Tables::length16 (0x004164e0)
/// "untaken" is a branch that ran but always went one way; "unreached" one that never ran (both of
/// its edges count as untaken). Ends with a total line over all functions. `profile` (may be null)
/// names call targets; unnamed functions show as FUN_xxxxxxxx.
std::string format_coverage(const CoverageReport& report, const Profile* profile);

/// The report as JSON ("format": "lockstep-coverage", "version": 1): totals; per function its
/// counts, per instruction its address, hits and text, per branch both edges' counts ("taken",
/// "fell_through"), "reached", the "untaken" edge names and the condition (instructions, labels,
/// first address, call target and, with a profile, its name). Addresses are "0x%08x" strings.
std::string coverage_json(const CoverageReport& report, const Profile* profile = nullptr);

/// Bounds on a coverage_json report read back (`progress --coverage COV.json`): an untrusted input
/// (Errc::kLimit past them), the defaults far above any real report (one holds every instruction and
/// branch of every function); a caller or test passes its own.
struct CoverageReportLimits {
  std::uint64_t max_file_bytes = std::uint64_t{256} << 20;
};
/// The text of a coverage_json report file, its size bounded.
Result<std::string> read_coverage_report(const std::filesystem::path& path, const CoverageReportLimits& limits = {});

/// Writes `dir`/index.html (a table of functions with their counts and a bar, linking each page),
/// one page per function, `dir`/fn_<entry as 8 hex digits>.html (fn_<entry>_<n>.html for a repeated
/// entry): the annotated disassembly — hit count, bytes and text per instruction, uncovered ones
/// marked, taken/untaken marks on each branch's edges, the condition's labels — with the untaken
/// edges listed at the top (anchors u_<branch>_<edge> linking into the listing's rows i_<address>),
/// and `dir`/style.css. Plain HTML, no scripts, no external resources; every name and instruction
/// text is HTML-escaped. `dir` (and its parents) is created. Every file is written atomically, the
/// index last, so an index never links to a page that is missing; an output path that exists and
/// is not a regular file is refused before anything is written. Errors: Errc::kIo (or kPermission,
/// kNotFound as the OS says) naming the path.
Status write_coverage_html(const CoverageReport& report, const Profile* profile, const std::filesystem::path& dir);

}  // namespace lockstep::harness
