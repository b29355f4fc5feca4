// Arguments every corpus command reads the same way: a case id (FUNCTION:ID), functions by name or
// address, and the snapshot a corpus was captured on (checked by content hash).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::cli {

/// "0x41af80:12" or "tyres::tyres:12" → (function, id).
Result<std::pair<std::uint32_t, std::uint32_t>> parse_case_id(const std::string& s, const cases::Corpus& corpus);

/// Names (as the corpus's case files name them) or addresses → addresses.
Result<std::vector<std::uint32_t>> resolve_functions(const std::vector<std::string>& names, const cases::Corpus& corpus);

/// The case, or kNotFound.
Result<const cases::Case*> find_case(const cases::Corpus& corpus, std::uint32_t function, std::uint32_t id);

/// kUsage unless the snapshot's content hash is the one the corpus was captured on (a rerun on
/// another state reproduces nothing); `any` skips the check.
Status check_corpus_snapshot(const cases::Corpus& corpus, const harness::Snapshot& snapshot, bool any);

}  // namespace lockstep::cli
