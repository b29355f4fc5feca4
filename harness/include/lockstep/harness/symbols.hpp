// Symbols: the names an original's file gives its functions, to check a profile's addresses against.
//
// A profile types each function's address by hand and its symbol beside it (`original`); where the
// file has a symbol table — an ELF32 executable's .symtab and .dynsym, a PE32 image's export table and
// COFF symbol table — the two are held together: a function whose `original` names a symbol at
// another address is an error naming both addresses (harness/docs/profile.md, `original`).
// Stripped files have none, and then nothing is checked (and the check says so).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/harness/profile.hpp"
#include "lockstep/harness/snapshot.hpp"

namespace lockstep::harness {

struct Symbol {
  std::string name;     ///< as the file spells it: "tank_move", "_fx_mul", "@tile_at@12"
  GuestAddr address = 0;
};

/// The function symbols of an ELF32 executable (STT_FUNC and untyped symbols of .symtab and .dynsym
/// that lie in a section) or of a PE32 image (its exports and its COFF symbols that lie in a section).
/// Empty when the file has none (stripped). Errors: kBadMagic for any other file, kTruncated /
/// kMalformed for tables that run past the file.
Result<std::vector<Symbol>> read_symbols(std::span<const std::uint8_t> file, std::string_view what);

/// Where a snapshot's symbols come from: the snapshot file itself when it is an ELF32 executable or a
/// PE32 image, else the --image file mapped over it, else the executable the snapshot's metadata names
/// when that file is still there with the SHA-256 recorded. `source` is empty when none applies.
struct SnapshotSymbols {
  std::string source;  ///< the file the symbols were read from
  std::vector<Symbol> symbols;
};
Result<SnapshotSymbols> snapshot_symbols(const std::filesystem::path& snapshot_path, const Snapshot& snapshot,
                                         const std::filesystem::path& image_path);

/// Every profile function whose `original` the symbols contradict, one sentence each naming the
/// profile's file and line, both addresses and the symbols' file: a symbol of that name at another
/// address (and none at the profile's), or a Ghidra-style FUN_xxxxxxxx that spells another address.
std::vector<std::string> check_symbols(const Profile& profile, const std::vector<Symbol>& symbols,
                                       std::string_view symbols_source);

}  // namespace lockstep::harness
