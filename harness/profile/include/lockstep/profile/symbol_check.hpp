// The profile's addresses held against an original's symbol table.
//
// A profile types each function's address by hand and its symbol beside it (`original`); where the
// snapshot's file has a symbol table (symbols.hpp: ELF .symtab/.dynsym, PE exports, COFF symbols) the
// two are held together before anything runs, so a wrong address is an error naming both addresses
// instead of odd faults or a function with no cases (harness/docs/profile.md, `original`). Stripped
// files have none, and then nothing is checked (and the check says so).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/snapshot/snapshot.hpp"
#include "lockstep/readers/symbols.hpp"

namespace lockstep::harness {

/// Where a snapshot's symbols come from: the snapshot file itself when it is an ELF32 executable or a
/// PE32 image, else the --image file mapped over it, else the executable the snapshot's metadata names
/// when that file is still there with the SHA-256 recorded. `source` is empty when none applies or
/// the file is stripped; `why_none` then says which.
struct SnapshotSymbols {
  std::string source;  ///< the file the symbols were read from
  SymbolTable table;
  std::string why_none;
};
Result<SnapshotSymbols> snapshot_symbols(const std::filesystem::path& snapshot_path, const Snapshot& snapshot,
                                         const std::filesystem::path& image_path);

/// What the symbols say against a profile: one sentence per function, naming the profile's file and
/// line, both addresses and the symbols' file.
struct SymbolCheck {
  /// The named symbol lies elsewhere and no function symbol starts at the profile's address (so the
  /// address points into a function or at nothing), or a Ghidra-style FUN_xxxxxxxx spells another
  /// address: the profile is wrong.
  std::vector<std::string> errors;
  /// The named symbol lies elsewhere but another function symbol starts at the profile's address: the
  /// file names that function differently (a re-linked stand-in, a second copy of a library routine),
  /// so the name cannot decide; said, not refused.
  std::vector<std::string> warnings;
};
SymbolCheck check_symbols(const Profile& profile, const SymbolTable& symbols);

}  // namespace lockstep::harness
