// Symbol tables of ELF32 executables and PE32 images (symbols.hpp).
#include "lockstep/harness/symbols.hpp"

#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"
#include "lockstep/base/numbers.hpp"
#include "lockstep/harness/elf_exec.hpp"
#include "lockstep/harness/load.hpp"
#include "lockstep/harness/pe32.hpp"
#include "reader_util.hpp"

namespace lockstep::harness {
namespace {

using readers::le16;
using readers::le32;

constexpr std::uint32_t kShtSymtab = 2, kShtDynsym = 11;
constexpr std::uint8_t kSttNotype = 0, kSttFunc = 2;
constexpr std::uint64_t kMaxSymbols = 4u << 20;  // bounds a hostile table's count

/// A NUL-terminated name at `off` of the string table [base, base + size).
Result<std::string> c_string(const ByteReader& r, std::uint64_t base, std::uint64_t size, std::uint64_t off) {
  std::string s;
  for (std::uint64_t i = off; i < size; ++i) {
    LOCKSTEP_TRY(std::uint8_t c, r.read_at<std::uint8_t>(base + i, "symbol name"));
    if (c == 0) return s;
    s += static_cast<char>(c);
  }
  return Error::make(Errc::kMalformed, "{}: a symbol name runs past its string table", r.what());
}

Result<std::vector<Symbol>> elf_symbols(std::span<const std::uint8_t> file, std::string_view what) {
  ByteReader r(file, std::string(what));
  LOCKSTEP_TRY(auto eh, r.slice(0, 52, "ELF32 header"));
  if (eh[4] != 1) return Error::make(Errc::kUnsupported, "{}: not an ELF32 file", what);
  const std::uint32_t shoff = le32(eh, 0x20);
  const std::uint16_t shentsize = le16(eh, 0x2e), shnum = le16(eh, 0x30);
  std::vector<Symbol> out;
  if (shoff == 0 || shnum == 0) return out;
  if (shentsize < 40) return Error::make(Errc::kMalformed, "{}: section headers of {} bytes", what, shentsize);
  auto section = [&](std::uint32_t i) { return r.slice(std::uint64_t{shoff} + std::uint64_t{i} * shentsize, 40, "section header"); };
  for (std::uint32_t i = 0; i < shnum; ++i) {
    LOCKSTEP_TRY(auto sh, section(i));
    const std::uint32_t type = le32(sh, 4);
    if (type != kShtSymtab && type != kShtDynsym) continue;
    const std::uint32_t off = le32(sh, 16), size = le32(sh, 20), link = le32(sh, 24);
    if (link >= shnum) return Error::make(Errc::kMalformed, "{}: a symbol table links to section {}", what, link);
    LOCKSTEP_TRY(auto strsh, section(link));
    const std::uint32_t str_off = le32(strsh, 16), str_size = le32(strsh, 20);
    if (size / 16 > kMaxSymbols) return Error::make(Errc::kLimit, "{}: {} symbols", what, size / 16);
    for (std::uint32_t k = 1; k < size / 16; ++k) {  // entry 0 is the null symbol
      LOCKSTEP_TRY(auto sym, r.slice(std::uint64_t{off} + std::uint64_t{k} * 16, 16, "symbol"));
      const std::uint8_t kind = sym[12] & 0xf;
      const std::uint16_t shndx = le16(sym, 14);
      if ((kind != kSttFunc && kind != kSttNotype) || shndx == 0 || shndx >= 0xff00) continue;
      LOCKSTEP_TRY(std::string name, c_string(r, str_off, str_size, le32(sym, 0)));
      if (!name.empty()) out.push_back({std::move(name), le32(sym, 4)});
    }
  }
  return out;
}

/// A PE32 image's exports (by name) and its COFF symbols in a section (mingw's unstripped files).
Result<std::vector<Symbol>> pe_symbols(std::span<const std::uint8_t> file, std::string_view what) {
  LOCKSTEP_TRY(Pe32Image img, parse_pe32(file, what));
  ByteReader r(file, std::string(what));
  std::vector<Symbol> out;
  auto file_offset = [&](std::uint32_t rva) -> std::optional<std::uint64_t> {
    for (const auto& s : img.sections)
      if (rva >= s.virtual_address && rva - s.virtual_address < s.raw_size) return std::uint64_t{s.raw_offset} + (rva - s.virtual_address);
    return std::nullopt;
  };
  const std::uint32_t nt = le32(file, 0x3c);
  LOCKSTEP_TRY(auto fh, r.slice(nt, 24, "PE file header"));
  // Exports: the first data directory of the PE32 optional header (at +96).
  if (le16(fh, 20) >= 104) {
    LOCKSTEP_TRY(auto dir, r.slice(std::uint64_t{nt} + 24 + 96, 8, "export directory entry"));
    if (const std::uint32_t rva = le32(dir, 0); rva != 0)
      if (auto at = file_offset(rva)) {
        LOCKSTEP_TRY(auto ed, r.slice(*at, 40, "export directory"));
        const std::uint32_t nnames = le32(ed, 24);
        const auto funcs = file_offset(le32(ed, 28)), names = file_offset(le32(ed, 32)), ords = file_offset(le32(ed, 36));
        if (nnames > kMaxSymbols) return Error::make(Errc::kLimit, "{}: {} exported names", what, nnames);
        for (std::uint32_t k = 0; funcs && names && ords && k < nnames; ++k) {
          LOCKSTEP_TRY(std::uint32_t name_rva, r.read_at<std::uint32_t>(*names + 4ull * k, "export name"));
          LOCKSTEP_TRY(std::uint16_t ord, r.read_at<std::uint16_t>(*ords + 2ull * k, "export ordinal"));
          LOCKSTEP_TRY(std::uint32_t fn_rva, r.read_at<std::uint32_t>(*funcs + 4ull * ord, "export address"));
          const auto name_at = file_offset(name_rva);
          if (!name_at) continue;
          LOCKSTEP_TRY(std::string name, c_string(r, *name_at, file.size() - *name_at, 0));
          out.push_back({std::move(name), img.image_base + fn_rva});
        }
      }
  }
  // COFF symbols: 18 bytes each, the string table right after them.
  const std::uint32_t symoff = le32(fh, 12), nsyms = le32(fh, 16);
  if (symoff == 0 || nsyms == 0) return out;
  if (nsyms > kMaxSymbols) return Error::make(Errc::kLimit, "{}: {} COFF symbols", what, nsyms);
  const std::uint64_t strings = std::uint64_t{symoff} + std::uint64_t{nsyms} * 18;
  for (std::uint32_t k = 0; k < nsyms; ++k) {
    LOCKSTEP_TRY(auto sym, r.slice(std::uint64_t{symoff} + std::uint64_t{k} * 18, 18, "COFF symbol"));
    const auto section = static_cast<std::int16_t>(le16(sym, 12));
    const std::uint8_t aux = sym[17];
    if (section >= 1 && static_cast<std::size_t>(section) <= img.sections.size()) {
      std::string name;
      if (le32(sym, 0) == 0) {
        LOCKSTEP_TRY(name, c_string(r, strings, file.size() - strings, le32(sym, 4)));
      } else {
        for (int i = 0; i < 8 && sym[i] != 0; ++i) name += static_cast<char>(sym[i]);
      }
      if (!name.empty() && name[0] != '.')
        out.push_back({std::move(name), img.sections[section - 1].address + le32(sym, 8)});
    }
    k += aux;
  }
  return out;
}

}  // namespace

Result<std::vector<Symbol>> read_symbols(std::span<const std::uint8_t> file, std::string_view what) {
  if (file.size() >= 4 && file[0] == 0x7f && file[1] == 'E' && file[2] == 'L' && file[3] == 'F') return elf_symbols(file, what);
  if (file.size() >= 2 && file[0] == 'M' && file[1] == 'Z') return pe_symbols(file, what);
  return Error::make(Errc::kBadMagic, "{}: neither an ELF32 file nor a PE32 image: no symbol table to read", what);
}

Result<SnapshotSymbols> snapshot_symbols(const std::filesystem::path& snapshot_path, const Snapshot& snapshot,
                                         const std::filesystem::path& image_path) {
  SnapshotSymbols out;
  auto from = [&](const std::filesystem::path& p) -> Status {
    LOCKSTEP_TRY(std::vector<std::uint8_t> bytes, read_file(p, kMaxSnapshotFileBytes));
    LOCKSTEP_TRY(out.symbols, read_symbols(bytes, p.string()));
    out.source = p.string();
    return {};
  };
  if (!image_path.empty()) {
    LOCKSTEP_TRY_STATUS(from(image_path));
    return out;
  }
  // The snapshot file itself an executable or an image (by its magic, as load_snapshot tells them).
  std::uint8_t head[64] = {};
  std::ifstream in(snapshot_path, std::ios::binary);
  in.read(reinterpret_cast<char*>(head), sizeof head);
  const auto format = detect_snapshot_format(std::span<const std::uint8_t>(head, static_cast<std::size_t>(in.gcount())));
  if (format == SnapshotFormat::kElfExec || format == SnapshotFormat::kPe32) {
    LOCKSTEP_TRY_STATUS(from(snapshot_path));
    return out;
  }
  // A snapshot of a process: its executable, when the file is still the one the snapshot recorded.
  const std::string& exe = snapshot.meta.exe_path;
  std::error_code ec;
  if (exe.empty() || snapshot.meta.exe_sha256.empty() || !std::filesystem::is_regular_file(exe, ec)) return out;
  auto bytes = read_file(exe, kMaxSnapshotFileBytes);
  if (!bytes.ok() || to_hex(sha256(*bytes)) != snapshot.meta.exe_sha256) return out;
  auto symbols = read_symbols(*bytes, exe);
  if (!symbols.ok()) return out;  // an executable of another kind: nothing to check against
  out.symbols = std::move(*symbols);
  out.source = exe;
  return out;
}

std::vector<std::string> check_symbols(const Profile& profile, const std::vector<Symbol>& symbols,
                                       std::string_view symbols_source) {
  std::map<std::string, std::set<GuestAddr>> by_name;
  for (const Symbol& s : symbols) by_name[s.name].insert(s.address);
  std::vector<std::string> out;
  for (const FunctionSpec& f : profile.functions) {
    if (f.original.empty()) continue;
    if (auto it = by_name.find(f.original); it != by_name.end()) {
      if (it->second.count(f.address)) continue;
      out.push_back(fmt::format("{}:{}: [[function]] {}: address = 0x{:08x}, but the symbol {} is at 0x{:08x} in {}: "
                                "one of the two is wrong (the profile's address, or its `original`)",
                                profile.source, f.line, f.name, f.address, f.original, *it->second.begin(),
                                symbols_source));
      continue;
    }
    // Ghidra's default names spell the address: FUN_004d41a0 is the function at 0x004d41a0.
    if (f.original.size() == 12 && f.original.rfind("FUN_", 0) == 0) {
      auto spelled = parse_address("0x" + f.original.substr(4));
      if (spelled.ok() && *spelled != f.address)
        out.push_back(fmt::format("{}:{}: [[function]] {}: address = 0x{:08x}, but its `original` {} names 0x{:08x}",
                                  profile.source, f.line, f.name, f.address, f.original, *spelled));
    }
  }
  return out;
}

}  // namespace lockstep::harness
