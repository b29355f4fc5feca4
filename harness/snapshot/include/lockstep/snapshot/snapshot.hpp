// The whole-process snapshot model: what every reader produces (lockstep's own file, a live /proc
// process, a Windows minidump, an ELF core) and what the Unicorn machine loads.
//
// All addresses are 32-bit guest virtual addresses: the original is a 32-bit x86 process.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/cases/cpu.hpp"

namespace lockstep::harness {

// The CPU vocabulary is the one every layer shares (lockstep/cases/cpu.hpp).
using cases::GuestAddr;
using cases::X87State;

/// Region protection bits (same values as Unicorn's UC_PROT_*).
enum Prot : std::uint8_t { kProtNone = 0, kProtRead = 1, kProtWrite = 2, kProtExec = 4 };
std::string prot_string(std::uint8_t prot);  ///< "r-x", "rw-", ...

/// One contiguous range of guest memory and its bytes.
struct Region {
  GuestAddr base = 0;
  std::vector<std::uint8_t> bytes;  ///< size() is the region's size; may be any size (not page-rounded)
  std::uint8_t prot = kProtRead | kProtWrite;
  std::string name;                 ///< origin: "/proc maps: [heap]", "minidump MemoryList #3", a file path ...

  std::uint64_t end() const noexcept { return std::uint64_t{base} + bytes.size(); }  ///< one past the last byte
  bool contains(GuestAddr a) const noexcept { return a >= base && a < end(); }
  bool operator==(const Region&) const = default;
};

/// Converts an FXSAVE image (the legacy 512-byte area: x87 at 0..31, MXCSR at 24, ST(0..7) in
/// 16-byte slots from 32; the same layout as Windows' CONTEXT.ExtendedRegisters, Linux's
/// user_fxsr_struct / NT_PRXFPREG and XSAVE's first 512 bytes) into the model, rebuilding the full
/// tag word from FXSAVE's abridged one the way the kernel does (valid / zero / special / empty from
/// each register's contents). Needs at least 160 bytes (through ST(7)); fewer gives nothing.
std::optional<X87State> x87_from_fxsave(std::span<const std::uint8_t> fxsave);

/// The FXSAVE area's size: Windows' CONTEXT.ExtendedRegisters, Linux's NT_PRXFPREG / `user_fxsr_struct`.
inline constexpr std::size_t kFxsaveSize = 512;

/// One thread's CPU state.
struct Thread {
  std::uint32_t tid = 0;
  std::uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0, esi = 0, edi = 0, ebp = 0, esp = 0;
  std::uint32_t eip = 0, eflags = 0x202;
  std::uint16_t cs = 0, ds = 0, es = 0, fs = 0, gs = 0, ss = 0;  ///< segment selectors
  std::uint32_t fs_base = 0, gs_base = 0;  ///< the bases behind fs and gs (a Windows TEB, a Linux TLS block)
  X87State x87;
  bool x87_valid = false;  ///< false when the source had no FPU state (a Wine minidump): defaults apply
  bool operator==(const Thread&) const = default;
};

inline constexpr std::uint32_t kLdtEntries = 8192;  ///< an LDT holds at most 8192 descriptors (64 KiB)

/// One entry of the process's LDT (local descriptor table), as the CPU's 8-byte descriptor holds it.
/// A selector with TI = 1 (bit 2) picks entry `selector >> 3`: Wine gives every Windows thread an
/// LDT entry whose base is its TEB and loads FS with it (modify_ldt), and a 16-bit or DOS program's
/// data selectors live here too. The LDT is the process's (every thread shares it); a thread's
/// selectors are in Thread.
struct LdtEntry {
  std::uint16_t index = 0;   ///< entry number (0..8191): the selector is (index << 3) | 4 | RPL
  std::uint32_t base = 0;    ///< segment base (a TEB under Wine)
  std::uint32_t limit = 0;   ///< the descriptor's 20-bit limit field (in 4 KiB units when granular)
  /// The descriptor's access byte (bits 40..47: present, DPL, S, type). Linux gives user entries
  /// present, DPL 3, S = 1 and a data (0x2: read/write, 0x0: read-only) or code (0xa: execute/read) type.
  std::uint8_t access = 0;
  /// The descriptor's flags nibble (bits 52..55): bit 0 AVL ("useable"), 1 L (64-bit code),
  /// 2 D/B (32-bit), 3 G (limit in 4 KiB pages).
  std::uint8_t flags = 0;

  /// The descriptor's 8 bytes as a little-endian u64 (what the CPU reads from the table).
  std::uint64_t descriptor() const noexcept;
  /// The entry a raw 8-byte descriptor describes (index given by its place in the table).
  static LdtEntry from_descriptor(std::uint16_t index, std::uint64_t d) noexcept;
  /// The segment's size in bytes minus one (limit scaled by G).
  std::uint32_t byte_limit() const noexcept { return (flags & 8) ? (limit << 12) | 0xfff : limit; }
  bool present() const noexcept { return (access & 0x80) != 0; }
  bool operator==(const LdtEntry&) const = default;
};

/// An executable or library mapped in the process (from a minidump's ModuleList, /proc maps, NT_FILE).
struct Module {
  std::string name;
  GuestAddr base = 0;
  std::uint32_t size = 0;
  bool operator==(const Module&) const = default;
};

/// Where a snapshot came from.
struct SnapshotMeta {
  std::string source;           ///< "live pid 1234", "minidump minidump2.dmp", "lockstep snapshot"
  std::string format;           ///< "lockstep", "live", "minidump", "elf-core", "pe32"
  std::int64_t created_unix = 0;///< when it was taken (seconds since the epoch; 0 = unknown)
  std::string exe_path;         ///< the executable's path, when known
  std::string exe_sha256;       ///< its SHA-256 in hex, when known
  std::vector<Module> modules;
  std::vector<std::string> notes;  ///< what the reader skipped or could not fill ("[vvar] unreadable: skipped")
  bool operator==(const SnapshotMeta&) const = default;
};

struct Snapshot {
  std::vector<Region> regions;  ///< sorted by base, non-overlapping (validate() checks)
  std::vector<Thread> threads;  ///< threads[0] is the one a call runs on unless told otherwise
  /// The process's LDT: its present entries, sorted by index, each index once (validate() checks).
  /// Empty for a process without one (most Linux programs) and for sources that do not carry it.
  std::vector<LdtEntry> ldt;
  SnapshotMeta meta;

  /// Checks the invariants: regions sorted, non-empty, non-overlapping, below 4 GiB; LDT entries
  /// sorted by index, unique, below 8192.
  Status validate() const;
  /// Sorts regions by base.
  void sort_regions();
  const Region* find(GuestAddr a) const noexcept;
  /// The LDT entry with this index, or null.
  const LdtEntry* find_ldt(std::uint16_t index) const noexcept;
  Region* find(GuestAddr a) noexcept;
  /// Copies n bytes at a; fails (kNotFound) if any byte is outside every region.
  Result<std::vector<std::uint8_t>> read(GuestAddr a, std::uint32_t n) const;
  /// Overwrites bytes at a (must lie within regions).
  Status write(GuestAddr a, std::span<const std::uint8_t> bytes);
  std::uint64_t total_bytes() const noexcept;
  /// SHA-256 (hex) of what a run depends on: every region (base, size, protection, bytes) and every
  /// thread's registers, segment bases and x87 state, and the LDT entries when there are any — not
  /// the metadata (source, time, notes). Two
  /// snapshots of the same state give the same hash, whoever took them and when; cases cite it.
  std::string content_sha256() const;
  /// Member-wise equality (every byte, register and metadata field): the round-trip identity.
  bool operator==(const Snapshot&) const = default;
};

}  // namespace lockstep::harness
