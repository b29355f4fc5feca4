// Live snapshots (live.hpp): /proc/PID/maps + /proc/PID/mem, every thread frozen with ptrace, the
// LDT read by running modify_ldt inside the stopped process. Kernel interfaces: proc(5) (maps, mem,
// task/), ptrace(2) (PTRACE_SEIZE/INTERRUPT, GETREGSET with NT_PRSTATUS/NT_PRFPREG/NT_PRXFPREG,
// GET_THREAD_AREA), modify_ldt(2); how they are used and their pitfalls: harness/docs/live.md.
#include "lockstep/live/live.hpp"

#include <asm/ldt.h>  // struct user_desc
#include <elf.h>      // NT_PRSTATUS, NT_PRFPREG, NT_PRXFPREG
#include <sys/syscall.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <ctime>
#include <thread>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "lockstep/base/io.hpp"

#include "ptrace_process.hpp"

#ifndef PTRACE_GET_THREAD_AREA
#define PTRACE_GET_THREAD_AREA 25
#endif

namespace lockstep::harness {
namespace {

constexpr std::uint64_t kFourGiB = std::uint64_t{1} << 32;
constexpr std::uint64_t kPage = 4096;

using ptrace_process::I386Regs;
using ptrace_process::X8664Regs;

/// i386 `user_i387_struct` (FSAVE form), 108 bytes: NT_PRFPREG.
struct I387Fsave {
  std::uint32_t cwd, swd, twd, fip, fcs, foo, fos;
  std::uint8_t st_space[80];  ///< ST(0)..ST(7), 10 bytes each, stack order
};
static_assert(sizeof(I387Fsave) == 108);
constexpr std::size_t kFxsaveMxcsr = 24;

Error os_error(Errc code, int err, std::string msg) {
  return Error{code, msg + ": " + std::strerror(err)};
}

}  // namespace

namespace ptrace_process {

/// Reads a /proc file to its end (their stat size is 0, so read_file() cannot be used).
Result<std::string> read_proc_text(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return os_error(e == ENOENT ? Errc::kNotFound : (e == EACCES || e == EPERM) ? Errc::kPermission : Errc::kIo, e,
                    "cannot open " + path);
  }
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      return os_error(Errc::kIo, e, "cannot read " + path);
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {
      ::close(fd);
      return Error::make(Errc::kLimit, "{} is longer than {} bytes", path, max_bytes);
    }
  }
  ::close(fd);
  return text;
}

std::string ptrace_denied_message(int pid, int err) {
  std::string scope = "absent";
  if (auto s = read_proc_text("/proc/sys/kernel/yama/ptrace_scope", 64); s.ok() && !s->empty())
    scope = s->substr(0, s->find('\n'));
  return fmt::format(
      "cannot trace pid {} ({}). Run lockstep as root (or with CAP_SYS_PTRACE), as the process's own user "
      "with tracing allowed (/proc/sys/kernel/yama/ptrace_scope is {}; `echo 0 > "
      "/proc/sys/kernel/yama/ptrace_scope` as root allows it), and make sure no debugger is already "
      "attached (see TracerPid in /proc/{}/status)",
      pid, std::strerror(err), scope, pid);
}

/// Lists the thread ids in /proc/PID/task.
Result<std::vector<int>> list_tids(int pid) {
  std::vector<int> tids;
  std::error_code ec;
  const std::filesystem::path dir = fmt::format("/proc/{}/task", pid);
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    int tid = 0;
    const std::string name = e.path().filename().string();
    if (std::from_chars(name.data(), name.data() + name.size(), tid).ec == std::errc()) tids.push_back(tid);
  }
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) return Error::make(Errc::kNotFound, "no process with pid {}", pid);
    if (ec == std::errc::permission_denied) return Error::make(Errc::kPermission, "{}: {}", dir.string(), ec.message());
    return Error::make(Errc::kIo, "cannot list {}: {}", dir.string(), ec.message());
  }
  std::sort(tids.begin(), tids.end());
  return tids;
}

/// The scheduler state of a thread from /proc/PID/task/TID/stat ('R', 'S', 't', 'Z', ...), 0 if gone.
char thread_state(int pid, int tid) {
  auto text = read_proc_text(fmt::format("/proc/{}/task/{}/stat", pid, tid), 4096);
  if (!text.ok()) return 0;
  const std::size_t paren = text->rfind(')');  // the command name may hold spaces and parentheses
  return paren != std::string::npos && paren + 2 < text->size() ? (*text)[paren + 2] : 0;
}

}  // namespace ptrace_process

namespace {

using namespace ptrace_process;

/// Holds every thread of a process in a ptrace stop; the destructor detaches them all (resuming
/// them, and re-delivering any signal that arrived while they were stopped) on every path.
///
/// Never a hang: every wait has a deadline (a thread that neither stops nor exits, such as a zombie
/// thread-group leader whose other threads run on, is an error, kIo), and a process that exits or a
/// thread that appears while the snapshot is read is an error too (kIo: exit status 4), never a
/// half-frozen process.
class ThreadFreezer final : public StoppedThreads {
 public:
  static constexpr auto kStopDeadline = std::chrono::seconds(5);

  explicit ThreadFreezer(int pid) : pid_(pid) {}
  ThreadFreezer(const ThreadFreezer&) = delete;
  ThreadFreezer& operator=(const ThreadFreezer&) = delete;
  ~ThreadFreezer() override { release(); }

  /// Seizes and stops every thread, re-scanning /proc/PID/task until no new thread appears (a
  /// thread created while the others were being stopped is stopped too). Each round seizes and
  /// interrupts every new thread first and then waits for them all, so that the threads stop as
  /// close together as the kernel allows.
  Status freeze_all() {
    for (int round = 0;; ++round) {
      LOCKSTEP_TRY(std::vector<int> tids, list_tids(pid_));
      std::vector<int> fresh;
      for (int tid : tids)
        if (!threads_.count(tid) && !gone_.count(tid)) fresh.push_back(tid);
      if (fresh.empty()) break;
      if (round == 0) stop_started_ = std::chrono::steady_clock::now();
      if (round > 1000)
        return Error::make(Errc::kIo, "pid {} keeps creating threads; could not stop them all", pid_);
      for (int tid : fresh) LOCKSTEP_TRY_STATUS(seize(tid));
      for (int tid : fresh)
        if (threads_.count(tid)) LOCKSTEP_TRY_STATUS(await_stop(tid));
    }
    // No thread could be stopped: the process was gone before the snapshot began, like a pid that never
    // was (2); one that goes away after it is stopped is the environment changing under it (4).
    if (threads_.empty() && thread_state(pid_, pid_) == 'Z')
      return Error::make(Errc::kNotFound, "pid {} is a zombie: it has exited and its parent has not reaped it; there "
                                          "is no process left to snapshot",
                         pid_);
    if (threads_.empty())
      return Error::make(Errc::kNotFound, "pid {} exited before it could be stopped for the snapshot", pid_);
    return {};
  }

  /// After the state is read: the same threads must still be there, no more (kIo otherwise).
  Status check_unchanged() {
    auto tids = list_tids(pid_);
    if (!tids.ok()) return Error::make(Errc::kIo, "pid {} exited during the snapshot ({})", pid_, tids.error().message);
    for (int tid : *tids)
      if (!threads_.count(tid) && !gone_.count(tid))
        return Error::make(Errc::kIo,
                           "thread {} appeared in pid {} during the snapshot (after every thread was stopped): the "
                           "snapshot would miss it; take it again",
                           tid, pid_);
    return {};
  }

  /// The stopped threads, main thread (tid == pid) first, then by tid.
  std::vector<int> stopped() const override {
    std::vector<int> out;
    for (const auto& [tid, t] : threads_)
      if (t.stopped) out.push_back(tid);
    std::stable_partition(out.begin(), out.end(), [&](int t) { return t == pid_; });
    return out;
  }

  /// Resumes a stopped thread until its next stop (an injected system call's int3) and waits for
  /// it; a signal that arrives meanwhile is kept for re-delivery and the thread resumed again.
  Status run_to_trap(int tid) override {
    for (;;) {
      if (::ptrace(PTRACE_CONT, tid, nullptr, nullptr) != 0)
        return os_error(Errc::kIo, errno, fmt::format("PTRACE_CONT of thread {} of pid {}", tid, pid_));
      threads_[tid].stopped = false;
      int st = 0;
      const WaitResult w = wait_stop(tid, st, /*keep_signal=*/false);
      if (w == WaitResult::kGone) {
        threads_.erase(tid);
        gone_.insert(tid);
        return Error::make(Errc::kIo, "thread {} of pid {} exited during the snapshot", tid, pid_);
      }
      if (w != WaitResult::kStopped)
        return Error::make(Errc::kIo, "thread {} of pid {} did not come back from a system call run for the snapshot "
                                      "within {} s",
                           tid, pid_, std::chrono::duration_cast<std::chrono::seconds>(kStopDeadline).count());
      threads_[tid].stopped = true;
      if ((st >> 16) == 0 && WSTOPSIG(st) == SIGTRAP) return {};
      // SIGSYS: the kernel refused the injected system call (syscall user dispatch, as Wine uses for
      // Windows code, or a seccomp filter). It is ours: never delivered, and the call failed.
      if ((st >> 16) == 0 && WSTOPSIG(st) == SIGSYS)
        return Error::make(Errc::kUnsupported, "thread {} of pid {} may not make the system call (SIGSYS: syscall user "
                                               "dispatch or seccomp)",
                           tid, pid_);
      if ((st >> 16) == 0) extra_signals_.emplace_back(tid, WSTOPSIG(st));  // someone else's signal: later
    }
  }

  /// Makes sure a thread is in a stop again (after run_to_trap gave up on it); false if it is gone.
  bool ensure_stopped(int tid) override {
    auto it = threads_.find(tid);
    if (it == threads_.end()) return false;
    if (it->second.stopped) return true;
    ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
    int st = 0;
    if (wait_stop(tid, st, false) != WaitResult::kStopped) return false;
    if ((st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP && WSTOPSIG(st) != SIGSYS)
      extra_signals_.emplace_back(tid, WSTOPSIG(st));  // someone else's signal: sent again at release
    it->second.stopped = true;
    return true;
  }

  /// Seconds from the first thread's stop to the last thread's release (0 before release()).
  double stopped_seconds() const { return stopped_seconds_; }

  void release() {
    for (auto& [tid, t] : threads_) {
      if (!t.stopped) {
        // Seized but not yet in a stop (an error came between): stop it so that DETACH is allowed.
        ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
        int st = 0;
        if (wait_stop(tid, st, true) != WaitResult::kStopped) continue;  // exited: nothing to detach
      }
      ::ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(t.pending_signal)));
    }
    // Signals that arrived while a thread ran an injected system call: sent again, as they were.
    for (auto [tid, sig] : extra_signals_) ::syscall(SYS_tgkill, pid_, tid, sig);
    if (!threads_.empty())
      stopped_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - stop_started_).count();
    threads_.clear();
    extra_signals_.clear();
  }

 private:
  struct Traced {
    bool stopped = false;
    int pending_signal = 0;  ///< a signal that arrived before our interrupt; re-delivered at detach
  };
  enum class WaitResult { kStopped, kGone, kError, kTimeout };

  WaitResult wait_stop(int tid, int& st, bool keep_signal) {
    const auto deadline = std::chrono::steady_clock::now() + kStopDeadline;
    for (int spins = 0;; ++spins) {
      const int r = ::waitpid(tid, &st, __WALL | WNOHANG);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return errno == ECHILD ? WaitResult::kGone : WaitResult::kError;
      if (r == 0) {
        // Not stopped yet. A zombie never stops (a leader that left with exit(2) while the others run).
        const char state = thread_state(pid_, tid);
        if (state == 0 || state == 'Z' || state == 'X') return WaitResult::kGone;
        if (std::chrono::steady_clock::now() > deadline) return WaitResult::kTimeout;
        std::this_thread::sleep_for(std::chrono::microseconds(spins < 100 ? 20 : 500));
        continue;
      }
      if (WIFEXITED(st) || WIFSIGNALED(st)) return WaitResult::kGone;
      if (WIFSTOPPED(st)) {
        // Either our PTRACE_EVENT_STOP or a signal-delivery stop that won the race: both are stops.
        if (keep_signal && (st >> 16) != PTRACE_EVENT_STOP) threads_[tid].pending_signal = WSTOPSIG(st);
        return WaitResult::kStopped;
      }
    }
  }

  Status seize(int tid) {
    if (::ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
      const int e = errno;
      const char state = thread_state(pid_, tid);
      if (e == ESRCH || (e == EPERM && (state == 0 || state == 'Z' || state == 'X'))) {
        gone_.insert(tid);  // the thread exited between listing and seizing (a zombie cannot be traced)
        return {};
      }
      if (e == EPERM || e == EACCES) return Error{Errc::kPermission, ptrace_denied_message(pid_, e)};
      return os_error(Errc::kIo, e, fmt::format("PTRACE_SEIZE of thread {} of pid {}", tid, pid_));
    }
    threads_[tid] = Traced{};
    if (::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) {
      const int e = errno;
      if (e == ESRCH) {
        threads_.erase(tid);
        gone_.insert(tid);
        return {};
      }
      return os_error(Errc::kIo, e, fmt::format("PTRACE_INTERRUPT of thread {} of pid {}", tid, pid_));
    }
    return {};
  }

  Status await_stop(int tid) {
    int st = 0;
    switch (wait_stop(tid, st, true)) {
      case WaitResult::kStopped: threads_[tid].stopped = true; return {};
      case WaitResult::kGone: threads_.erase(tid); gone_.insert(tid); return {};
      case WaitResult::kTimeout:
        return Error::make(Errc::kIo, "thread {} of pid {} did not stop within {} s", tid, pid_,
                           std::chrono::duration_cast<std::chrono::seconds>(kStopDeadline).count());
      case WaitResult::kError: break;
    }
    return os_error(Errc::kIo, errno, fmt::format("waiting for thread {} of pid {} to stop", tid, pid_));
  }

  int pid_;
  std::map<int, Traced> threads_;
  std::set<int> gone_;
  std::vector<std::pair<int, int>> extra_signals_;
  std::chrono::steady_clock::time_point stop_started_{};
  double stopped_seconds_ = 0;
};

/// A 64-bit thread (LiveSnapshotOptions::allow_64bit): low halves of the registers, own fs/gs bases,
/// x87 from the FXSAVE image that NT_PRFPREG gives a 64-bit tracee.
Thread read_thread64(int tid, const X8664Regs& r, std::vector<std::string>& notes) {
  Thread t;
  t.tid = static_cast<std::uint32_t>(tid);
  auto lo = [](std::uint64_t v) { return static_cast<std::uint32_t>(v); };
  t.eax = lo(r.rax); t.ebx = lo(r.rbx); t.ecx = lo(r.rcx); t.edx = lo(r.rdx);
  t.esi = lo(r.rsi); t.edi = lo(r.rdi); t.ebp = lo(r.rbp); t.esp = lo(r.rsp);
  t.eip = lo(r.rip); t.eflags = lo(r.eflags);
  t.cs = static_cast<std::uint16_t>(r.cs); t.ds = static_cast<std::uint16_t>(r.ds);
  t.es = static_cast<std::uint16_t>(r.es); t.fs = static_cast<std::uint16_t>(r.fs);
  t.gs = static_cast<std::uint16_t>(r.gs); t.ss = static_cast<std::uint16_t>(r.ss);
  notes.push_back(fmt::format("thread {}: 64-bit thread: registers truncated to their low 32 bits (rip 0x{:x}, "
                              "rsp 0x{:x})",
                              tid, r.rip, r.rsp));
  auto base = [&](std::uint64_t b, const char* reg) -> std::uint32_t {
    if (b < kFourGiB) return static_cast<std::uint32_t>(b);
    notes.push_back(fmt::format("thread {}: {} base 0x{:x} is above 4 GiB: 0 recorded", tid, reg, b));
    return 0;
  };
  t.fs_base = base(r.fs_base, "fs");
  t.gs_base = base(r.gs_base, "gs");
  alignas(16) std::uint8_t fx[kFxsaveSize] = {};
  iovec fiov{fx, sizeof fx};
  if (::ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_PRFPREG), &fiov) == 0 && fiov.iov_len == sizeof fx) {
    t.x87 = *x87_from_fxsave(fx);  // a whole FXSAVE area: always a state
    t.x87_valid = true;
  } else
    notes.push_back(fmt::format("thread {}: no x87 state (NT_PRFPREG: {}); defaults recorded", tid,
                                std::strerror(errno)));
  return t;
}

/// One thread's registers, FPU state and segment bases.
Result<Thread> read_thread(int pid, int tid, bool allow_64bit, std::vector<std::string>& notes) {
  Thread t;
  t.tid = static_cast<std::uint32_t>(tid);
  alignas(8) std::uint8_t raw[512] = {};
  iovec iov{raw, sizeof raw};
  if (::ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_PRSTATUS), &iov) != 0)
    return os_error(Errc::kIo, errno, fmt::format("PTRACE_GETREGSET NT_PRSTATUS of thread {} of pid {}", tid, pid));
  if (iov.iov_len == sizeof(X8664Regs)) {
    if (!allow_64bit)
      return Error::make(Errc::kUnsupported,
                         "pid {} is a 64-bit process (thread {} has x86-64 registers); lockstep snapshots 32-bit "
                         "processes (--allow-64bit takes a lossy snapshot of its low 4 GiB anyway)",
                         pid, tid);
    X8664Regs r64;
    std::memcpy(&r64, raw, sizeof r64);
    return read_thread64(tid, r64, notes);
  }
  if (iov.iov_len != sizeof(I386Regs))
    return Error::make(Errc::kUnsupported, "thread {} of pid {}: NT_PRSTATUS gave {} bytes, not the i386 layout's {}",
                       tid, pid, iov.iov_len, sizeof(I386Regs));
  I386Regs r;
  std::memcpy(&r, raw, sizeof r);
  t.eax = r.eax; t.ebx = r.ebx; t.ecx = r.ecx; t.edx = r.edx;
  t.esi = r.esi; t.edi = r.edi; t.ebp = r.ebp; t.esp = r.esp;
  t.eip = r.eip; t.eflags = r.eflags;
  t.cs = static_cast<std::uint16_t>(r.cs); t.ds = static_cast<std::uint16_t>(r.ds);
  t.es = static_cast<std::uint16_t>(r.es); t.fs = static_cast<std::uint16_t>(r.fs);
  t.gs = static_cast<std::uint16_t>(r.gs); t.ss = static_cast<std::uint16_t>(r.ss);
  if (static_cast<std::int32_t>(r.orig_eax) >= 0)
    notes.push_back(fmt::format("thread {}: stopped inside system call {} (eip is after the call; eax {:#x})", tid,
                                r.orig_eax, r.eax));

  // x87: the FSAVE form gives the full tag word and ST(i) in stack order, as the model keeps them.
  I387Fsave fp{};
  iovec fiov{&fp, sizeof fp};
  if (::ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_PRFPREG), &fiov) == 0 && fiov.iov_len == sizeof fp) {
    t.x87.control = static_cast<std::uint16_t>(fp.cwd);
    t.x87.status = static_cast<std::uint16_t>(fp.swd);
    t.x87.tag = static_cast<std::uint16_t>(fp.twd);
    for (int i = 0; i < 8; ++i) std::memcpy(t.x87.st[i].data(), fp.st_space + 10 * i, 10);
    t.x87_valid = true;
  } else {
    notes.push_back(fmt::format("thread {}: no x87 state (NT_PRFPREG: {}); defaults recorded", tid,
                                std::strerror(errno)));
  }
  alignas(16) std::uint8_t fx[kFxsaveSize] = {};
  iovec xiov{fx, sizeof fx};
  if (::ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_PRXFPREG), &xiov) == 0 && xiov.iov_len == sizeof fx) {
    std::memcpy(&t.x87.mxcsr, fx + kFxsaveMxcsr, 4);
  } else {
    notes.push_back(fmt::format("thread {}: no MXCSR (NT_PRXFPREG: {}); 0x1f80 recorded", tid, std::strerror(errno)));
  }

  // Segment bases: a GDT selector in the TLS range has its base in the thread's TLS entries
  // (PTRACE_GET_THREAD_AREA, index = selector >> 3); the other user GDT segments are flat.
  auto base_of = [&](std::uint16_t sel, const char* reg) -> std::uint32_t {
    if ((sel & ~3u) == 0) return 0;  // null selector
    if (sel & 4) return 0;  // an LDT selector: its base comes from the LDT, read afterwards (read_ldt)
    user_desc d{};
    d.entry_number = sel >> 3;
    if (::ptrace(static_cast<__ptrace_request>(PTRACE_GET_THREAD_AREA), tid,
                 reinterpret_cast<void*>(static_cast<std::uintptr_t>(sel >> 3)), &d) == 0)
      return d.base_addr;
    if (errno != EINVAL)
      notes.push_back(fmt::format("thread {}: PTRACE_GET_THREAD_AREA for {}=0x{:04x}: {}; 0 recorded", tid, reg, sel,
                                  std::strerror(errno)));
    return 0;  // EINVAL: not a TLS entry, a flat kernel segment (base 0)
  };
  t.fs_base = base_of(t.fs, "fs");
  t.gs_base = base_of(t.gs, "gs");
  return t;
}

bool is_special_unreadable(const std::string& path) {
  return path == "[vvar]" || path == "[vvar_vclock]" || path == "[vsyscall]";
}

/// Runs system calls inside a stopped thread of the tracee: each call is `syscall`/`int 0x80` then
/// int3, written over the first bytes of an executable mapping, with the thread's registers set for
/// the call. The destructor puts back those bytes and every register, on every path.
class SyscallInjector {
 public:
  SyscallInjector(StoppedThreads& freezer, int pid, int tid) : freezer_(freezer), pid_(pid), tid_(tid) {}
  SyscallInjector(const SyscallInjector&) = delete;
  SyscallInjector& operator=(const SyscallInjector&) = delete;
  ~SyscallInjector() { restore(); }

  /// Saves the thread's registers and the code bytes at `code` (an executable mapping's start).
  Status prepare(int mem_fd, std::uint64_t code) {
    mem_fd_ = mem_fd;
    code_ = code;
    iovec iov{saved_regs_, sizeof saved_regs_};
    if (::ptrace(PTRACE_GETREGSET, tid_, reinterpret_cast<void*>(NT_PRSTATUS), &iov) != 0)
      return os_error(Errc::kIo, errno, fmt::format("PTRACE_GETREGSET of thread {} of pid {}", tid_, pid_));
    regs_size_ = iov.iov_len;
    if (regs_size_ != sizeof(I386Regs) && regs_size_ != sizeof(X8664Regs))
      return Error::make(Errc::kUnsupported, "thread {}: {}-byte registers, neither i386 nor x86-64", tid_, regs_size_);
    if (::pread(mem_fd_, saved_code_, sizeof saved_code_, static_cast<off_t>(code_)) != sizeof saved_code_)
      return os_error(Errc::kIo, errno, fmt::format("reading pid {}'s code at 0x{:x}", pid_, code_));
    const std::uint8_t i386_call[] = {0xcd, 0x80, 0xcc}, x8664_call[] = {0x0f, 0x05, 0xcc};  // int 0x80 / syscall; int3
    const std::uint8_t* call = is64() ? x8664_call : i386_call;
    if (::pwrite(mem_fd_, call, 3, static_cast<off_t>(code_)) != 3)
      return os_error(Errc::kIo, errno, fmt::format("writing a system call into pid {} at 0x{:x}", pid_, code_));
    prepared_ = true;
    return {};
  }

  bool is64() const { return regs_size_ == sizeof(X8664Regs); }

  /// Runs system call `nr` (the tracee's own numbering) with up to six arguments; its return value.
  Result<std::int64_t> call(std::uint64_t nr, std::initializer_list<std::uint64_t> args) {
    std::uint64_t a[6] = {};
    std::size_t i = 0;
    for (std::uint64_t v : args) a[i++] = v;
    alignas(8) std::uint8_t raw[sizeof saved_regs_];
    std::memcpy(raw, saved_regs_, sizeof raw);
    if (is64()) {
      X8664Regs r;
      std::memcpy(&r, raw, sizeof r);
      r.rip = code_, r.rax = nr, r.rdi = a[0], r.rsi = a[1], r.rdx = a[2], r.r10 = a[3], r.r8 = a[4], r.r9 = a[5];
      r.orig_rax = ~std::uint64_t{0};  // no system call to restart on the way back to user mode
      std::memcpy(raw, &r, sizeof r);
    } else {
      I386Regs r;
      std::memcpy(&r, raw, sizeof r);
      auto w = [](std::uint64_t v) { return static_cast<std::uint32_t>(v); };
      r.eip = w(code_), r.eax = w(nr), r.ebx = w(a[0]), r.ecx = w(a[1]), r.edx = w(a[2]), r.esi = w(a[3]),
      r.edi = w(a[4]), r.ebp = w(a[5]);
      r.orig_eax = 0xffffffffu;
      std::memcpy(raw, &r, sizeof r);
    }
    iovec iov{raw, regs_size_};
    if (::ptrace(PTRACE_SETREGSET, tid_, reinterpret_cast<void*>(NT_PRSTATUS), &iov) != 0)
      return os_error(Errc::kIo, errno, fmt::format("PTRACE_SETREGSET of thread {} of pid {}", tid_, pid_));
    dirty_regs_ = true;
    LOCKSTEP_TRY_STATUS(freezer_.run_to_trap(tid_));
    iovec back{raw, sizeof raw};
    if (::ptrace(PTRACE_GETREGSET, tid_, reinterpret_cast<void*>(NT_PRSTATUS), &back) != 0)
      return os_error(Errc::kIo, errno, fmt::format("PTRACE_GETREGSET of thread {} of pid {}", tid_, pid_));
    if (is64()) {
      X8664Regs r;
      std::memcpy(&r, raw, sizeof r);
      return static_cast<std::int64_t>(r.rax);
    }
    I386Regs r;
    std::memcpy(&r, raw, sizeof r);
    return static_cast<std::int64_t>(static_cast<std::int32_t>(r.eax));
  }

  void restore() {
    // A thread that did not come back from a call is stopped first: its registers can only be put
    // back in a stop.
    if ((dirty_regs_ || prepared_) && !freezer_.ensure_stopped(tid_)) dirty_regs_ = false;
    if (dirty_regs_) {
      iovec iov{saved_regs_, regs_size_};
      ::ptrace(PTRACE_SETREGSET, tid_, reinterpret_cast<void*>(NT_PRSTATUS), &iov);
      dirty_regs_ = false;
    }
    if (prepared_) {
      ::pwrite(mem_fd_, saved_code_, sizeof saved_code_, static_cast<off_t>(code_));
      prepared_ = false;
    }
  }

 private:
  StoppedThreads& freezer_;
  int pid_, tid_;
  int mem_fd_ = -1;
  std::uint64_t code_ = 0;
  alignas(8) std::uint8_t saved_regs_[sizeof(X8664Regs)] = {};
  std::size_t regs_size_ = 0;
  std::uint8_t saved_code_[3] = {};
  bool prepared_ = false, dirty_regs_ = false;
};

/// Reads the process's LDT: in the stopped thread `tid`, mmap a 64 KiB buffer, modify_ldt(0, buf,
/// 64 KiB) into it (the kernel copies every entry and zero-fills the rest), read it through
/// /proc/PID/mem, munmap it; then every register and code byte is put back. Only present entries are
/// kept. A process that never called modify_ldt has none (modify_ldt returns 0).
Result<std::vector<LdtEntry>> read_ldt(StoppedThreads& freezer, int pid, int tid, const std::vector<MapsEntry>& maps,
                                       std::vector<std::string>& notes) {
  // The system call goes over the first bytes of an executable mapping of the program's own (not
  // the kernel's [vdso]/[vsyscall], which ptrace may not write).
  const MapsEntry* code = nullptr;
  for (const MapsEntry& m : maps)
    if (m.exec && m.read && !m.shared && m.end - m.start >= kPage && m.path != "[vdso]" && !is_special_unreadable(m.path)) {
      code = &m;
      break;
    }
  if (!code) return Error::make(Errc::kUnsupported, "pid {} has no executable mapping to run modify_ldt from", pid);
  const std::string mem_path = fmt::format("/proc/{}/mem", pid);
  const int fd = ::open(mem_path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return os_error(Errc::kIo, errno, "cannot open " + mem_path + " for writing");
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};

  constexpr std::uint64_t kLdtBytes = std::uint64_t{kLdtEntries} * 8;
  std::vector<LdtEntry> out;
  SyscallInjector inject(freezer, pid, tid);
  LOCKSTEP_TRY_STATUS(inject.prepare(fd, code->start));
  const bool is64 = inject.is64();
  // (i386 numbers | x86-64 numbers): mmap2 | mmap, modify_ldt, munmap
  const std::uint64_t nr_mmap = is64 ? 9 : 192, nr_modify_ldt = is64 ? 154 : 123, nr_munmap = is64 ? 11 : 91;
  auto failed = [](std::int64_t r) { return r < 0 && r > -4096; };
  LOCKSTEP_TRY(const std::int64_t buf, inject.call(nr_mmap, {0, kLdtBytes, 3 /* PROT_READ | PROT_WRITE */,
                                                             0x22 /* MAP_PRIVATE | MAP_ANONYMOUS */,
                                                             is64 ? ~std::uint64_t{0} : 0xffffffffu, 0}));
  if (failed(buf))
    return Error::make(Errc::kIo, "pid {}: mmap for the LDT buffer failed in thread {}: {}", pid, tid,
                       std::strerror(static_cast<int>(-buf)));
  const std::uint64_t at = is64 ? static_cast<std::uint64_t>(buf) : static_cast<std::uint32_t>(buf);
  if (at == 0 || at % kPage != 0)
    return Error::make(Errc::kUnsupported, "pid {}: the injected mmap in thread {} gave 0x{:x}, not a mapping", pid, tid,
                       at);
  auto n = inject.call(nr_modify_ldt, {0, at, kLdtBytes});
  std::vector<std::uint8_t> table;
  if (n.ok() && !failed(*n) && *n > 0) {
    table.resize(static_cast<std::size_t>(std::min<std::int64_t>(*n, static_cast<std::int64_t>(kLdtBytes))));
    if (::pread(fd, table.data(), table.size(), static_cast<off_t>(at)) != static_cast<ssize_t>(table.size()))
      table.clear(), notes.push_back(fmt::format("LDT: reading it back from 0x{:x} failed: {}", at, std::strerror(errno)));
  }
  auto unmapped = inject.call(nr_munmap, {at, kLdtBytes});
  if (!n.ok()) return std::move(n).error();
  if (failed(*n))
    notes.push_back(fmt::format("LDT: modify_ldt(0) in thread {} failed ({}): no LDT entries recorded", tid,
                                std::strerror(static_cast<int>(-*n))));
  if (!unmapped.ok()) return std::move(unmapped).error();
  if (failed(*unmapped))
    notes.push_back(fmt::format("LDT: the 64 KiB buffer at 0x{:x} could not be unmapped ({})", at,
                                std::strerror(static_cast<int>(-*unmapped))));
  std::size_t not_present = 0;
  for (std::size_t i = 0; i + 8 <= table.size(); i += 8) {
    std::uint64_t d;
    std::memcpy(&d, table.data() + i, 8);
    if (!d) continue;
    const LdtEntry e = LdtEntry::from_descriptor(static_cast<std::uint16_t>(i / 8), d);
    if (e.present()) out.push_back(e);
    else ++not_present;
  }
  if (not_present) notes.push_back(fmt::format("LDT: {} entries marked not present: not recorded", not_present));
  return out;
}

std::string region_name(const MapsEntry& m) { return m.path.empty() ? "[anon]" : m.path; }

/// Reads [m.start, m.end) from /proc/PID/mem. Pages the kernel refuses are skipped (noted); each
/// readable run becomes its own region.
/// Buffers for the mappings' bytes, allocated and touched before the process is stopped: the page
/// faults of a fresh buffer (most of the cost of reading a big mapping) then happen while it runs.
/// Keyed by [start, end); a mapping that changed meanwhile simply gets a new buffer.
using PreparedBuffers = std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<std::uint8_t>>;

PreparedBuffers prepare_buffers(const std::vector<MapsEntry>& maps, std::uint64_t max_total) {
  PreparedBuffers out;
  std::uint64_t total = 0;
  for (const MapsEntry& m : maps) {
    if (m.end > kFourGiB || !m.read || m.end == m.start || is_special_unreadable(m.path)) continue;
    total += m.end - m.start;
    if (total > max_total) break;  // the snapshot will stop there with its own error
    out[{m.start, m.end}].resize(static_cast<std::size_t>(m.end - m.start));  // zero-filled: every page touched
  }
  return out;
}

/// Reads guest memory: process_vm_readv (one copy, measurably faster than /proc/PID/mem) while the
/// kernel allows it, /proc/PID/mem otherwise (`use_vm` off, or refused: a container's seccomp profile
/// may forbid process_vm_readv). Where process_vm_readv stops at a page it cannot read, /proc/PID/mem
/// is asked too, so what is skipped, and the error noted, are /proc/PID/mem's.
class MemoryReader {
 public:
  MemoryReader(int pid, int mem_fd, bool use_vm) : pid_(pid), mem_fd_(mem_fd), use_vm_(use_vm) {}

  ssize_t read(std::uint8_t* dst, std::size_t len, std::uint64_t at) {
    if (use_vm_) {
      iovec local{dst, len}, remote{reinterpret_cast<void*>(static_cast<std::uintptr_t>(at)), len};
      const ssize_t n = ::process_vm_readv(pid_, &local, 1, &remote, 1, 0);
      if (n > 0) return n;
      if (n < 0 && errno != EFAULT && errno != EINTR) use_vm_ = false;  // ENOSYS, EPERM: not here
    }
    return ::pread(mem_fd_, dst, len, static_cast<off_t>(at));
  }

 private:
  int pid_, mem_fd_;
  bool use_vm_;
};

void read_mapping(MemoryReader& reader, int mem_fd, const MapsEntry& m, std::uint8_t prot, Snapshot& s,
                  PreparedBuffers& prepared) {
  std::uint64_t pos = m.start;
  while (pos < m.end) {
    // One readable run from pos.
    Region run{static_cast<GuestAddr>(pos), {}, prot, region_name(m)};
    if (auto it = prepared.find({pos, m.end}); it != prepared.end()) {
      run.bytes = std::move(it->second);
      prepared.erase(it);
    } else {
      run.bytes.resize(static_cast<std::size_t>(m.end - pos));
    }
    std::size_t filled = 0;
    int err = 0;
    while (pos < m.end) {
      const ssize_t n = reader.read(run.bytes.data() + filled, static_cast<std::size_t>(m.end - pos), pos);
      if (n > 0) {
        pos += static_cast<std::uint64_t>(n);
        filled += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      err = n < 0 ? errno : EIO;
      break;
    }
    if (filled) {
      run.bytes.resize(filled);
      if (filled < run.bytes.capacity() / 2) run.bytes.shrink_to_fit();
      s.regions.push_back(std::move(run));
    }
    if (pos >= m.end) break;
    // Unreadable from pos: skip page by page until one reads again.
    const std::uint64_t bad_from = pos;
    std::uint8_t probe = 0;
    pos = (pos / kPage + 1) * kPage;
    while (pos < m.end && ::pread(mem_fd, &probe, 1, static_cast<off_t>(pos)) != 1) pos += kPage;
    pos = std::min(pos, m.end);
    s.meta.notes.push_back(fmt::format("0x{:08x}-0x{:08x} {} {}: unreadable ({}): skipped", bad_from, pos,
                                       prot_string(prot), region_name(m), std::strerror(err)));
  }
}

}  // namespace

Result<std::vector<MapsEntry>> parse_proc_maps(std::string_view text) {
  std::vector<MapsEntry> out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (line.empty()) continue;
    auto bad = [&](const char* what) {
      return Error::make(Errc::kMalformed, "/proc maps line {}: {}: \"{}\"", line_no, what, line);
    };
    MapsEntry m;
    std::string_view rest = line;
    // Fields are separated by single spaces except before the path, which is padded with spaces
    // and may itself contain spaces.
    auto field = [&]() -> std::string_view {
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      const std::size_t sp = rest.find(' ');
      std::string_view f = rest.substr(0, sp);
      rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp);
      return f;
    };
    auto hex = [](std::string_view f, std::uint64_t& v) {
      auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v, 16);
      return ec == std::errc() && p == f.data() + f.size() && !f.empty();
    };
    const std::string_view range = field();
    const std::size_t dash = range.find('-');
    if (dash == std::string_view::npos || !hex(range.substr(0, dash), m.start) || !hex(range.substr(dash + 1), m.end) ||
        m.end < m.start)
      return bad("bad address range");
    const std::string_view perms = field();
    if (perms.size() != 4) return bad("bad permissions");
    m.read = perms[0] == 'r';
    m.write = perms[1] == 'w';
    m.exec = perms[2] == 'x';
    m.shared = perms[3] == 's';
    if (!hex(field(), m.offset)) return bad("bad offset");
    m.dev = std::string(field());
    if (m.dev.empty()) return bad("missing device");
    const std::string_view inode = field();
    if (std::from_chars(inode.data(), inode.data() + inode.size(), m.inode).ec != std::errc() || inode.empty())
      return bad("bad inode");
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    m.path = std::string(rest);
    out.push_back(std::move(m));
  }
  return out;
}

Result<std::vector<MapsEntry>> read_proc_maps(int pid) {
  LOCKSTEP_TRY(std::string text, read_proc_text(fmt::format("/proc/{}/maps", pid), 64u << 20));
  return parse_proc_maps(text);
}

namespace {

/// The part of a snapshot read while every thread is stopped (read_stopped_process).
Result<Snapshot> read_process(int pid, StoppedThreads& threads, const LiveSnapshotOptions& options,
                              PreparedBuffers& prepared) {
  Snapshot s;
  s.meta.format = "live";
  s.meta.source = fmt::format("live pid {}", pid);
  s.meta.created_unix = static_cast<std::int64_t>(std::time(nullptr));

  // Registers first: a 64-bit process is refused before its memory is read.
  for (int tid : threads.stopped()) {
    LOCKSTEP_TRY(Thread t, read_thread(pid, tid, options.allow_64bit, s.meta.notes));
    s.threads.push_back(t);
  }

  // The maps are read only now that every thread is stopped: they cannot change under us (the LDT
  // buffer below is mapped and unmapped again before they are read a second time).
  const std::string maps_path = fmt::format("/proc/{}/maps", pid);
  auto read_maps = [&]() -> Result<std::vector<MapsEntry>> {
    auto maps_text = read_proc_text(maps_path, 64u << 20);
    if (!maps_text.ok()) return std::move(maps_text).error().wrap("pid {} (did it exit during the snapshot?)", pid);
    return parse_proc_maps(*maps_text);
  };
  LOCKSTEP_TRY(std::vector<MapsEntry> maps, read_maps());

  // The LDT, read inside the main thread (or the first other one, if the main thread has exited);
  // then the FS/GS bases of LDT selectors come from it.
  // Not under a seccomp filter: one could kill the process for a system call it does not expect.
  auto status = read_proc_text(fmt::format("/proc/{}/status", pid), 1 << 20);
  const bool seccomp_filter = status.ok() && status->find("\nSeccomp:\t2") != std::string::npos;
  if (options.read_ldt && seccomp_filter)
    s.meta.notes.push_back("LDT not read: the process runs under a seccomp filter, so no system call is run inside it");
  if (options.read_ldt && !seccomp_filter) {
    auto ldt = read_ldt(threads, pid, threads.stopped().front(), maps, s.meta.notes);
    if (!ldt.ok()) {
      if (ldt.error().code == Errc::kIo) return std::move(ldt).error();
      s.meta.notes.push_back("LDT not read: " + ldt.error().message);
    } else {
      s.ldt = std::move(*ldt);
    }
    LOCKSTEP_TRY(maps, read_maps());
  }
  for (Thread& t : s.threads) {
    for (auto [sel, base, reg] : {std::tuple{t.fs, &t.fs_base, "fs"}, std::tuple{t.gs, &t.gs_base, "gs"}}) {
      if (!(sel & 4)) continue;
      if (const LdtEntry* e = s.find_ldt(static_cast<std::uint16_t>(sel >> 3))) {
        if (!*base) *base = e->base;  // a 64-bit thread's own base register wins when it has one
      } else {
        s.meta.notes.push_back(fmt::format("thread {}: {}=0x{:04x} is an LDT selector without an LDT entry in the "
                                           "snapshot: base {}",
                                           t.tid, reg, sel, *base ? fmt::format("0x{:08x} (its base register)", *base) : "0 recorded"));
      }
    }
  }

  const std::string mem_path = fmt::format("/proc/{}/mem", pid);
  const int mem_fd = ::open(mem_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (mem_fd < 0) {
    const int e = errno;
    if (e == EACCES || e == EPERM) return Error{Errc::kPermission, ptrace_denied_message(pid, e)};
    return os_error(Errc::kIo, e, "cannot open " + mem_path);
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{mem_fd};
  MemoryReader reader(pid, mem_fd, options.use_process_vm_readv);

  std::uint64_t total = 0;
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> files;  // path → [lowest start, highest end)
  for (const MapsEntry& m : maps) {
    const std::string what = fmt::format("0x{:08x}-0x{:08x} {}{}{}{} {}", m.start, m.end, m.read ? 'r' : '-',
                                         m.write ? 'w' : '-', m.exec ? 'x' : '-', m.shared ? 's' : 'p', region_name(m));
    if (m.end > kFourGiB) {
      s.meta.notes.push_back(what + ": above 4 GiB: skipped");
      continue;
    }
    if (!m.path.empty() && m.path.front() == '/') {
      auto [it, fresh] = files.try_emplace(m.path, m.start, m.end);
      if (!fresh) {
        it->second.first = std::min(it->second.first, m.start);
        it->second.second = std::max(it->second.second, m.end);
      }
    }
    if (is_special_unreadable(m.path)) {
      s.meta.notes.push_back(what + ": kernel special mapping: skipped");
      continue;
    }
    if (!m.read) {
      s.meta.notes.push_back(what + ": no read permission (guard page or reservation): skipped");
      continue;
    }
    if (m.end == m.start) continue;
    total += m.end - m.start;
    if (total > options.max_total_bytes)
      return Error::make(Errc::kLimit, "pid {}: readable mappings exceed the limit of {} bytes (at {})", pid,
                         options.max_total_bytes, what);
    const std::uint8_t prot = static_cast<std::uint8_t>((m.read ? kProtRead : 0) | (m.write ? kProtWrite : 0) |
                                                        (m.exec ? kProtExec : 0));
    read_mapping(reader, mem_fd, m, prot, s, prepared);
  }
  for (const auto& [path, range] : files)
    s.meta.modules.push_back(Module{path, static_cast<GuestAddr>(range.first),
                                    static_cast<std::uint32_t>(range.second - range.first)});
  std::sort(s.meta.modules.begin(), s.meta.modules.end(),
            [](const Module& a, const Module& b) { return a.base < b.base; });

  return s;
}

}  // namespace

namespace ptrace_process {

Result<Snapshot> read_stopped_process(int pid, StoppedThreads& threads, const LiveSnapshotOptions& options) {
  PreparedBuffers none;
  return read_process(pid, threads, options, none);
}

Status finish_snapshot(int pid, const LiveSnapshotOptions& options, Snapshot& s) {
  // The executable, once the process runs again (it needs no stop): its path, and its hash through
  // /proc/PID/exe (works even if it was deleted).
  const std::string exe_link = fmt::format("/proc/{}/exe", pid);
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink(exe_link, ec);
  if (!ec) s.meta.exe_path = exe.string();
  else s.meta.notes.push_back(fmt::format("executable path unknown ({}: {})", exe_link, ec.message()));
  if (options.hash_executable) {
    const int fd = ::open(exe_link.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      Sha256 h;
      std::vector<std::uint8_t> buf(1 << 20);
      ssize_t n = 0;
      while ((n = ::read(fd, buf.data(), buf.size())) > 0) h.update(std::span(buf.data(), static_cast<std::size_t>(n)));
      if (n == 0) s.meta.exe_sha256 = to_hex(h.finish());
      else s.meta.notes.push_back(fmt::format("executable not hashed (read {}: {})", exe_link, std::strerror(errno)));
      ::close(fd);
    } else {
      s.meta.notes.push_back(fmt::format("executable not hashed (open {}: {})", exe_link, std::strerror(errno)));
    }
  }

  s.sort_regions();
  return s.validate();
}

}  // namespace ptrace_process

Result<Snapshot> snapshot_live(int pid, const LiveSnapshotOptions& options) {
#if !defined(__x86_64__) && !defined(__i386__)
  (void)options;
  return Error::make(Errc::kUnsupported, "live snapshots need an x86 Linux host (pid {})", pid);
#else
  if (pid <= 0) return Error::make(Errc::kUsage, "pid {} is not a process id", pid);
  if (pid == ::getpid()) return Error::make(Errc::kUsage, "pid {} is lockstep itself; it cannot snapshot itself", pid);
  if (::kill(pid, 0) != 0 && errno == ESRCH) return Error::make(Errc::kNotFound, "no process with pid {}", pid);

  // While the process still runs: buffers for what it has mapped now.
  PreparedBuffers prepared;
  if (options.prepare_buffers) {
    auto text = read_proc_text(fmt::format("/proc/{}/maps", pid), 64u << 20);
    if (text.ok())
      if (auto before = parse_proc_maps(*text); before.ok()) prepared = prepare_buffers(*before, options.max_total_bytes);
  }

  ThreadFreezer freezer(pid);
  LOCKSTEP_TRY_STATUS(freezer.freeze_all());

  LOCKSTEP_TRY(Snapshot s, read_process(pid, freezer, options, prepared));
  LOCKSTEP_TRY_STATUS(freezer.check_unchanged());
  freezer.release();  // resume the process as soon as it has been read
  if (options.timing) {
    options.timing->stopped_seconds = freezer.stopped_seconds();
    options.timing->threads = s.threads.size();
    options.timing->bytes = s.total_bytes();
  }
  LOCKSTEP_TRY_STATUS(finish_snapshot(pid, options, s));
  return s;
#endif
}



}  // namespace lockstep::harness
