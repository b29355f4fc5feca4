// lockstep probe CORPUS --fn F --edge ADDR:taken|fallthrough --search [--budget N]: searches for a
// poked state whose run takes the edge (lockstep::capture::search_edge), writes it into the corpus as
// a poked case (unless --dry-run) and replays the port on it. Exit 6 when the budget ran out.
#include <chrono>

#include <fmt/ostream.h>

#include "lockstep/capture/coverage_run.hpp"
#include "lockstep/capture/search.hpp"

#include "corpus_args.hpp"
#include "probe.hpp"
#include "run_limits.hpp"

namespace lockstep::cli::probe {

Result<int> search_one_edge(const ProbeRun& run, Io& io) {
  const ProbeArgs& a = run.args;
  cases::Corpus& corpus = run.corpus;
  const harness::Snapshot& snapshot = run.snapshot;
  const harness::Profile& profile = run.profile;
  const harness::Labeler& labels = run.labels;
  const cases::BindingSet& bindings = run.bindings;
  const std::string& driver = run.driver;
  if (a.function.empty() || a.edge.empty())
    return Error::make(Errc::kUsage, "--search needs --fn F and --edge ADDR:taken|fallthrough");
  auto fns = resolve_functions({a.function}, corpus);
  if (!fns.ok()) return fns.error();
  const std::uint32_t fn = fns->front();
  const cases::CaseFile* file = nullptr;
  for (const auto& f : corpus.files)
    if (f.function == fn) file = &f;
  if (!file) return Error::make(Errc::kNotFound, "the corpus has no cases of 0x{:08x}", fn);
  auto goal = capture::parse_edge_goal(a.edge);
  if (!goal.ok()) return goal.error();
  harness::MachineConfig cfg;
  apply_run_limits(a.limits, cfg);
  auto runner = capture::CaseRunner::create(snapshot, profile, driver, {{fn, file->name}}, &labels, cfg);
  if (!runner.ok()) return runner.error();
  const auto t0 = std::chrono::steady_clock::now();
  auto res = capture::search_edge(**runner, *file, *goal, &labels, {a.budget, a.start_cases, 1, a.poke_constants, {}});
  if (!res.ok()) return res.error();
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
    auto ids = add_found(a, corpus, {found});
    if (!ids.ok()) return ids.error();
    found.id = ids->front();
    fmt::print(io.out, "written to {} as case {}:{} (poked)\n", a.into.empty() ? a.corpus : a.into, name, found.id);
  }
  return replay_port(bindings, corpus, found, profile, labels, io);
}

}  // namespace lockstep::cli::probe
