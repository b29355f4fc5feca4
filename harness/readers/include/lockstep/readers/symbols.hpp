// Symbol tables of an original's executable: an ELF file's .symtab (or .dynsym), a PE image's export
// directory and its COFF symbol table (MinGW and old linkers leave one). What they say about each
// function — its name, its entry, its size where the table records one — starts a profile
// (`lockstep profile from-symbols`) and measures an original's code (`lockstep progress`).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness {

enum class SymbolKind { kFunction, kData };

struct Symbol {
  GuestAddr address = 0;
  /// Bytes from `address`; 0 when the table records none (PE exports, COFF symbols: see size_known).
  std::uint32_t size = 0;
  std::string name;
  SymbolKind kind = SymbolKind::kFunction;
  bool global = true;  ///< ELF STB_GLOBAL/STB_WEAK, COFF external; false for file-local symbols
};

/// Where a table's symbols came from, as reports name it.
/// The last three are a disassembler's exports of its names (profile_symbols.hpp reads them).
enum class SymbolSource { kElfSymtab, kElfDynsym, kPeExports, kCoffSymbols, kGhidraCsv, kGhidraXml, kIdaMap };
const char* symbol_source_name(SymbolSource s) noexcept;  ///< "elf .symtab", "pe exports", "ida map", ...

struct SymbolTable {
  std::string what;  ///< the file, for messages
  std::vector<SymbolSource> sources;
  /// Ascending by address, then by name; defined symbols only (no imports, no section symbols).
  std::vector<Symbol> symbols;
  /// True when sizes come from the table itself (ELF st_size); false for PE/COFF, where a function's
  /// size is not recorded.
  bool size_known = false;

  /// The function symbol at `address` (a global one before a local one), or null.
  const Symbol* function_at(GuestAddr address) const noexcept;
};

/// Sorts symbols ascending by address, then name, and drops exact repeats (the same name twice at
/// one address): the order every SymbolTable keeps.
void sort_symbols(std::vector<Symbol>& symbols);

/// Named maximums of what a symbol reader reads (beyond them: Errc::kLimit).
struct SymbolLimits {
  std::uint32_t max_symbols = 1u << 20;
  std::uint32_t max_name_bytes = 4096;
  std::uint64_t max_file_bytes = std::uint64_t{1} << 30;
};

/// True when `bytes` starts like a file read_symbol_table reads (ELF or MZ).
bool has_symbol_table_magic(std::span<const std::uint8_t> bytes) noexcept;

/// Reads the symbols of an ELF32 i386 file (ET_EXEC or ET_DYN; .symtab, else .dynsym) or a PE32 image
/// (its exports and its COFF symbol table, both when present). Errors: kBadMagic (neither ELF nor
/// MZ/PE), kTruncated, kMalformed (a string index past its table, a section past the file), kLimit,
/// kNotFound (a valid file holding no symbol table: a stripped executable — the message says so).
Result<SymbolTable> read_symbol_table(std::span<const std::uint8_t> bytes, std::string_view what,
                                      const SymbolLimits& limits = {});
Result<SymbolTable> load_symbol_table(const std::filesystem::path& path, const SymbolLimits& limits = {});

}  // namespace lockstep::harness
