#include "lockstep/cases/case_file.hpp"

#include <algorithm>
#include <cstring>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"

namespace lockstep::cases {

namespace {

constexpr char kMagic[8] = {'L', 'K', 'C', 'A', 'S', 'E', '\r', '\n'};
constexpr std::size_t kHeaderSize = 40;

void put_x87(ByteWriter& w, const X87State& x) {
  w.u16(x.control);
  w.u16(x.status);
  w.u16(x.tag);
  w.u16(0);
  for (const auto& st : x.st) w.bytes(st);
  w.u32(x.mxcsr);
}

void put_regs(ByteWriter& w, const Registers& r) {
  for (std::uint32_t v : {r.eax, r.ebx, r.ecx, r.edx, r.esi, r.edi, r.ebp, r.esp, r.eip, r.eflags}) w.u32(v);
  put_x87(w, r.x87);
}

void put_map(ByteWriter& w, const ByteMap& m) {
  w.u32(static_cast<std::uint32_t>(m.run_count()));
  m.for_each_run([&w](GuestAddr base, std::span<const std::uint8_t> bytes) {
    w.u32(base);
    w.u32(static_cast<std::uint32_t>(bytes.size()));
    w.bytes(bytes);
  });
}

Result<X87State> get_x87(ByteReader& r) {
  X87State x;
  LOCKSTEP_TRY(x.control, r.u16("x87 control word"));
  LOCKSTEP_TRY(x.status, r.u16("x87 status word"));
  LOCKSTEP_TRY(x.tag, r.u16("x87 tag word"));
  LOCKSTEP_TRY(auto pad, r.u16("x87 padding"));
  (void)pad;
  for (auto& st : x.st) {
    LOCKSTEP_TRY(auto s, r.take(10, "x87 register"));
    std::memcpy(st.data(), s.data(), 10);
  }
  LOCKSTEP_TRY(x.mxcsr, r.u32("mxcsr"));
  return x;
}

Result<Registers> get_regs(ByteReader& r, std::string_view which) {
  Registers g;
  for (std::uint32_t* p : {&g.eax, &g.ebx, &g.ecx, &g.edx, &g.esi, &g.edi, &g.ebp, &g.esp, &g.eip, &g.eflags}) {
    LOCKSTEP_TRY(*p, r.u32(which));
  }
  LOCKSTEP_TRY(g.x87, get_x87(r));
  return g;
}

Result<ByteMap> get_map(ByteReader& r, std::string_view which, const CaseFileLimits& lim) {
  ByteMap m;
  LOCKSTEP_TRY(std::uint32_t runs, r.u32(which));
  if (runs > lim.max_runs_per_map)
    return Error::make(Errc::kLimit, "{}: {} has {} runs at offset 0x{:x}, past the limit of {}", r.what(), which,
                       runs, r.pos() - 4, lim.max_runs_per_map);
  // Room for the runs the rest of the file can hold (a run takes at least 9 bytes), so a count
  // that lies cannot make a large allocation.
  m.reserve(std::min<std::size_t>(runs, r.remaining() / 9), 0);
  std::uint64_t prev_end = 0;
  for (std::uint32_t i = 0; i < runs; ++i) {
    LOCKSTEP_TRY(std::uint32_t base, r.u32(which));
    LOCKSTEP_TRY(std::uint32_t len, r.u32(which));
    if (len == 0 || len > lim.max_run_bytes)
      return Error::make(Errc::kLimit, "{}: {} run {} at offset 0x{:x} has length {} (must be 1..{})", r.what(), which,
                         i, r.pos() - 4, len, lim.max_run_bytes);
    if (std::uint64_t{base} + len > (std::uint64_t{1} << 32))
      return Error::make(Errc::kMalformed, "{}: {} run {} at 0x{:08x} (+{}) wraps past 4 GiB", r.what(), which, i,
                         base, len);
    if (i > 0 && base < prev_end)
      return Error::make(Errc::kMalformed, "{}: {} run {} at 0x{:08x} overlaps or precedes the run before it",
                         r.what(), which, i, base);
    LOCKSTEP_TRY(auto bytes, r.take(len, which));
    m.append(base, bytes);  // ascending (checked above): a run of its own, or the last one grown
    prev_end = std::uint64_t{base} + len;
  }
  return m;
}

void put_writers(ByteWriter& w, const std::vector<WriterRun>& runs) {
  w.u32(static_cast<std::uint32_t>(runs.size()));
  for (const WriterRun& r : runs) {
    w.u32(r.base);
    w.u32(r.length);
    w.u32(r.writer);
  }
}

// The writer runs of version 3: none (not recorded), or exactly the bytes of `writes`, ascending,
// one instruction per run, two touching runs only with different writers (one writer, one run), so
// the same call always gives the same list.
Result<std::vector<WriterRun>> get_writers(ByteReader& r, const ByteMap& writes, std::uint32_t case_index,
                                           const CaseFileLimits& lim) {
  LOCKSTEP_TRY(std::uint32_t count, r.u32("writer run count"));
  if (count > lim.max_runs_per_map)
    return Error::make(Errc::kLimit, "{}: case {} has {} writer runs, past the limit of {}", r.what(), case_index,
                       count, lim.max_runs_per_map);
  std::vector<WriterRun> runs;
  if (count == 0) return runs;  // none recorded (a case carried over from a file before version 3), or no writes
  runs.reserve(std::min<std::size_t>(count, r.remaining() / 12));
  std::size_t map_run = 0;       // the run of `writes` the next writer run lies in
  std::uint64_t covered_to = 0;  // within writes.run(map_run), bytes below this are covered
  for (std::uint32_t i = 0; i < count; ++i) {
    WriterRun w;
    LOCKSTEP_TRY(w.base, r.u32("writer run base"));
    LOCKSTEP_TRY(w.length, r.u32("writer run length"));
    LOCKSTEP_TRY(w.writer, r.u32("writer address"));
    if (w.length == 0 || w.length > lim.max_run_bytes)
      return Error::make(Errc::kLimit, "{}: case {} writer run {} has length {} (must be 1..{})", r.what(), case_index,
                         i, w.length, lim.max_run_bytes);
    if (map_run < writes.run_count() && covered_to == writes.run(map_run).end()) {
      ++map_run;
      if (map_run < writes.run_count()) covered_to = writes.run(map_run).base;
    } else if (i == 0 && writes.run_count() > 0) {
      covered_to = writes.run(0).base;
    }
    if (map_run >= writes.run_count())
      return Error::make(Errc::kMalformed, "{}: case {} writer run {} at 0x{:08x} lies past the written bytes",
                         r.what(), case_index, i, w.base);
    if (w.base != covered_to)
      return Error::make(Errc::kMalformed,
                         "{}: case {} writer run {} starts at 0x{:08x}, the written bytes continue at 0x{:08x} "
                         "(writer runs must cover the written bytes in order, each once)",
                         r.what(), case_index, i, w.base, covered_to);
    if (w.end() > writes.run(map_run).end())
      return Error::make(Errc::kMalformed, "{}: case {} writer run {} at 0x{:08x} (+{}) runs past the written bytes",
                         r.what(), case_index, i, w.base, w.length);
    if (!runs.empty() && runs.back().end() == w.base && runs.back().writer == w.writer)
      return Error::make(Errc::kMalformed,
                         "{}: case {} writer runs {} and {} touch and share the writer 0x{:08x} (they are one run)",
                         r.what(), case_index, i - 1, i, w.writer);
    covered_to = w.end();
    runs.push_back(w);
  }
  const bool all = writes.run_count() == 0
                       ? runs.empty()
                       : (map_run + 1 == writes.run_count() && covered_to == writes.run(map_run).end());
  if (!all)
    return Error::make(Errc::kMalformed, "{}: case {}: its {} writer runs leave written bytes without a writer",
                       r.what(), case_index, count);
  return runs;
}

Result<std::string> get_str(ByteReader& r, std::string_view which, const CaseFileLimits& lim) {
  return r.str32(which, lim.max_string_bytes);
}

}  // namespace

std::vector<std::uint8_t> encode_case_file(const CaseFile& f) {
  ByteWriter body;
  body.str32(f.name);
  body.u32(f.code_base);
  body.u32(static_cast<std::uint32_t>(f.code.size()));
  body.bytes(f.code);
  body.u32(static_cast<std::uint32_t>(f.helper_code.size()));
  for (const CodeRange& r : f.helper_code) {
    body.u32(r.base);
    body.u32(static_cast<std::uint32_t>(r.bytes.size()));
    body.bytes(r.bytes);
  }
  for (const Case& c : f.cases) {
    body.u32(c.id);
    body.u32(c.function);
    body.str32(c.name);
    body.u8(static_cast<std::uint8_t>(c.convention));
    body.u8(static_cast<std::uint8_t>(c.returns));
    body.u16(c.poked_registers);
    put_regs(body, c.in);
    put_regs(body, c.out);
    put_map(body, c.inputs);
    put_map(body, c.writes);
    body.u32(c.frame_bytes_written);
    body.u32(c.stack_low);
    body.u32(c.stack_high);
    put_writers(body, c.writers);
    body.str32(c.origin.snapshot_sha256);
    body.str32(c.origin.record);
    for (std::uint32_t v : {c.origin.record_index, c.origin.step, c.origin.instance, c.origin.call_index}) body.u32(v);
    body.u32(static_cast<std::uint32_t>(c.pokes.size()));
    for (const Poke& p : c.pokes) {
      body.u32(p.address);
      body.u32(static_cast<std::uint32_t>(p.bytes.size()));
      body.bytes(p.bytes);
    }
    body.str32(c.note);
  }
  std::span<const std::uint8_t> raw(reinterpret_cast<const std::uint8_t*>(body.out().data()), body.out().size());
  // Level 6 (zlib's default): within a few per cent of 9's size, several times faster to write.
  auto packed = zlib_compress(raw, 6);
  ByteWriter out;
  out.out().append(kMagic, sizeof kMagic);
  out.u32(kCaseFileVersion);
  out.u32(f.function);
  out.u32(static_cast<std::uint32_t>(f.cases.size()));
  out.u32(0);  // flags
  out.u64(raw.size());
  out.u32(crc32(raw));
  out.u32(static_cast<std::uint32_t>(packed.size()));
  out.bytes(packed);
  const auto& s = out.out();
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

namespace {

/// The code ranges of the entry's private helpers (version 3), after its `code_len` bytes of code:
/// each non-empty, inside 4 GiB, in ascending order and apart from the entry's code.
Status get_helper_code(ByteReader& r, CaseFile& f, std::uint32_t code_len, const std::string& what,
                       const CaseFileLimits& lim) {
  LOCKSTEP_TRY(std::uint32_t ranges, r.u32("helper code range count"));
  if (ranges > lim.max_helper_ranges)
    return Error::make(Errc::kLimit, "{}: {} helper code ranges, past the limit of {}", what, ranges,
                       lim.max_helper_ranges);
  std::uint64_t total = code_len;
  for (std::uint32_t i = 0; i < ranges; ++i) {
    CodeRange cr;
    LOCKSTEP_TRY(cr.base, r.u32("helper code base"));
    LOCKSTEP_TRY(std::uint32_t len, r.u32("helper code length"));
    total += len;
    if (len == 0 || total > lim.max_code_bytes)
      return Error::make(Errc::kLimit, "{}: helper code range {} at 0x{:08x} has {} bytes (1 or more, at most {} "
                         "code bytes in all)", what, i, cr.base, len, lim.max_code_bytes);
    if (cr.base + std::uint64_t{len} > (std::uint64_t{1} << 32))
      return Error::make(Errc::kMalformed, "{}: helper code range {} at 0x{:08x} (+{}) wraps past 4 GiB", what, i,
                         cr.base, len);
    const bool overlaps_entry = !f.code.empty() && cr.base < f.code_base + std::uint64_t{f.code.size()} &&
                                f.code_base < cr.base + std::uint64_t{len};
    if (overlaps_entry || (!f.helper_code.empty() && cr.base < f.helper_code.back().end()))
      return Error::make(Errc::kMalformed, "{}: helper code range {} at 0x{:08x} overlaps or precedes another range",
                         what, i, cr.base);
    LOCKSTEP_TRY(auto b, r.take(len, "helper code bytes"));
    cr.bytes.assign(b.begin(), b.end());
    f.helper_code.push_back(std::move(cr));
  }
  return {};
}

/// Case `i` of file `f` (its earlier cases already read), as case file `version` holds it.
Result<Case> get_case(ByteReader& r, const CaseFile& f, std::uint32_t version, std::uint32_t i, const std::string& what,
                      const CaseFileLimits& lim) {
  Case c;
  LOCKSTEP_TRY(c.id, r.u32("case id"));
  // Ids ascend (captures number 0, 1, ...; added cases take the next free id): a repeated id
  // would make "FUNCTION:ID" name two cases.
  if (i > 0 && c.id <= f.cases.back().id)
    return Error::make(Errc::kMalformed, "{}: case {} has id {}, not above the previous case's id {}", what, i, c.id,
                       f.cases.back().id);
  LOCKSTEP_TRY(c.function, r.u32("case function"));
  if (c.function != f.function)
    return Error::make(Errc::kMalformed, "{}: case {} is for function 0x{:08x}, the file for 0x{:08x}", what, i,
                       c.function, f.function);
  LOCKSTEP_TRY(c.name, get_str(r, "case name", lim));
  LOCKSTEP_TRY(std::uint8_t conv, r.u8("convention"));
  LOCKSTEP_TRY(std::uint8_t ret, r.u8("returns"));
  LOCKSTEP_TRY(c.poked_registers, r.u16("poked registers"));
  if (c.poked_registers & ~kPokedRegisterMask)
    return Error::make(Errc::kMalformed, "{}: case {} has poked-register bits 0x{:04x}, past the defined 0x{:02x}", what,
                       i, c.poked_registers, kPokedRegisterMask);
  if (conv > static_cast<std::uint8_t>(Convention::kCustom) || ret > static_cast<std::uint8_t>(ReturnKind::kSt0))
    return Error::make(Errc::kMalformed, "{}: case {} has convention {} / returns {}, out of range", what, i, conv,
                       ret);
  c.convention = static_cast<Convention>(conv);
  c.returns = static_cast<ReturnKind>(ret);
  LOCKSTEP_TRY(c.in, get_regs(r, "registers in"));
  LOCKSTEP_TRY(c.out, get_regs(r, "registers out"));
  LOCKSTEP_TRY(c.inputs, get_map(r, "input bytes", lim));
  LOCKSTEP_TRY(c.writes, get_map(r, "written bytes", lim));
  LOCKSTEP_TRY(c.frame_bytes_written, r.u32("frame bytes"));
  if (version >= 2) {
    LOCKSTEP_TRY(c.stack_low, r.u32("stack low"));
    LOCKSTEP_TRY(c.stack_high, r.u32("stack high"));
    const bool recorded = c.stack_low != 0 || c.stack_high != 0;
    if (recorded && !(c.stack_low < c.stack_high && c.in.esp >= c.stack_low && c.in.esp < c.stack_high))
      return Error::make(Errc::kMalformed, "{}: case {}: stack [0x{:08x}, 0x{:08x}) does not hold its entry esp 0x{:08x}",
                         what, i, c.stack_low, c.stack_high, c.in.esp);
  }
  if (version >= 3) {
    LOCKSTEP_TRY(c.writers, get_writers(r, c.writes, i, lim));
  }
  LOCKSTEP_TRY(c.origin.snapshot_sha256, get_str(r, "origin snapshot", lim));
  LOCKSTEP_TRY(c.origin.record, get_str(r, "origin record", lim));
  for (std::uint32_t* p : {&c.origin.record_index, &c.origin.step, &c.origin.instance, &c.origin.call_index}) {
    LOCKSTEP_TRY(*p, r.u32("origin"));
  }
  LOCKSTEP_TRY(std::uint32_t npokes, r.u32("poke count"));
  if (npokes > lim.max_pokes)
    return Error::make(Errc::kLimit, "{}: case {} has {} pokes, past the limit of {}", what, i, npokes, lim.max_pokes);
  for (std::uint32_t k = 0; k < npokes; ++k) {
    Poke p;
    LOCKSTEP_TRY(p.address, r.u32("poke address"));
    LOCKSTEP_TRY(std::uint32_t len, r.u32("poke length"));
    if (len > lim.max_run_bytes)
      return Error::make(Errc::kLimit, "{}: case {} poke {} is {} bytes, past the limit of {}", what, i, k, len,
                         lim.max_run_bytes);
    LOCKSTEP_TRY(auto b, r.take(len, "poke bytes"));
    p.bytes.assign(b.begin(), b.end());
    c.pokes.push_back(std::move(p));
  }
  LOCKSTEP_TRY(c.note, get_str(r, "note", lim));
  return c;
}

}  // namespace

Result<CaseFile> decode_case_file(std::span<const std::uint8_t> bytes, const std::string& what,
                                  const CaseFileLimits& limits) {
  ByteReader h(bytes, what);
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return Error::make(Errc::kBadMagic, "{}: not a lockstep case file (no LKCASE magic at offset 0)", what);
  if (bytes.size() < kHeaderSize)
    return Error::make(Errc::kTruncated, "{}: {} bytes, shorter than the {}-byte header", what, bytes.size(),
                       kHeaderSize);
  LOCKSTEP_TRY_STATUS(h.seek(8));
  LOCKSTEP_TRY(std::uint32_t version, h.u32("version"));
  if (version < kOldestCaseFileVersion || version > kCaseFileVersion)
    return Error::make(Errc::kBadVersion, "{}: case file version {}, this build reads versions {} to {}", what, version,
                       kOldestCaseFileVersion, kCaseFileVersion);
  CaseFile f;
  LOCKSTEP_TRY(f.function, h.u32("function address"));
  LOCKSTEP_TRY(std::uint32_t count, h.u32("case count"));
  LOCKSTEP_TRY(std::uint32_t flags, h.u32("flags"));
  LOCKSTEP_TRY(std::uint64_t body_size, h.u64("body size"));
  LOCKSTEP_TRY(std::uint32_t body_crc, h.u32("body checksum"));
  LOCKSTEP_TRY(std::uint32_t packed_size, h.u32("compressed size"));
  if (flags != 0) return Error::make(Errc::kUnsupported, "{}: unknown flags 0x{:x} in the header", what, flags);
  if (count > limits.max_cases)
    return Error::make(Errc::kLimit, "{}: {} cases, past the limit of {}", what, count, limits.max_cases);
  if (body_size > limits.max_body_bytes)
    return Error::make(Errc::kLimit, "{}: body of {} bytes, past the limit of {}", what, body_size,
                       limits.max_body_bytes);
  LOCKSTEP_TRY(auto packed, h.slice(kHeaderSize, packed_size, "compressed body"));
  if (kHeaderSize + std::uint64_t{packed_size} != bytes.size())
    return Error::make(Errc::kMalformed, "{}: {} bytes after the compressed body", what,
                       bytes.size() - kHeaderSize - packed_size);
  // zlib cannot expand past about 1032:1: a larger claim is refused before its buffer is allocated
  // (a 40-byte file must not cost a gigabyte).
  if (body_size > std::uint64_t{packed_size} * 1032 + 1024)
    return Error::make(Errc::kMalformed, "{}: {} compressed bytes cannot inflate to the {} announced", what, packed_size,
                       body_size);
  LOCKSTEP_TRY(auto raw, zlib_decompress(packed, body_size, what));
  if (crc32(raw) != body_crc)
    return Error::make(Errc::kChecksum, "{}: body checksum 0x{:08x} does not match the stored 0x{:08x}", what,
                       crc32(raw), body_crc);
  ByteReader r(raw, what + " (body)");
  LOCKSTEP_TRY(f.name, get_str(r, "function name", limits));
  LOCKSTEP_TRY(f.code_base, r.u32("code base"));
  LOCKSTEP_TRY(std::uint32_t code_len, r.u32("code length"));
  if (code_len > limits.max_code_bytes)
    return Error::make(Errc::kLimit, "{}: {} code bytes, past the limit of {}", what, code_len,
                       limits.max_code_bytes);
  LOCKSTEP_TRY(auto code, r.take(code_len, "code bytes"));
  f.code.assign(code.begin(), code.end());
  if (version >= 3) LOCKSTEP_TRY_STATUS(get_helper_code(r, f, code_len, what, limits));
  f.cases.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    LOCKSTEP_TRY(Case c, get_case(r, f, version, i, what, limits));
    f.cases.push_back(std::move(c));
  }
  if (r.remaining() != 0)
    return Error::make(Errc::kMalformed, "{}: {} bytes left over after {} cases", what, r.remaining(), count);
  return f;
}

Status write_case_file(const std::filesystem::path& path, const CaseFile& f) {
  return write_file_atomic(path, encode_case_file(f));
}

Result<CaseFile> read_case_file(const std::filesystem::path& path, const CaseFileLimits& limits) {
  LOCKSTEP_TRY(auto bytes, read_file(path, limits.max_body_bytes));
  return decode_case_file(bytes, path.string(), limits);
}

}  // namespace lockstep::cases
