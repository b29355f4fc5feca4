// A live whole-process snapshot of a running 32-bit process by pid (Linux; a Wine process too):
// /proc/PID/maps, then process_vm_readv (or /proc/PID/mem) for memory, ptrace for every thread's
// registers (docs: harness/docs/live.md).
//
// Every thread is stopped (PTRACE_SEIZE + PTRACE_INTERRUPT) while the process is read and resumed
// (PTRACE_DETACH) afterwards — on every path, errors included — so the process runs on unharmed. The
// LDT is read by running modify_ldt inside the stopped process (every register and byte put back).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness {

/// One line of /proc/PID/maps.
struct MapsEntry {
  std::uint64_t start = 0, end = 0;  ///< [start, end), host-width: [vsyscall] sits above 4 GiB
  bool read = false, write = false, exec = false, shared = false;
  std::uint64_t offset = 0;
  std::string dev;        ///< "fd:01"
  std::uint64_t inode = 0;
  std::string path;       ///< "" (anonymous), "[heap]", "/usr/lib/x.so", "/tmp/a b (deleted)"
};

/// Parses the text of /proc/PID/maps. A line that does not parse is Errc::kMalformed naming it.
Result<std::vector<MapsEntry>> parse_proc_maps(std::string_view text);
/// Reads and parses /proc/PID/maps of a running process: kNotFound when there is no such process,
/// kPermission when the kernel refuses (as it refuses ptrace then).
Result<std::vector<MapsEntry>> read_proc_maps(int pid);

/// How long a live snapshot held the process (LiveSnapshotOptions::timing).
struct LiveSnapshotTiming {
  double stopped_seconds = 0;  ///< from the first thread's stop to the last thread's release
  std::size_t threads = 0;     ///< threads snapshotted
  std::uint64_t bytes = 0;     ///< region bytes read
};

/// How a live snapshot is taken. Defaults are what `lockstep snapshot --pid` uses.
struct LiveSnapshotOptions {
  /// Stop reading once this many region bytes are collected (Errc::kLimit): a guard against a
  /// runaway process; the whole 32-bit space by default.
  std::uint64_t max_total_bytes = std::uint64_t{1} << 32;
  /// Hash the executable (/proc/PID/exe) into meta.exe_sha256.
  bool hash_executable = true;
  /// Also accept a 64-bit process (default: refuse it, Errc::kUnsupported). Its memory below 4 GiB
  /// is read as usual; each thread gets the low 32 bits of its registers (a note says so), its own
  /// fs/gs bases when they are below 4 GiB, and its x87 state from the FXSAVE image. Lossy: for
  /// inspecting 64-bit helpers, and for exercising the live path on hosts that cannot run 32-bit
  /// code (a PVM guest, a kernel with ia32_emulation=0).
  bool allow_64bit = false;
  /// Read the process's LDT (Snapshot::ldt) by running mmap, modify_ldt(0) and munmap inside the
  /// stopped main thread, every register and code byte restored afterwards. Off: no LDT, and no
  /// system call runs in the process.
  bool read_ldt = true;
  /// Read memory with process_vm_readv (one copy; a shorter stop than /proc/PID/mem, measured by
  /// scripts/bench-live-snapshot) while the kernel allows it; false: /proc/PID/mem only. Either way
  /// pages that cannot be read are skipped as /proc/PID/mem says.
  bool use_process_vm_readv = true;
  /// Allocate (and touch) the buffers for the process's mappings before stopping it, from its maps
  /// at that moment, so that the page faults of fresh buffers do not lengthen the stop.
  bool prepare_buffers = true;
  /// When set, receives how long the process was stopped.
  LiveSnapshotTiming* timing = nullptr;
};

/// Snapshots process `pid`.
///  - regions: every readable mapping below 4 GiB, its bytes (process_vm_readv or /proc/PID/mem), protections and names
///    from the maps; [vvar], [vvar_vclock], [vsyscall], mappings without read permission (guard
///    pages, ---p reservations), anything above 4 GiB and pages the kernel refuses to read are
///    skipped and listed in meta.notes, not fatal;
///  - threads: the main thread first, then the others by tid; general registers and selectors from
///    PTRACE_GETREGSET NT_PRSTATUS (the i386 layout of a 32-bit tracee), x87 state from NT_PRFPREG
///    (FSAVE form: full tag word, ST(i) in stack order) and MXCSR from NT_PRXFPREG, FS/GS bases from
///    PTRACE_GET_THREAD_AREA (GDT TLS entries);
///  - ldt: the process's LDT entries (read_ldt), which also give the FS/GS bases of LDT selectors
///    (Wine's per-thread TEB selectors);
///  - meta: format "live", source "live pid N", time, exe path and SHA-256, modules (file mappings).
/// Every thread is stopped (seize + interrupt, never a signal that could be lost or seen), read, and
/// let go again; waits have deadlines, so a snapshot never hangs on a thread that does not stop.
/// Errors: kNotFound (no such process), kPermission (ptrace refused: the message says what to do),
/// kUnsupported (a 64-bit process without allow_64bit), kIo (the process exited, a thread did not
/// stop, or a thread appeared during the snapshot: the process is let go and nothing is returned).
Result<Snapshot> snapshot_live(int pid, const LiveSnapshotOptions& options = {});

}  // namespace lockstep::harness
