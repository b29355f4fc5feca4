// A captured corpus written with its provenance: the manifest records what the capture read (the
// profile's file and the SHA-256 of the bytes parsed, the snapshot's content hash, the state log's
// hash), the driver it ran and the command that made it, so that replay, probe and coverage find the
// profile without being told and a regenerated corpus can be checked against the inputs
// (cases/docs/case-format.md, "manifest.json").
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/case_file.hpp"
#include "lockstep/cases/corpus.hpp"

namespace lockstep::capture {

/// Where a captured corpus came from.
struct CorpusProvenance {
  std::string profile_name;            ///< the profile's `name` ("pod-2.8")
  std::filesystem::path profile_file;  ///< the profile file the capture read
  std::string profile_sha256;          ///< of the bytes the capture parsed (64 hex digits)
  std::string snapshot_sha256;         ///< Snapshot::content_sha256() of the state the calls ran on
  std::string steplog_sha256;          ///< of the state log's bytes; empty for a call list's capture
  std::string driver;                  ///< the [[driver]] run; empty for a call list's capture
  std::string command;                 ///< the capture command, without paths of one machine
};

/// The manifest of a corpus written to `corpus_dir` from `p` (the functions are filled in by
/// cases::write_corpus): the profile file is recorded relative to the corpus folder when both lie
/// in one tree (harness::manifest_profile_path).
cases::Manifest corpus_manifest(const CorpusProvenance& p, const std::filesystem::path& corpus_dir);

/// Writes the captured case files to `corpus_dir` as a whole (cases::write_corpus: the old corpus
/// or the new one, never a mix) under the manifest corpus_manifest() makes.
Status write_captured_corpus(const std::filesystem::path& corpus_dir, const CorpusProvenance& p,
                             const std::vector<cases::CaseFile>& files, unsigned jobs = 1);

}  // namespace lockstep::capture
