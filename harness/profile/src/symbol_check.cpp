// The profile's addresses held against an original's symbol table (symbol_check.hpp).
#include "lockstep/profile/symbol_check.hpp"

#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "lockstep/base/io.hpp"
#include "lockstep/base/numbers.hpp"
#include "lockstep/load/load.hpp"

namespace lockstep::harness {
namespace {

/// True when the file at `path` is itself an executable or an image (by its magic, as load_snapshot
/// tells them apart), so its own symbols describe the snapshot's code.
bool is_executable_file(const std::filesystem::path& path) {
  std::uint8_t head[64] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(head), sizeof head);
  const auto format =
      detect_snapshot_format(std::span<const std::uint8_t>(head, static_cast<std::size_t>(in.gcount())));
  return format == SnapshotFormat::kElfExec || format == SnapshotFormat::kPe32;
}

/// Reads `path`'s table into `out`; a stripped file (kNotFound) leaves `out.source` empty and says so.
Status read_into(const std::filesystem::path& path, SnapshotSymbols& out) {
  auto table = load_symbol_table(path);
  if (!table.ok() && table.error().code == Errc::kNotFound) {
    out.why_none = table.error().message;
    return {};
  }
  if (!table.ok()) return table.error();
  out.table = std::move(*table);
  out.source = path.string();
  return {};
}

}  // namespace

Result<SnapshotSymbols> snapshot_symbols(const std::filesystem::path& snapshot_path, const Snapshot& snapshot,
                                         const std::filesystem::path& image_path) {
  SnapshotSymbols out;
  if (!image_path.empty()) {
    LOCKSTEP_TRY_STATUS(read_into(image_path, out));
    return out;
  }
  if (is_executable_file(snapshot_path)) {
    LOCKSTEP_TRY_STATUS(read_into(snapshot_path, out));
    return out;
  }
  // A snapshot of a process: its executable, when the file is still the one the snapshot recorded.
  const std::string& exe = snapshot.meta.exe_path;
  std::error_code ec;
  if (exe.empty() || snapshot.meta.exe_sha256.empty() || !std::filesystem::is_regular_file(exe, ec)) {
    out.why_none = "the snapshot names no executable that is still there";
    return out;
  }
  auto bytes = read_file(exe, LoadLimits{}.max_file_bytes);  // the executable the snapshot came from
  if (!bytes.ok() || to_hex(sha256(*bytes)) != snapshot.meta.exe_sha256) {
    out.why_none = fmt::format("{} is no longer the executable the snapshot recorded (SHA-256 differs)", exe);
    return out;
  }
  auto table = read_symbol_table(*bytes, exe);
  if (!table.ok()) {  // stripped, or an executable of another kind: nothing to check against
    out.why_none = table.error().message;
    return out;
  }
  out.table = std::move(*table);
  out.source = exe;
  return out;
}

SymbolCheck check_symbols(const Profile& profile, const SymbolTable& symbols) {
  std::map<std::string, std::set<GuestAddr>> by_name;
  for (const Symbol& s : symbols.symbols)
    if (s.kind == SymbolKind::kFunction) by_name[s.name].insert(s.address);
  SymbolCheck out;
  for (const FunctionSpec& f : profile.functions) {
    if (f.original.empty()) continue;
    if (auto it = by_name.find(f.original); it != by_name.end()) {
      if (it->second.count(f.address)) continue;
      const GuestAddr named = *it->second.begin();
      if (const Symbol* here = symbols.function_at(f.address)) {
        out.warnings.push_back(fmt::format(
            "{}:{}: [[function]] {}: {} names the function at 0x{:08x} {}, and its symbol {} is at 0x{:08x}: the "
            "address is not checked by name",
            profile.source, f.line, f.name, symbols.what, f.address, here->name, f.original, named));
        continue;
      }
      out.errors.push_back(fmt::format("{}:{}: [[function]] {}: address = 0x{:08x}, but the symbol {} is at 0x{:08x} "
                                       "in {}: one of the two is wrong (the profile's address, or its `original`)",
                                       profile.source, f.line, f.name, f.address, f.original, named, symbols.what));
      continue;
    }
    // Ghidra's default names spell the address: FUN_004d41a0 is the function at 0x004d41a0.
    if (f.original.size() == 12 && f.original.rfind("FUN_", 0) == 0) {
      auto spelled = parse_address("0x" + f.original.substr(4));
      if (spelled.ok() && *spelled != f.address)
        out.errors.push_back(fmt::format("{}:{}: [[function]] {}: address = 0x{:08x}, but its `original` {} names "
                                         "0x{:08x}",
                                         profile.source, f.line, f.name, f.address, f.original, *spelled));
    }
  }
  return out;
}

}  // namespace lockstep::harness
