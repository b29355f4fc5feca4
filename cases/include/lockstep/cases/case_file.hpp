// The case file: every case of one function, in one zlib-compressed file (documented in
// cases/docs/case-format.md). Writers are atomic; readers refuse bad input with a precise error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/case.hpp"

namespace lockstep::cases {

/// Version 3 records, per written byte, the original's instruction that wrote it last
/// (Case::writers), and the code of the function's private helpers (CaseFile::helper_code); version 2 each case's stack bounds (Case::stack_low/stack_high). Versions 1 and 2
/// are still read (no writers known; version 1's bounds are 0: not recorded).
inline constexpr std::uint32_t kCaseFileVersion = 3;
inline constexpr std::uint32_t kOldestCaseFileVersion = 1;
/// Bounds on a case file, an untrusted input (Errc::kLimit past them), checked before anything is
/// allocated. Limits are a struct per file format, as the readers' (ProfileLimits, Pe32Limits,
/// MinidumpLimits, StateLogLimits): its defaults are the bounds, far above any real capture, and a
/// caller or test that needs another passes its own.
struct CaseFileLimits {
  std::uint32_t max_cases = 1u << 20;            ///< cases in one file (the header's count)
  std::uint32_t max_runs_per_map = 1u << 20;     ///< runs of one case's input or written bytes, or its writer runs
  std::uint32_t max_run_bytes = 16u << 20;       ///< one run, writer run or poke
  std::uint64_t max_body_bytes = std::uint64_t{1} << 30;  ///< the inflated body; read_case_file's largest file too
  std::uint32_t max_pokes = 4096;                ///< memory pokes of one case
  std::uint32_t max_string_bytes = 4096;         ///< a name, an origin, a note
  std::uint32_t max_code_bytes = 1u << 20;       ///< all of a file's code, the helpers' included
  std::uint32_t max_helper_ranges = 256;         ///< the private helpers' code ranges
};

/// Code bytes at a guest address.
struct CodeRange {
  GuestAddr base = 0;
  std::vector<std::uint8_t> bytes;
  std::uint64_t end() const noexcept { return std::uint64_t{base} + bytes.size(); }
  friend bool operator==(const CodeRange&, const CodeRange&) = default;
};

/// All cases of one function.
struct CaseFile {
  GuestAddr function = 0;
  std::string name;
  std::vector<Case> cases;
  /// The original function's code bytes (from its entry, as far as the capture's disassembly
  /// reached), so a replay report can show the original's disassembly without the snapshot.
  GuestAddr code_base = 0;
  std::vector<std::uint8_t> code;
  /// (Version 3) the code of the function's private helpers, the calls it makes to where the profile
  /// names no function (the stand-in's C body behind the thunk at the original's address), so the
  /// listing and the instructions that wrote a byte there show too: ascending, apart from each other
  /// and from [code_base, code_base + code.size()).
  std::vector<CodeRange> helper_code;
};

/// Serialises to the on-disk bytes (deterministic: the same cases give the same bytes).
std::vector<std::uint8_t> encode_case_file(const CaseFile& f);
/// Parses on-disk bytes; `what` names the input in error messages.
Result<CaseFile> decode_case_file(std::span<const std::uint8_t> bytes, const std::string& what,
                                  const CaseFileLimits& limits = {});

Status write_case_file(const std::filesystem::path& path, const CaseFile& f);
Result<CaseFile> read_case_file(const std::filesystem::path& path, const CaseFileLimits& limits = {});

}  // namespace lockstep::cases
