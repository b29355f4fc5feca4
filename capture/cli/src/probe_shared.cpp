// What the ways of `lockstep probe` share: the port replayed on a state, and where found states go.
#include <fmt/ostream.h>

#include "lockstep/capture/corpus_search.hpp"
#include "lockstep/cases/compare.hpp"
#include "lockstep/replay/replay.hpp"

#include "corpus_profile.hpp"
#include "probe.hpp"

namespace lockstep::cli::probe {

int replay_port(const cases::BindingSet& bindings, const cases::Corpus& corpus, const cases::Case& c,
                const harness::Profile& profile, const harness::Labeler& labels, Io& io) {
  const cases::Binding* b = cases::find_binding(bindings, c.function);
  if (!b) {
    fmt::print(io.out, "port: no binding for 0x{:08x} ({}) yet: nothing to compare\n", c.function, c.name);
    return kExitOk;
  }
  const cases::Comparison cmp = cases::compare(c, cases::run_binding(*b, c));
  if (cmp.matched()) {
    fmt::print(io.out, "port ({}): matches the original on this state ({} bytes written, registers equal)\n", b->name,
               c.writes.byte_count());
    return kExitOk;
  }
  harness::FunctionOutcome fo;
  fo.function = c.function;
  fo.name = c.name;
  fo.bound = true;
  const harness::CaseOutcome co{&c, cmp};
  harness::Namer namer = harness::corpus_namer(corpus, &labels);
  harness::name_arguments(namer, profile);
  io.out << "port (" << b->name << "): DIFFERS from the original on this state\n"
         << harness::format_mismatch(fo, co, namer);
  return kExitMismatch;
}

// Found states go into the corpus searched, or with --into into another corpus (made with the
// searched corpus's manifest when it does not exist yet): keeps poked states apart from captured ones.
Result<std::vector<std::uint32_t>> add_found(const ProbeArgs& a, cases::Corpus& corpus, std::vector<cases::Case> found) {
  capture::FoundStatesDestination to{a.corpus, a.into, {}, {}};
  if (!a.into.empty()) {
    cases::Manifest seen_from_into = corpus.manifest;
    rebase_profile_path(seen_from_into, a.corpus, a.into);  // the same file, seen from the new folder
    to.profile_path = seen_from_into.profile_path;
    // The command that made it, without paths (a regenerated corpus must be byte-identical).
    to.command = fmt::format("lockstep probe CORPUS --search{} --edge {} --budget {} --start-cases {}{} --into FOUND",
                             a.function.empty() ? "" : " --fn " + a.function, a.edge, a.budget, a.start_cases,
                             a.poke_constants ? " --poke-constants" : "");
  }
  return capture::add_found_states(corpus, std::move(found), to);
}

}  // namespace lockstep::cli::probe
