// A process traced for recording (Linux, ptrace): every thread seized (and every thread it creates
// while traced), hardware breakpoints in the debug registers of each thread, the next breakpoint hit
// on whichever thread, its memory read while that thread waits, a whole-process snapshot taken with
// every thread stopped (the live snapshot's reading, harness/docs/live.md), and a detach that leaves
// the process running with no breakpoint and no thread traced. Design and the i386/x86-64
// differences: capture/docs/record.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/live/live.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness {

/// A thread's general registers at a breakpoint, full width. A 32-bit tracee fills the low halves
/// (its i386 registers); `is64` says which layout the kernel gave.
struct TraceRegisters {
  bool is64 = false;
  std::uint64_t ax = 0, bx = 0, cx = 0, dx = 0, si = 0, di = 0, bp = 0, sp = 0, ip = 0, flags = 0;
};

/// What Tracer::next() saw.
struct TraceEvent {
  enum class Kind {
    kHit,          ///< a thread stopped at one of its breakpoints; it waits until the next next()
    kExited,       ///< the process ended (every thread gone): exit_status or signal
    kInterrupted,  ///< SIGINT, SIGTERM or SIGHUP reached the tracer: the caller should detach
    kTimeout,      ///< the deadline passed with no hit
  };
  Kind kind = Kind::kHit;
  int tid = 0;
  TraceRegisters regs;     ///< kHit: the thread's registers (ip is the breakpoint's address)
  int exit_status = 0;     ///< kExited: the exit code, when it exited
  int signal = 0;          ///< kExited: the signal that killed it, or 0; kInterrupted: the signal received
};

/// Breakpoints a tracer can hold in each thread: the four debug-register slots DR0..DR3.
inline constexpr std::size_t kDebugRegisterSlots = 4;

class Tracer {
 public:
  /// Seizes every thread of running process `pid` (PTRACE_SEIZE: no signal sent, none lost) and
  /// stops them. Errors: kNotFound (no such process), kPermission (ptrace refused: the message names
  /// /proc/sys/kernel/yama/ptrace_scope and what to do), kUnsupported (a 64-bit process without
  /// allow_64bit).
  static Result<std::unique_ptr<Tracer>> attach(int pid, bool allow_64bit);
  /// Starts `argv` (its own process group, so a Ctrl-C at the terminal reaches the tracer, not the
  /// program) and holds it stopped at the first instruction of the new image, before any of its code
  /// ran (`no_aslr`: with address-space randomisation off, as `setarch -R`). A program it refuses is
  /// killed. Breakpoints are set again after each exec (exec clears them). Errors: kNotFound (the
  /// program cannot be executed), kPermission, kUnsupported.
  static Result<std::unique_ptr<Tracer>> launch(const std::vector<std::string>& argv, bool allow_64bit,
                                                bool no_aslr = false);

  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;
  /// Detaches (detach()) if the process is still traced.
  ~Tracer();

  int pid() const noexcept { return pid_; }
  bool is64() const noexcept { return is64_; }

  /// Breakpoints at these addresses in every thread, now and in every thread created later (at most
  /// kDebugRegisterSlots minus the slots `reserve` keeps free for thread_breakpoint()).
  Status set_breakpoints(std::span<const std::uint64_t> addresses, std::size_t reserve = 0);
  /// One more breakpoint in one stopped thread only (a function's return to its caller), in a slot
  /// set_breakpoints() left free; `at = 0` clears it.
  Status thread_breakpoint(int tid, std::size_t reserved_slot, std::uint64_t at);

  /// Lets every thread stopped by the tracer run on, and waits for the next breakpoint hit, the
  /// process's end, a signal to the tracer or `deadline`. Signals meant for the program are
  /// delivered to it; new threads get the breakpoints; a group stop (SIGSTOP) is honoured.
  Result<TraceEvent> next(std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

  /// Reads `out.size()` bytes at `address` while the threads are stopped or running
  /// (process_vm_readv, else /proc/PID/mem). kIo when any byte cannot be read: never a part.
  Status read(std::uint64_t address, std::span<std::uint8_t> out);
  /// Several reads in as few system calls as the kernel allows (one process_vm_readv for up to
  /// 1024 pieces); the same errors as read(), naming the first piece that cannot be read.
  struct Piece {
    std::uint64_t address = 0;
    std::span<std::uint8_t> out;
  };
  Status read_pieces(std::span<const Piece> pieces);

  /// Stops every thread (the hitting one already is) and takes the live snapshot's whole-process
  /// reading: every thread's registers, segment bases, the LDT, every readable mapping. The
  /// breakpoints live in debug registers, so the code bytes are the program's own.
  Result<Snapshot> snapshot(const LiveSnapshotOptions& options);

  /// Stops every thread, clears its debug registers and detaches it (a signal that arrived while it
  /// was stopped is delivered); the process runs on as if never traced. Idempotent.
  Status detach();

  /// How many threads the tracer has seen (attached at the start or created since).
  std::size_t threads_seen() const noexcept;

  class Impl;

 private:
  explicit Tracer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  int pid_ = 0;
  bool is64_ = false;
};

}  // namespace lockstep::harness
