// lockstep probe CORPUS --search --edge untaken [--fn F]: every untaken edge of --fn (or of every
// function of the corpus) searched (lockstep::capture::search_corpus_edges), the found states added to
// the corpus (or --into), the edges covered before and after. Exit 1 when the port differs on a
// found state.
#include <fmt/ostream.h>

#include "lockstep/capture/corpus_search.hpp"
#include "lockstep/replay/replay.hpp"

#include "corpus_args.hpp"
#include "probe.hpp"
#include "run_limits.hpp"

namespace lockstep::cli::probe {

Result<int> search_all_untaken(const ProbeRun& run, Io& io) {
  const ProbeArgs& a = run.args;
  cases::Corpus& corpus = run.corpus;
  const harness::Snapshot& snapshot = run.snapshot;
  const harness::Profile& profile = run.profile;
  const harness::Labeler& labels = run.labels;
  const std::string& driver = run.driver;
  capture::CorpusSearchOptions options;
  if (!a.function.empty()) {
    auto r = resolve_functions({a.function}, corpus);
    if (!r.ok()) return r.error();
    options.functions = *r;
  }
  options.driver = driver;
  options.search = {a.budget, a.start_cases, 1, a.poke_constants, {}};
  apply_run_limits(a.limits, options.search.machine);
  options.jobs = a.jobs;
  auto result = capture::search_corpus_edges(corpus, snapshot, profile, &labels, harness::with_signatures(*a.bindings, profile), options);
  if (!result.ok()) return result.error();
  for (const capture::FunctionEdgeSearch& fn : result->functions) {
    for (std::size_t i = 0; i < fn.search.searches.size(); ++i) {
      const capture::EdgeSearch& es = fn.search.searches[i];
      std::string line = fmt::format("  0x{:08x} {:<22} {:<11} ", es.goal.branch, es.branch, harness::edge_name(es.goal.edge));
      if (es.covered_by_earlier) {
        line += "taken by a state found above";
      } else if (es.result.found) {
        const capture::PortVerdict& v = *fn.verdicts[i];
        const std::string verdict =
            !v.bound    ? "no binding"
            : v.matched ? "port matches"
                        : fmt::format("port DIFFERS ({} bytes, {} registers, {} bytes read the original never read)",
                                      v.differing_bytes, v.differing_registers, v.outside_reads);
        line += fmt::format("found in {} runs from case {}: {}; {}", es.result.runs, es.result.start_case,
                            es.result.how, verdict);
      } else {
        line += es.result.reaching_cases == 0
                    ? fmt::format("not found: no case reaches the branch ({} runs)", es.result.runs)
                    : fmt::format("not found in {} runs", es.result.runs);
      }
      io.out << line << "\n";
    }
  }
  fmt::print(io.out, "\n{:<28} {:>14} {:>14} {:>8}\n", "function", "edges before", "edges after", "runs");
  std::size_t before = 0, after = 0, total = 0, reached = 0, untaken = 0, runs = 0;
  for (const capture::FunctionEdgeSearch& r : result->functions) {
    const std::size_t edges = r.search.edges_total;
    fmt::print(io.out, "{:<28} {:>8} / {:<4} {:>8} / {:<4} {:>8}\n", r.search.name, r.covered, edges,
               r.covered + r.reached, edges, r.runs);
    before += r.covered;
    after += r.covered + r.reached;
    total += edges;
    reached += r.reached;
    untaken += edges - r.covered;
    runs += r.runs;
  }
  fmt::print(io.out, "{:<28} {:>8} / {:<4} {:>8} / {:<4} {:>8}\n", "total", before, total, after, total, runs);
  fmt::print(io.out, "{} of {} untaken edges reached ({} states found), {:.1f} s, budget {} runs per edge\n", reached,
             untaken, result->found.size(), result->seconds, a.budget);
  if (!a.dry_run && !result->found.empty()) {
    auto ids = add_found(a, corpus, result->found);
    if (!ids.ok()) return ids.error();
    fmt::print(io.out, "{} poked cases written to {}\n", ids->size(), a.into.empty() ? a.corpus : a.into);
  }
  if (!result->differing.empty()) {
    fmt::print(io.out, "the port differs from the original on {} found states (lockstep replay {} --fn {} shows them)\n",
               result->differing.size(), a.into.empty() ? a.corpus : a.into, result->differing.front());
    return kExitMismatch;
  }
  return kExitOk;
}

}  // namespace lockstep::cli::probe
