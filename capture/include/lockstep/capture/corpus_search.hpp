// A corpus's untaken edges searched, and the states found kept as poked cases.
//
// search_corpus_edges() runs the edge search (search.hpp) over every untaken conditional-branch edge
// of the chosen functions of a corpus, each function on its own machine, and replays the port (the
// game's bindings) on every state found: what `lockstep probe --search --edge untaken` reports.
// add_found_states() writes found states into the searched corpus, or into a corpus of their own (made
// from the searched corpus's manifest when it does not exist yet), so poked states can be kept apart
// from captured ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/capture/search.hpp"
#include "lockstep/cases/binding.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::capture {

/// Where found states go.
struct FoundStatesDestination {
  std::string searched;  ///< the folder the searched corpus was read from
  std::string into;      ///< another corpus folder, made when it holds no corpus yet ("": the searched one)
  /// For a corpus made at `into`: its manifest's command (without paths, so a corpus made again is
  /// byte-identical) and its profile path as seen from `into` (the searched corpus's profile file).
  std::string command;
  std::string profile_path;
};

/// Appends `found` to the destination as poked cases and returns the ids they got, in order. An
/// existing corpus at `into` must have been captured on the searched corpus's snapshot (kUsage
/// otherwise, naming it as `lockstep probe` is given it: "--into DIR"). A function new to the destination gets a file carrying the original's code from the
/// searched corpus, as captured files do, for the reports' listings. `searched` may be rewritten
/// (when it is the destination).
Result<std::vector<std::uint32_t>> add_found_states(cases::Corpus& searched, std::vector<cases::Case> found,
                                                    const FoundStatesDestination& to);

/// The port on a found state.
struct PortVerdict {
  bool bound = false;  ///< the game has a binding for the function (else nothing was compared)
  bool matched = false;
  std::size_t differing_bytes = 0, differing_registers = 0, outside_reads = 0;
};

/// One function of a corpus search.
struct FunctionEdgeSearch {
  FunctionSearch search;  ///< its untaken edges, each with what the search found
  /// Per edge of search.searches: the port's verdict on the state found for it (empty when the
  /// edge was not found by its own search).
  std::vector<std::optional<PortVerdict>> verdicts;
  std::size_t covered = 0;   ///< edges the corpus's cases take already
  std::size_t searched = 0;  ///< edges searched (not found by an earlier state of the batch)
  std::size_t reached = 0;   ///< untaken edges a found state takes
  std::size_t runs = 0;      ///< runs of the original spent
};

struct CorpusSearchOptions {
  std::vector<harness::GuestAddr> functions;  ///< the functions to search (empty: every function of the corpus)
  std::string driver;                         ///< the [[driver]] whose stubs are on
  SearchOptions search;
  unsigned jobs = 1;  ///< threads over the functions; the results are the same for any number
};

struct CorpusSearch {
  std::vector<FunctionEdgeSearch> functions;  ///< in the order of the options' functions (or the corpus's)
  std::vector<cases::Case> found;             ///< the states found, in edge order, ready for add_found_states
  std::vector<std::string> differing;         ///< per found state the port differs on: its function's name
  double seconds = 0;                         ///< wall time of the searches and the port's replays
};

/// Searches every untaken edge of the chosen functions (search_untaken_edges_of) and replays the
/// port on each state found. Errors: kNotFound when the corpus has no cases of a chosen function,
/// and the search's own.
Result<CorpusSearch> search_corpus_edges(const cases::Corpus& corpus, const harness::Snapshot& snapshot,
                                         const harness::Profile& profile, const harness::Labeler* labels,
                                         const cases::BindingSet& bindings, const CorpusSearchOptions& options);

}  // namespace lockstep::capture
