// A corpus: a folder with one case file per function and a manifest (manifest.json) naming the
// profile, the snapshot and state log it was captured from, and the counts. Deterministic: the same
// capture gives byte-identical files, so CI can check a regenerated corpus against the checked-in one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/case_file.hpp"

namespace lockstep::cases {

inline constexpr std::uint32_t kCorpusVersion = 1;
inline constexpr std::uint32_t kMaxCorpusFunctions = 65536;

struct CorpusEntry {
  GuestAddr function = 0;
  std::string name;
  std::string file;        ///< relative to the corpus folder
  std::uint32_t cases = 0;
  std::uint32_t poked = 0; ///< of which poked (added by a search or by hand)
};

struct Manifest {
  std::string profile;          ///< the profile's name ("pod-2.8")
  std::string snapshot_sha256;
  std::string steplog_sha256;
  std::string command;          ///< the capture command that made it (for regeneration)
  std::string driver;           ///< the [[driver]] the capture ran (whose stubs a rerun switches on)
  std::vector<CorpusEntry> functions;  ///< ascending by address
};

/// The file name a function's cases live in: "0041af80_tyres-tyres.lkcases".
std::string case_file_name(GuestAddr function, const std::string& name);

Result<Manifest> read_manifest(const std::filesystem::path& corpus_dir);
Status write_manifest(const std::filesystem::path& corpus_dir, const Manifest& m);

/// Writes every file (atomically each, the manifest last) into corpus_dir, creating it; the files
/// are encoded on `jobs` threads (the bytes are the same for any number).
Status write_corpus(const std::filesystem::path& corpus_dir, Manifest m, const std::vector<CaseFile>& files,
                    unsigned jobs = 1);

/// Reads the manifest and every case file it lists (checking counts and addresses agree).
struct Corpus {
  Manifest manifest;
  std::vector<CaseFile> files;
};
Result<Corpus> read_corpus(const std::filesystem::path& corpus_dir);

/// Appends cases (poked ones, from a probe or a search) to the corpus in `corpus_dir`, which
/// `corpus` was read from: each gets the next free id of its function's file (a function the
/// corpus had no file for gets one); every file is rewritten atomically (unchanged ones with the
/// same bytes), the manifest last. Returns the ids given, in order.
Result<std::vector<std::uint32_t>> add_cases(const std::filesystem::path& corpus_dir, Corpus& corpus,
                                             std::vector<Case> cases);

}  // namespace lockstep::cases
