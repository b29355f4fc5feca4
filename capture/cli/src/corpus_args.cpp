#include "corpus_args.hpp"

#include "lockstep/base/numbers.hpp"
#include "lockstep/profile/profile.hpp"

namespace lockstep::cli {

Result<std::pair<std::uint32_t, std::uint32_t>> parse_case_id(const std::string& s, const cases::Corpus& corpus) {
  auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size())
    return Error::make(Errc::kUsage, "--case takes FUNCTION:ID (e.g. 0x0041af80:12), not \"{}\"", s);
  std::string fn = s.substr(0, colon), id = s.substr(colon + 1);
  auto idv = parse_address(id);
  if (!idv.ok()) return Error::make(Errc::kUsage, "--case: \"{}\" is not a case id", id);
  for (const auto& f : corpus.files)
    if (f.name == fn) return std::pair{f.function, *idv};
  auto fv = parse_address(fn);
  if (!fv.ok()) return Error::make(Errc::kNotFound, "--case: no function \"{}\" in the corpus", fn);
  return std::pair{*fv, *idv};
}

Result<std::vector<std::uint32_t>> resolve_functions(const std::vector<std::string>& names, const cases::Corpus& corpus) {
  std::vector<std::uint32_t> out;
  for (const auto& n : names) {
    bool found = false;
    for (const auto& f : corpus.files)
      if (f.name == n) {
        out.push_back(f.function);
        found = true;
      }
    if (found) continue;
    auto v = parse_address(n);
    if (!v.ok()) return Error::make(Errc::kNotFound, "--fn: no function \"{}\" in the corpus", n);
    out.push_back(*v);
  }
  return out;
}

Result<const cases::Case*> find_case(const cases::Corpus& corpus, std::uint32_t function, std::uint32_t id) {
  for (const auto& f : corpus.files) {
    if (f.function != function) continue;
    for (const auto& c : f.cases)
      if (c.id == id) return &c;
    return Error::make(Errc::kNotFound, "function 0x{:08x} ({}) has no case {} (its ids run 0..{})", function, f.name, id,
                       f.cases.empty() ? 0 : f.cases.back().id);
  }
  return Error::make(Errc::kNotFound, "the corpus has no cases of function 0x{:08x}", function);
}

Status check_corpus_snapshot(const cases::Corpus& corpus, const harness::Snapshot& snapshot, bool any) {
  if (any || corpus.manifest.snapshot_sha256.empty()) return {};
  const std::string have = snapshot.content_sha256();
  if (have != corpus.manifest.snapshot_sha256)
    return Error::make(Errc::kUsage,
                       "the corpus was captured on snapshot {}, this snapshot is {}; re-running its cases on another "
                       "state reproduces nothing (record the matching snapshot, or pass --any-snapshot to try anyway)",
                       corpus.manifest.snapshot_sha256.substr(0, 16), have.substr(0, 16));
  return {};
}

}  // namespace lockstep::cli
