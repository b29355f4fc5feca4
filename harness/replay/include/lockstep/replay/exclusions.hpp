// Exclusions: the functions a verdict leaves unchecked on purpose, each with its reason.
//
// A replay (or a gate) that checks nothing must not pass: a function of the corpus with cases but no
// binding, a function with no cases, or a run in which no case was checked at all fails
// (harness/docs/verdict.md). A function the port covers in another way — a seam that reads and
// writes nothing, a driver followed whole by another test, library code — is named in an exclusions
// file, or by `--exclude FUNCTION=REASON`, with the reason; an exclusion without a reason is refused.
//
// The file, one function per line (# starts a comment, blank lines are skipped):
//   FUNCTION  REASON
// FUNCTION is a name the corpus holds (`race::zones`) or an address (`0x0049d600`); REASON is the rest
// of the line, never blank.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/corpus.hpp"

namespace lockstep::harness {

/// One excluded function, as written.
struct Exclusion {
  std::string function;  ///< a name or an address, resolved against a corpus
  std::string why;       ///< never blank
  std::string where;     ///< "excluded.txt:3" or "--exclude", for messages
};

/// Parses an exclusions file (kMalformed naming file and line: no reason, a function listed twice).
Result<std::vector<Exclusion>> parse_exclusions(std::string_view text, std::string_view source);
Result<std::vector<Exclusion>> read_exclusions(const std::string& path);
/// `FUNCTION=REASON` as `--exclude` takes it (kUsage when the reason is missing or blank).
Result<Exclusion> parse_exclude_flag(std::string_view text);

/// Function address -> reason: what ReplayOptions::excluded takes.
using ExcludedFunctions = std::map<std::uint32_t, std::string>;

/// The exclusions resolved against the corpus's functions: each must name one (by its name or its
/// address; kNotFound otherwise, so that a typo does not excuse nothing), at most once.
Result<ExcludedFunctions> resolve_exclusions(const std::vector<Exclusion>& exclusions, const cases::Corpus& corpus);

}  // namespace lockstep::harness
