// ELF core reader (i386). Layout: Linux's elf.h and user_32.h, gdb's
// i386_linux_iterate_over_regset_sections, LLDB's 72-byte i386 prstatus header.
#include "lockstep/readers/elf_core.hpp"

#include <algorithm>
#include <optional>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"
#include "reader_util.hpp"

namespace lockstep::harness {

namespace {

using readers::le16;
using readers::le32;

constexpr std::uint32_t kPtLoad = 1, kPtNote = 4;
constexpr std::uint16_t kEtCore = 4, kEm386 = 3;
constexpr std::uint32_t kNtPrstatus = 1, kNtPrfpreg = 2, kNtPrpsinfo = 3, kNtAuxv = 6, kNtSiginfo = 0x53494749,
                        kNtFile = 0x46494C45, kNtPrxfpreg = 0x46E62B7F, kNt386Tls = 0x200, kNt386Ioperm = 0x201,
                        kNtX86Xstate = 0x202;
constexpr std::uint64_t kPrstatusRegOffset = 72;  // i386 elf_prstatus header (LLDB ELFLinuxPrStatus)
constexpr std::uint64_t kUserRegsSize = 68;       // 17 × 4
constexpr std::uint64_t kFsaveSize = 108, kXsaveHeaderEnd = 520;  // kFxsaveSize: snapshot.hpp
constexpr std::uint64_t kTlsEntrySize = 16;
constexpr std::uint32_t kMaxTlsEntries = 64;      // the kernel writes 3

struct ThreadNotes {
  Thread thread;
  int fpu_rank = 0;  // 0 none, 1 FSAVE, 2 FXSAVE, 3 XSAVE: the richest note wins
  std::vector<std::pair<std::uint32_t, std::uint32_t>> tls;  // (GDT entry number, base)
  bool has_tls = false;
};

struct Segment {
  std::uint64_t vaddr = 0, memsz = 0, filesz = 0, offset = 0;
  std::uint8_t prot = 0;
  std::uint32_t index = 0;
};

std::uint8_t prot_from_pflags(std::uint32_t f) {
  return static_cast<std::uint8_t>(((f & 4) ? kProtRead : 0) | ((f & 2) ? kProtWrite : 0) | ((f & 1) ? kProtExec : 0));
}

class CoreParser {
 public:
  CoreParser(std::span<const std::uint8_t> bytes, std::string_view what, const ElfCoreOptions& o)
      : r_(bytes, std::string(what)), what_(what), opt_(o) {}

  Result<ElfCore> run() {
    LOCKSTEP_TRY_STATUS(header());
    LOCKSTEP_TRY_STATUS(program_headers());
    for (const auto& n : note_segments_) LOCKSTEP_TRY_STATUS(notes(n));
    LOCKSTEP_TRY_STATUS(memory());
    finish_threads();
    auto& meta = core_.snapshot.meta;
    meta.source = fmt::format("elf-core {}", what_);
    meta.format = "elf-core";
    meta.notes.insert(meta.notes.begin(), notes_.begin(), notes_.end());
    LOCKSTEP_TRY_STATUS(core_.snapshot.validate());
    return std::move(core_);
  }

 private:
  Status header() {
    LOCKSTEP_TRY(auto id, r_.slice(0, 16, "ELF identification"));
    if (id[0] != 0x7F || id[1] != 'E' || id[2] != 'L' || id[3] != 'F')
      return Error::make(Errc::kBadMagic, "{}: not an ELF file (starts with {:02x} {:02x} {:02x} {:02x})", what_, id[0],
                         id[1], id[2], id[3]);
    if (id[4] == 2)
      return Error::make(Errc::kUnsupported,
                         "{}: a 64-bit ELF core (ELFCLASS64): lockstep reads cores of 32-bit (i386) processes; a "
                         "new-WoW64 Wine process gives a 64-bit core",
                         what_);
    if (id[4] != 1) return Error::make(Errc::kMalformed, "{}: ELF class {} is neither 32- nor 64-bit", what_, id[4]);
    if (id[5] != 1) return Error::make(Errc::kUnsupported, "{}: a big-endian ELF file", what_);
    LOCKSTEP_TRY(auto h, r_.slice(0, 52, "ELF header"));
    const std::uint16_t type = le16(h, 16), machine = le16(h, 18);
    if (type != kEtCore)
      return Error::make(Errc::kUnsupported, "{}: ELF type {} is not a core file (ET_CORE = 4)", what_, type);
    if (machine != kEm386)
      return Error::make(Errc::kUnsupported, "{}: ELF machine {} is not i386 (3)", what_, machine);
    phoff_ = le32(h, 28);
    const std::uint32_t shoff = le32(h, 32);
    const std::uint16_t phentsize = le16(h, 42);
    phnum_ = le16(h, 44);
    if (phentsize != 32)
      return Error::make(Errc::kMalformed, "{}: program header size {} (an ELF32 Phdr is 32 bytes)", what_, phentsize);
    if (phnum_ == 0xFFFF) {  // PN_XNUM: the real count is section header 0's sh_info
      LOCKSTEP_TRY(std::uint32_t n, r_.read_at<std::uint32_t>(std::uint64_t{shoff} + 28, "section header 0 sh_info"));
      phnum_ = n;
    }
    if (phnum_ > opt_.limits.max_program_headers)
      return Error::make(Errc::kLimit, "{}: {} program headers, past the limit of {}", what_, phnum_,
                         opt_.limits.max_program_headers);
    return {};
  }

  Status program_headers() {
    LOCKSTEP_TRY(auto ph, r_.slice(phoff_, std::uint64_t{phnum_} * 32, "program headers"));
    for (std::uint32_t i = 0; i < phnum_; ++i) {
      auto p = ph.subspan(std::size_t{i} * 32, 32);
      const std::uint32_t type = le32(p, 0);
      Segment s{le32(p, 8), le32(p, 20), le32(p, 16), le32(p, 4), prot_from_pflags(le32(p, 24)), i};
      if (type == kPtNote) {
        LOCKSTEP_TRY_STATUS(r_.slice(s.offset, s.filesz, fmt::format("PT_NOTE segment {}", i)));
        note_segments_.push_back(s);
      } else if (type == kPtLoad) {
        if (s.filesz > s.memsz)
          return Error::make(Errc::kMalformed, "{}: PT_LOAD {} at 0x{:x}: p_filesz 0x{:x} > p_memsz 0x{:x}", what_, i,
                             s.vaddr, s.filesz, s.memsz);
        if (s.vaddr + s.memsz > readers::kAddressSpaceEnd)
          return Error::make(Errc::kMalformed, "{}: PT_LOAD {} at 0x{:x}, 0x{:x} bytes, wraps past 4 GiB", what_, i,
                             s.vaddr, s.memsz);
        LOCKSTEP_TRY_STATUS(r_.slice(s.offset, s.filesz, fmt::format("PT_LOAD {} data", i)));
        loads_.push_back(s);
      }
    }
    // Each segment's bytes are stored once: segments that together claim more than the file holds
    // share bytes, which only a hostile file does (and it would make the snapshot huge).
    std::uint64_t total = 0;
    for (const auto& s : loads_) total += s.filesz;
    if (total > r_.size())
      return Error::make(Errc::kMalformed, "{}: PT_LOAD segments claim 0x{:x} bytes but the file holds 0x{:x}", what_,
                         total, r_.size());
    return {};
  }

  Status notes(const Segment& seg) {
    LOCKSTEP_TRY(auto b, r_.slice(seg.offset, seg.filesz, "PT_NOTE"));
    std::uint64_t off = 0;
    while (off < b.size()) {
      if (++note_count_ > opt_.limits.max_notes)
        return Error::make(Errc::kLimit, "{}: more than {} notes", what_, opt_.limits.max_notes);
      if (b.size() - off < 12)
        return Error::make(Errc::kTruncated, "{}: note header at file offset 0x{:x} runs past its PT_NOTE segment",
                           what_, seg.offset + off);
      const std::uint64_t namesz = le32(b, off), descsz = le32(b, off + 4);
      const std::uint32_t type = le32(b, off + 8);
      const std::uint64_t name_off = off + 12;
      const std::uint64_t desc_off = name_off + ((namesz + 3) & ~std::uint64_t{3});
      const std::uint64_t next = desc_off + ((descsz + 3) & ~std::uint64_t{3});
      if (desc_off + descsz > b.size())
        return Error::make(Errc::kTruncated,
                           "{}: note type 0x{:x} at file offset 0x{:x} (name {} bytes, desc {} bytes) runs past its "
                           "PT_NOTE segment",
                           what_, type, seg.offset + off, namesz, descsz);
      std::string name(reinterpret_cast<const char*>(b.data() + name_off), namesz);
      while (!name.empty() && name.back() == '\0') name.pop_back();
      LOCKSTEP_TRY_STATUS(note(name, type, b.subspan(desc_off, descsz), seg.offset + off));
      off = std::min<std::uint64_t>(next, b.size());
    }
    return {};
  }

  Status note(const std::string& name, std::uint32_t type, std::span<const std::uint8_t> d, std::uint64_t at) {
    if (name != "CORE" && name != "LINUX") {
      notes_.push_back(fmt::format("note '{}' type 0x{:x} at offset 0x{:x} not read", name, type, at));
      return {};
    }
    switch (type) {
      case kNtPrstatus: {
        if (threads_.size() >= opt_.limits.max_threads)
          return Error::make(Errc::kLimit, "{}: more than {} threads", what_, opt_.limits.max_threads);
        if (d.size() < kPrstatusRegOffset + kUserRegsSize)
          return Error::make(Errc::kTruncated, "{}: NT_PRSTATUS at offset 0x{:x} is {} bytes, shorter than i386's {}",
                             what_, at, d.size(), kPrstatusRegOffset + kUserRegsSize);
        ThreadNotes t;
        Thread& th = t.thread;
        th.tid = le32(d, 24);
        auto g = d.subspan(kPrstatusRegOffset, kUserRegsSize);
        th.ebx = le32(g, 0);
        th.ecx = le32(g, 4);
        th.edx = le32(g, 8);
        th.esi = le32(g, 12);
        th.edi = le32(g, 16);
        th.ebp = le32(g, 20);
        th.eax = le32(g, 24);
        th.ds = static_cast<std::uint16_t>(le32(g, 28));
        th.es = static_cast<std::uint16_t>(le32(g, 32));
        th.fs = static_cast<std::uint16_t>(le32(g, 36));
        th.gs = static_cast<std::uint16_t>(le32(g, 40));
        th.eip = le32(g, 48);
        th.cs = static_cast<std::uint16_t>(le32(g, 52));
        th.eflags = le32(g, 56);
        th.esp = le32(g, 60);
        th.ss = static_cast<std::uint16_t>(le32(g, 64));
        th.x87 = X87State{};
        th.x87_valid = false;
        threads_.push_back(std::move(t));
        return {};
      }
      case kNtPrfpreg:
      case kNtPrxfpreg:
      case kNtX86Xstate:
      case kNt386Tls:
        if (threads_.empty()) {
          notes_.push_back(fmt::format("note type 0x{:x} at offset 0x{:x} comes before any NT_PRSTATUS: ignored", type, at));
          return {};
        }
        return thread_note(threads_.back(), type, d, at);
      case kNtFile: return file_note(d, at);
      case kNtPrpsinfo:
        if (d.size() >= 44) {
          std::string fname(reinterpret_cast<const char*>(d.data() + 28), 16);
          fname.resize(fname.find('\0') == std::string::npos ? 16 : fname.find('\0'));
          notes_.push_back(fmt::format("process '{}' (NT_PRPSINFO pid {})", fname, le32(d, 12)));
        }
        return {};
      case kNtAuxv:
      case kNtSiginfo:
      case kNt386Ioperm: return {};  // nothing a snapshot needs
      default:
        notes_.push_back(fmt::format("note '{}' type 0x{:x} at offset 0x{:x} not read", name, type, at));
        return {};
    }
  }

  Status thread_note(ThreadNotes& t, std::uint32_t type, std::span<const std::uint8_t> d, std::uint64_t at) {
    Thread& th = t.thread;
    switch (type) {
      case kNtPrfpreg:
        if (d.size() < kFsaveSize)
          return Error::make(Errc::kTruncated, "{}: NT_PRFPREG at offset 0x{:x} is {} bytes, shorter than {}", what_, at,
                             d.size(), kFsaveSize);
        if (t.fpu_rank < 1) {
          const std::uint32_t mxcsr = th.x87.mxcsr;
          th.x87 = readers::x87_from_fsave(d);
          th.x87.mxcsr = mxcsr;
          th.x87_valid = true;
          t.fpu_rank = 1;
        }
        return {};
      case kNtPrxfpreg:
        if (d.size() < kFxsaveSize)
          return Error::make(Errc::kTruncated, "{}: NT_PRXFPREG at offset 0x{:x} is {} bytes, shorter than {}", what_,
                             at, d.size(), kFxsaveSize);
        if (t.fpu_rank < 2) {
          th.x87 = *x87_from_fxsave(d);  // at least kFxsaveSize bytes: always a state
          th.x87_valid = true;
          t.fpu_rank = 2;
        }
        return {};
      case kNtX86Xstate: {
        if (d.size() < kXsaveHeaderEnd)
          return Error::make(Errc::kTruncated, "{}: NT_X86_XSTATE at offset 0x{:x} is {} bytes, shorter than {}", what_,
                             at, d.size(), kXsaveHeaderEnd);
        th.x87 = *x87_from_fxsave(d);  // its first 512 bytes are the FXSAVE area
        th.x87_valid = true;
        // XSTATE_BV bit 0 clear: x87 is in its initial state and the legacy x87 fields are stale.
        if (!(readers::le64(d, 512) & 1)) {
          const std::uint32_t mxcsr = th.x87.mxcsr;
          th.x87 = X87State{};
          th.x87.mxcsr = mxcsr;
        }
        t.fpu_rank = 3;
        return {};
      }
      case kNt386Tls: {
        if (d.size() % kTlsEntrySize != 0 || d.size() / kTlsEntrySize > kMaxTlsEntries)
          return Error::make(Errc::kMalformed, "{}: NT_386_TLS at offset 0x{:x} is {} bytes (16 per entry, at most {})",
                             what_, at, d.size(), kMaxTlsEntries);
        t.has_tls = true;
        for (std::size_t i = 0; i < d.size() / kTlsEntrySize; ++i)
          t.tls.emplace_back(le32(d, i * kTlsEntrySize), le32(d, i * kTlsEntrySize + 4));
        return {};
      }
      default: return {};
    }
  }

  Status file_note(std::span<const std::uint8_t> d, std::uint64_t at) {
    if (d.size() < 8) return Error::make(Errc::kTruncated, "{}: NT_FILE at offset 0x{:x} is {} bytes", what_, at, d.size());
    const std::uint32_t count = le32(d, 0), page = le32(d, 4);
    if (count > opt_.limits.max_file_entries)
      return Error::make(Errc::kLimit, "{}: NT_FILE lists {} mappings, past the limit of {}", what_, count,
                         opt_.limits.max_file_entries);
    if (8 + std::uint64_t{count} * 12 > d.size())
      return Error::make(Errc::kTruncated, "{}: NT_FILE at offset 0x{:x} lists {} mappings in {} bytes", what_, at,
                         count, d.size());
    std::uint64_t names = 8 + std::uint64_t{count} * 12;
    for (std::uint32_t i = 0; i < count; ++i) {
      ElfCoreFileMapping f;
      const std::uint32_t start = le32(d, 8 + i * 12), end = le32(d, 12 + i * 12), pgoff = le32(d, 16 + i * 12);
      if (end < start)
        return Error::make(Errc::kMalformed, "{}: NT_FILE mapping {} ends (0x{:x}) before it starts (0x{:x})", what_, i,
                           end, start);
      f.start = start;
      f.end = end;
      f.file_offset = std::uint64_t{pgoff} * page;
      const auto nul = std::find(d.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(names, d.size())),
                                 d.end(), std::uint8_t{0});
      if (names >= d.size() || nul == d.end())
        return Error::make(Errc::kTruncated, "{}: NT_FILE at offset 0x{:x}: the name of mapping {} runs past the note",
                           what_, at, i);
      f.path.assign(d.begin() + static_cast<std::ptrdiff_t>(names), nul);
      names = static_cast<std::uint64_t>(nul - d.begin()) + 1;
      core_.files.push_back(std::move(f));
    }
    return {};
  }

  /// Reads [file_offset, file_offset + n) of `path`; fewer bytes when the file is shorter.
  Result<std::vector<std::uint8_t>> read_file_range(const std::string& path, std::uint64_t off, std::uint64_t n) {
    std::filesystem::path p = opt_.file_root.empty() ? std::filesystem::path(path)
                                                     : opt_.file_root / std::filesystem::path(path).relative_path();
    LOCKSTEP_TRY_STATUS(require_regular_file(p));  // a FIFO would block the open below
    std::ifstream in(p, std::ios::binary);
    if (!in) return Error::make(Errc::kIo, "cannot open {}", p.string());
    in.seekg(static_cast<std::streamoff>(off));
    std::vector<std::uint8_t> out(n);
    in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n));
    out.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    return out;
  }

  Status memory() {
    readers::RangeAssembler assembler(&notes_);
    std::vector<ElfCoreFileMapping> files = core_.files;
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
    std::uint64_t prot_none = 0, prot_none_bytes = 0;
    for (const Segment& s : loads_) {
      LOCKSTEP_TRY(auto data, r_.slice(s.offset, s.filesz, "PT_LOAD data"));
      LOCKSTEP_TRY_STATUS(assembler.add(s.vaddr, data, s.prot, fmt::format("core PT_LOAD #{}", s.index)));
      if (s.filesz == s.memsz) continue;
      if (s.prot == kProtNone) {  // reservations and guard pages: never dumped, never read
        ++prot_none;
        prot_none_bytes += s.memsz - s.filesz;
        core_.missing.push_back({static_cast<GuestAddr>(s.vaddr + s.filesz), s.vaddr + s.memsz, s.prot, "", 0,
                                 "PROT_NONE (a reservation or guard page)"});
        continue;
      }
      // The undumped tail, split at NT_FILE boundaries.
      std::uint64_t a = s.vaddr + s.filesz;
      const std::uint64_t end = s.vaddr + s.memsz;
      while (a < end) {
        auto it = std::upper_bound(files.begin(), files.end(), a,
                                   [](std::uint64_t x, const ElfCoreFileMapping& f) { return x < f.start; });
        const ElfCoreFileMapping* f = nullptr;
        if (it != files.begin() && std::prev(it)->end > a) f = &*std::prev(it);
        std::uint64_t piece_end = end;
        if (f) piece_end = std::min(end, f->end);
        else if (it != files.end()) piece_end = std::min<std::uint64_t>(end, it->start);
        if (piece_end <= a) piece_end = end;  // defensive: always progress
        const std::uint64_t n = piece_end - a;
        if (!f) {
          core_.missing.push_back({static_cast<GuestAddr>(a), piece_end, s.prot, "", 0, "not dumped (not file-backed)"});
        } else {
          const std::uint64_t foff = f->file_offset + (a - f->start);
          std::string why;
          if (!opt_.refill_from_files) {
            why = "file-backed, refill off";
          } else if (core_.refilled_bytes + n > opt_.limits.max_refill_bytes) {
            why = "file-backed, past the refill limit";
          } else {
            auto bytes = read_file_range(f->path, foff, n);
            if (!bytes.ok()) {
              why = "file-backed, " + bytes.error().message;
            } else {
              LOCKSTEP_TRY_STATUS(assembler.add(a, *bytes, s.prot, "file " + f->path));
              core_.refilled_bytes += bytes->size();
              if (bytes->size() < n) {
                core_.missing.push_back({static_cast<GuestAddr>(a + bytes->size()), piece_end, s.prot, f->path,
                                         foff + bytes->size(), "file-backed, past the end of the file"});
              }
              a = piece_end;
              continue;
            }
          }
          core_.missing.push_back({static_cast<GuestAddr>(a), piece_end, s.prot, f->path, foff, why});
        }
        a = piece_end;
      }
    }
    core_.snapshot.regions = assembler.take();
    if (core_.refilled_bytes)
      notes_.push_back(fmt::format("0x{:x} bytes gcore/the kernel left out were refilled from the mapped files (NT_FILE)",
                                   core_.refilled_bytes));
    if (prot_none)
      notes_.push_back(fmt::format("{} PROT_NONE segments (0x{:x} bytes: reservations, guard pages) are not in the "
                                   "snapshot",
                                   prot_none, prot_none_bytes));
    std::size_t listed = 0;
    for (const auto& m : core_.missing) {
      if (m.prot == kProtNone) continue;
      if (listed++ >= 64) continue;
      notes_.push_back(fmt::format("missing 0x{:08x}..0x{:08x} ({}){}{}", m.begin, m.end, m.reason,
                                   m.file.empty() ? "" : ": ", m.file.empty() ? "" : fmt::format("{} +0x{:x}", m.file, m.file_offset)));
    }
    if (listed > 64) notes_.push_back(fmt::format("{} missing ranges in all (64 listed)", listed));
    // Modules: one per NT_FILE path, spanning its mappings.
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> span;
    std::vector<std::string> order;
    for (const auto& f : core_.files) {
      auto [it, fresh] = span.try_emplace(f.path, f.start, f.end);
      if (fresh) order.push_back(f.path);
      it->second.first = std::min<std::uint64_t>(it->second.first, f.start);
      it->second.second = std::max(it->second.second, f.end);
    }
    for (const auto& p : order)
      core_.snapshot.meta.modules.push_back(
          Module{p, static_cast<GuestAddr>(span[p].first), static_cast<std::uint32_t>(span[p].second - span[p].first)});
    if (!order.empty()) core_.snapshot.meta.exe_path = order.front();
    return {};
  }

  void finish_threads() {
    bool any_without_tls = false, ldt = false;
    for (auto& t : threads_) {
      Thread& th = t.thread;
      if (!t.fpu_rank) notes_.push_back(fmt::format("thread {}: no FPU note: x87 defaults (valid = false)", th.tid));
      if (t.has_tls) {
        core_.has_tls_notes = true;
        for (std::uint16_t sel : {th.fs, th.gs}) {
          if (!sel) continue;
          if (sel & 4) {
            ldt = true;
            continue;
          }
          for (const auto& [entry, base] : t.tls)
            if (entry == static_cast<std::uint32_t>(sel >> 3)) (sel == th.fs ? th.fs_base : th.gs_base) = base;
        }
        if (th.gs && th.fs == th.gs) th.gs_base = th.fs_base;
      } else {
        any_without_tls = true;
      }
      core_.snapshot.threads.push_back(th);
    }
    if (any_without_tls && !threads_.empty())
      notes_.push_back("no NT_386_TLS note (gdb's gcore up to 13.1 writes none; a kernel core has it): FS and GS "
                       "bases unknown, left 0");
    for (const Thread& th : core_.snapshot.threads)
      for (std::uint16_t sel : {th.fs, th.gs, th.ds, th.es}) ldt |= (sel & 4) != 0;
    if (ldt) find_teb_bases();
  }

  /// A core carries no LDT, so an FS selector with TI = 1 (Wine's TEB selector) has no base in it.
  /// The TEB is found by what it holds (snapshot-format.md): a 4 KiB-aligned address p whose NT_TIB.Self
  /// (p + 0x18) is p and whose stack range [StackLimit (p + 8), StackBase (p + 4)) holds the thread's
  /// esp. Exactly one such page gives FS's base (a heuristic, and a note says so); none or several
  /// leave it 0. GS and data selectors with TI = 1 stay without a base.
  void find_teb_bases() {
    const Snapshot& s = core_.snapshot;
    auto u32_at = [&](std::uint64_t a) -> std::optional<std::uint32_t> {
      if (a + 4 > (std::uint64_t{1} << 32)) return std::nullopt;
      auto b = s.read(static_cast<GuestAddr>(a), 4);
      if (!b.ok()) return std::nullopt;
      return static_cast<std::uint32_t>((*b)[0] | ((*b)[1] << 8) | ((*b)[2] << 16) | (static_cast<std::uint32_t>((*b)[3]) << 24));
    };
    // Every self-pointing page once, with its stack range.
    struct Teb {
      GuestAddr at;
      std::uint32_t stack_base, stack_limit;
    };
    std::vector<Teb> tebs;
    for (const Region& r : s.regions) {
      for (std::uint64_t p = (std::uint64_t{r.base} + 0xfff) & ~std::uint64_t{0xfff}; p + 0x1c <= r.end(); p += 0x1000) {
        const auto self = u32_at(p + 0x18);
        if (!self || *self != p) continue;
        const auto base = u32_at(p + 4), limit = u32_at(p + 8);
        if (base && limit) tebs.push_back({static_cast<GuestAddr>(p), *base, *limit});
      }
    }
    for (Thread& th : core_.snapshot.threads) {
      for (auto [sel, reg] : {std::pair{th.fs, "fs"}, std::pair{th.gs, "gs"}, std::pair{th.ds, "ds"}, std::pair{th.es, "es"}}) {
        if (!(sel & 4)) continue;
        if (sel != th.fs) {
          notes_.push_back(fmt::format("thread {}: {}=0x{:04x} is an LDT selector; a core holds no LDT: its base is "
                                       "unknown",
                                       th.tid, reg, sel));
          continue;
        }
        std::vector<GuestAddr> found;
        for (const Teb& t : tebs)
          if (t.stack_limit <= th.esp && th.esp < t.stack_base) found.push_back(t.at);
        if (found.size() == 1) {
          th.fs_base = found.front();
          notes_.push_back(fmt::format("thread {}: fs=0x{:04x} is an LDT selector (a core holds no LDT); its base "
                                       "0x{:08x} is the one TEB whose Self pointer is itself and whose stack holds esp "
                                       "0x{:08x} (a heuristic)",
                                       th.tid, sel, th.fs_base, th.esp));
        } else {
          notes_.push_back(fmt::format("thread {}: fs=0x{:04x} is an LDT selector (a core holds no LDT) and {} of the "
                                       "{} self-pointing TEB pages have a stack holding esp 0x{:08x}: base left 0",
                                       th.tid, sel, found.size(), tebs.size(), th.esp));
        }
      }
    }
  }

  ByteReader r_;
  std::string_view what_;
  const ElfCoreOptions& opt_;
  std::uint32_t phoff_ = 0, phnum_ = 0;
  std::uint64_t note_count_ = 0;
  std::vector<Segment> note_segments_, loads_;
  std::vector<ThreadNotes> threads_;
  std::vector<std::string> notes_;
  ElfCore core_;
};

}  // namespace

Result<ElfCore> read_elf_core(std::span<const std::uint8_t> bytes, std::string_view what, const ElfCoreOptions& options) {
  return CoreParser(bytes, what, options).run();
}

Result<ElfCore> load_elf_core(const std::filesystem::path& path, const ElfCoreOptions& options) {
  LOCKSTEP_TRY(auto bytes, read_file(path, options.limits.max_file_bytes));
  return read_elf_core(bytes, path.string(), options);
}

}  // namespace lockstep::harness
