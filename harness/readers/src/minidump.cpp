// Minidump reader. On-disk layouts: breakpad's minidump_format.h and
// minidump_cpu_x86.h, Microsoft's minidumpapiset.h. Every offset read from the file goes through
// ByteReader; every count is checked against MinidumpLimits before anything is allocated from it.
#include "lockstep/readers/minidump.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"
#include "reader_util.hpp"

namespace lockstep::harness {

namespace {

using readers::le32;

// Raw layout constants (private: the public header exposes parsed values only).
constexpr std::uint32_t kSignature = 0x504D444D;  // "MDMP"
constexpr std::uint16_t kVersionLow = 0xA793;
constexpr std::uint64_t kHeaderSize = 32;
constexpr std::uint64_t kDirectoryEntrySize = 12;
constexpr std::uint64_t kThreadSize = 48;
constexpr std::uint64_t kModuleSize = 108;  // packed: not a compiler's sizeof (112)
constexpr std::uint64_t kMemoryDescriptorSize = 16;
constexpr std::uint64_t kMemoryDescriptor64Size = 16;
constexpr std::uint64_t kMemoryInfoMinSize = 48;
constexpr std::uint64_t kSystemInfoSize = 56;
constexpr std::uint64_t kContextBaseSize = 0xCC;  // up to and including SegSs
constexpr std::uint64_t kContextFullSize = 0x2CC;  // with ExtendedRegisters
constexpr std::uint64_t kExceptionStreamSize = 168;

enum StreamType : std::uint32_t {
  kUnused = 0,
  kThreadList = 3,
  kModuleList = 4,
  kMemoryList = 5,
  kException = 6,
  kSystemInfo = 7,
  kMemory64List = 9,
  kMiscInfo = 15,
  kMemoryInfoList = 16,
  kWineElfModuleList = 0xFFF0,
};

std::string_view stream_name(std::uint32_t t) {
  switch (t) {
    case kThreadList: return "ThreadList";
    case kModuleList: return "ModuleList";
    case kMemoryList: return "MemoryList";
    case kException: return "Exception";
    case kSystemInfo: return "SystemInfo";
    case kMemory64List: return "Memory64List";
    case kMiscInfo: return "MiscInfo";
    case kMemoryInfoList: return "MemoryInfoList";
    case kWineElfModuleList: return "Wine ELF module list";
    case 1: return "Reserved0";
    case 2: return "Reserved1";
    case 8: return "ThreadExList";
    case 10: return "CommentA";
    case 11: return "CommentW";
    case 12: return "HandleData";
    case 13: return "FunctionTable";
    case 14: return "UnloadedModuleList";
    case 17: return "ThreadInfoList";
    case 18: return "HandleOperationList";
    case 19: return "Token";
    case 21: return "SystemMemoryInfo";
    case 22: return "ProcessVmCounters";
    case 0x47670001: return "BreakpadInfo";
    case 0x47670002: return "BreakpadAssertionInfo";
    default: return "unknown";
  }
}

class Parser {
 public:
  Parser(std::span<const std::uint8_t> bytes, std::string_view what, const MinidumpLimits& limits)
      : r_(bytes, std::string(what)), what_(what), limits_(limits) {}

  Result<Minidump> run() {
    LOCKSTEP_TRY_STATUS(header());
    // System info first: a non-x86 dump is refused before its contexts are misread.
    if (const MinidumpStream* s = first(kSystemInfo)) LOCKSTEP_TRY_STATUS(system_info(*s));
    else d_.notes.push_back("no SystemInfo stream: assuming x86 from the thread contexts");
    if (const MinidumpStream* s = first(kMemory64List)) LOCKSTEP_TRY_STATUS(memory64_list(*s));
    if (const MinidumpStream* s = first(kMemoryList)) LOCKSTEP_TRY_STATUS(memory_list(*s));
    if (const MinidumpStream* s = first(kThreadList)) LOCKSTEP_TRY_STATUS(thread_list(*s));
    else d_.notes.push_back("no ThreadList stream: the snapshot has no threads");
    if (const MinidumpStream* s = first(kModuleList)) LOCKSTEP_TRY_STATUS(module_list(*s, false));
    if (const MinidumpStream* s = first(kWineElfModuleList)) LOCKSTEP_TRY_STATUS(module_list(*s, true));
    if (const MinidumpStream* s = first(kMemoryInfoList)) LOCKSTEP_TRY_STATUS(memory_info_list(*s));
    if (const MinidumpStream* s = first(kException)) LOCKSTEP_TRY_STATUS(exception(*s));
    if (const MinidumpStream* s = first(kMiscInfo)) LOCKSTEP_TRY_STATUS(misc_info(*s));
    LOCKSTEP_TRY_STATUS(check_no_aliasing());
    if (d_.memory.size() > limits_.max_memory_ranges)
      return Error::make(Errc::kLimit, "{}: {} memory ranges in all, past the limit of {}", what_, d_.memory.size(),
                         limits_.max_memory_ranges);
    return std::move(d_);
  }

 private:
  /// A writer stores each range's bytes once, so the ranges of the memory lists (and, separately, the
  /// thread stacks) cannot claim more bytes than the file holds. Without this check a small hostile
  /// file could point thousands of ranges at the same bytes and make the snapshot huge.
  Status check_no_aliasing() const {
    std::uint64_t lists = 0, stacks = 0;
    for (const auto& m : d_.memory) (m.source.rfind("ThreadList", 0) == 0 ? stacks : lists) += m.size;
    if (lists > r_.size() || stacks > r_.size())
      return Error::make(Errc::kMalformed,
                         "{}: the memory ranges claim 0x{:x} bytes (thread stacks 0x{:x}) but the file holds 0x{:x}: "
                         "ranges share their bytes",
                         what_, lists, stacks, r_.size());
    return {};
  }

  Status header() {
    LOCKSTEP_TRY(auto h, r_.slice(0, kHeaderSize, "minidump header"));
    if (le32(h, 0) != kSignature)
      return Error::make(Errc::kBadMagic, "{}: not a minidump (signature 0x{:08x}, expected 0x{:08x} 'MDMP')", what_,
                         le32(h, 0), kSignature);
    d_.version = le32(h, 4);
    if ((d_.version & 0xFFFF) != kVersionLow)
      return Error::make(Errc::kBadVersion, "{}: minidump version 0x{:08x}: the low 16 bits must be 0x{:04x}", what_,
                         d_.version, kVersionLow);
    const std::uint32_t count = le32(h, 8), dir_rva = le32(h, 12);
    d_.time_date_stamp = le32(h, 20);
    d_.flags = readers::le64(h, 24);
    if (count > limits_.max_streams)
      return Error::make(Errc::kLimit, "{}: the header announces {} streams, past the limit of {}", what_, count,
                         limits_.max_streams);
    LOCKSTEP_TRY(auto dir, r_.slice(dir_rva, count * kDirectoryEntrySize, "stream directory"));
    d_.streams.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) {
      MinidumpStream s{le32(dir, i * 12), le32(dir, i * 12 + 4), le32(dir, i * 12 + 8)};
      d_.streams.push_back(s);
      if (s.type == kUnused) continue;  // Wine pads the directory with unused entries
      if (std::uint64_t{s.rva} + s.size > r_.size())
        return Error::make(Errc::kTruncated,
                           "{}: stream {} (type 0x{:x} {}) at offset 0x{:x}, 0x{:x} bytes, runs past the end of the "
                           "file (0x{:x} bytes)",
                           what_, i, s.type, stream_name(s.type), s.rva, s.size, r_.size());
      bool known = s.type == kThreadList || s.type == kModuleList || s.type == kMemoryList || s.type == kException ||
                   s.type == kSystemInfo || s.type == kMemory64List || s.type == kMiscInfo ||
                   s.type == kMemoryInfoList || s.type == kWineElfModuleList;
      bool dup = false;
      for (std::uint32_t j = 0; j < i; ++j) dup = dup || d_.streams[j].type == s.type;
      if (!known)
        d_.notes.push_back(fmt::format("stream {} (type 0x{:x} {}, {} bytes) not read", i, s.type,
                                       stream_name(s.type), s.size));
      else if (dup)
        d_.notes.push_back(fmt::format("stream {} is a second {} stream: ignored (the first is read)", i,
                                       stream_name(s.type)));
    }
    return {};
  }

  const MinidumpStream* first(std::uint32_t type) const {
    for (const auto& s : d_.streams)
      if (s.type == type) return &s;
    return nullptr;
  }

  /// A list stream's entries: u32 count, then `count` entries of `entry_size` at offset 4, or at 8 when
  /// the stream is longer than 4 + count*entry_size (the padding some writers insert, LLVM's test).
  Result<std::span<const std::uint8_t>> list(const MinidumpStream& s, std::uint64_t entry_size, std::uint64_t limit,
                                             std::uint32_t& count) {
    LOCKSTEP_TRY(auto body, r_.slice(s.rva, s.size, stream_name(s.type)));
    if (body.size() < 4)
      return Error::make(Errc::kTruncated, "{}: {} stream at offset 0x{:x} is {} bytes, too short for its count",
                         what_, stream_name(s.type), s.rva, body.size());
    count = le32(body, 0);
    if (count > limit)
      return Error::make(Errc::kLimit, "{}: {} stream at offset 0x{:x} announces {} entries, past the limit of {}",
                         what_, stream_name(s.type), s.rva, count, limit);
    const std::uint64_t need = count * entry_size;
    std::uint64_t start = 4;
    if (start + need < body.size()) start = 8;
    if (start + need > body.size())
      return Error::make(Errc::kTruncated,
                         "{}: {} stream at offset 0x{:x} announces {} entries of {} bytes but holds only {} bytes",
                         what_, stream_name(s.type), s.rva, count, entry_size, body.size());
    return body.subspan(start, need);
  }

  Status system_info(const MinidumpStream& s) {
    LOCKSTEP_TRY(auto b, r_.slice(s.rva, s.size, "SystemInfo stream"));
    if (b.size() < kSystemInfoSize)
      return Error::make(Errc::kTruncated, "{}: SystemInfo stream is {} bytes, shorter than its {}-byte struct", what_,
                         b.size(), kSystemInfoSize);
    MinidumpSystemInfo si;
    si.processor_architecture = readers::le16(b, 0);
    si.processor_level = readers::le16(b, 2);
    si.processor_revision = readers::le16(b, 4);
    si.number_of_processors = b[6];
    si.product_type = b[7];
    si.major_version = le32(b, 8);
    si.minor_version = le32(b, 12);
    si.build_number = le32(b, 16);
    si.platform_id = le32(b, 20);
    si.wine = b.size() >= kSystemInfoSize + 4 && b[56] == 'W' && b[57] == 'I' && b[58] == 'N' && b[59] == 'E';
    d_.system_info = si;
    if (si.processor_architecture != 0) {
      std::string_view arch = si.processor_architecture == 9    ? "AMD64"
                              : si.processor_architecture == 5  ? "ARM"
                              : si.processor_architecture == 12 ? "ARM64"
                              : si.processor_architecture == 6  ? "IA64"
                                                                : "non-x86";
      return Error::make(Errc::kUnsupported,
                         "{}: a minidump of a {} process (ProcessorArchitecture {}): lockstep reads 32-bit x86 dumps "
                         "only (a 64-bit writer dumping a 32-bit process gives AMD64 contexts: take a 32-bit dump)",
                         what_, arch, si.processor_architecture);
    }
    if (si.wine) d_.notes.push_back("written by Wine's dbghelp (the 'WINE' block after SystemInfo)");
    return {};
  }

  Status check_range(std::uint64_t base, std::uint64_t size, const std::string& source) {
    if (base >= readers::kAddressSpaceEnd || size > readers::kAddressSpaceEnd - base)
      return Error::make(Errc::kMalformed,
                         "{}: {} at 0x{:x}, 0x{:x} bytes, lies past or wraps past the 4 GiB of a 32-bit process",
                         what_, source, base, size);
    return {};
  }

  Status memory_list(const MinidumpStream& s) {
    std::uint32_t count = 0;
    LOCKSTEP_TRY(auto e, list(s, kMemoryDescriptorSize, limits_.max_memory_ranges, count));
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint64_t base = readers::le64(e, i * 16);
      const std::uint32_t size = le32(e, i * 16 + 8), rva = le32(e, i * 16 + 12);
      std::string source = fmt::format("MemoryList #{}", i);
      LOCKSTEP_TRY_STATUS(check_range(base, size, source));
      LOCKSTEP_TRY_STATUS(r_.slice(rva, size, source));
      d_.memory.push_back({base, size, rva, std::move(source)});
    }
    return {};
  }

  Status memory64_list(const MinidumpStream& s) {
    LOCKSTEP_TRY(auto b, r_.slice(s.rva, s.size, "Memory64List stream"));
    if (b.size() < 16)
      return Error::make(Errc::kTruncated, "{}: Memory64List stream is {} bytes, shorter than its 16-byte header",
                         what_, b.size());
    const std::uint64_t count = readers::le64(b, 0);
    std::uint64_t data = readers::le64(b, 8);  // BaseRva: the ranges' bytes follow each other from here
    if (count > limits_.max_memory_ranges)
      return Error::make(Errc::kLimit, "{}: Memory64List announces {} ranges, past the limit of {}", what_, count,
                         limits_.max_memory_ranges);
    if (16 + count * kMemoryDescriptor64Size > b.size())
      return Error::make(Errc::kTruncated, "{}: Memory64List announces {} ranges but its stream holds {} bytes",
                         what_, count, b.size());
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t base = readers::le64(b, 16 + i * 16), size = readers::le64(b, 24 + i * 16);
      std::string source = fmt::format("Memory64List #{}", i);
      LOCKSTEP_TRY_STATUS(check_range(base, size, source));
      if (data > r_.size() || size > r_.size() - data)
        return Error::make(Errc::kTruncated,
                           "{}: {} (0x{:x}, 0x{:x} bytes) has its data at offset 0x{:x}, past the end of the file "
                           "(0x{:x} bytes)",
                           what_, source, base, size, data, r_.size());
      d_.memory.push_back({base, size, data, std::move(source)});
      data += size;
    }
    return {};
  }

  Status thread_list(const MinidumpStream& s) {
    std::uint32_t count = 0;
    LOCKSTEP_TRY(auto e, list(s, kThreadSize, limits_.max_threads, count));
    d_.threads.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) {
      auto t = e.subspan(i * kThreadSize, kThreadSize);
      MinidumpThread th;
      th.thread_id = le32(t, 0);
      th.suspend_count = le32(t, 4);
      th.priority_class = le32(t, 8);
      th.priority = le32(t, 12);
      th.teb = readers::le64(t, 16);
      th.stack_start = readers::le64(t, 24);
      th.stack_size = le32(t, 32);
      th.stack_rva = le32(t, 36);
      const std::uint32_t ctx_size = le32(t, 40), ctx_rva = le32(t, 44);
      if (th.stack_size != 0) {
        std::string source = fmt::format("ThreadList stack of thread 0x{:x}", th.thread_id);
        LOCKSTEP_TRY_STATUS(check_range(th.stack_start, th.stack_size, source));
        LOCKSTEP_TRY_STATUS(r_.slice(th.stack_rva, th.stack_size, source));
        stacks_.push_back({th.stack_start, th.stack_size, th.stack_rva, std::move(source)});
      }
      if (ctx_size == 0) {
        d_.notes.push_back(fmt::format("thread 0x{:x} has no context (the writer could not get it): registers zero",
                                       th.thread_id));
      } else {
        LOCKSTEP_TRY(auto ctx, context(th.thread_id, ctx_rva, ctx_size));
        th.context = ctx;
      }
      d_.threads.push_back(std::move(th));
    }
    // Thread stacks come last in precedence: MemoryList usually repeats them.
    for (auto& m : stacks_) d_.memory.push_back(std::move(m));
    return {};
  }

  Result<MinidumpContextX86> context(std::uint32_t tid, std::uint32_t rva, std::uint32_t size) {
    LOCKSTEP_TRY(auto c, r_.slice(rva, size, fmt::format("context of thread 0x{:x}", tid)));
    if (c.size() >= 4 && (le32(c, 0) & 0x00100000))
      return Error::make(Errc::kUnsupported,
                         "{}: thread 0x{:x} has an AMD64 context (ContextFlags 0x{:08x}): a 64-bit writer dumped this "
                         "process; lockstep reads 32-bit x86 dumps only",
                         what_, tid, le32(c, 0));
    if (c.size() < kContextBaseSize)
      return Error::make(Errc::kTruncated, "{}: context of thread 0x{:x} is {} bytes, shorter than the {}-byte x86 CONTEXT",
                         what_, tid, c.size(), kContextBaseSize);
    MinidumpContextX86 x;
    x.context_flags = le32(c, 0x00);
    if (!(x.context_flags & MinidumpContextX86::kX86)) {
      if (x.context_flags >> 16)
        return Error::make(Errc::kUnsupported, "{}: thread 0x{:x} has a non-x86 context (ContextFlags 0x{:08x})",
                           what_, tid, x.context_flags);
      d_.notes.push_back(fmt::format("thread 0x{:x}: ContextFlags 0x{:08x} name no CPU: read as x86", tid,
                                     x.context_flags));
    }
    x.dr0 = le32(c, 0x04);
    x.dr1 = le32(c, 0x08);
    x.dr2 = le32(c, 0x0C);
    x.dr3 = le32(c, 0x10);
    x.dr6 = le32(c, 0x14);
    x.dr7 = le32(c, 0x18);
    auto& f = x.float_save;
    f.control_word = le32(c, 0x1C);
    f.status_word = le32(c, 0x20);
    f.tag_word = le32(c, 0x24);
    f.error_offset = le32(c, 0x28);
    f.error_selector = le32(c, 0x2C);
    f.data_offset = le32(c, 0x30);
    f.data_selector = le32(c, 0x34);
    std::copy_n(c.begin() + 0x38, 80, f.register_area.begin());
    f.cr0_npx_state = le32(c, 0x88);
    x.gs = le32(c, 0x8C);
    x.fs = le32(c, 0x90);
    x.es = le32(c, 0x94);
    x.ds = le32(c, 0x98);
    x.edi = le32(c, 0x9C);
    x.esi = le32(c, 0xA0);
    x.ebx = le32(c, 0xA4);
    x.edx = le32(c, 0xA8);
    x.ecx = le32(c, 0xAC);
    x.eax = le32(c, 0xB0);
    x.ebp = le32(c, 0xB4);
    x.eip = le32(c, 0xB8);
    x.cs = le32(c, 0xBC);
    x.eflags = le32(c, 0xC0);
    x.esp = le32(c, 0xC4);
    x.ss = le32(c, 0xC8);
    if (c.size() >= kContextFullSize) {
      x.has_extended_area = true;
      std::copy_n(c.begin() + 0xCC, 512, x.extended_registers.begin());
    }
    return x;
  }

  Status module_list(const MinidumpStream& s, bool wine) {
    std::uint32_t count = 0;
    LOCKSTEP_TRY(auto e, list(s, kModuleSize, limits_.max_modules, count));
    for (std::uint32_t i = 0; i < count; ++i) {
      auto m = e.subspan(i * kModuleSize, kModuleSize);
      MinidumpModule mod;
      mod.base = readers::le64(m, 0);
      mod.size = le32(m, 8);
      mod.checksum = le32(m, 12);
      mod.time_date_stamp = le32(m, 16);
      mod.wine_elf = wine;
      const std::string source = fmt::format("{} #{}", stream_name(s.type), i);
      LOCKSTEP_TRY_STATUS(check_range(mod.base, mod.size, source));
      const std::uint32_t name_rva = le32(m, 20);
      LOCKSTEP_TRY(std::uint32_t len, r_.read_at<std::uint32_t>(name_rva, source + " name length"));
      if (len > limits_.max_name_bytes)
        return Error::make(Errc::kLimit, "{}: {} has a {}-byte name, past the limit of {}", what_, source, len,
                           limits_.max_name_bytes);
      LOCKSTEP_TRY(auto name, r_.slice(std::uint64_t{name_rva} + 4, len, source + " name"));
      mod.name = readers::utf16le_to_utf8(name);
      d_.modules.push_back(std::move(mod));
    }
    if (wine) d_.notes.push_back(fmt::format("{} host ELF modules from Wine's 0xFFF0 stream", count));
    return {};
  }

  Status memory_info_list(const MinidumpStream& s) {
    LOCKSTEP_TRY(auto b, r_.slice(s.rva, s.size, "MemoryInfoList stream"));
    if (b.size() < 16)
      return Error::make(Errc::kTruncated, "{}: MemoryInfoList stream is {} bytes, shorter than its 16-byte header",
                         what_, b.size());
    const std::uint32_t header = le32(b, 0), entry = le32(b, 4);
    const std::uint64_t count = readers::le64(b, 8);
    if (header < 16 || entry < kMemoryInfoMinSize || header > b.size())
      return Error::make(Errc::kMalformed,
                         "{}: MemoryInfoList header size {} / entry size {} are impossible (at least 16 / {}, within "
                         "the {}-byte stream)",
                         what_, header, entry, kMemoryInfoMinSize, b.size());
    if (count > limits_.max_memory_info)
      return Error::make(Errc::kLimit, "{}: MemoryInfoList announces {} entries, past the limit of {}", what_, count,
                         limits_.max_memory_info);
    if (count * entry > b.size() - header)
      return Error::make(Errc::kTruncated, "{}: MemoryInfoList announces {} entries of {} bytes but holds {} bytes",
                         what_, count, entry, b.size() - header);
    d_.has_memory_info = true;
    d_.memory_info.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      auto e = b.subspan(header + i * entry, entry);
      MinidumpMemoryInfo mi;
      mi.base = readers::le64(e, 0);
      mi.allocation_base = readers::le64(e, 8);
      mi.allocation_protect = le32(e, 16);
      mi.region_size = readers::le64(e, 24);
      mi.state = le32(e, 32);
      mi.protect = le32(e, 36);
      mi.type = le32(e, 40);
      d_.memory_info.push_back(mi);
    }
    return {};
  }

  Status exception(const MinidumpStream& s) {
    LOCKSTEP_TRY(auto b, r_.slice(s.rva, s.size, "Exception stream"));
    if (b.size() < kExceptionStreamSize) {
      d_.notes.push_back(fmt::format("Exception stream is {} bytes, shorter than {}: not read", b.size(),
                                     kExceptionStreamSize));
      return {};
    }
    MinidumpException ex{le32(b, 0), le32(b, 8), le32(b, 12), readers::le64(b, 24)};
    d_.exception = ex;
    d_.notes.push_back(fmt::format("exception 0x{:08x} at 0x{:08x} in thread 0x{:x} (the exception's own context is "
                                   "not used: threads hold their ThreadList contexts)",
                                   ex.code, ex.address, ex.thread_id));
    return {};
  }

  Status misc_info(const MinidumpStream& s) {
    LOCKSTEP_TRY(auto b, r_.slice(s.rva, s.size, "MiscInfo stream"));
    if (b.size() >= 12 && (le32(b, 4) & 1)) d_.process_id = le32(b, 8);
    return {};
  }

  ByteReader r_;
  std::string_view what_;
  const MinidumpLimits& limits_;
  Minidump d_;
  std::vector<MinidumpMemoryRange> stacks_;
};

/// Unicorn-style protection bits from a Windows PAGE_* value.
std::uint8_t prot_from_windows(std::uint32_t state, std::uint32_t protect) {
  constexpr std::uint32_t kMemCommit = 0x1000, kPageGuard = 0x100;
  if (state != kMemCommit || (protect & kPageGuard)) return kProtNone;
  switch (protect & 0xFF) {
    case 0x02: return kProtRead;
    case 0x04: return kProtRead | kProtWrite;
    case 0x08: return kProtRead | kProtWrite;  // WRITECOPY: writes go to a private copy
    case 0x10: return kProtExec;
    case 0x20: return kProtRead | kProtExec;
    case 0x40: return kProtRead | kProtWrite | kProtExec;
    case 0x80: return kProtRead | kProtWrite | kProtExec;
    default: return kProtNone;  // NOACCESS, or no protection recorded
  }
}

}  // namespace

Result<Minidump> parse_minidump(std::span<const std::uint8_t> bytes, std::string_view what,
                                const MinidumpLimits& limits) {
  return Parser(bytes, what, limits).run();
}

namespace {

/// The regions' protections from the MemoryInfoList (read-write without one): its entries inside
/// 4 GiB and apart.
Status apply_memory_info(const Minidump& dump, std::string_view what, Snapshot& snap) {
  auto& notes = snap.meta.notes;
  if (!dump.has_memory_info) {
    notes.push_back("no MemoryInfoList stream: every region is read-write (map the .EXE over it for code "
                    "protections)");
    return {};
  }
  std::vector<MinidumpMemoryInfo> info = dump.memory_info;
  std::stable_sort(info.begin(), info.end(), [](const auto& a, const auto& b) { return a.base < b.base; });
  std::uint64_t prev_end = 0;
  for (std::size_t i = 0; i < info.size(); ++i) {
    const auto& mi = info[i];
    if (mi.base >= readers::kAddressSpaceEnd || mi.region_size > readers::kAddressSpaceEnd - mi.base)
      return Error::make(Errc::kMalformed, "{}: MemoryInfoList entry at 0x{:x}, 0x{:x} bytes, wraps past 4 GiB", what,
                         mi.base, mi.region_size);
    if (mi.base < prev_end)
      return Error::make(Errc::kMalformed, "{}: MemoryInfoList entries overlap at 0x{:x} (the previous ends at 0x{:x})",
                         what, mi.base, prev_end);
    prev_end = mi.base + mi.region_size;
  }
  std::vector<readers::ProtRange> ranges;
  ranges.reserve(info.size());
  for (const auto& mi : info)
    if (mi.region_size) ranges.push_back({mi.base, mi.base + mi.region_size, prot_from_windows(mi.state, mi.protect)});
  // Bytes no entry describes keep read-write.
  const std::uint64_t undescribed = readers::apply_protection_map(snap.regions, ranges);
  if (undescribed)
    notes.push_back(fmt::format("0x{:x} dumped bytes lie outside every MemoryInfoList entry: read-write", undescribed));

  return {};
}

/// A thread's registers and FPU state from its CONTEXT, by the parts its ContextFlags say it holds
/// (noted when some are left out).
void registers_from_context(const MinidumpContextX86& c, std::uint32_t thread_id, Thread& th,
                            std::vector<std::string>& notes) {
  const std::uint32_t fl = c.context_flags;
  std::vector<std::string_view> missing;
  if (fl & MinidumpContextX86::kControl) {
    th.ebp = c.ebp;
    th.eip = c.eip;
    th.cs = static_cast<std::uint16_t>(c.cs);
    th.eflags = c.eflags;
    th.esp = c.esp;
    th.ss = static_cast<std::uint16_t>(c.ss);
  } else {
    missing.push_back("CONTROL");
  }
  if (fl & MinidumpContextX86::kInteger) {
    th.edi = c.edi;
    th.esi = c.esi;
    th.ebx = c.ebx;
    th.edx = c.edx;
    th.ecx = c.ecx;
    th.eax = c.eax;
  } else {
    missing.push_back("INTEGER");
  }
  if (fl & MinidumpContextX86::kSegments) {
    th.gs = static_cast<std::uint16_t>(c.gs);
    th.fs = static_cast<std::uint16_t>(c.fs);
    th.es = static_cast<std::uint16_t>(c.es);
    th.ds = static_cast<std::uint16_t>(c.ds);
  } else {
    missing.push_back("SEGMENTS");
  }
  const bool have_fsave = fl & MinidumpContextX86::kFloatingPoint;
  const bool have_fxsave = (fl & MinidumpContextX86::kExtendedRegisters) && c.has_extended_area;
  if (have_fsave) {
    // FLOATING_SAVE_AREA has Linux's user_i387_struct layout plus Cr0NpxState.
    std::array<std::uint8_t, 108> img{};
    auto put32 = [&img](std::size_t off, std::uint32_t v) {
      for (int k = 0; k < 4; ++k) img[off + k] = static_cast<std::uint8_t>(v >> (8 * k));
    };
    put32(0, c.float_save.control_word);
    put32(4, c.float_save.status_word);
    put32(8, c.float_save.tag_word);
    std::copy(c.float_save.register_area.begin(), c.float_save.register_area.end(), img.begin() + 28);
    th.x87 = readers::x87_from_fsave(img);
  } else if (have_fxsave) {
    th.x87 = *x87_from_fxsave(c.extended_registers);  // 512 bytes: always a state
  }
  th.x87_valid = have_fsave || have_fxsave;
  if (have_fxsave) th.x87.mxcsr = le32(c.extended_registers, 24);
  if (!have_fsave && !have_fxsave) {
    missing.push_back("FLOATING_POINT");
    notes.push_back(fmt::format("thread 0x{:x}: no FPU state in the context (Wine writes CONTEXT_FULL only): "
                                "Windows defaults FCW 0x027f, MXCSR 0x1f80",
                                thread_id));
  } else if (!have_fxsave) {
    notes.push_back(fmt::format("thread 0x{:x}: no ExtendedRegisters in the context: MXCSR 0x1f80 (default)",
                                thread_id));
  }
  if (!missing.empty() && missing.size() < 4)
    notes.push_back(fmt::format("thread 0x{:x}: ContextFlags 0x{:08x} leave out {}: those registers are zero",
                                thread_id, fl, fmt::join(missing, ", ")));
}

}  // namespace

Result<Snapshot> minidump_to_snapshot(const Minidump& dump, std::span<const std::uint8_t> bytes,
                                      std::string_view what) {
  Snapshot snap;
  snap.meta.source = fmt::format("minidump {}", what);
  snap.meta.format = "minidump";
  snap.meta.created_unix = dump.time_date_stamp;
  snap.meta.notes = dump.notes;
  auto& notes = snap.meta.notes;

  ByteReader r(bytes, std::string(what));
  readers::RangeAssembler assembler(&notes);
  for (const auto& m : dump.memory) {
    LOCKSTEP_TRY(auto data, r.slice(m.file_offset, m.size, m.source));
    LOCKSTEP_TRY_STATUS(assembler.add(m.base, data, kProtRead | kProtWrite, "minidump " + m.source));
  }
  snap.regions = assembler.take();

  LOCKSTEP_TRY_STATUS(apply_memory_info(dump, what, snap));

  for (const auto& m : dump.modules) {
    snap.meta.modules.push_back(Module{m.name, static_cast<GuestAddr>(m.base), m.size});
  }
  for (const auto& m : dump.modules)
    if (!m.wine_elf) {
      snap.meta.exe_path = m.name;  // the first module is the executable (winedbg assumes the same)
      break;
    }

  for (const auto& t : dump.threads) {
    Thread th;
    th.tid = t.thread_id;
    if (t.teb >= readers::kAddressSpaceEnd)
      return Error::make(Errc::kMalformed, "{}: thread 0x{:x} has TEB 0x{:x}, past 4 GiB (a 64-bit TEB?)", what,
                         t.thread_id, t.teb);
    th.fs_base = static_cast<GuestAddr>(t.teb);
    th.x87.control = 0x027f;  // Windows' thread defaults, kept unless the context has FPU state
    th.x87.mxcsr = 0x1f80;
    th.x87_valid = false;
    if (t.context) registers_from_context(*t.context, t.thread_id, th, notes);
    // NT_TIB.Self at TEB+0x18 points back at the TEB: the check that the FS base is right.
    auto self = th.fs_base <= 0xFFFFFFFBu - 0x18u ? snap.read(th.fs_base + 0x18u, 4)
                                                   : Result<std::vector<std::uint8_t>>(Error{Errc::kNotFound, ""});
    if (!self.ok())
      notes.push_back(fmt::format("thread 0x{:x}: TEB 0x{:08x} is not in the dump: FS base unchecked", t.thread_id,
                                  th.fs_base));
    else if (le32(*self, 0) != th.fs_base)
      notes.push_back(fmt::format("thread 0x{:x}: TEB 0x{:08x} does not point at itself (+0x18 holds 0x{:08x}): the "
                                  "FS base may be wrong",
                                  t.thread_id, th.fs_base, le32(*self, 0)));
    // A minidump carries no LDT: an FS selector in it (Wine's TEB selectors) still works, its base
    // being the TEB address; any other selector with TI = 1 has no descriptor to be built from.
    if (th.fs & 4)
      notes.push_back(fmt::format("thread 0x{:x}: fs=0x{:04x} is an LDT selector; a minidump holds no LDT: FS's base "
                                  "is the thread's TEB address 0x{:08x}",
                                  t.thread_id, th.fs, th.fs_base));
    for (auto [sel, reg] : {std::pair{th.gs, "gs"}, std::pair{th.ds, "ds"}, std::pair{th.es, "es"}})
      if (sel & 4)
        notes.push_back(fmt::format("thread 0x{:x}: {}=0x{:04x} is an LDT selector; a minidump holds no LDT: its base "
                                    "is unknown",
                                    t.thread_id, reg, sel));
    snap.threads.push_back(th);
  }
  LOCKSTEP_TRY_STATUS(snap.validate());
  return snap;
}

Result<Snapshot> read_minidump(std::span<const std::uint8_t> bytes, std::string_view what,
                               const MinidumpOptions& options) {
  LOCKSTEP_TRY(Minidump d, parse_minidump(bytes, what, options.limits));
  return minidump_to_snapshot(d, bytes, what);
}

Result<Snapshot> load_minidump(const std::filesystem::path& path, const MinidumpOptions& options) {
  LOCKSTEP_TRY(auto bytes, read_file(path, options.limits.max_file_bytes));
  return read_minidump(bytes, path.string(), options);
}

}  // namespace lockstep::harness
