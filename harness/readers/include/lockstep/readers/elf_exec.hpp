// ELF32 i386 executables (a Linux original on disc): parsed and mapped alone into a snapshot with a
// synthesized thread, so that a porter with only the binary can call its functions — the ELF
// counterpart of a PE32 image alone (pe32.hpp).
//
// Layout: the System V ABI's ELF32 headers and its i386 supplement. Only ET_EXEC i386 files are
// mapped (their segments at their link addresses); a position-independent file (ET_DYN) is refused
// naming the type, since lockstep never relocates. A dynamically linked executable is mapped too,
// with a note: its calls into shared libraries go through PLT stubs nothing resolves, and fault there.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness {

/// Named maximums for what is read from an ELF executable (beyond them: Errc::kLimit).
struct ElfExecLimits {
  std::uint32_t max_program_headers = 256;
  std::uint64_t max_mapped_bytes = std::uint64_t{512} << 20;  ///< all PT_LOAD segments' memory together
};

/// One PT_LOAD segment, as the kernel maps it.
struct ElfLoadSegment {
  GuestAddr vaddr = 0;
  std::uint32_t memsz = 0, filesz = 0, offset = 0;
  std::uint8_t prot = 0;
};

struct ElfExecutable {
  std::string what;                      ///< the file's name in messages
  GuestAddr entry = 0;
  bool dynamic = false;                  ///< has PT_INTERP (needs a dynamic loader)
  std::vector<ElfLoadSegment> segments;  ///< sorted by address, non-overlapping pages
  std::vector<std::uint8_t> file;
  std::string sha256;                    ///< of the file, hex
};

/// True when `bytes` is an ELF file whose e_type is not ET_CORE (an executable or a shared object):
/// what the snapshot loader hands to parse_elf_executable rather than the core reader.
bool is_elf_executable(std::span<const std::uint8_t> bytes) noexcept;

/// Parses an ELF32 i386 ET_EXEC file. Errors: kBadMagic, kTruncated, kUnsupported (64-bit,
/// big-endian, not i386, ET_DYN / ET_REL), kMalformed (segments past the file or wrapping, pages of
/// two segments overlapping), kLimit.
Result<ElfExecutable> parse_elf_executable(std::span<const std::uint8_t> bytes, std::string_view what,
                                           const ElfExecLimits& limits = {});

/// Where snapshot_from_elf_executable puts the synthesized thread's block (stack, then the TLS block gs
/// points at): the first candidate that stays clear of every segment by kElfThreadBlockGap.
inline constexpr GuestAddr kElfThreadBlockCandidates[] = {0xbf000000, 0x7f000000, 0x50000000, 0x20000000};
inline constexpr std::uint32_t kElfThreadBlockGap = 0x100000;
inline constexpr std::uint32_t kElfStackSize = 0x40000;  ///< block + 0: the stack, esp 0x100 below its top
inline constexpr std::uint32_t kElfTlsSize = 0x2000;     ///< block + kElfStackSize: static TLS, then the TCB
/// The thread pointer (gs's base) sits kElfTlsSize / 2 into the TLS block: i386 TLS variant II keeps a
/// program's thread-local variables below it, and the TCB (self pointers at +0 and +8) at it.
inline constexpr std::uint32_t kElfThreadPointerOffset = kElfTlsSize / 2;
/// Linux i386's user selectors: code 0x23, data 0x2b, gs 0x63 (GDT entry 12, the first TLS entry).
inline constexpr std::uint16_t kElfCs = 0x23, kElfDs = 0x2b, kElfGs = 0x63;

/// The executable's segments mapped (bss zeroed) plus a synthesized thread: a stack, gs on a TLS
/// block whose TCB points at itself, eip at the entry point, the x87 control word left to the profile.
Snapshot snapshot_from_elf_executable(const ElfExecutable& exe);

}  // namespace lockstep::harness
