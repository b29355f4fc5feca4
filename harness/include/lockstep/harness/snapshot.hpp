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

namespace lockstep::harness {

using GuestAddr = std::uint32_t;  ///< a 32-bit guest virtual address (never a host pointer or file offset)

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

/// x87 and SSE control state of one thread.
struct X87State {
  std::uint16_t control = 0x037f;  ///< FCW (POD's thread: 0x027f; Linux starts threads at 0x037f)
  std::uint16_t status = 0;        ///< FSW (TOP in bits 11..13)
  std::uint16_t tag = 0xffff;      ///< full FSAVE tag word, 2 bits per physical register (11 = empty)
  /// ST(0)..ST(7) as 80-bit extended values (10 bytes, little-endian), indexed by stack position
  /// (ST(i) = physical register (TOP + i) & 7), as FSAVE and FXSAVE both store them.
  std::array<std::array<std::uint8_t, 10>, 8> st{};
  std::uint32_t mxcsr = 0x1f80;
  bool valid = false;  ///< false when the source had no FPU state (a Wine minidump): defaults apply
  bool operator==(const X87State&) const = default;
};

/// Converts an FXSAVE image (the legacy 512-byte area: x87 at 0..31, MXCSR at 24, ST(0..7) in
/// 16-byte slots from 32; the same layout as Windows' CONTEXT.ExtendedRegisters, Linux's
/// user_fxsr_struct / NT_PRXFPREG and XSAVE's first 512 bytes) into the model, rebuilding the full
/// tag word from FXSAVE's abridged one the way the kernel does (valid / zero / special / empty from
/// each register's contents). Needs at least 160 bytes (through ST(7)); fewer gives `valid = false`.
X87State x87_from_fxsave(std::span<const std::uint8_t> fxsave);

/// One thread's CPU state.
struct Thread {
  std::uint32_t tid = 0;
  std::uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0, esi = 0, edi = 0, ebp = 0, esp = 0;
  std::uint32_t eip = 0, eflags = 0x202;
  std::uint16_t cs = 0, ds = 0, es = 0, fs = 0, gs = 0, ss = 0;  ///< segment selectors
  std::uint32_t fs_base = 0, gs_base = 0;  ///< the bases behind fs and gs (a Windows TEB, a Linux TLS block)
  X87State x87;
  bool operator==(const Thread&) const = default;
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
  SnapshotMeta meta;

  /// Checks the invariants: regions sorted, non-empty, non-overlapping, below 4 GiB.
  Status validate() const;
  /// Sorts regions by base.
  void sort_regions();
  const Region* find(GuestAddr a) const noexcept;
  Region* find(GuestAddr a) noexcept;
  /// Copies n bytes at a; fails (kNotFound) if any byte is outside every region.
  Result<std::vector<std::uint8_t>> read(GuestAddr a, std::uint32_t n) const;
  /// Overwrites bytes at a (must lie within regions).
  Status write(GuestAddr a, std::span<const std::uint8_t> bytes);
  std::uint64_t total_bytes() const noexcept;
  /// SHA-256 (hex) of what a run depends on: every region (base, size, protection, bytes) and every
  /// thread's registers, segment bases and x87 state — not the metadata (source, time, notes). Two
  /// snapshots of the same state give the same hash, whoever took them and when; cases cite it.
  std::string content_sha256() const;
  /// Member-wise equality (every byte, register and metadata field): the round-trip identity.
  bool operator==(const Snapshot&) const = default;
};

}  // namespace lockstep::harness
