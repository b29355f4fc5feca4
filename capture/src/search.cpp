#include "lockstep/capture/search.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>

#include <fmt/format.h>

#include "lockstep/base/parallel.hpp"

namespace lockstep::capture {

using harness::GuestAddr;

Result<EdgeGoal> parse_edge_goal(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos)
    return Error::make(Errc::kUsage, "--edge takes ADDR:taken or ADDR:fallthrough, not \"{}\"", text);
  EdgeGoal g;
  LOCKSTEP_TRY(g.branch, harness::parse_u32(text.substr(0, colon)));
  const std::string_view which = text.substr(colon + 1);
  if (which == "taken") g.edge = harness::Edge::kTaken;
  else if (which == "fallthrough" || which == "fall-through" || which == "not-taken") g.edge = harness::Edge::kFallthrough;
  else return Error::make(Errc::kUsage, "--edge: \"{}\" is not 'taken' or 'fallthrough'", which);
  return g;
}

namespace {

struct Field {
  GuestAddr start = 0;
  std::uint32_t size = 4;
  std::string name;
  /// 0: a field of an instance (the game's state: car[3]+0x440), 1: an unnamed word (the stack, the
  /// heap), 2: a labelled range (tables and constants: poking them makes a state no game reaches).
  int kind = 1;
  /// An entry register instead of memory (one of Watcom's argument registers).
  std::optional<cases::Reg> reg = std::nullopt;
};

/// Watcom's argument registers, in argument order: the entry registers the search mutates.
constexpr cases::Reg kArgRegisters[] = {cases::Reg::kEax, cases::Reg::kEdx, cases::Reg::kEbx, cases::Reg::kEcx};

struct Mutation {
  std::vector<std::uint8_t> bytes;
  std::string what;
};

std::int32_t word_at(const std::vector<std::uint8_t>& b, std::size_t i) {
  std::int32_t v;
  std::memcpy(&v, b.data() + i, 4);
  return v;
}
void put_word(std::vector<std::uint8_t>& b, std::size_t i, std::int32_t v) { std::memcpy(b.data() + i, &v, 4); }

// Wrapping 32-bit arithmetic (the guest's), without signed-overflow UB on the host.
std::int32_t wrap(std::int64_t v) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); }

using WordOp = std::pair<const char*, std::int32_t (*)(std::int32_t)>;
const WordOp kWordOps[] = {
    {"0", [](std::int32_t) { return 0; }},
    {"x/16", [](std::int32_t v) { return v / 16; }},
    {"x/2", [](std::int32_t v) { return v / 2; }},
    {"-x", [](std::int32_t v) { return wrap(-std::int64_t{v}); }},
    {"2x", [](std::int32_t v) { return wrap(std::int64_t{v} * 2); }},
    {"16x", [](std::int32_t v) { return wrap(std::int64_t{v} * 16); }},
    {"1", [](std::int32_t) { return 1; }},
    {"-1", [](std::int32_t) { return -1; }},
    {"x+1", [](std::int32_t v) { return wrap(std::int64_t{v} + 1); }},
    {"x-1", [](std::int32_t v) { return wrap(std::int64_t{v} - 1); }},
    {"0x10000", [](std::int32_t) { return 0x10000; }},
    {"INT_MAX", [](std::int32_t) { return std::numeric_limits<std::int32_t>::max(); }},
    {"INT_MIN", [](std::int32_t) { return std::numeric_limits<std::int32_t>::min(); }},
};
using DoubleOp = std::pair<const char*, double (*)(double)>;
const DoubleOp kDoubleOps[] = {
    {"0.0", [](double) { return 0.0; }},   {"-x", [](double v) { return -v; }},
    {"x/2", [](double v) { return v / 2; }}, {"2x", [](double v) { return v * 2; }},
    {"x/10", [](double v) { return v / 10; }}, {"10x", [](double v) { return v * 10; }},
    {"1.0", [](double) { return 1.0; }},   {"-1.0", [](double) { return -1.0; }},
    {"1e6", [](double) { return 1e6; }},   {"-1e6", [](double) { return -1e6; }},
};

std::vector<Mutation> mutations_of(const Field& f, const std::vector<std::uint8_t>& cur) {
  std::vector<Mutation> out;
  if (f.size % 4 == 0) {
    const std::size_t words = f.size / 4;
    if (words > 1)  // the whole vector scaled at once, then each word alone
      for (const auto& [name, op] : kWordOps) {
        if (std::string_view(name).starts_with("x") || std::string_view(name) == "0" || std::string_view(name) == "-x" ||
            std::string_view(name) == "2x" || std::string_view(name) == "16x") {
          Mutation m{cur, fmt::format("every word {}", name)};
          for (std::size_t w = 0; w < words; ++w) put_word(m.bytes, 4 * w, op(word_at(cur, 4 * w)));
          out.push_back(std::move(m));
        }
      }
    if (f.size == 8) {
      double d;
      std::memcpy(&d, cur.data(), 8);
      if (std::isfinite(d))
        for (const auto& [name, op] : kDoubleOps) {
          Mutation m{cur, fmt::format("double {}", name)};
          const double v = op(d);
          std::memcpy(m.bytes.data(), &v, 8);
          out.push_back(std::move(m));
        }
    }
    for (std::size_t w = 0; w < words && w < 16; ++w)
      for (const auto& [name, op] : kWordOps) {
        Mutation m{cur, words > 1 ? fmt::format("word {} {}", w, name) : std::string(name)};
        put_word(m.bytes, 4 * w, op(word_at(cur, 4 * w)));
        out.push_back(std::move(m));
      }
  } else {
    const std::uint8_t fills[] = {0x00, 0x01, 0xff};
    for (std::uint8_t v : fills) out.push_back({std::vector<std::uint8_t>(f.size, v), fmt::format("all bytes {:02x}", v)});
    Mutation m{cur, "first byte ^1"};
    m.bytes[0] ^= 1;
    out.push_back(std::move(m));
  }
  // A mutation that changes nothing wastes a run.
  std::erase_if(out, [&](const Mutation& m) { return m.bytes == cur; });
  return out;
}

// The case's input fields: profile fields where one names the byte, aligned words elsewhere.
std::vector<Field> input_fields(const cases::Case& c, const harness::Labeler* labels) {
  std::map<GuestAddr, Field> fields;
  std::set<GuestAddr> covered;
  c.inputs.for_each([&](GuestAddr a, std::uint8_t) {
    if (covered.count(a)) return;
    Field f;
    if (labels) {
      const harness::FieldRef r = labels->field(a);
      const bool instance = r.owner.find('[') != std::string::npos;
      if (!r.owner.empty() && !r.field.empty() && r.size <= 64) f = {r.start, r.size, r.text(), instance ? 0 : 2};
      else if (!r.owner.empty()) f = {a & ~3u, 4, labels->name(a & ~3u), instance ? 0 : 2};
    }
    if (f.name.empty()) f = {a & ~3u, 4, labels ? labels->name(a & ~3u) : fmt::format("0x{:08x}", a & ~3u), 1};
    for (std::uint32_t i = 0; i < f.size; ++i) covered.insert(f.start + i);
    fields.emplace(f.start, f);
  });
  std::vector<Field> out;
  for (auto& [a, f] : fields) out.push_back(std::move(f));
  // The argument registers: a function whose inputs are values in registers (an angle, a count)
  // has nothing else to mutate.
  for (cases::Reg reg : kArgRegisters) out.push_back({0, 4, std::string(cases::reg_name(reg)) + " at entry", 0, reg});
  return out;
}

std::uint64_t distance(GuestAddr a, const std::vector<GuestAddr>& to) {
  std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
  for (GuestAddr t : to) best = std::min<std::uint64_t>(best, a > t ? a - t : t - a);
  return best;
}

// A start case with mutations applied: memory ones as pokes, register ones in the entry registers
// (marked in the case's poked_registers).
struct Variant {
  cases::Case c;
  std::vector<cases::Poke> pokes;
};

using Chosen = std::vector<std::pair<const Field*, const Mutation*>>;

Variant with_mutations(const cases::Case& start, const Chosen& muts) {
  Variant v{start, {}};
  for (const auto& [f, m] : muts) {
    if (f->reg) {
      std::uint32_t value = 0;
      std::memcpy(&value, m->bytes.data(), 4);
      cases::poke_register(v.c, *f->reg, value);
    } else {
      v.pokes.push_back({f->start, m->bytes});
    }
  }
  return v;
}

// Records a compared call's argument registers point into: [pointer, pointer + kRecordReach).
constexpr std::uint32_t kRecordReach = 0x40;

// One search for states that follow one edge of one branch: the start cases that reach the branch,
// then each input field mutated alone, then random pairs and triples, within the run budget.
class EdgeSearcher {
 public:
  EdgeSearcher(CaseRunner& runner, const cases::CaseFile& file, const EdgeGoal& goal, const harness::BranchSite& site,
               const harness::Labeler* labels, const SearchOptions& options)
      : runner_(runner), cov_(runner.collector()), file_(file), goal_(goal), site_(site), labels_(labels),
        options_(options), rng_(options.seed),
        other_(goal.edge == harness::Edge::kTaken ? harness::Edge::kFallthrough : harness::Edge::kTaken) {}

  Result<SearchResult> run() {
    LOCKSTEP_TRY(bool done, find_starts());
    if (done || starts_.empty()) return std::move(res_);
    survey_condition();
    for (const cases::Case* c : starts_) {
      std::vector<Field> fields = ordered_fields(*c);
      LOCKSTEP_TRY(bool single_done, try_single_fields(*c, fields));
      if (single_done) return std::move(res_);
      LOCKSTEP_TRY(bool combined_done, try_combinations(*c, fields));
      if (combined_done) return std::move(res_);
    }
    return std::move(res_);
  }

 private:
  std::pair<std::uint64_t, std::uint64_t> counts() const {
    return {cov_.count(goal_.branch, goal_.edge), cov_.count(goal_.branch, other_)};
  }

  // Runs one state; true when the wanted edge was followed (and the call returned).
  Result<bool> attempt(const cases::Case& c, const std::vector<cases::Poke>& pokes, bool* reached) {
    const auto before = counts();
    std::vector<cases::Poke> all = c.pokes;
    all.insert(all.end(), pokes.begin(), pokes.end());
    LOCKSTEP_TRY(Rerun r, runner_.run(c, all));
    ++res_.runs;
    const auto after = counts();
    if (reached) *reached = after != before;
    const bool hit = after.first != before.first && r.outcome.returned();
    if (hit) last_ = std::move(r);
    return hit;
  }

  // 1. Start cases that reach the branch; true when one already follows the wanted edge.
  Result<bool> find_starts() {
    for (const cases::Case& c : file_.cases) {
      if (starts_.size() >= options_.start_cases || res_.runs >= options_.budget) break;
      bool reached = false;
      LOCKSTEP_TRY(bool hit, attempt(c, {}, &reached));
      if (hit) {
        res_.already_taken = true;
        res_.start_case = c.id;
        return true;
      }
      if (reached) starts_.push_back(&c);
    }
    res_.reaching_cases = static_cast<std::uint32_t>(starts_.size());
    return false;
  }

  // Where the condition's values come from (seen at run time during the survey).
  void survey_condition() {
    for (const harness::ConditionStep& s : site_.condition) {
      if (s.first_address) near_.push_back(*s.first_address);
      for (std::uint32_t r : s.call_registers)
        if (runner_.machine().is_mapped(r)) {
          near_.push_back(r);
          pointed_.push_back(r);
        }
    }
  }

  bool is_direct(const Field& f) const {
    if (f.reg) return false;
    for (GuestAddr t : near_)
      if (t >= f.start && t - f.start < f.size) return true;
    for (GuestAddr p : pointed_)
      if (f.start >= p && f.start - p < kRecordReach) return true;
    return false;
  }

  // The start case's input fields in the order they are tried: the game's state before tables and
  // constants; within each, the condition's own operands (and the record a compared call's argument
  // points into) first, then value arguments in registers, then nearest in memory.
  std::vector<Field> ordered_fields(const cases::Case& c) const {
    std::vector<Field> fields = input_fields(c, labels_);
    if (!options_.mutate_constants) std::erase_if(fields, [](const Field& f) { return f.kind == 2; });
    // A register holding a pointer is not mutated: moving a pointer makes a state no game reaches
    // (the bytes it points at are fields of their own).
    std::erase_if(fields, [&](const Field& f) { return f.reg && runner_.machine().is_mapped(c.in[*f.reg]); });
    std::stable_sort(fields.begin(), fields.end(), [&](const Field& a, const Field& b) {
      if (a.kind != b.kind) return a.kind < b.kind;
      const bool da = is_direct(a), db = is_direct(b);
      if (da != db) return da;
      if (a.reg.has_value() != b.reg.has_value()) return a.reg.has_value();
      if (near_.empty()) return false;
      return distance(a.start, near_) < distance(b.start, near_);
    });
    return fields;
  }

  // A field's value in the start case: its entry register, its pokes, its recorded inputs, else the
  // snapshot's bytes.
  std::vector<std::uint8_t> value_of(const cases::Case& c, const Field& f) const {
    std::vector<std::uint8_t> v(f.size, 0);
    if (f.reg) {
      const std::uint32_t r = c.in[*f.reg];
      std::memcpy(v.data(), &r, 4);
      return v;
    }
    for (std::uint32_t i = 0; i < f.size; ++i) {
      std::optional<std::uint8_t> b;
      for (const auto& p : c.pokes)
        if (f.start + i >= p.address && f.start + i - p.address < p.bytes.size()) b = p.bytes[f.start + i - p.address];
      if (!b) b = c.inputs.get(f.start + i);
      if (!b) {
        auto m = runner_.machine().read(f.start + i, 1);
        if (m.ok()) b = (*m)[0];
      }
      v[i] = b.value_or(0);
    }
    return v;
  }

  void found(const cases::Case& c, const Variant& v, std::string how) {
    res_.found = true;
    res_.start_case = c.id;
    res_.pokes = v.pokes;
    res_.poked_registers = static_cast<std::uint16_t>(v.c.poked_registers & ~c.poked_registers);
    res_.how = std::move(how);
    cases::Case fc = last_->as_case;  // the rerun of v.c: its registers and poked_registers
    fc.note = fmt::format("search: edge 0x{:08x} {} ({}), from case {}: {}", goal_.branch, harness::edge_name(goal_.edge),
                          site_.text, c.id, res_.how);
    res_.found_case = std::move(fc);
  }

  // 2. Each field alone, in order; true when the search is over (found, or the budget spent).
  Result<bool> try_single_fields(const cases::Case& c, const std::vector<Field>& fields) {
    for (const Field& f : fields) {
      for (const Mutation& m : mutations_of(f, value_of(c, f))) {
        if (res_.runs >= options_.budget) return true;
        Variant v = with_mutations(c, {{&f, &m}});
        LOCKSTEP_TRY(bool hit, attempt(v.c, v.pokes, nullptr));
        if (hit) {
          found(c, v, fmt::format("{}: {}", f.name, m.what));
          return true;
        }
      }
    }
    return false;
  }

  // 3. Random pairs and triples among the first fields, this start case's share of the budget left;
  // true when the search is over.
  Result<bool> try_combinations(const cases::Case& c, const std::vector<Field>& fields) {
    const std::size_t pool = std::min<std::size_t>(fields.size(), 24);
    const std::uint32_t share =
        (options_.budget - std::min(options_.budget, res_.runs)) / static_cast<std::uint32_t>(starts_.size());
    for (std::uint32_t n = 0; n < share && pool >= 2; ++n) {
      if (res_.runs >= options_.budget) return true;
      const std::size_t k = 2 + rng_() % 2;
      std::vector<std::vector<Mutation>> chosen_sets;
      Chosen chosen;
      std::string how;
      std::set<std::size_t> used;
      chosen_sets.reserve(k);  // `chosen` points into these: no reallocation
      for (std::size_t j = 0; j < k; ++j) {
        const std::size_t fi = rng_() % pool;
        if (!used.insert(fi).second) continue;
        const Field& f = fields[fi];
        chosen_sets.push_back(mutations_of(f, value_of(c, f)));
        if (chosen_sets.back().empty()) continue;
        const Mutation& m = chosen_sets.back()[rng_() % chosen_sets.back().size()];
        chosen.push_back({&f, &m});
        how += (how.empty() ? "" : "; ") + fmt::format("{}: {}", f.name, m.what);
      }
      if (chosen.empty()) continue;
      Variant v = with_mutations(c, chosen);
      LOCKSTEP_TRY(bool hit, attempt(v.c, v.pokes, nullptr));
      if (hit) {
        found(c, v, how);
        return true;
      }
    }
    return false;
  }

  CaseRunner& runner_;
  harness::CoverageCollector& cov_;
  const cases::CaseFile& file_;
  const EdgeGoal& goal_;
  const harness::BranchSite& site_;
  const harness::Labeler* labels_;
  const SearchOptions& options_;
  std::mt19937_64 rng_;
  harness::Edge other_;
  SearchResult res_;
  std::optional<Rerun> last_;
  std::vector<const cases::Case*> starts_;
  std::vector<GuestAddr> near_;     // the condition's operands' addresses
  std::vector<GuestAddr> pointed_;  // where a compared call's argument registers point
};

}  // namespace

Result<SearchResult> search_edge(CaseRunner& runner, const cases::CaseFile& file, const EdgeGoal& goal,
                                 const harness::Labeler* labels, const SearchOptions& options) {
  const harness::BranchSite* site = nullptr;
  for (const auto& f : runner.collector().functions())
    if (const auto* b = f.branch_at(goal.branch)) site = b;
  if (!site)
    return Error::make(Errc::kNotFound, "0x{:08x} is not a conditional branch of 0x{:08x} ({}); `lockstep coverage` lists "
                       "its branches",
                       goal.branch, file.function, file.name);
  return EdgeSearcher(runner, file, goal, *site, labels, options).run();
}

Result<std::vector<EdgeSearch>> search_untaken_edges(CaseRunner& runner, const cases::CaseFile& file,
                                                     const harness::Labeler* labels, const SearchOptions& options) {
  harness::CoverageCollector& cov = runner.collector();
  if (cov.functions().size() != 1 || cov.functions().front().entry != file.function)
    return Error::make(Errc::kUsage, "the runner must cover exactly 0x{:08x}", file.function);
  // Counts are cumulative: remember them around each run to see what one run took.
  auto snapshot_counts = [&] { return cov.functions().front().branches; };
  for (const cases::Case& c : file.cases) LOCKSTEP_TRY_STATUS(runner.run(c, c.pokes));
  const std::vector<harness::BranchSite> before = snapshot_counts();
  std::set<std::pair<GuestAddr, int>> taken_by_found;
  std::vector<EdgeSearch> out;
  for (const harness::BranchSite& site : before) {
    for (harness::Edge e : {harness::Edge::kTaken, harness::Edge::kFallthrough}) {
      if (site.count(e) != 0) continue;
      const EdgeGoal g{site.address, e};
      EdgeSearch es;
      es.goal = g;
      es.branch = site.text;
      if (taken_by_found.count({g.branch, static_cast<int>(g.edge)})) {
        es.covered_by_earlier = true;
        out.push_back(std::move(es));
        continue;
      }
      // No case reaches the branch at all (the pass above ran every one of them): search_edge would
      // re-run them all only to find no start case. Not found, no runs spent.
      if (site.taken == 0 && site.fell_through == 0) {
        out.push_back(std::move(es));
        continue;
      }
      LOCKSTEP_TRY(es.result, search_edge(runner, file, g, labels, options));
      if (es.result.found) {
        // Which edges the found state takes: run it alone and compare the counts.
        const auto pre = snapshot_counts();
        LOCKSTEP_TRY_STATUS(runner.run(*es.result.found_case, es.result.found_case->pokes));
        const auto post = snapshot_counts();
        for (std::size_t i = 0; i < post.size(); ++i) {
          if (post[i].taken != pre[i].taken)
            taken_by_found.insert({post[i].address, static_cast<int>(harness::Edge::kTaken)});
          if (post[i].fell_through != pre[i].fell_through)
            taken_by_found.insert({post[i].address, static_cast<int>(harness::Edge::kFallthrough)});
        }
      }
      out.push_back(std::move(es));
    }
  }
  return out;
}

Result<std::vector<FunctionSearch>> search_untaken_edges_of(const harness::Snapshot& snapshot,
                                                            const harness::Profile& profile, const std::string& driver,
                                                            const std::vector<const cases::CaseFile*>& files,
                                                            const harness::Labeler* labels,
                                                            const SearchOptions& options, unsigned jobs) {
  std::vector<FunctionSearch> out(files.size());
  std::vector<std::optional<Error>> errors(files.size());
  auto one = [&](const cases::CaseFile& file, FunctionSearch& fs) -> Status {
    LOCKSTEP_TRY(auto runner, CaseRunner::create(snapshot, profile, driver, {{file.function, file.name}}, labels,
                                                 options.machine));
    LOCKSTEP_TRY(fs.searches, search_untaken_edges(*runner, file, labels, options));
    fs.function = file.function;
    fs.name = file.name;
    fs.edges_total = runner->collector().functions().front().edges_total();
    return {};
  };
  parallel_for(jobs, files.size(), [&](unsigned, std::size_t i) {
    if (Status st = one(*files[i], out[i]); !st.ok()) errors[i] = std::move(st).error().wrap("{}", files[i]->name);
  });
  for (auto& e : errors)
    if (e) return std::move(*e);
  return out;
}

}  // namespace lockstep::capture
