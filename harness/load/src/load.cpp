// Format detection and the load/save entry points (load.hpp).
#include "lockstep/load/load.hpp"

#include <algorithm>
#include <array>

#include "lockstep/base/io.hpp"
#include "lockstep/readers/elf_core.hpp"
#include "lockstep/readers/elf_exec.hpp"
#include "lockstep/readers/minidump.hpp"
#include "lockstep/readers/pe32.hpp"

namespace lockstep::harness {
namespace {

constexpr std::array<std::uint8_t, 4> kMinidumpMagic = {'M', 'D', 'M', 'P'};
constexpr std::array<std::uint8_t, 4> kElfMagic = {0x7f, 'E', 'L', 'F'};
constexpr std::array<std::uint8_t, 2> kPeMagic = {'M', 'Z'};

template <std::size_t N>
bool starts_with(std::span<const std::uint8_t> b, const std::array<std::uint8_t, N>& magic) {
  return b.size() >= N && std::equal(magic.begin(), magic.end(), b.begin());
}

/// True when `b` (shorter than a magic) is a prefix of one: the file was cut short, not foreign.
bool is_prefix_of_a_magic(std::span<const std::uint8_t> b) {
  auto prefix_of = [&](auto const& magic) {
    return b.size() < magic.size() && std::equal(b.begin(), b.end(), magic.begin());
  };
  return prefix_of(kSnapshotMagic) || prefix_of(kMinidumpMagic) || prefix_of(kElfMagic);
}

}  // namespace

const char* snapshot_format_name(SnapshotFormat f) noexcept {
  switch (f) {
    case SnapshotFormat::kLockstep: return "lockstep";
    case SnapshotFormat::kMinidump: return "minidump";
    case SnapshotFormat::kElfCore: return "elf-core";
    case SnapshotFormat::kElfExec: return "elf-exec";
    case SnapshotFormat::kPe32: return "pe32";
    case SnapshotFormat::kUnknown: break;
  }
  return "unknown";
}

SnapshotFormat detect_snapshot_format(std::span<const std::uint8_t> b) noexcept {
  if (is_lockstep_snapshot(b)) return SnapshotFormat::kLockstep;
  if (starts_with(b, kMinidumpMagic)) return SnapshotFormat::kMinidump;
  if (starts_with(b, kElfMagic)) return is_elf_executable(b) ? SnapshotFormat::kElfExec : SnapshotFormat::kElfCore;
  if (starts_with(b, kPeMagic)) return SnapshotFormat::kPe32;
  return SnapshotFormat::kUnknown;
}

Result<Snapshot> decode_any_snapshot(std::span<const std::uint8_t> bytes, std::string_view what) {
  switch (detect_snapshot_format(bytes)) {
    case SnapshotFormat::kLockstep:
      return decode_snapshot(bytes, what);

    // --- other formats: one branch per magic. Replace each body with the reader's call,
    // e.g. `return read_minidump(bytes, what);` / `return read_elf_core(bytes, what);` — readers
    // take the whole file's bytes and `what`, and return a Snapshot that passes validate(). ---
    case SnapshotFormat::kMinidump:
      return read_minidump(bytes, what);
    case SnapshotFormat::kElfCore: {
      // Pages gcore left out are refilled from the files NT_FILE names when they are readable here.
      LOCKSTEP_TRY(ElfCore core, read_elf_core(bytes, what));
      return std::move(core.snapshot);
    }
    case SnapshotFormat::kElfExec: {
      LOCKSTEP_TRY(ElfExecutable exe, parse_elf_executable(bytes, what));
      return snapshot_from_elf_executable(exe);
    }
    case SnapshotFormat::kPe32: {
      LOCKSTEP_TRY(Pe32Image image, parse_pe32(bytes, what));
      return snapshot_from_image(image);
    }
    // --- end of other formats ---

    case SnapshotFormat::kUnknown:
      break;
  }
  const auto first = bytes.first(std::min<std::size_t>(bytes.size(), 8));
  std::string shown;
  for (std::size_t i = 0; i < first.size(); ++i) shown += fmt::format("{}{:02x}", i ? " " : "", first[i]);
  if (is_prefix_of_a_magic(bytes))
    return Error::make(Errc::kTruncated, "{}: only {} bytes ({}), too short to be a snapshot", what, bytes.size(),
                       shown.empty() ? "empty" : shown);
  return Error::make(Errc::kBadMagic,
                     "{}: unknown snapshot format: first bytes {} (expected \"LKSNAP\\r\\n\" for a lockstep snapshot, "
                     "\"MDMP\" for a minidump, 7f 45 4c 46 for an ELF core or executable, \"MZ\" for a PE32 image)",
                     what, shown.empty() ? "(empty file)" : shown);
}

Result<Snapshot> load_snapshot(const std::filesystem::path& path, const LoadLimits& limits) {
  LOCKSTEP_TRY(std::vector<std::uint8_t> bytes, read_file(path, limits.max_file_bytes));
  return decode_any_snapshot(bytes, path.string());
}

Status save_snapshot(const Snapshot& snapshot, const std::filesystem::path& path, const SnapshotWriteOptions& options) {
  const SnapshotLimits readable;  // a file a default reader takes back
  if (auto v = snapshot.validate(); !v.ok()) return std::move(v).error().wrap("refusing to write {}", path.string());
  if (options.version != kSnapshotVersion && options.version != kSnapshotOldestVersion)
    return Error::make(Errc::kUsage, "refusing to write {}: snapshot file version {} (this build writes {} or {})",
                       path.string(), options.version, kSnapshotOldestVersion, kSnapshotVersion);
  if (options.version == 1 && !snapshot.ldt.empty())
    return Error::make(Errc::kUsage,
                       "refusing to write {} as version 1: the snapshot has {} LDT entries, which version 1 cannot hold "
                       "(write version {})",
                       path.string(), snapshot.ldt.size(), kSnapshotVersion);
  if (snapshot.regions.size() > readable.max_regions)
    return Error::make(Errc::kLimit, "refusing to write {}: {} regions, past the file's limit of {}", path.string(),
                       snapshot.regions.size(), readable.max_regions);
  if (snapshot.threads.size() > readable.max_threads)
    return Error::make(Errc::kLimit, "refusing to write {}: {} threads, past the file's limit of {}", path.string(),
                       snapshot.threads.size(), readable.max_threads);
  auto too_long = [&readable](const std::string& s) { return s.size() > readable.max_name_bytes; };
  for (const Region& r : snapshot.regions)
    if (too_long(r.name))
      return Error::make(Errc::kLimit, "refusing to write {}: region 0x{:08x}'s name is {} bytes (limit {})",
                         path.string(), r.base, r.name.size(), readable.max_name_bytes);
  for (const Module& m : snapshot.meta.modules)
    if (too_long(m.name))
      return Error::make(Errc::kLimit, "refusing to write {}: module name is {} bytes (limit {})", path.string(),
                         m.name.size(), readable.max_name_bytes);
  const auto& meta = snapshot.meta;
  if (too_long(meta.source) || too_long(meta.format) || too_long(meta.exe_path) || too_long(meta.exe_sha256))
    return Error::make(Errc::kLimit, "refusing to write {}: a metadata string is longer than {} bytes", path.string(),
                       readable.max_name_bytes);
  if (meta.modules.size() > readable.max_modules || meta.notes.size() > readable.max_notes)
    return Error::make(Errc::kLimit, "refusing to write {}: {} modules / {} notes (limits {} / {})", path.string(),
                       meta.modules.size(), meta.notes.size(), readable.max_modules, readable.max_notes);
  for (const std::string& n : meta.notes)
    if (n.size() > readable.max_note_bytes)
      return Error::make(Errc::kLimit, "refusing to write {}: a note is {} bytes (limit {})", path.string(), n.size(),
                         readable.max_note_bytes);
  const std::vector<std::uint8_t> bytes = encode_snapshot(snapshot, options);
  return write_file_atomic(path, bytes);
}

}  // namespace lockstep::harness
