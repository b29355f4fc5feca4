// What the three ways of `lockstep probe` share: its options, the inputs every way reads (the corpus,
// its profile, the snapshot), the port replayed on a state the original produced, and where found
// states go. cmd_probe.cpp reads the inputs and runs one of the ways: a poked case
// (probe_case.cpp), a search for one edge (probe_search_edge.cpp), or for every untaken edge
// (probe_search_untaken.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/binding.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/machine/machine.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::cli::probe {

/// The options of `lockstep probe`.
struct ProbeArgs {
  std::string corpus, one_case, snapshot, profile, driver, function, edge, into;
  std::vector<std::string> pokes;
  bool add = false, search = false, dry_run = false, any_snapshot = false, poke_constants = false;
  std::uint32_t budget = 5000, start_cases = 8;
  unsigned jobs = 1;
  harness::MachineConfig limits;  ///< --block-budget, --timeout of each run
  const cases::BindingSet* bindings = nullptr;  ///< the game's port (run's caller's)
};

/// What every way of probing runs on, read once by run_probe.
struct ProbeRun {
  const ProbeArgs& args;
  cases::Corpus& corpus;  ///< found and kept states are added to it
  const harness::Snapshot& snapshot;
  const harness::Profile& profile;
  const harness::Labeler& labels;
  const cases::BindingSet& bindings;  ///< the game's port, with the profile's signatures
  std::string driver;                 ///< --driver, else the corpus's
};

/// The port on a case the original produced: prints the verdict, returns kExitOk or kExitMismatch.
int replay_port(const cases::BindingSet& bindings, const cases::Corpus& corpus, const cases::Case& c,
                const harness::Profile& profile, const harness::Labeler& labels, Io& io);

/// Writes found states into the corpus searched, or with --into into another; returns their ids.
Result<std::vector<std::uint32_t>> add_found(const ProbeArgs& a, cases::Corpus& corpus, std::vector<cases::Case> found);

/// --case F:ID [--poke ...] [--add]: the original and the port on a poked case state.
Result<int> probe_case_state(const ProbeRun& run, Io& io);
/// --search --fn F --edge ADDR:taken|fallthrough: a state taking one edge.
Result<int> search_one_edge(const ProbeRun& run, Io& io);
/// --search --edge untaken: every untaken edge of --fn or of the corpus.
Result<int> search_all_untaken(const ProbeRun& run, Io& io);

}  // namespace lockstep::cli::probe
