// Linux ELF core files of 32-bit (i386) processes — the kernel's or gdb's `gcore` — → the snapshot model.
//
// Layout: Linux's elf.h and user_32.h. What is read:
//  - PT_LOAD segments: p_filesz bytes at p_vaddr with the segment's protection. The rest of the
//    segment, [p_vaddr + p_filesz, p_vaddr + p_memsz), was not dumped (clean file-backed pages by
//    default): it is refilled from the file NT_FILE names when ElfCoreOptions::refill_from_files and
//    the file is readable, and otherwise listed in ElfCore::missing and meta.notes.
//  - NT_PRSTATUS (i386: pr_pid at 24, the 68-byte user_regs_struct at 72) starts a thread; the notes
//    after it (until the next NT_PRSTATUS) belong to it: NT_PRFPREG (FSAVE, 108 bytes),
//    NT_PRXFPREG (FXSAVE, 512), NT_X86_XSTATE (FXSAVE legacy area + XSAVE header) — whichever exist,
//    the richest wins — and NT_386_TLS (GDT TLS entries: the FS and GS bases, matched by selector >> 3).
//  - NT_FILE: the file mappings (also meta.modules, one per path).
// gdb's gcore up to at least 13.1 (Debian 12) writes no NT_386_TLS: the FS/GS bases are then 0 and a
// note says so. Threads keep the core's order; x87_valid is false for a thread with no FPU note.
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

/// Named maximums for what is read from a core (beyond them: Errc::kLimit).
struct ElfCoreLimits {
  std::uint32_t max_program_headers = 1u << 17;  ///< e_phnum (a Wine process maps thousands of ranges)
  std::uint32_t max_notes = 1u << 20;            ///< notes in all PT_NOTE segments
  std::uint32_t max_threads = 1u << 16;          ///< NT_PRSTATUS notes
  std::uint32_t max_file_entries = 1u << 20;     ///< NT_FILE count
  std::uint64_t max_refill_bytes = std::uint64_t{1} << 32;  ///< bytes refilled from files, in all
  std::uint64_t max_file_bytes = std::uint64_t{16} << 30;   ///< load_elf_core(): largest core read
};

struct ElfCoreOptions {
  ElfCoreLimits limits;
  /// Refill ranges the core left out from the files NT_FILE names (read now: the file must be the
  /// one that was mapped). Off: only the core's own bytes.
  bool refill_from_files = true;
  /// Prepended to NT_FILE paths when refilling (a copy of the dumped machine's tree); empty: as recorded.
  std::filesystem::path file_root;
};

/// One NT_FILE entry.
struct ElfCoreFileMapping {
  GuestAddr start = 0;
  std::uint64_t end = 0;          ///< one past the last byte
  std::uint64_t file_offset = 0;  ///< bytes (NT_FILE's page index × page size)
  std::string path;
};

/// A guest range the core does not hold and that was not refilled.
struct ElfCoreMissing {
  GuestAddr begin = 0;
  std::uint64_t end = 0;
  std::uint8_t prot = 0;   ///< the segment's protection
  std::string file;        ///< the NT_FILE path behind it, if any
  std::uint64_t file_offset = 0;
  std::string reason;      ///< "file-backed, file not readable: ...", "not dumped (anonymous)", "PROT_NONE"
};

struct ElfCore {
  Snapshot snapshot;
  std::vector<ElfCoreMissing> missing;
  std::vector<ElfCoreFileMapping> files;
  std::uint64_t refilled_bytes = 0;
  bool has_tls_notes = false;  ///< some thread had NT_386_TLS (the kernel writes it; gcore 13 does not)
};

/// Reads a core. Errors: kBadMagic (not ELF), kUnsupported (64-bit, big-endian, not i386, not a core),
/// kTruncated, kLimit, kMalformed (wrapping ranges, filesz > memsz, a note longer than its segment).
Result<ElfCore> read_elf_core(std::span<const std::uint8_t> bytes, std::string_view what,
                              const ElfCoreOptions& options = {});
Result<ElfCore> load_elf_core(const std::filesystem::path& path, const ElfCoreOptions& options = {});

}  // namespace lockstep::harness
