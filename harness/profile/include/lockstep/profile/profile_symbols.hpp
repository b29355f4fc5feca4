// Symbols in and out of a profile: a disassembler's exports of its names (Ghidra's CSV of a function
// table and its XML export, an IDA .map) read into a SymbolTable (symbols.hpp reads ELF and PE
// tables); a first profile drafted from any of them; and a profile's functions, structs, instances
// and labels written as a script that names them in Ghidra (Python, its FlatProgramAPI) or IDA
// (IDAPython). harness/docs/symbols.md describes the formats.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "lockstep/base/result.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/readers/symbols.hpp"

namespace lockstep::harness {

enum class SymbolFileFormat { kAuto, kExecutable, kGhidraCsv, kGhidraXml, kIdaMap };
/// "auto", "executable" (ELF or PE), "ghidra-csv", "ghidra-xml", "ida-map"; kUsage otherwise.
Result<SymbolFileFormat> parse_symbol_file_format(std::string_view name);

/// Bounds on a symbol file (Errc::kLimit past them), as every reader of an untrusted file has.
struct SymbolFileLimits {
  std::uint64_t max_file_bytes = std::uint64_t{256} << 20;
};

struct SymbolFileOptions {
  SymbolFileFormat format = SymbolFileFormat::kAuto;
  /// IDA .map addresses are segment:offset; the segment's base address (a map does not say it).
  std::map<std::uint32_t, GuestAddr> segment_bases;
  SymbolFileLimits limits{};
};

/// Ghidra's CSV export of a table of functions or symbols: a header row naming the columns; "Name"
/// and "Location" (or "Address", "Entry Point") are needed, "Namespace" (prefixed as ns::name unless
/// Global) and "Function Size" / "Size" are read when present. Rows of type Data/Label (a "Type"
/// column) are data symbols. kMalformed naming the line otherwise.
Result<SymbolTable> parse_ghidra_csv(std::string_view text, std::string_view what);
/// Ghidra's XML export (its PROGRAM document): every FUNCTION's ENTRY_POINT, NAME and NAMESPACE, the
/// size of its ADDRESS_RANGEs; SYMBOL entries at no function's entry become data symbols.
Result<SymbolTable> parse_ghidra_xml(std::string_view text, std::string_view what);
/// An IDA .map (File > Produce file > Create MAP file): the segment table (start, length, name, class)
/// and the "Publics by Value" lines `SSSS:OOOOOOOO  name`; a name in a CODE segment is a function.
/// Every segment named must have a base in `segment_bases` (kUsage saying which is missing).
Result<SymbolTable> parse_ida_map(std::string_view text, std::string_view what,
                                  const std::map<std::uint32_t, GuestAddr>& segment_bases);
/// Any of the above or an ELF/PE file, by `opt.format` (kAuto: by the file's first bytes and name).
Result<SymbolTable> load_symbol_file(const std::filesystem::path& path, const SymbolFileOptions& opt);

/// What a symbol table cannot say and a draft profile must: each function's convention and return.
/// Unset: the draft writes the placeholder `"unknown"`, which a profile does not load with, so the
/// user must fill every one in (the file's head says so) — never a silent default.
struct ProfileDraftOptions {
  std::string name = "original";        ///< [profile] name
  std::string description;
  std::optional<std::string> convention;  ///< "cdecl", "watcom", ...: the same for every function
  std::optional<std::string> returns;     ///< "none", "eax", ...
};
inline constexpr std::string_view kUnknownPlaceholder = "unknown";

/// A profile's TOML text from a symbol table: one [[function]] per function symbol (address, name,
/// original = the symbol, convention, args = [], returns; names made unique by their address), one
/// [[label]] per data symbol (its size, 1 where the table gives none). The head names the source
/// and what is left to fill in.
std::string draft_profile(const SymbolTable& symbols, const ProfileDraftOptions& opt);

/// A Ghidra script (Python: Jython 2.7 in Ghidra 11, PyGhidra) naming the profile's functions (made
/// where Ghidra has none, put in their namespace `a::b`, doc as the function's comment), its structs
/// (in the data type manager under /lockstep), its instances (a label and the struct or an array of
/// it applied) and labels.
std::string ghidra_script(const Profile& profile);
/// The same for IDA (IDAPython: ida_funcs, ida_name, idc): functions made and named, structs with
/// their fields, instances and labels named.
std::string ida_script(const Profile& profile);

}  // namespace lockstep::harness
