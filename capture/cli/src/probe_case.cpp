// lockstep probe CORPUS --case F:ID --snapshot SNAP [--poke ADDR=VALUE ...] [--add]: runs the
// original (under Unicorn, from the case's own state) and the port on the same poked state, prints
// both effects, which branches went another way, and the port's diff. Exit 3 when the original
// faulted on the poked state.
#include <fmt/ostream.h>

#include "lockstep/capture/coverage_run.hpp"
#include "lockstep/capture/rerun.hpp"
#include "lockstep/replay/replay.hpp"

#include "corpus_args.hpp"
#include "probe.hpp"
#include "run_limits.hpp"

namespace lockstep::cli::probe {
namespace {

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

}  // namespace

Result<int> probe_case_state(const ProbeRun& run, Io& io) {
  const ProbeArgs& a = run.args;
  cases::Corpus& corpus = run.corpus;
  const harness::Snapshot& snapshot = run.snapshot;
  const harness::Profile& profile = run.profile;
  const harness::Labeler& labels = run.labels;
  const cases::BindingSet& bindings = run.bindings;
  const std::string& driver = run.driver;
  if (a.one_case.empty()) return Error::make(Errc::kUsage, "probe needs --case F:ID (or --search)");
  auto id = parse_case_id(a.one_case, corpus);
  if (!id.ok()) return id.error();
  auto found = find_case(corpus, id->first, id->second);
  if (!found.ok()) return found.error();
  const cases::Case& c = **found;
  std::vector<cases::Poke> pokes = c.pokes;
  cases::Case start = c;  // with any entry registers the pokes set
  for (const auto& p : a.pokes) {
    // Memory bytes go with the case's own pokes; REG=VALUE sets an entry register of the start state.
    auto poke = harness::parse_state_poke(p, labels);
    if (!poke.ok()) return poke.error().wrap("--poke {}", p);
    if (const auto* reg = std::get_if<cases::RegisterPoke>(&*poke)) cases::poke_register(start, reg->reg, reg->value);
    else pokes.push_back(std::get<cases::Poke>(std::move(*poke)));
  }
  harness::MachineConfig cfg;
  apply_run_limits(a.limits, cfg);
  auto runner = capture::CaseRunner::create(snapshot, profile, driver, {{c.function, c.name}}, &labels, cfg);
  if (!runner.ok()) return runner.error();
  auto probe = capture::probe_case(**runner, c, start, pokes);
  if (!probe.ok()) return probe.error();
  const capture::Rerun& plain = probe->plain;
  const capture::Rerun& poked = probe->poked;

  fmt::print(io.out, "case {}:{} (step {}, {}, call {}){}\n", c.name, c.id, c.origin.step, cases::origin_subject(c.origin),
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
  const int verdict = replay_port(bindings, corpus, poked.as_case, profile, labels, io);
  if (a.add) {
    if (pokes.empty() && !start.poked_registers)
      return Error::make(Errc::kUsage, "--add keeps a poked state; give --poke");
    cases::Case keep = poked.as_case;
    keep.note = fmt::format("probe of case {}", c.id);
    const std::string name = c.name;  // `c` points into the corpus add_cases rewrites
    auto ids = cases::add_cases(a.corpus, corpus, {keep});
    if (!ids.ok()) return ids.error();
    fmt::print(io.out, "written to {} as case {}:{} (poked)\n", a.corpus, name, ids->front());
  }
  return verdict;
}

}  // namespace lockstep::cli::probe
