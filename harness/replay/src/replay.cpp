// The replay: every case of the corpus run through its function's binding and compared, on
// `jobs` threads, with the outcomes in corpus order; the results' totals.
#include "lockstep/replay/replay.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

namespace lockstep::harness {

std::uint32_t ReplayResult::total_cases() const {
  std::uint32_t n = 0;
  for (const auto& f : functions) n += f.cases;
  return n;
}
std::uint32_t ReplayResult::total_matched() const {
  std::uint32_t n = 0;
  for (const auto& f : functions) n += f.matched;
  return n;
}
std::uint32_t ReplayResult::total_mismatched() const {
  std::uint32_t n = 0;
  for (const auto& f : functions) n += f.mismatched;
  return n;
}
std::uint32_t ReplayResult::unbound_functions() const {
  return static_cast<std::uint32_t>(std::count_if(functions.begin(), functions.end(),
                                                  [](const FunctionOutcome& f) { return !f.bound; }));
}

std::map<std::uint32_t, cases::Signature> signatures(const Profile& profile) {
  std::map<std::uint32_t, cases::Signature> out;
  for (const FunctionSpec& f : profile.functions) {
    cases::Signature s{f.convention, f.args, f.returns};
    cases::place_signature(s);
    out[f.address] = std::move(s);
  }
  return out;
}

cases::BindingSet with_signatures(cases::BindingSet bindings, const Profile& profile) {
  const auto all = signatures(profile);
  for (cases::Binding& b : bindings)
    if (auto it = all.find(b.address); it != all.end()) b.signature = std::make_shared<const cases::Signature>(it->second);
  return bindings;
}

std::string FunctionOutcome::unchecked_reason() const {
  if (!excluded.empty()) return "";
  if (cases == 0) return "no cases";
  if (!bound) return "no binding";
  return "";
}
std::uint32_t ReplayResult::checked_cases() const {
  std::uint32_t n = 0;
  for (const auto& f : functions) n += f.checked();
  return n;
}
std::uint32_t ReplayResult::unchecked_functions() const {
  return static_cast<std::uint32_t>(std::count_if(functions.begin(), functions.end(),
                                                  [](const FunctionOutcome& f) { return !f.unchecked_reason().empty(); }));
}

Result<ReplayResult> replay(const cases::Corpus& corpus, const cases::BindingSet& bindings, const ReplayOptions& opt) {
  ReplayResult out;
  out.shard = opt.shard;
  out.corpus_sha256 = corpus.manifest_sha256;
  std::set<std::uint32_t> wanted(opt.functions.begin(), opt.functions.end());
  for (std::uint32_t fn : wanted) {
    bool present = std::any_of(corpus.files.begin(), corpus.files.end(),
                               [&](const cases::CaseFile& f) { return f.function == fn; });
    if (!present) return Error::make(Errc::kNotFound, "the corpus has no cases of function 0x{:08x}", fn);
  }
  // The cases to run, in corpus order: (function outcome, case). Outcomes are filled in that order
  // afterwards, whichever thread ran a case.
  struct Job {
    std::size_t function;
    const cases::Case* c;
    const cases::Binding* binding;
  };
  std::vector<Job> jobs;
  bool found_case = !opt.only_case;
  std::size_t chosen = 0;  // functions chosen so far, before sharding
  for (const auto& file : corpus.files) {
    if (!wanted.empty() && !wanted.count(file.function)) continue;
    if (opt.only_case && opt.only_case->first != file.function) continue;
    if (!opt.shard.holds(chosen++)) {
      // Another shard's function: a --case of it exists, it is just not run in this shard.
      if (opt.only_case)
        found_case = found_case || std::any_of(file.cases.begin(), file.cases.end(), [&](const cases::Case& c) {
                       return c.id == opt.only_case->second;
                     });
      continue;
    }
    FunctionOutcome fo;
    fo.function = file.function;
    fo.name = file.name;
    const cases::Binding* b = cases::find_binding(bindings, file.function);
    fo.bound = b != nullptr;
    if (auto ex = opt.excluded.find(file.function); ex != opt.excluded.end()) fo.excluded = ex->second;
    for (const auto& c : file.cases) {
      if (opt.only_case && opt.only_case->second != c.id) continue;
      found_case = true;
      ++fo.cases;
      fo.poked += c.poked() ? 1 : 0;
      if (b) jobs.push_back({out.functions.size(), &c, b});
    }
    out.functions.push_back(std::move(fo));
  }
  if (!found_case)
    return Error::make(Errc::kNotFound, "no case {} of function 0x{:08x} in the corpus", opt.only_case->second,
                       opt.only_case->first);

  // Each case leaves one byte of outcome; only a mismatch keeps its comparison, in its worker's own
  // list. (A comparison per case, made and freed by the calling thread, was most of the run's serial
  // part: what kept two threads from twice the speed of one.)
  constexpr std::uint8_t kMatched = 1, kOutsideReads = 2;
  std::vector<std::uint8_t> outcome(jobs.size());
  std::vector<std::vector<std::pair<std::size_t, cases::Comparison>>> failed(std::max(opt.jobs, 1u));
  parallel_for(opt.jobs, jobs.size(), [&](unsigned worker, std::size_t i) {
    const auto fx = cases::run_binding(*jobs[i].binding, *jobs[i].c);
    cases::Comparison cmp = cases::compare(*jobs[i].c, fx, {.outside_reads_fail = opt.outside_reads_fail});
    outcome[i] = static_cast<std::uint8_t>((cmp.matched() ? kMatched : 0) | (cmp.outside_reads.empty() ? 0 : kOutsideReads));
    if (!cmp.matched()) failed[worker].emplace_back(i, std::move(cmp));
  });
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    FunctionOutcome& fo = out.functions[jobs[i].function];
    if (outcome[i] & kOutsideReads) ++fo.outside_reads;
    if (outcome[i] & kMatched) ++fo.matched;
    else ++fo.mismatched;
  }
  // The mismatches in corpus order, whichever worker ran them.
  std::vector<std::pair<std::size_t, cases::Comparison>> mismatches;
  for (auto& list : failed)
    for (auto& f : list) mismatches.push_back(std::move(f));
  std::sort(mismatches.begin(), mismatches.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [i, cmp] : mismatches) {
    FunctionOutcome& fo = out.functions[jobs[i].function];
    fo.failing_ids.push_back(jobs[i].c->id);
    fo.failures.push_back({jobs[i].c, std::move(cmp)});
  }
  return out;
}

}  // namespace lockstep::harness
