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

/// Version 2 adds the profile's file (profile_path, profile_sha256); version 1 manifests still load.
inline constexpr std::uint32_t kCorpusVersion = 2;
inline constexpr std::uint32_t kOldestCorpusVersion = 1;
/// Bounds on a corpus, an untrusted input: its manifest (kMalformed for too many functions, as for any
/// bad field; kLimit for a file too large to read) and each case file it lists. The defaults are the
/// bounds; a caller or test that needs another passes its own (CaseFileLimits, the same convention).
struct CorpusLimits {
  std::uint32_t max_functions = 65536;                        ///< entries of the manifest's "functions"
  std::uint64_t max_manifest_bytes = std::uint64_t{16} << 20;  ///< manifest.json's size
  CaseFileLimits case_file;  ///< each case file, and each manifest entry's "cases"
};

struct CorpusEntry {
  GuestAddr function = 0;
  std::string name;
  std::string file;        ///< relative to the corpus folder
  std::uint32_t cases = 0;
  std::uint32_t poked = 0; ///< of which poked (added by a search or by hand)
};

struct Manifest {
  std::string profile;          ///< the profile's name ("pod-2.8")
  /// The profile file the capture read, relative to the corpus folder when both lie in one tree
  /// (so a checked-in corpus names no path of one machine); empty when not recorded (version 1).
  std::string profile_path;
  std::string profile_sha256;   ///< of that file's contents when captured (64 hex digits); with profile_path
  std::string snapshot_sha256;
  std::string steplog_sha256;
  std::string command;          ///< the capture command that made it (for regeneration)
  std::string driver;           ///< the [[driver]] the capture ran (whose stubs a rerun switches on)
  std::vector<CorpusEntry> functions;  ///< ascending by address
};

/// The file name a function's cases live in: "0041af80_tyres-tyres.lkcases".
std::string case_file_name(GuestAddr function, const std::string& name);

/// Reads and checks manifest.json (cases/docs/case-format.md): every field's type, 32-bit 0x-hex
/// addresses ascending with no function twice, no file named twice, counts within the case file's
/// limit, poked <= cases, total_cases equal to the sum, at least one case, profile_path and
/// profile_sha256 both or neither (a hash of 64 lowercase hex digits). kMalformed naming the field
/// otherwise.
Result<Manifest> read_manifest(const std::filesystem::path& corpus_dir, const CorpusLimits& limits = {});
/// The same checks on manifest text; `what` names it in messages.
Result<Manifest> decode_manifest(std::string_view text, const std::string& what, const CorpusLimits& limits = {});
Status write_manifest(const std::filesystem::path& corpus_dir, const Manifest& m);

/// Writes the corpus as a whole: every file goes into a new folder beside corpus_dir
/// (DIR.new.<pid>), which then takes corpus_dir's place in one rename (an exchange when corpus_dir
/// exists), so a kill at any instant leaves the old corpus or the new one, never a mix. Files in the
/// old folder that are not corpus files are carried over; folders left by killed writers
/// (DIR.new.<pid>, DIR.old.<pid> of processes that are gone) are removed. kUsage when corpus_dir is
/// a file. The files are encoded on `jobs` threads (the bytes are the same for any number).
Status write_corpus(const std::filesystem::path& corpus_dir, Manifest m, const std::vector<CaseFile>& files,
                    unsigned jobs = 1);

/// Reads the manifest and every case file it lists (checking counts and addresses agree).
struct Corpus {
  Manifest manifest;
  std::vector<CaseFile> files;
  /// SHA-256 of manifest.json as read (it names the snapshot, step log, profile and command the cases
  /// were captured with, and every function's case count): the corpus's identity in replay reports,
  /// so reports of two corpora are never merged or compared.
  std::string manifest_sha256;
};
Result<Corpus> read_corpus(const std::filesystem::path& corpus_dir, const CorpusLimits& limits = {});

/// Appends cases (poked ones, from a probe or a search) to the corpus in `corpus_dir`, which
/// `corpus` was read from: each gets the next free id of its function's file (a function the
/// corpus had no file for gets one); the corpus is rewritten as a whole (write_corpus).
/// Returns the ids given, in order.
Result<std::vector<std::uint32_t>> add_cases(const std::filesystem::path& corpus_dir, Corpus& corpus,
                                             std::vector<Case> cases);

}  // namespace lockstep::cases
