// Windows minidumps (.dmp) of 32-bit x86 processes → the snapshot model.
//
// Two steps: parse_minidump() reads every stream lockstep uses into plain values (Minidump: what
// `lockstep info` shows and what tests check field by field); minidump_to_snapshot() turns that into a
// Snapshot (memory, threads, modules, notes). read_minidump() / load_minidump() do both.
//
// What is read (offsets: breakpad's minidump_format.h): the header and directory (type-0 entries
// skipped), SystemInfo (anything but x86 is refused, Errc::kUnsupported), ThreadList with each x86
// CONTEXT honoured group by group (ContextFlags), MemoryList and Memory64List (either or both; the
// 4-byte padding some writers put after a list's count), MemoryInfoList (protections), ModuleList and
// Wine's 0xFFF0 ELF module list, Exception and MiscInfo (notes only). Other stream types are skipped
// with a note.
//
// Memory precedence (deterministic for overlapping ranges): Memory64List ranges in file order, then
// MemoryList ranges in file order, then thread stacks from ThreadList; a later range only adds bytes no
// earlier range holds, and every overlap is noted with the count of bytes that differ.
//
// Without a MemoryInfoList every region is read-write (noted). Without FPU state in a context (Wine
// writes CONTEXT_FULL only) the thread gets Windows' defaults FCW 0x027f and MXCSR 0x1f80 and
// x87_valid = false. A thread's FS base is its TEB from ThreadList; TEB+0x18 (NT_TIB.Self) is checked
// when the dump holds it.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness {

/// Named maximums for every count and size read from a minidump (beyond them: Errc::kLimit).
struct MinidumpLimits {
  std::uint32_t max_streams = 4096;              ///< directory entries (Wine pads to a multiple of 4)
  std::uint32_t max_threads = 65536;             ///< ThreadList entries
  std::uint32_t max_modules = 65536;             ///< ModuleList (and 0xFFF0) entries
  std::uint64_t max_memory_ranges = 1u << 20;    ///< MemoryList + Memory64List descriptors
  std::uint64_t max_memory_info = 1u << 20;      ///< MemoryInfoList entries
  std::uint32_t max_name_bytes = 64 * 1024;      ///< one MINIDUMP_STRING (UTF-16 bytes)
  std::uint64_t max_file_bytes = std::uint64_t{8} << 30;  ///< load_minidump(): largest file read
};

struct MinidumpOptions {
  MinidumpLimits limits;
};

/// One directory entry.
struct MinidumpStream {
  std::uint32_t type = 0;
  std::uint32_t size = 0;  ///< DataSize (bytes)
  std::uint32_t rva = 0;   ///< file offset
};

/// An x86 CONTEXT exactly as stored (all fields; `context_flags` says which groups are meaningful).
struct MinidumpContextX86 {
  std::uint32_t context_flags = 0;
  std::uint32_t dr0 = 0, dr1 = 0, dr2 = 0, dr3 = 0, dr6 = 0, dr7 = 0;
  struct FloatSave {
    std::uint32_t control_word = 0, status_word = 0, tag_word = 0;
    std::uint32_t error_offset = 0, error_selector = 0, data_offset = 0, data_selector = 0;
    std::array<std::uint8_t, 80> register_area{};  ///< ST(0)..ST(7), 10 bytes each
    std::uint32_t cr0_npx_state = 0;
  } float_save;
  std::uint32_t gs = 0, fs = 0, es = 0, ds = 0;
  std::uint32_t edi = 0, esi = 0, ebx = 0, edx = 0, ecx = 0, eax = 0;
  std::uint32_t ebp = 0, eip = 0, cs = 0, eflags = 0, esp = 0, ss = 0;
  bool has_extended_area = false;                ///< the context was long enough (0x2CC) to hold it
  std::array<std::uint8_t, 512> extended_registers{};  ///< FXSAVE image

  // ContextFlags bits (x86).
  static constexpr std::uint32_t kX86 = 0x00010000;
  static constexpr std::uint32_t kControl = 0x1, kInteger = 0x2, kSegments = 0x4, kFloatingPoint = 0x8,
                                 kDebugRegisters = 0x10, kExtendedRegisters = 0x20;
};

struct MinidumpThread {
  std::uint32_t thread_id = 0;
  std::uint32_t suspend_count = 0, priority_class = 0, priority = 0;
  std::uint64_t teb = 0;
  std::uint64_t stack_start = 0;
  std::uint32_t stack_size = 0;
  std::uint32_t stack_rva = 0;
  std::optional<MinidumpContextX86> context;  ///< absent when the writer stored none (DataSize 0)
};

struct MinidumpModule {
  std::uint64_t base = 0;
  std::uint32_t size = 0, checksum = 0, time_date_stamp = 0;
  std::string name;        ///< UTF-8
  bool wine_elf = false;   ///< from Wine's 0xFFF0 stream (a host .so), not the ModuleList
};

/// Where one range of memory is in the file.
struct MinidumpMemoryRange {
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  std::uint64_t file_offset = 0;
  std::string source;  ///< "MemoryList #2", "Memory64List #0", "ThreadList stack of 0xbf4"
};

struct MinidumpMemoryInfo {
  std::uint64_t base = 0, allocation_base = 0;
  std::uint32_t allocation_protect = 0;
  std::uint64_t region_size = 0;
  std::uint32_t state = 0, protect = 0, type = 0;
};

struct MinidumpSystemInfo {
  std::uint16_t processor_architecture = 0;  ///< 0 x86, 9 AMD64 (only 0 is read further)
  std::uint16_t processor_level = 0, processor_revision = 0;
  std::uint8_t number_of_processors = 0, product_type = 0;
  std::uint32_t major_version = 0, minor_version = 0, build_number = 0, platform_id = 0;
  bool wine = false;  ///< the 'WINE' block Wine's dbghelp writes after the struct
};

struct MinidumpException {
  std::uint32_t thread_id = 0, code = 0, flags = 0;
  std::uint64_t address = 0;
};

/// A parsed minidump.
struct Minidump {
  std::uint32_t version = 0;
  std::uint32_t time_date_stamp = 0;
  std::uint64_t flags = 0;  ///< MINIDUMP_TYPE bits
  std::vector<MinidumpStream> streams;  ///< the directory as stored, type-0 entries included
  std::optional<MinidumpSystemInfo> system_info;
  std::vector<MinidumpThread> threads;
  std::vector<MinidumpModule> modules;  ///< ModuleList first, then Wine's 0xFFF0 list
  std::vector<MinidumpMemoryRange> memory;  ///< Memory64List, MemoryList, then thread stacks (precedence order)
  bool has_memory_info = false;
  std::vector<MinidumpMemoryInfo> memory_info;
  std::optional<MinidumpException> exception;
  std::optional<std::uint32_t> process_id;  ///< MiscInfo, when its flag says valid
  std::vector<std::string> notes;           ///< streams skipped, oddities
};

/// Parses `bytes` (the whole file; `what` names it in messages). Errors: kBadMagic, kBadVersion,
/// kTruncated (a structure or range past the end), kLimit (a count past `limits`), kMalformed
/// (impossible values: wrapping ranges, a list longer than its stream), kUnsupported (not x86).
Result<Minidump> parse_minidump(std::span<const std::uint8_t> bytes, std::string_view what,
                                const MinidumpLimits& limits = {});

/// The snapshot of a parsed minidump; `bytes` must be the same file `dump` was parsed from.
Result<Snapshot> minidump_to_snapshot(const Minidump& dump, std::span<const std::uint8_t> bytes,
                                      std::string_view what);

/// parse_minidump + minidump_to_snapshot.
Result<Snapshot> read_minidump(std::span<const std::uint8_t> bytes, std::string_view what,
                               const MinidumpOptions& options = {});
/// Reads the file at `path` (at most limits.max_file_bytes) and converts it.
Result<Snapshot> load_minidump(const std::filesystem::path& path, const MinidumpOptions& options = {});

}  // namespace lockstep::harness
