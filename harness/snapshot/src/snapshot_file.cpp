// lockstep's snapshot file, versions 2 and 1. Layout (all little-endian; harness/docs/snapshot-format.md):
//
//   header (48 bytes, uncompressed) | info block (zlib: region table, threads, LDT (version 2), metadata) |
//   region data (one zlib stream per region, in table order) | end of file
//
// The reader checks, in this order: magic, version, header CRC, header limits, the info block's
// CRC and inflation, every table entry (limits, overlap, inflation ratio), that the stored region
// data exactly fills the rest of the file, then each region's stored CRC, inflation and data CRC.
// Nothing is allocated from a count or size before it has been checked.
#include "lockstep/snapshot/snapshot_file.hpp"

#include <algorithm>
#include <cstring>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"

namespace lockstep::harness {
namespace {

// Header field offsets (the doc's table).
constexpr std::size_t kOffVersion = 8;
constexpr std::size_t kOffFlags = 12;
constexpr std::size_t kOffRegionCount = 16;
constexpr std::size_t kOffThreadCount = 20;
constexpr std::size_t kOffTotalBytes = 24;
constexpr std::size_t kOffInfoSize = 32;
constexpr std::size_t kOffInfoStored = 36;
constexpr std::size_t kOffInfoCrc = 40;
constexpr std::size_t kOffHeaderCrc = 44;

/// One region table entry as stored (names the fields the reader checks).
struct RegionEntry {
  std::uint32_t base = 0, size = 0;
  std::uint8_t prot = 0;
  std::uint32_t data_crc = 0, stored_size = 0, stored_crc = 0;
  std::string name;
};

std::string hex_bytes(std::span<const std::uint8_t> b) {
  std::string s;
  for (std::size_t i = 0; i < b.size(); ++i) s += fmt::format("{}{:02x}", i ? " " : "", b[i]);
  return s;
}

void put_thread(ByteWriter& w, const Thread& t) {
  w.u32(t.tid);
  for (std::uint32_t v : {t.eax, t.ebx, t.ecx, t.edx, t.esi, t.edi, t.ebp, t.esp, t.eip, t.eflags}) w.u32(v);
  for (std::uint16_t v : {t.cs, t.ds, t.es, t.fs, t.gs, t.ss}) w.u16(v);
  w.u32(t.fs_base);
  w.u32(t.gs_base);
  w.u16(t.x87.control);
  w.u16(t.x87.status);
  w.u16(t.x87.tag);
  w.u8(t.x87_valid ? 1 : 0);
  w.u8(0);
  w.u32(t.x87.mxcsr);
  for (const auto& st : t.x87.st) w.bytes(st);
}

Result<Thread> get_thread(ByteReader& r, std::uint32_t index) {
  const std::string f = fmt::format("thread {}", index);
  Thread t;
  LOCKSTEP_TRY(t.tid, r.u32(f));
  for (std::uint32_t* v : {&t.eax, &t.ebx, &t.ecx, &t.edx, &t.esi, &t.edi, &t.ebp, &t.esp, &t.eip, &t.eflags}) {
    LOCKSTEP_TRY(*v, r.u32(f));
  }
  for (std::uint16_t* v : {&t.cs, &t.ds, &t.es, &t.fs, &t.gs, &t.ss}) {
    LOCKSTEP_TRY(*v, r.u16(f));
  }
  LOCKSTEP_TRY(t.fs_base, r.u32(f));
  LOCKSTEP_TRY(t.gs_base, r.u32(f));
  LOCKSTEP_TRY(t.x87.control, r.u16(f));
  LOCKSTEP_TRY(t.x87.status, r.u16(f));
  LOCKSTEP_TRY(t.x87.tag, r.u16(f));
  const std::size_t valid_at = r.pos();
  LOCKSTEP_TRY(std::uint8_t valid, r.u8(f));
  LOCKSTEP_TRY(std::uint8_t reserved, r.u8(f));
  if (valid > 1 || reserved != 0)
    return Error::make(Errc::kMalformed,
                       "{}: thread {} (tid {}) at info offset 0x{:x}: x87 valid flag {} / reserved {} (must be 0 or 1 / 0)",
                       r.what(), index, t.tid, valid_at, valid, reserved);
  t.x87_valid = valid == 1;
  LOCKSTEP_TRY(t.x87.mxcsr, r.u32(f));
  for (auto& st : t.x87.st) {
    LOCKSTEP_TRY(auto b, r.take(st.size(), f));
    std::memcpy(st.data(), b.data(), st.size());
  }
  return t;
}

Result<std::uint32_t> get_count(ByteReader& r, std::string_view field, std::uint32_t limit) {
  const std::size_t at = r.pos();
  LOCKSTEP_TRY(std::uint32_t n, r.u32(field));
  if (n > limit)
    return Error::make(Errc::kLimit, "{}: {} at info offset 0x{:x} is {}, past the limit of {}", r.what(), field, at,
                       n, limit);
  return n;
}

/// Version 2's LDT table: a count, then 12 bytes per entry, sorted by index.
Status get_ldt(ByteReader& r, std::vector<LdtEntry>& out) {
  LOCKSTEP_TRY(const std::uint32_t n, get_count(r, "LDT entry count", kLdtEntries));
  if (std::uint64_t{n} * 12 > r.remaining())
    return Error::make(Errc::kTruncated, "{}: {} LDT entries cannot fit in the {} bytes left of the info block", r.what(),
                       n, r.remaining());
  out.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::size_t at = r.pos();
    const std::string f = fmt::format("LDT entry {}", i);
    LdtEntry e;
    LOCKSTEP_TRY(e.index, r.u16(f));
    LOCKSTEP_TRY(e.access, r.u8(f));
    LOCKSTEP_TRY(e.flags, r.u8(f));
    LOCKSTEP_TRY(e.base, r.u32(f));
    LOCKSTEP_TRY(e.limit, r.u32(f));
    if (e.index >= kLdtEntries || e.flags > 0xf || e.limit > 0xfffff)
      return Error::make(Errc::kMalformed,
                         "{}: LDT entry {} at info offset 0x{:x}: index {} / flags 0x{:x} / limit 0x{:x} (must be "
                         "below {} / 0x10 / 0x100000)",
                         r.what(), i, at, e.index, e.flags, e.limit, kLdtEntries);
    if (!out.empty() && e.index <= out.back().index)
      return Error::make(Errc::kMalformed,
                         "{}: LDT entry {} at info offset 0x{:x}: index {} after {} (entries must be sorted, each index once)",
                         r.what(), i, at, e.index, out.back().index);
    out.push_back(e);
  }
  return {};
}

}  // namespace

bool is_lockstep_snapshot(std::span<const std::uint8_t> first_bytes) noexcept {
  return first_bytes.size() >= kSnapshotMagic.size() &&
         std::equal(kSnapshotMagic.begin(), kSnapshotMagic.end(), first_bytes.begin());
}

std::vector<std::uint8_t> encode_snapshot(const Snapshot& s, const SnapshotWriteOptions& options) {
  // Region data first (the table needs each stored size and CRC).
  std::vector<std::vector<std::uint8_t>> stored;
  stored.reserve(s.regions.size());
  for (const Region& r : s.regions) stored.push_back(zlib_compress(r.bytes, options.zlib_level));

  ByteWriter info;
  for (std::size_t i = 0; i < s.regions.size(); ++i) {
    const Region& r = s.regions[i];
    info.u32(r.base);
    info.u32(static_cast<std::uint32_t>(r.bytes.size()));
    info.u8(r.prot);
    info.u8(0);
    info.u8(0);
    info.u8(0);
    info.u32(crc32(r.bytes));
    info.u32(static_cast<std::uint32_t>(stored[i].size()));
    info.u32(crc32(stored[i]));
    info.str32(r.name);
  }
  for (const Thread& t : s.threads) put_thread(info, t);
  if (options.version >= 2) {
    info.u32(static_cast<std::uint32_t>(s.ldt.size()));
    for (const LdtEntry& e : s.ldt) {
      info.u16(e.index);
      info.u8(e.access);
      info.u8(e.flags);
      info.u32(e.base);
      info.u32(e.limit);
    }
  }
  info.str32(s.meta.source);
  info.str32(s.meta.format);
  info.put<std::int64_t>(s.meta.created_unix);
  info.str32(s.meta.exe_path);
  info.str32(s.meta.exe_sha256);
  info.u32(static_cast<std::uint32_t>(s.meta.modules.size()));
  for (const Module& m : s.meta.modules) {
    info.u32(m.base);
    info.u32(m.size);
    info.str32(m.name);
  }
  info.u32(static_cast<std::uint32_t>(s.meta.notes.size()));
  for (const std::string& n : s.meta.notes) info.str32(n);

  const auto& info_raw = info.out();
  std::vector<std::uint8_t> info_stored = zlib_compress(
      std::span(reinterpret_cast<const std::uint8_t*>(info_raw.data()), info_raw.size()), options.zlib_level);

  ByteWriter h;
  h.bytes(kSnapshotMagic);
  h.u32(options.version);
  h.u32(0);  // flags
  h.u32(static_cast<std::uint32_t>(s.regions.size()));
  h.u32(static_cast<std::uint32_t>(s.threads.size()));
  h.u64(s.total_bytes());
  h.u32(static_cast<std::uint32_t>(info_raw.size()));
  h.u32(static_cast<std::uint32_t>(info_stored.size()));
  h.u32(crc32(info_stored));
  h.u32(crc32(std::span(reinterpret_cast<const std::uint8_t*>(h.out().data()), h.out().size())));

  std::vector<std::uint8_t> out(h.out().begin(), h.out().end());
  out.insert(out.end(), info_stored.begin(), info_stored.end());
  for (const auto& d : stored) out.insert(out.end(), d.begin(), d.end());
  return out;
}

namespace {

/// The fixed header's fields, each checked against its limit.
struct SnapshotHeader {
  std::uint32_t version, flags, region_count, thread_count;
  std::uint64_t total_bytes;
  std::uint32_t info_size, info_stored_size, info_crc;
};

/// The header: magic, version, its checksum, the counts and sizes within their limits.
Result<SnapshotHeader> get_header(std::span<const std::uint8_t> file, const std::string& what,
                                  const SnapshotLimits& lim) {
  if (file.size() < kSnapshotMagic.size() || !is_lockstep_snapshot(file)) {
    const auto first = file.first(std::min<std::size_t>(file.size(), kSnapshotMagic.size()));
    if (std::equal(first.begin(), first.end(), kSnapshotMagic.begin()))
      return Error::make(Errc::kTruncated, "{}: file is {} bytes, shorter than the {}-byte magic", what, file.size(),
                         kSnapshotMagic.size());
    return Error::make(Errc::kBadMagic, "{}: not a lockstep snapshot: first bytes {} (expected {})", what,
                       hex_bytes(first), hex_bytes(kSnapshotMagic));
  }
  if (file.size() < kSnapshotHeaderSize)
    return Error::make(Errc::kTruncated, "{}: file is {} bytes, shorter than the {}-byte header", what, file.size(),
                       kSnapshotHeaderSize);
  ByteReader hr(file, what);
  LOCKSTEP_TRY(const std::uint32_t version, hr.read_at<std::uint32_t>(kOffVersion, "version"));
  if (version < kSnapshotOldestVersion || version > kSnapshotVersion)
    return Error::make(Errc::kBadVersion,
                       "{}: snapshot file version {} (at offset 0x{:x}); this build reads versions {} to {}", what,
                       version, kOffVersion, kSnapshotOldestVersion, kSnapshotVersion);
  LOCKSTEP_TRY(const std::uint32_t header_crc, hr.read_at<std::uint32_t>(kOffHeaderCrc, "header crc32"));
  const std::uint32_t header_crc_now = crc32(file.first(kOffHeaderCrc));
  if (header_crc != header_crc_now)
    return Error::make(Errc::kChecksum, "{}: header crc32 is 0x{:08x} (at offset 0x{:x}) but the header's bytes give 0x{:08x}",
                       what, header_crc, kOffHeaderCrc, header_crc_now);
  LOCKSTEP_TRY(const std::uint32_t flags, hr.read_at<std::uint32_t>(kOffFlags, "flags"));
  LOCKSTEP_TRY(const std::uint32_t region_count, hr.read_at<std::uint32_t>(kOffRegionCount, "region count"));
  LOCKSTEP_TRY(const std::uint32_t thread_count, hr.read_at<std::uint32_t>(kOffThreadCount, "thread count"));
  LOCKSTEP_TRY(const std::uint64_t total_bytes, hr.read_at<std::uint64_t>(kOffTotalBytes, "total region bytes"));
  LOCKSTEP_TRY(const std::uint32_t info_size, hr.read_at<std::uint32_t>(kOffInfoSize, "info size"));
  LOCKSTEP_TRY(const std::uint32_t info_stored_size, hr.read_at<std::uint32_t>(kOffInfoStored, "info stored size"));
  LOCKSTEP_TRY(const std::uint32_t info_crc, hr.read_at<std::uint32_t>(kOffInfoCrc, "info crc32"));
  if (flags != 0)
    return Error::make(Errc::kMalformed, "{}: header flags 0x{:08x} (at offset 0x{:x}): no flags are defined in version {}",
                       what, flags, kOffFlags, version);
  if (region_count > lim.max_regions)
    return Error::make(Errc::kLimit, "{}: region count {} (at offset 0x{:x}) is past the limit of {}", what,
                       region_count, kOffRegionCount, lim.max_regions);
  if (thread_count > lim.max_threads)
    return Error::make(Errc::kLimit, "{}: thread count {} (at offset 0x{:x}) is past the limit of {}", what,
                       thread_count, kOffThreadCount, lim.max_threads);
  if (total_bytes > lim.max_total_bytes)
    return Error::make(Errc::kLimit, "{}: total region bytes 0x{:x} (at offset 0x{:x}) is past the limit of 0x{:x}",
                       what, total_bytes, kOffTotalBytes, lim.max_total_bytes);
  if (info_size > lim.max_info_bytes)
    return Error::make(Errc::kLimit, "{}: info block size {} (at offset 0x{:x}) is past the limit of {}", what,
                       info_size, kOffInfoSize, lim.max_info_bytes);
  if (std::uint64_t{info_size} > std::uint64_t{info_stored_size} * kSnapshotMaxInflateRatio)
    return Error::make(Errc::kMalformed, "{}: info block claims to inflate from {} to {} bytes, more than zlib can",
                       what, info_stored_size, info_size);

  return SnapshotHeader{version, flags, region_count, thread_count, total_bytes, info_size, info_stored_size, info_crc};
}

/// The region table: every entry within 4 GiB, sorted and apart, the sizes adding up to the header's
/// total; `sum_stored` is the stored (compressed) bytes they claim.
Result<std::vector<RegionEntry>> get_region_table(ByteReader& r, std::uint32_t region_count, std::uint64_t total_bytes,
                                                  const std::string& what, const SnapshotLimits& lim,
                                                  std::uint64_t& sum_stored) {
  std::vector<RegionEntry> entries;
  entries.reserve(region_count);
  std::uint64_t sum_sizes = 0;
  sum_stored = 0;
  for (std::uint32_t i = 0; i < region_count; ++i) {
    const std::size_t at = r.pos();
    const std::string f = fmt::format("region {}", i);
    RegionEntry e;
    LOCKSTEP_TRY(e.base, r.u32(f));
    LOCKSTEP_TRY(e.size, r.u32(f));
    LOCKSTEP_TRY(e.prot, r.u8(f));
    LOCKSTEP_TRY(auto reserved, r.take(3, f));
    LOCKSTEP_TRY(e.data_crc, r.u32(f));
    LOCKSTEP_TRY(e.stored_size, r.u32(f));
    LOCKSTEP_TRY(e.stored_crc, r.u32(f));
    LOCKSTEP_TRY(e.name, r.str32(f + " name", lim.max_name_bytes));
    const std::string where = fmt::format("{}: region {} ({}, table entry at info offset 0x{:x})", what, i, e.name, at);
    if (e.prot & ~(kProtRead | kProtWrite | kProtExec) || reserved[0] || reserved[1] || reserved[2])
      return Error::make(Errc::kMalformed, "{}: protection 0x{:02x} / reserved bytes {} (only bits 0..2, zeros)", where,
                         e.prot, hex_bytes(reserved));
    if (e.size == 0) return Error::make(Errc::kMalformed, "{}: size is 0", where);
    if (std::uint64_t{e.base} + e.size > (std::uint64_t{1} << 32))
      return Error::make(Errc::kMalformed, "{}: 0x{:08x} + size 0x{:x} runs past 4 GiB", where, e.base, e.size);
    if (std::uint64_t{e.size} > std::uint64_t{e.stored_size} * kSnapshotMaxInflateRatio)
      return Error::make(Errc::kMalformed, "{}: claims to inflate from {} to {} bytes, more than zlib can", where,
                         e.stored_size, e.size);
    if (i > 0) {
      const RegionEntry& p = entries.back();
      const std::uint64_t p_end = std::uint64_t{p.base} + p.size;
      if (e.base < p.base)
        return Error::make(Errc::kMalformed, "{}: base 0x{:08x} is below region {}'s 0x{:08x} (regions must be sorted)",
                           where, e.base, i - 1, p.base);
      if (e.base < p_end)
        return Error::make(Errc::kMalformed, "{}: 0x{:08x}..0x{:08x} overlaps region {} ({}, 0x{:08x}..0x{:08x})",
                           where, e.base, std::uint64_t{e.base} + e.size, i - 1, p.name, p.base, p_end);
    }
    sum_sizes += e.size;
    sum_stored += e.stored_size;
    entries.push_back(std::move(e));
  }
  if (sum_sizes != total_bytes)
    return Error::make(Errc::kMalformed, "{}: region sizes add up to 0x{:x} bytes, header says 0x{:x}", what,
                       sum_sizes, total_bytes);

  return entries;
}

/// The info block after the region table: threads, the LDT (version 2), the metadata, modules and
/// notes, and nothing after them.
Status get_metadata(ByteReader& r, std::uint32_t version, std::uint32_t thread_count, const std::string& what,
                    const SnapshotLimits& lim, Snapshot& s) {
  s.threads.reserve(thread_count);
  for (std::uint32_t i = 0; i < thread_count; ++i) {
    LOCKSTEP_TRY(Thread t, get_thread(r, i));
    s.threads.push_back(t);
  }
  if (version >= 2) LOCKSTEP_TRY_STATUS(get_ldt(r, s.ldt));
  LOCKSTEP_TRY(s.meta.source, r.str32("metadata source", lim.max_name_bytes));
  LOCKSTEP_TRY(s.meta.format, r.str32("metadata format", lim.max_name_bytes));
  LOCKSTEP_TRY(s.meta.created_unix, r.read<std::int64_t>("metadata time"));
  LOCKSTEP_TRY(s.meta.exe_path, r.str32("metadata exe path", lim.max_name_bytes));
  LOCKSTEP_TRY(s.meta.exe_sha256, r.str32("metadata exe sha256", lim.max_name_bytes));
  LOCKSTEP_TRY(const std::uint32_t module_count, get_count(r, "module count", lim.max_modules));
  if (std::uint64_t{module_count} * 12 > r.remaining())
    return Error::make(Errc::kTruncated, "{}: {} modules cannot fit in the {} bytes left of the info block", what,
                       module_count, r.remaining());
  s.meta.modules.reserve(module_count);
  for (std::uint32_t i = 0; i < module_count; ++i) {
    Module m;
    LOCKSTEP_TRY(m.base, r.u32("module base"));
    LOCKSTEP_TRY(m.size, r.u32("module size"));
    LOCKSTEP_TRY(m.name, r.str32("module name", lim.max_name_bytes));
    s.meta.modules.push_back(std::move(m));
  }
  LOCKSTEP_TRY(const std::uint32_t note_count, get_count(r, "note count", lim.max_notes));
  if (std::uint64_t{note_count} * 4 > r.remaining())
    return Error::make(Errc::kTruncated, "{}: {} notes cannot fit in the {} bytes left of the info block", what,
                       note_count, r.remaining());
  s.meta.notes.reserve(note_count);
  for (std::uint32_t i = 0; i < note_count; ++i) {
    LOCKSTEP_TRY(std::string n, r.str32("note", lim.max_note_bytes));
    s.meta.notes.push_back(std::move(n));
  }
  if (r.remaining() != 0)
    return Error::make(Errc::kMalformed, "{}: info block has {} unexpected bytes after the metadata (at info offset 0x{:x})",
                       what, r.remaining(), r.pos());

  return {};
}

/// The regions' data, which must fill the rest of the file exactly from `data_at`: each checked
/// stored and inflated against the table.
Status get_region_data(std::span<const std::uint8_t> file, std::uint64_t data_at, std::vector<RegionEntry>& entries,
                       std::uint64_t sum_stored, const std::string& what, Snapshot& s) {
  const std::uint64_t data_have = file.size() - data_at;  // slice() above proved data_at <= size
  if (sum_stored > data_have) {
    std::uint64_t off = data_at;
    std::size_t i = 0;
    while (i < entries.size() && off + entries[i].stored_size <= file.size()) off += entries[i++].stored_size;
    return Error::make(Errc::kTruncated,
                       "{}: region {} ({}) data at offset 0x{:x} ({} bytes) runs past the end of the file (size 0x{:x})",
                       what, i, i < entries.size() ? entries[i].name : "?", off,
                       i < entries.size() ? entries[i].stored_size : 0, file.size());
  }
  if (sum_stored < data_have)
    return Error::make(Errc::kMalformed, "{}: {} unexpected bytes after the last region's data (at offset 0x{:x})", what,
                       data_have - sum_stored, data_at + sum_stored);

  s.regions.reserve(entries.size());
  std::uint64_t off = data_at;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    RegionEntry& e = entries[i];
    const auto stored = file.subspan(static_cast<std::size_t>(off), e.stored_size);
    const std::string where = fmt::format("{}: region {} ({}, 0x{:08x}, data at offset 0x{:x})", what, i, e.name, e.base, off);
    const std::uint32_t stored_crc_now = crc32(stored);
    if (stored_crc_now != e.stored_crc)
      return Error::make(Errc::kChecksum, "{}: stored data has crc32 0x{:08x}, the table says 0x{:08x}", where,
                         stored_crc_now, e.stored_crc);
    LOCKSTEP_TRY(std::vector<std::uint8_t> bytes, zlib_decompress(stored, e.size, where));
    const std::uint32_t data_crc_now = crc32(bytes);
    if (data_crc_now != e.data_crc)
      return Error::make(Errc::kChecksum, "{}: inflated bytes have crc32 0x{:08x}, the table says 0x{:08x}", where,
                         data_crc_now, e.data_crc);
    s.regions.push_back(Region{e.base, std::move(bytes), e.prot, std::move(e.name)});
    off += e.stored_size;
  }
  return {};
}

}  // namespace

Result<Snapshot> decode_snapshot(std::span<const std::uint8_t> file, std::string_view what_view,
                                 const SnapshotLimits& limits) {
  const std::string what(what_view);
  LOCKSTEP_TRY(const SnapshotHeader h, get_header(file, what, limits));
  ByteReader hr(file, what);

  // --- info block ---
  LOCKSTEP_TRY(auto info_stored, hr.slice(kSnapshotHeaderSize, h.info_stored_size, "info block"));
  const std::uint32_t info_crc_now = crc32(info_stored);
  if (h.info_crc != info_crc_now)
    return Error::make(Errc::kChecksum, "{}: info block (offset 0x{:x}, {} bytes) has crc32 0x{:08x}, header says 0x{:08x}",
                       what, kSnapshotHeaderSize, h.info_stored_size, info_crc_now, h.info_crc);
  LOCKSTEP_TRY(const std::vector<std::uint8_t> info, zlib_decompress(info_stored, h.info_size, what + ": info block"));
  ByteReader r(info, what + " (info block)");

  // Minimum sizes of a region entry (24 bytes + name) and a thread (156 bytes): a count that cannot
  // fit in the info block is refused before anything is reserved.
  if (std::uint64_t{h.region_count} * 24 + std::uint64_t{h.thread_count} * 156 > info.size())
    return Error::make(Errc::kTruncated, "{}: info block of {} bytes cannot hold {} regions and {} threads", what,
                       info.size(), h.region_count, h.thread_count);

  std::uint64_t sum_stored = 0;
  LOCKSTEP_TRY(std::vector<RegionEntry> entries, get_region_table(r, h.region_count, h.total_bytes, what, limits, sum_stored));
  Snapshot s;
  LOCKSTEP_TRY_STATUS(get_metadata(r, h.version, h.thread_count, what, limits, s));

  // --- region data: must fill the rest of the file exactly ---
  const std::uint64_t data_at = kSnapshotHeaderSize + std::uint64_t{h.info_stored_size};
  LOCKSTEP_TRY_STATUS(get_region_data(file, data_at, entries, sum_stored, what, s));
  return s;
}

}  // namespace lockstep::harness
