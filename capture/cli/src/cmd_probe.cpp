// lockstep probe CORPUS --case F:ID --snapshot SNAP [--profile P] [--poke ADDR=VALUE ...] [--add]
//   Runs the original (under Unicorn, from the case's own state) and the port on the same poked
//   state, prints both effects, which branches went another way, and the port's diff.
// lockstep probe CORPUS --fn F --edge ADDR:taken|fallthrough --search [--budget N] --snapshot SNAP
//   [--profile P] [--dry-run]
//   Searches for a poked state whose run takes the edge; writes it into the corpus as a poked case
//   and replays the port on it.
// lockstep probe CORPUS --search --edge untaken [--fn F] ...: the same for every untaken edge.
// Exit codes: 0 the port matches the original on the probed / found state, 1 it does not, 2 bad
// input, 3 the original faulted on the poked state, 6 the search found nothing within its budget.
// The searches and the keeping of found states are lockstep::capture's (search.hpp,
// corpus_search.hpp); the command reads its inputs, calls them and prints.
#include <fmt/ostream.h>

#include "lockstep/load/load.hpp"
#include "lockstep/replay/replay.hpp"

#include "command.hpp"
#include "corpus_args.hpp"
#include "corpus_profile.hpp"
#include "numeric_option.hpp"
#include "probe.hpp"

namespace lockstep::cli {
namespace {

using probe::ProbeArgs;

// Reads what every way of probing runs on, then runs the way the options choose.
Result<int> run_probe(const ProbeArgs& a, Io& io) {
  LOCKSTEP_TRY(cases::Corpus corpus, cases::read_corpus(a.corpus));
  LOCKSTEP_TRY(const auto recorded, corpus_profile(corpus.manifest, a.corpus, a.profile,
                                                   harness::ProfileNeed::kRequired, io));
  const harness::Profile& profile = *recorded;  // kRequired: always holds one
  const harness::Labeler labels(profile);
  // Bindings that read their arguments by name get them from the profile.
  const cases::BindingSet bindings = harness::with_signatures(*a.bindings, profile);
  LOCKSTEP_TRY(const harness::Snapshot snapshot, harness::load_snapshot(a.snapshot));
  LOCKSTEP_TRY_STATUS(check_corpus_snapshot(corpus, snapshot, a.any_snapshot));
  const probe::ProbeRun run{a, corpus, snapshot, profile, labels, bindings,
                            a.driver.empty() ? corpus.manifest.driver : a.driver};
  if (a.search && a.edge == "untaken") return probe::search_all_untaken(run, io);
  if (a.search) return probe::search_one_edge(run, io);
  return probe::probe_case_state(run, io);
}

Action setup_probe(CLI::App& app, const cases::BindingSet& bindings) {
  auto a = std::make_shared<ProbeArgs>();
  a->bindings = &bindings;
  app.add_option("corpus", a->corpus, "Corpus folder")->required();
  app.add_option("--snapshot", a->snapshot, "The snapshot the corpus was captured on")->required();
  app.add_option("--profile", a->profile,
                 "Profile (TOML) of the original: functions, stubs and labels (default: the one the corpus was "
                 "captured with)");
  app.add_option("--case", a->one_case, "The case to probe: FUNCTION:ID (e.g. tyres::tyres:12)");
  app.add_option("--poke", a->pokes,
                 "ADDR=VALUE laid over the case's state (ADDR: car[3]+0x440, car[3].engine_speed, a label, 0x...; "
                 "VALUE: hex bytes or typed, u32:7 i16:-3 f32:0.01 f64:1.5 fx:-200.0), or REG=VALUE for an entry "
                 "register (eax=0x4000, eax=fx:1.5)");
  app.add_flag("--add", a->add, "Write the poked state into the corpus as a poked case");
  app.add_flag("--search", a->search, "Search for a state that takes --edge of --fn");
  app.add_option("--fn", a->function, "The function to search in (name or address)");
  app.add_option("--edge", a->edge,
                 "ADDR:taken or ADDR:fallthrough (a conditional branch of --fn), or 'untaken': every untaken edge "
                 "of --fn (or of every function of the corpus)");
  add_unsigned_option(app, "--budget", a->budget, "Runs of the original the search may spend (default 5000)", 1);
  add_unsigned_option(app, "--start-cases", a->start_cases, "Cases reaching the branch to start from (default 8)", 1);
  add_run_limits(app, a->limits, "one run of the original", "--block-budget");
  app.add_option("--into", a->into, "Write found states into this corpus (made if missing) instead of CORPUS");
  add_jobs_option(app, a->jobs,
                   "--search --edge untaken: threads over the functions, each with its own machine (default 1); the "
                   "states found are the same for any N");
  app.add_flag("--dry-run", a->dry_run, "Search, but do not write the found case into the corpus");
  app.add_flag("--poke-constants", a->poke_constants,
               "Let the search also change labelled tables and constants (states no game reaches)");
  app.add_option("--driver", a->driver, "The [[driver]] whose stubs are on (default: the corpus's)");
  app.add_flag("--any-snapshot", a->any_snapshot, "Run on a snapshot other than the corpus's");
  return [a](Io& io) -> Result<int> { return run_probe(*a, io); };
}

}  // namespace

Command probe_command() {
  return {"probe",
          "Run the original and the port on a poked case state, or search for a state taking an edge",
          setup_probe};
}

}  // namespace lockstep::cli
