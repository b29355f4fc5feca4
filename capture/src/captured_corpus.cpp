#include "lockstep/capture/captured_corpus.hpp"

#include "lockstep/profile/corpus_profile.hpp"

namespace lockstep::capture {

cases::Manifest corpus_manifest(const CorpusProvenance& p, const std::filesystem::path& corpus_dir) {
  cases::Manifest m;
  m.profile = p.profile_name;
  m.profile_path = harness::manifest_profile_path(p.profile_file, corpus_dir);
  m.profile_sha256 = p.profile_sha256;
  m.snapshot_sha256 = p.snapshot_sha256;
  m.steplog_sha256 = p.steplog_sha256;
  m.driver = p.driver;
  m.command = p.command;
  return m;
}

Status write_captured_corpus(const std::filesystem::path& corpus_dir, const CorpusProvenance& p,
                             const std::vector<cases::CaseFile>& files, unsigned jobs) {
  return cases::write_corpus(corpus_dir, corpus_manifest(p, corpus_dir), files, jobs);
}

}  // namespace lockstep::capture
