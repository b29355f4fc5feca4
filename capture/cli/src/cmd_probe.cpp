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
#include <chrono>

#include <fmt/ostream.h>

#include "lockstep/capture/corpus_search.hpp"
#include "lockstep/capture/coverage_run.hpp"
#include "lockstep/capture/search.hpp"
#include "lockstep/cases/compare.hpp"
#include "lockstep/profile/labels.hpp"
#include "lockstep/load/load.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/replay/replay.hpp"
#include "lockstep/profile/values.hpp"

#include "command.hpp"
#include "corpus_args.hpp"
#include "corpus_profile.hpp"
#include "numeric_option.hpp"

namespace lockstep::cli {
namespace {

struct ProbeArgs {
  std::string corpus, one_case, snapshot, profile, driver, function, edge, into;
  std::vector<std::string> pokes;
  bool add = false, search = false, dry_run = false, any_snapshot = false, poke_constants = false;
  std::uint32_t budget = 5000, start_cases = 8;
  unsigned jobs = 1;
  harness::MachineConfig limits;  ///< --block-budget, --timeout of each run
  const cases::BindingSet* bindings = nullptr;  ///< the game's port (run's caller's)
};

// Which branches of `before` and `after` (the same function, edge counts of one run each) went
// differently: "0x0041b0a4 jl 0x41b0c2: fallthrough -> taken".
std::string branch_changes(const std::vector<harness::BranchSite>& before, const std::vector<harness::BranchSite>& after) {
  std::string out;
  auto ways = [](std::uint64_t t, std::uint64_t f) {
    if (t && f) return fmt::format("both (taken {}, fallthrough {})", t, f);
    if (t) return fmt::format("taken{}", t > 1 ? fmt::format(" x{}", t) : "");
    if (f) return fmt::format("fallthrough{}", f > 1 ? fmt::format(" x{}", f) : "");
    return std::string("not reached");
  };
  for (std::size_t i = 0; i < before.size() && i < after.size(); ++i) {
    const auto& b = before[i];
    const auto& a = after[i];
    if ((b.taken != 0) == (a.taken != 0) && (b.fell_through != 0) == (a.fell_through != 0)) continue;
    out += fmt::format("    0x{:08x} {:<24} {} -> {}\n", b.address, b.text, ways(b.taken, b.fell_through),
                       ways(a.taken, a.fell_through));
  }
  return out.empty() ? "    (none: every branch went the same ways)\n" : out;
}

// The port on a case the original produced; prints the verdict, returns the exit code.
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

// --search --edge untaken: every untaken edge of --fn (or of every function in the corpus), found
// states added to the corpus, the coverage before and after.
int search_all_untaken(const ProbeArgs& a, cases::Corpus& corpus, const harness::Snapshot& snapshot,
                       const harness::Profile& profile, const harness::Labeler& labels, const std::string& driver,
                       unsigned jobs, Io& io) {
  capture::CorpusSearchOptions options;
  if (!a.function.empty()) {
    auto r = resolve_functions({a.function}, corpus);
    if (!r.ok()) return report(io, r.error());
    options.functions = *r;
  }
  options.driver = driver;
  options.search = {a.budget, a.start_cases, 1, a.poke_constants, {}};
  apply_run_limits(a.limits, options.search.machine);
  options.jobs = jobs;
  auto result = capture::search_corpus_edges(corpus, snapshot, profile, &labels, harness::with_signatures(*a.bindings, profile), options);
  if (!result.ok()) return report(io, result.error());
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
    if (!ids.ok()) return report(io, ids.error());
    fmt::print(io.out, "{} poked cases written to {}\n", ids->size(), a.into.empty() ? a.corpus : a.into);
  }
  if (!result->differing.empty()) {
    fmt::print(io.out, "the port differs from the original on {} found states (lockstep replay {} --fn {} shows them)\n",
               result->differing.size(), a.into.empty() ? a.corpus : a.into, result->differing.front());
    return kExitMismatch;
  }
  return kExitOk;
}

int run_probe(const ProbeArgs& a, Io& io) {
  auto corpus = cases::read_corpus(a.corpus);
  if (!corpus.ok()) return report(io, corpus.error());
  auto recorded = corpus_profile(corpus->manifest, a.corpus, a.profile, ProfileUse::kRequired, io);
  if (!recorded.ok()) return report(io, recorded.error());
  const auto& profile = *recorded;  // kRequired: always holds one
  const harness::Labeler labels(*profile);
  // Bindings that read their arguments by name get them from the profile.
  const cases::BindingSet bindings = harness::with_signatures(*a.bindings, *profile);
  auto snapshot = harness::load_snapshot(a.snapshot);
  if (!snapshot.ok()) return report(io, snapshot.error());
  if (auto s = check_corpus_snapshot(*corpus, *snapshot, a.any_snapshot); !s.ok()) return report(io, s.error());
  const std::string driver = a.driver.empty() ? corpus->manifest.driver : a.driver;

  if (a.search && a.edge == "untaken") return search_all_untaken(a, *corpus, *snapshot, *profile, labels, driver, a.jobs, io);
  if (a.search) {
    if (a.function.empty() || a.edge.empty())
      return report(io, Error::make(Errc::kUsage, "--search needs --fn F and --edge ADDR:taken|fallthrough"));
    auto fns = resolve_functions({a.function}, *corpus);
    if (!fns.ok()) return report(io, fns.error());
    const std::uint32_t fn = fns->front();
    const cases::CaseFile* file = nullptr;
    for (const auto& f : corpus->files)
      if (f.function == fn) file = &f;
    if (!file) return report(io, Error::make(Errc::kNotFound, "the corpus has no cases of 0x{:08x}", fn));
    auto goal = capture::parse_edge_goal(a.edge);
    if (!goal.ok()) return report(io, goal.error());
    harness::MachineConfig cfg;
    apply_run_limits(a.limits, cfg);
    auto runner = capture::CaseRunner::create(*snapshot, *profile, driver, {{fn, file->name}}, &labels, cfg);
    if (!runner.ok()) return report(io, runner.error());
    const auto t0 = std::chrono::steady_clock::now();
    auto res = capture::search_edge(**runner, *file, *goal, &labels, {a.budget, a.start_cases, 1, a.poke_constants, {}});
    if (!res.ok()) return report(io, res.error());
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print(io.out, "search for 0x{:08x} {} in {} ({}): {} runs of the original, {:.2f} s, {} start cases reach the branch\n",
               goal->branch, harness::edge_name(goal->edge), file->name, a.edge, res->runs, secs, res->reaching_cases);
    if (res->already_taken) {
      fmt::print(io.out, "case {} already takes this edge: nothing to search\n", res->start_case);
      return kExitOk;
    }
    if (!res->found) {
      fmt::print(io.out, "not found within the budget of {} runs{}\n", a.budget,
                 res->reaching_cases ? "" : " (no case reaches the branch at all: search its dominating branch first)");
      return kExitNotFound;
    }
    fmt::print(io.out, "found, from case {}: {}\n", res->start_case, res->how);
    for (const auto& p : res->pokes) {
      std::string hex;
      for (auto b : p.bytes) hex += fmt::format("{:02x}", b);
      fmt::print(io.out, "  --poke 0x{:08x}={}   ({})\n", p.address, hex, labels.name(p.address));
    }
    if (res->poked_registers)
      fmt::print(io.out, "  entry registers set: {} (the case's `in` registers hold the values)\n",
                 cases::poked_register_names(res->poked_registers));
    cases::Case found = *res->found_case;
    if (!a.dry_run) {
      const std::string name = file->name;  // add_cases may move the files
      auto ids = add_found(a, *corpus, {found});
      if (!ids.ok()) return report(io, ids.error());
      found.id = ids->front();
      fmt::print(io.out, "written to {} as case {}:{} (poked)\n", a.into.empty() ? a.corpus : a.into, name, found.id);
    }
    return replay_port(bindings, *corpus, found, *profile, labels, io);
  }

  if (a.one_case.empty()) return report(io, Error::make(Errc::kUsage, "probe needs --case F:ID (or --search)"));
  auto id = parse_case_id(a.one_case, *corpus);
  if (!id.ok()) return report(io, id.error());
  auto found = find_case(*corpus, id->first, id->second);
  if (!found.ok()) return report(io, found.error());
  const cases::Case& c = **found;
  std::vector<cases::Poke> pokes = c.pokes;
  cases::Case start = c;  // with any entry registers the pokes set
  for (const auto& p : a.pokes) {
    // REG=VALUE sets an entry register (eax .. ebp) instead of memory.
    const std::string name = p.substr(0, p.find('='));
    // (poke_register on a throwaway case: is the name a register?)
    if (cases::Case trial; p.find('=') != std::string::npos && cases::poke_register(trial, name, 0)) {
      // A number, or a typed value of at most 4 bytes (eax=fx:1.5, ecx=i16:-3), as the register holds it.
      const std::string text = p.substr(name.size() + 1);
      auto typed = harness::parse_typed_value(text);
      if (!typed.ok()) return report(io, typed.error().wrap("--poke {}", p));
      if (*typed && (*typed)->bytes.size() <= 4) {
        cases::poke_register(start, name, (*typed)->word());
        continue;
      }
      auto v = harness::parse_u32(text);
      if (*typed || !v.ok())
        return report(io, Error::make(Errc::kUsage, "--poke {}: \"{}\" is not a 32-bit number or typed value", p, text));
      cases::poke_register(start, name, *v);
      continue;
    }
    auto poke = harness::parse_poke(p, labels);
    if (!poke.ok()) return report(io, poke.error().wrap("--poke {}", p));
    pokes.push_back({poke->address, poke->bytes});
  }
  harness::MachineConfig cfg;
  apply_run_limits(a.limits, cfg);
  auto runner = capture::CaseRunner::create(*snapshot, *profile, driver, {{c.function, c.name}}, &labels, cfg);
  if (!runner.ok()) return report(io, runner.error());
  auto probe = capture::probe_case(**runner, c, start, pokes);
  if (!probe.ok()) return report(io, probe.error());
  const capture::Rerun& plain = probe->plain;
  const capture::Rerun& poked = probe->poked;

  fmt::print(io.out, "case {}:{} (step {}, racer {}, call {}){}\n", c.name, c.id, c.origin.step, c.origin.racer,
             c.origin.call_index, c.poked() ? " [poked]" : "");
  if (!plain.same_as_case)
    fmt::print(io.out, "warning: the unpoked re-run does not reproduce the recorded case; the snapshot may not be the "
                       "state the case was captured on\n");
  for (const auto& p : pokes) {
    std::string hex;
    for (auto b : p.bytes) hex += fmt::format("{:02x} ", b);
    fmt::print(io.out, "poke {}: {}\n", labels.name(p.address), hex);
  }
  if (poked.outcome.fault) {
    fmt::print(io.out, "original: FAULTED on the poked state\n{}", harness::format_fault(*poked.outcome.fault));
    return kExitGuestFault;
  }
  if (start.poked_registers)
    fmt::print(io.out, "entry registers set: {} (eax {:#010x} edx {:#010x} ebx {:#010x} ecx {:#010x})\n",
               cases::poked_register_names(start.poked_registers), start.in.eax, start.in.edx, start.in.ebx,
               start.in.ecx);
  fmt::print(io.out, "original (Unicorn, from the case's state{}):\n{}",
             pokes.empty() && !start.poked_registers ? "" : " + pokes",
             harness::format_effects(poked.outcome.record.effects, labels));
  if (!poked.reads_outside_case.empty())
    fmt::print(io.out,
               "  {} bytes read that the case does not hold (values from the snapshot, not from the moment of the "
               "call), first at {}\n",
               poked.reads_outside_case.size(), labels.name(poked.reads_outside_case.front()));
  fmt::print(io.out, "branches that went another way than unpoked:\n{}",
             branch_changes(probe->plain_branches, probe->poked_branches));
  const int verdict = replay_port(bindings, *corpus, poked.as_case, *profile, labels, io);
  if (a.add) {
    if (pokes.empty() && !start.poked_registers)
      return report(io, Error::make(Errc::kUsage, "--add keeps a poked state; give --poke"));
    cases::Case keep = poked.as_case;
    keep.note = fmt::format("probe of case {}", c.id);
    const std::string name = c.name;  // `c` points into the corpus add_cases rewrites
    auto ids = cases::add_cases(a.corpus, *corpus, {keep});
    if (!ids.ok()) return report(io, ids.error());
    fmt::print(io.out, "written to {} as case {}:{} (poked)\n", a.corpus, name, ids->front());
  }
  return verdict;
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
  return [a](Io& io) { return run_probe(*a, io); };
}

}  // namespace

Command probe_command() {
  return {"probe",
          "Run the original and the port on a poked case state, or search for a state taking an edge",
          setup_probe};
}

}  // namespace lockstep::cli
