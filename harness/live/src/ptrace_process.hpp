// What a live snapshot and the recorder share (private to the harness): the kernel's register
// layouts of an i386 and an x86-64 tracee, /proc helpers, and the reading of a whole process whose
// threads someone already holds in ptrace stops. snapshot_live() holds them with its own freezer
// (live.cpp); the recorder (ptrace_tracer.cpp) holds them because it traces the process anyway.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/live/live.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness::ptrace_process {

/// i386 `user_regs_struct`, 68 bytes: what NT_PRSTATUS gives for a 32-bit tracee
/// (arch/x86/include/asm/user_32.h).
struct I386Regs {
  std::uint32_t ebx, ecx, edx, esi, edi, ebp, eax, ds, es, fs, gs, orig_eax, eip, cs, eflags, esp, ss;
};
static_assert(sizeof(I386Regs) == 68);
/// x86-64 `user_regs_struct`, 216 bytes: what NT_PRSTATUS gives for a 64-bit tracee.
struct X8664Regs {
  std::uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8, rax, rcx, rdx, rsi, rdi, orig_rax, rip, cs,
      eflags, rsp, ss, fs_base, gs_base, ds, es, fs, gs;
};
static_assert(sizeof(X8664Regs) == 216);

/// Reads a /proc file to its end (their stat size is 0, so read_file() cannot be used).
Result<std::string> read_proc_text(const std::string& path, std::size_t max_bytes);
/// What to do when ptrace is refused: root or CAP_SYS_PTRACE, Yama's ptrace_scope, another tracer.
std::string ptrace_denied_message(int pid, int err);
/// The thread ids in /proc/PID/task, sorted.
Result<std::vector<int>> list_tids(int pid);
/// The scheduler state of a thread from /proc/PID/task/TID/stat ('R', 'S', 't', 'Z', ...), 0 if gone.
char thread_state(int pid, int tid);

/// Threads of a process that a tracer holds in ptrace stops, as the snapshot's reading needs them:
/// which are stopped, and running one of them to its next trap (an injected system call's int3).
class StoppedThreads {
 public:
  virtual ~StoppedThreads() = default;
  /// The stopped threads, main thread (tid == pid) first, then by tid.
  virtual std::vector<int> stopped() const = 0;
  /// Resumes a stopped thread until its next SIGTRAP stop and waits for it (with a deadline).
  virtual Status run_to_trap(int tid) = 0;
  /// Makes sure a thread is in a stop again (after run_to_trap gave up on it); false if it is gone.
  virtual bool ensure_stopped(int tid) = 0;
};

/// Reads the whole process while `threads` holds every thread stopped: registers, the LDT, the maps,
/// the memory and the modules (what snapshot_live() documents), but not the executable's hash.
Result<Snapshot> read_stopped_process(int pid, StoppedThreads& threads, const LiveSnapshotOptions& options);
/// Once the process runs again: the executable's path and hash, regions sorted, the whole validated.
Status finish_snapshot(int pid, const LiveSnapshotOptions& options, Snapshot& s);

}  // namespace lockstep::harness::ptrace_process
