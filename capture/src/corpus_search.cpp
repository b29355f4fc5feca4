// A corpus's untaken edges searched, and the states found kept (lockstep/capture/corpus_search.hpp).
#include "lockstep/capture/corpus_search.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "lockstep/cases/compare.hpp"

namespace lockstep::capture {

Result<std::vector<std::uint32_t>> add_found_states(cases::Corpus& searched, std::vector<cases::Case> found,
                                                    const FoundStatesDestination& to) {
  if (to.into.empty()) return cases::add_cases(to.searched, searched, std::move(found));
  cases::Corpus target;
  if (std::filesystem::exists(std::filesystem::path(to.into) / "manifest.json")) {
    LOCKSTEP_TRY(target, cases::read_corpus(to.into));
    if (target.manifest.snapshot_sha256 != searched.manifest.snapshot_sha256)
      return Error::make(Errc::kUsage, "--into {}: that corpus was captured on another snapshot ({}) than {} ({})",
                         to.into, target.manifest.snapshot_sha256.substr(0, 16), to.searched,
                         searched.manifest.snapshot_sha256.substr(0, 16));
  } else {
    target.manifest = searched.manifest;
    target.manifest.functions.clear();
    target.manifest.profile_path = to.profile_path;
    target.manifest.command = to.command;
  }
  for (const auto& c : found) {
    const bool have =
        std::any_of(target.files.begin(), target.files.end(), [&](const auto& f) { return f.function == c.function; });
    if (have) continue;
    for (const auto& f : searched.files)
      if (f.function == c.function) {
        cases::CaseFile nf;
        nf.function = f.function;
        nf.name = f.name;
        nf.code_base = f.code_base;
        nf.code = f.code;
        nf.helper_code = f.helper_code;  // the private helpers' code, so a writer inside them is listed
        target.files.push_back(std::move(nf));
      }
  }
  return cases::add_cases(to.into, target, std::move(found));
}

Result<CorpusSearch> search_corpus_edges(const cases::Corpus& corpus, const harness::Snapshot& snapshot,
                                         const harness::Profile& profile, const harness::Labeler* labels,
                                         const cases::BindingSet& bindings, const CorpusSearchOptions& options) {
  std::vector<harness::GuestAddr> fns = options.functions;
  if (fns.empty())
    for (const auto& f : corpus.files) fns.push_back(f.function);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<const cases::CaseFile*> files;
  for (harness::GuestAddr fn : fns) {
    const cases::CaseFile* file = nullptr;
    for (const auto& f : corpus.files)
      if (f.function == fn) file = &f;
    if (!file) return Error::make(Errc::kNotFound, "the corpus has no cases of 0x{:08x}", fn);
    files.push_back(file);
  }
  LOCKSTEP_TRY(auto all,
               search_untaken_edges_of(snapshot, profile, options.driver, files, labels, options.search, options.jobs));
  CorpusSearch out;
  for (FunctionSearch& fs : all) {
    FunctionEdgeSearch row;
    row.covered = fs.edges_total - fs.searches.size();
    for (const EdgeSearch& es : fs.searches) {
      row.runs += es.result.runs;
      std::optional<PortVerdict> verdict;
      if (es.covered_by_earlier) {
        ++row.reached;
      } else if (es.result.found) {
        ++row.searched;
        ++row.reached;
        const cases::Case& c = *es.result.found_case;
        verdict.emplace();
        if (const cases::Binding* b = cases::find_binding(bindings, c.function)) {
          const cases::Comparison cmp = cases::compare(c, cases::run_binding(*b, c));
          *verdict = {true, cmp.matched(), cmp.bytes.size(), cmp.registers.size(), cmp.outside_reads.size()};
          if (!cmp.matched()) out.differing.push_back(fs.name);
        }
        out.found.push_back(c);
      } else {
        ++row.searched;
      }
      row.verdicts.push_back(verdict);
    }
    row.search = std::move(fs);
    out.functions.push_back(std::move(row));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace lockstep::capture
