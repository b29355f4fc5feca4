// Symbol tables: ELF32 .symtab/.dynsym, PE32 exports and COFF symbols (symbols.hpp). Every offset
// read from the file goes through ByteReader, so a truncated or hostile file is an Error.
#include "lockstep/readers/symbols.hpp"

#include <algorithm>
#include <cstring>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"
#include "lockstep/readers/pe32.hpp"

namespace lockstep::harness {
namespace {

// A NUL-terminated name at `offset` of a string table, at most `max` bytes.
Result<std::string> table_string(std::span<const std::uint8_t> table, std::uint64_t offset, std::uint32_t max,
                                 std::string_view what, std::string_view field) {
  if (offset >= table.size())
    return Error::make(Errc::kMalformed, "{}: {} name at offset 0x{:x} is past its string table (0x{:x} bytes)",
                       what, field, offset, table.size());
  const auto* begin = table.data() + offset;
  const std::size_t room = table.size() - static_cast<std::size_t>(offset);
  const auto* end = static_cast<const std::uint8_t*>(std::memchr(begin, 0, room));
  const std::size_t n = end ? static_cast<std::size_t>(end - begin) : room;
  if (n > max) return Error::make(Errc::kLimit, "{}: a {} name of {} bytes (limit {})", what, field, n, max);
  return std::string(reinterpret_cast<const char*>(begin), n);
}

struct ElfSection {
  std::uint32_t type = 0, offset = 0, size = 0, link = 0, entsize = 0;
};

constexpr std::uint32_t kShtSymtab = 2, kShtDynsym = 11;
constexpr std::uint8_t kSttObject = 1, kSttFunc = 2, kStbLocal = 0;

Result<std::vector<ElfSection>> elf_sections(ByteReader& r) {
  LOCKSTEP_TRY_STATUS(r.seek(0x20));
  LOCKSTEP_TRY(auto shoff, r.read<std::uint32_t>("e_shoff"));
  LOCKSTEP_TRY_STATUS(r.seek(0x2e));
  LOCKSTEP_TRY(auto shentsize, r.read<std::uint16_t>("e_shentsize"));
  LOCKSTEP_TRY(auto shnum, r.read<std::uint16_t>("e_shnum"));
  std::vector<ElfSection> out;
  if (shoff == 0 || shnum == 0) return out;
  if (shentsize < 40)
    return Error::make(Errc::kMalformed, "{}: section headers of {} bytes (ELF32's are 40)", r.what(), shentsize);
  for (std::uint32_t i = 0; i < shnum; ++i) {
    LOCKSTEP_TRY(auto h, r.slice(std::uint64_t{shoff} + std::uint64_t{i} * shentsize, 40, "section header"));
    ElfSection s;
    std::memcpy(&s.type, h.data() + 4, 4);
    std::memcpy(&s.offset, h.data() + 16, 4);
    std::memcpy(&s.size, h.data() + 20, 4);
    std::memcpy(&s.link, h.data() + 24, 4);
    std::memcpy(&s.entsize, h.data() + 36, 4);
    out.push_back(s);
  }
  return out;
}

// The symbols of one SHT_SYMTAB/SHT_DYNSYM section.
Status read_elf_symbols(ByteReader& r, const std::vector<ElfSection>& sections, const ElfSection& table,
                        const SymbolLimits& limits, std::vector<Symbol>& out) {
  if (table.link >= sections.size())
    return Error::make(Errc::kMalformed, "{}: symbol table links string section {} of {}", r.what(), table.link,
                       sections.size());
  const ElfSection& strtab = sections[table.link];
  LOCKSTEP_TRY(auto strings, r.slice(strtab.offset, strtab.size, "symbol string table"));
  LOCKSTEP_TRY(auto syms, r.slice(table.offset, table.size, "symbol table"));
  const std::uint32_t entsize = table.entsize ? table.entsize : 16;
  if (entsize < 16) return Error::make(Errc::kMalformed, "{}: symbols of {} bytes (ELF32's are 16)", r.what(), entsize);
  const std::size_t count = syms.size() / entsize;
  if (count > limits.max_symbols)
    return Error::make(Errc::kLimit, "{}: {} symbols (limit {})", r.what(), count, limits.max_symbols);
  for (std::size_t i = 1; i < count; ++i) {  // entry 0 is the undefined symbol
    const auto* e = syms.data() + i * entsize;
    std::uint32_t name = 0, value = 0, size = 0;
    std::uint16_t shndx = 0;
    std::memcpy(&name, e, 4);
    std::memcpy(&value, e + 4, 4);
    std::memcpy(&size, e + 8, 4);
    std::memcpy(&shndx, e + 14, 2);
    const std::uint8_t type = e[12] & 0xf, bind = e[12] >> 4;
    if (shndx == 0 || shndx >= 0xff00) continue;  // undefined, absolute, common
    if (type != kSttFunc && type != kSttObject) continue;
    LOCKSTEP_TRY(auto n, table_string(strings, name, limits.max_name_bytes, r.what(), "symbol"));
    if (n.empty()) continue;
    out.push_back({value, size, std::move(n), type == kSttFunc ? SymbolKind::kFunction : SymbolKind::kData,
                   bind != kStbLocal});
  }
  return {};
}

Status read_elf(std::span<const std::uint8_t> bytes, const SymbolLimits& limits, SymbolTable& t) {
  ByteReader r(bytes, t.what);
  LOCKSTEP_TRY(auto ident, r.slice(0, 0x34, "ELF header"));
  if (ident[4] != 1)
    return Error::make(Errc::kUnsupported, "{}: a 64-bit ELF file; lockstep reads 32-bit originals", t.what);
  if (ident[5] != 1) return Error::make(Errc::kUnsupported, "{}: a big-endian ELF file", t.what);
  if (const std::uint16_t machine = static_cast<std::uint16_t>(ident[0x12] | (ident[0x13] << 8)); machine != 3)
    return Error::make(Errc::kUnsupported, "{}: an ELF file for machine {}, not i386 (3)", t.what, machine);
  LOCKSTEP_TRY(auto sections, elf_sections(r));
  for (std::uint32_t want : {kShtSymtab, kShtDynsym}) {
    for (const auto& s : sections)
      if (s.type == want) LOCKSTEP_TRY_STATUS(read_elf_symbols(r, sections, s, limits, t.symbols));
    if (!t.symbols.empty()) {
      t.sources.push_back(want == kShtSymtab ? SymbolSource::kElfSymtab : SymbolSource::kElfDynsym);
      break;
    }
  }
  t.size_known = true;
  return {};
}

// The export directory: each exported RVA that lies in a section, by name (ordinal-only exports are
// named "#ordinal").
Status read_pe_exports(const Pe32Image& pe, std::uint32_t dir_rva, const SymbolLimits& limits, SymbolTable& t) {
  // n bytes of the file at an RVA (n = 0: up to the end of its section's file bytes).
  auto at = [&](std::uint32_t rva, std::uint32_t n, std::string_view field) -> Result<std::span<const std::uint8_t>> {
    for (const auto& s : pe.sections)
      if (rva >= s.virtual_address && rva - s.virtual_address < s.raw_size) {
        const std::uint64_t off = std::uint64_t{s.raw_offset} + (rva - s.virtual_address);
        const std::uint64_t rest = s.raw_size - (rva - s.virtual_address);
        return ByteReader(pe.file, t.what).slice(off, n ? n : std::min<std::uint64_t>(rest, pe.file.size() - std::min<std::uint64_t>(off, pe.file.size())), field);
      }
    return Error::make(Errc::kMalformed, "{}: {} at RVA 0x{:x} lies in no section's file bytes", t.what, field, rva);
  };
  LOCKSTEP_TRY(auto dir, at(dir_rva, 40, "export directory"));
  std::uint32_t base = 0, nfuncs = 0, nnames = 0, funcs = 0, names = 0, ords = 0;
  std::memcpy(&base, dir.data() + 16, 4);
  std::memcpy(&nfuncs, dir.data() + 20, 4);
  std::memcpy(&nnames, dir.data() + 24, 4);
  std::memcpy(&funcs, dir.data() + 28, 4);
  std::memcpy(&names, dir.data() + 32, 4);
  std::memcpy(&ords, dir.data() + 36, 4);
  if (nfuncs > limits.max_symbols || nnames > limits.max_symbols)
    return Error::make(Errc::kLimit, "{}: {} exports (limit {})", t.what, std::max(nfuncs, nnames), limits.max_symbols);
  LOCKSTEP_TRY(auto fn, at(funcs, nfuncs * 4, "export address table"));
  std::vector<std::string> by_index(nfuncs);
  if (nnames) {
    LOCKSTEP_TRY(auto nm, at(names, nnames * 4, "export name table"));
    LOCKSTEP_TRY(auto od, at(ords, nnames * 2, "export ordinal table"));
    for (std::uint32_t i = 0; i < nnames; ++i) {
      std::uint32_t name_rva = 0;
      std::uint16_t index = 0;
      std::memcpy(&name_rva, nm.data() + 4 * i, 4);
      std::memcpy(&index, od.data() + 2 * i, 2);
      LOCKSTEP_TRY(auto s, at(name_rva, 0, "export name"));
      LOCKSTEP_TRY(auto name, table_string(s, 0, limits.max_name_bytes, t.what, "export"));
      if (index < nfuncs) by_index[index] = std::move(name);
    }
  }
  for (std::uint32_t i = 0; i < nfuncs; ++i) {
    std::uint32_t rva = 0;
    std::memcpy(&rva, fn.data() + 4 * i, 4);
    const auto* sec = pe.section_at(pe.image_base + rva);
    if (rva == 0 || !sec) continue;  // unused slot, or a forwarder string outside the sections' code
    std::string name = by_index[i].empty() ? "#" + std::to_string(base + i) : by_index[i];
    const bool code = sec->prot & kProtExec;
    t.symbols.push_back({pe.image_base + rva, 0, std::move(name), code ? SymbolKind::kFunction : SymbolKind::kData, true});
  }
  t.sources.push_back(SymbolSource::kPeExports);
  return {};
}

// The COFF symbol table (IMAGE_FILE_HEADER.PointerToSymbolTable): 18-byte records, then the string
// table. A symbol of section n > 0 with storage class EXTERNAL (2) or STATIC (3) and a derived type of
// function (0x20) is a function; other defined external ones are data.
Status read_coff_symbols(const Pe32Image& pe, std::uint32_t ptr, std::uint32_t count, const SymbolLimits& limits,
                         SymbolTable& t) {
  if (count > limits.max_symbols)
    return Error::make(Errc::kLimit, "{}: {} COFF symbols (limit {})", t.what, count, limits.max_symbols);
  ByteReader r(pe.file, t.what);
  LOCKSTEP_TRY(auto syms, r.slice(ptr, std::uint64_t{count} * 18, "COFF symbol table"));
  const std::uint64_t strings_at = std::uint64_t{ptr} + std::uint64_t{count} * 18;
  std::span<const std::uint8_t> strings;
  if (auto len = r.slice(strings_at, 4, "COFF string table size"); len.ok()) {
    std::uint32_t n = 0;
    std::memcpy(&n, len->data(), 4);
    LOCKSTEP_TRY(auto s, r.slice(strings_at, std::max<std::uint32_t>(n, 4), "COFF string table"));
    strings = s;
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto* e = syms.data() + std::size_t{i} * 18;
    std::int16_t section = 0;
    std::uint16_t type = 0;
    std::uint32_t value = 0;
    std::memcpy(&value, e + 8, 4);
    std::memcpy(&section, e + 12, 2);
    std::memcpy(&type, e + 14, 2);
    const std::uint8_t storage = e[16], aux = e[17];
    const std::uint32_t skip = aux;
    if (section > 0 && static_cast<std::size_t>(section) <= pe.sections.size() && (storage == 2 || storage == 3)) {
      std::string name;
      std::uint32_t zeroes = 0, offset = 0;
      std::memcpy(&zeroes, e, 4);
      std::memcpy(&offset, e + 4, 4);
      if (zeroes == 0) {
        LOCKSTEP_TRY(name, table_string(strings, offset, limits.max_name_bytes, t.what, "COFF symbol"));
      } else {
        name.assign(reinterpret_cast<const char*>(e), strnlen(reinterpret_cast<const char*>(e), 8));
      }
      const bool function = (type & 0x30) == 0x20;
      const bool section_symbol = storage == 3 && value == 0 && !function && !name.empty() && name[0] == '.';
      if (!name.empty() && !section_symbol && (function || storage == 2)) {
        const auto& sec = pe.sections[static_cast<std::size_t>(section) - 1];
        t.symbols.push_back({sec.address + value, 0, std::move(name),
                             function ? SymbolKind::kFunction : SymbolKind::kData, storage == 2});
      }
    }
    i += skip;  // auxiliary records follow their symbol
  }
  t.sources.push_back(SymbolSource::kCoffSymbols);
  return {};
}

Status read_pe(std::span<const std::uint8_t> bytes, const SymbolLimits& limits, SymbolTable& t) {
  LOCKSTEP_TRY(auto pe, parse_pe32(bytes, t.what));
  ByteReader r(pe.file, t.what);
  LOCKSTEP_TRY(auto lfanew, r.slice(0x3c, 4, "e_lfanew"));
  std::uint32_t nt = 0;
  std::memcpy(&nt, lfanew.data(), 4);
  LOCKSTEP_TRY(auto coff, r.slice(std::uint64_t{nt} + 4, 20, "COFF header"));
  std::uint32_t symptr = 0, nsyms = 0;
  std::memcpy(&symptr, coff.data() + 8, 4);
  std::memcpy(&nsyms, coff.data() + 12, 4);
  // The optional header's first data directory (exports) lies 96 bytes into a PE32 optional header.
  LOCKSTEP_TRY(auto dir0, r.slice(std::uint64_t{nt} + 24 + 96, 8, "export data directory"));
  std::uint32_t exports_rva = 0, exports_size = 0;
  std::memcpy(&exports_rva, dir0.data(), 4);
  std::memcpy(&exports_size, dir0.data() + 4, 4);
  if (exports_rva && exports_size) LOCKSTEP_TRY_STATUS(read_pe_exports(pe, exports_rva, limits, t));
  if (symptr && nsyms) LOCKSTEP_TRY_STATUS(read_coff_symbols(pe, symptr, nsyms, limits, t));
  return {};
}

}  // namespace

const char* symbol_source_name(SymbolSource s) noexcept {
  switch (s) {
    case SymbolSource::kElfSymtab: return "elf .symtab";
    case SymbolSource::kElfDynsym: return "elf .dynsym";
    case SymbolSource::kPeExports: return "pe exports";
    case SymbolSource::kCoffSymbols: return "coff symbols";
    case SymbolSource::kGhidraCsv: return "ghidra csv";
    case SymbolSource::kGhidraXml: return "ghidra xml";
    case SymbolSource::kIdaMap: return "ida map";
  }
  return "?";
}

const Symbol* SymbolTable::function_at(GuestAddr address) const noexcept {
  auto it = std::lower_bound(symbols.begin(), symbols.end(), address,
                             [](const Symbol& s, GuestAddr a) { return s.address < a; });
  const Symbol* local = nullptr;
  for (; it != symbols.end() && it->address == address; ++it) {
    if (it->kind != SymbolKind::kFunction) continue;
    if (it->global) return &*it;
    if (!local) local = &*it;
  }
  return local;
}

void sort_symbols(std::vector<Symbol>& symbols) {
  std::stable_sort(symbols.begin(), symbols.end(), [](const Symbol& a, const Symbol& b) {
    return a.address != b.address ? a.address < b.address : a.name < b.name;
  });
  symbols.erase(std::unique(symbols.begin(), symbols.end(),
                            [](const Symbol& a, const Symbol& b) { return a.address == b.address && a.name == b.name; }),
                symbols.end());
}

bool has_symbol_table_magic(std::span<const std::uint8_t> bytes) noexcept {
  return (bytes.size() >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F') ||
         (bytes.size() >= 2 && bytes[0] == 'M' && bytes[1] == 'Z');
}

Result<SymbolTable> read_symbol_table(std::span<const std::uint8_t> bytes, std::string_view what,
                                      const SymbolLimits& limits) {
  SymbolTable t;
  t.what = std::string(what);
  if (!has_symbol_table_magic(bytes))
    return Error::make(Errc::kBadMagic, "{}: neither an ELF file nor a PE image (no symbol table to read)", what);
  if (bytes[0] == 0x7f) {
    LOCKSTEP_TRY_STATUS(read_elf(bytes, limits, t));
  } else {
    LOCKSTEP_TRY_STATUS(read_pe(bytes, limits, t));
  }
  if (t.symbols.empty())
    return Error::make(Errc::kNotFound,
                       "{}: no symbols (a stripped file?): start the profile from a Ghidra or IDA export instead",
                       what);
  sort_symbols(t.symbols);
  return t;
}

Result<SymbolTable> load_symbol_table(const std::filesystem::path& path, const SymbolLimits& limits) {
  LOCKSTEP_TRY(auto bytes, read_file(path, limits.max_file_bytes));
  return read_symbol_table(bytes, path.string(), limits);
}

}  // namespace lockstep::harness
