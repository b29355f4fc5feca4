// The recorder's tracer (tracer.hpp): ptrace(2) with PTRACE_SEIZE and PTRACE_O_TRACECLONE, hardware
// breakpoints through the debug registers in `struct user` (PTRACE_POKEUSER), signals to the tracer
// taken with sigtimedwait(2) instead of handlers. Why debug registers and not int3, and the i386 and
// x86-64 differences: capture/docs/record.md.
#include "lockstep/live/tracer.hpp"

#include <elf.h>  // NT_PRSTATUS
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>  // struct user: where the debug registers sit for PTRACE_POKEUSER
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "ptrace_process.hpp"

namespace lockstep::harness {
namespace {

using ptrace_process::I386Regs;
using ptrace_process::X8664Regs;

constexpr auto kTraceStopDeadline = std::chrono::seconds(5);

// The debug registers as PTRACE_PEEKUSER/POKEUSER address them: offsets into the *tracer's* own
// `struct user` (the kernel translates for a 32-bit tracee), so lockstep built for x86-64 writes at
// 848 + 8·i and lockstep built for i386 at 252 + 4·i, whatever the tracee is.
constexpr std::size_t debug_register_offset(int i) {
  return offsetof(struct user, u_debugreg) + static_cast<std::size_t>(i) * sizeof(((struct user*)nullptr)->u_debugreg[0]);
}
/// DR7 with slot i enabled as an execution breakpoint: L_i (bit 2i), R/W_i = 00 and LEN_i = 00.
constexpr unsigned long kDr7LocalEnable = 1;

Error trace_os_error(Errc code, int err, std::string msg) { return Error{code, msg + ": " + std::strerror(err)}; }

bool is_group_stop_signal(int sig) { return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU; }

/// Signals the tracer takes itself (blocked while tracing, read with sigtimedwait).
sigset_t tracer_signals() {
  sigset_t s;
  sigemptyset(&s);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&s, sig);
  return s;
}

}  // namespace

/// The traced threads and the event loop. Implements StoppedThreads so that the live snapshot's
/// reading (registers, LDT, memory) runs on the threads this tracer already holds.
class Tracer::Impl final : public ptrace_process::StoppedThreads {
 public:
  struct ThreadState {
    bool stopped = false;    ///< in a ptrace stop we have not resumed
    bool fresh = false;      ///< created while traced; its debug registers are set at its first stop
    bool held = false;       ///< a stop seen while stopping every thread, handled by the next next()
    int pending_signal = 0;  ///< delivered when the thread is resumed or detached
    std::array<std::uint64_t, kDebugRegisterSlots> slots{};    ///< what its DR0..DR3 should hold (0 = off)
    std::array<std::uint64_t, kDebugRegisterSlots> written{};  ///< what was written to them
    unsigned long dr7 = 0;                                     ///< what was written to DR7
  };

  Impl(int pid, bool allow_64bit) : pid_(pid), allow_64bit_(allow_64bit) {
    const sigset_t s = tracer_signals();
    pthread_sigmask(SIG_BLOCK, &s, &old_mask_);
  }
  ~Impl() override {
    if (mem_fd_ >= 0) ::close(mem_fd_);
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
  }

  int pid_;
  bool allow_64bit_;
  bool is64_ = false;
  bool exited_ = false;
  bool detached_ = false;
  std::map<int, ThreadState> threads_;
  std::size_t seen_ = 0;
  std::vector<std::uint64_t> global_;  ///< set_breakpoints' addresses, in slots 0..n-1
  std::deque<std::pair<int, int>> queued_;  ///< (tid, wait status) seen by stop_all(), handled by next()
  int mem_fd_ = -1;
  bool use_vm_ = true;
  sigset_t old_mask_{};

  // --- StoppedThreads ---
  std::vector<int> stopped() const override {
    std::vector<int> out;
    if (auto it = threads_.find(pid_); it != threads_.end() && it->second.stopped) out.push_back(pid_);
    for (const auto& [tid, t] : threads_)
      if (t.stopped && tid != pid_) out.push_back(tid);
    return out;
  }
  Status run_to_trap(int tid) override;
  bool ensure_stopped(int tid) override {
    auto it = threads_.find(tid);
    return it != threads_.end() && it->second.stopped;
  }

  Status seize_all();
  Status write_debug_registers(int tid, ThreadState& t);
  Status dr_error(int tid, const char* reg, int err) const;
  Status arm(int tid, ThreadState& t) {
    for (std::size_t i = 0; i < global_.size(); ++i) t.slots[i] = global_[i];
    return write_debug_registers(tid, t);
  }
  void resume_all();
  Status stop_all();
  /// Waits (with the deadline) for thread `tid` to stop; its status.
  Result<int> wait_for(int tid);
  /// One wait status: an event for the caller, or nothing (handled, the thread resumed).
  Result<std::optional<TraceEvent>> handle(int tid, int st);
  Result<TraceRegisters> registers(int tid);
  Status detach_all();
  void drop_pending_hits(int tid, ThreadState& t);
};

Status Tracer::Impl::write_debug_registers(int tid, ThreadState& t) {
  // Only what changed is written: each write of a debug register makes the kernel re-register the
  // thread's breakpoint events, the largest part of a return point's cost. A slot turned off keeps
  // its address and only loses its enable bit in DR7.
  auto poke = [&](int reg, unsigned long v) {
    return ::ptrace(PTRACE_POKEUSER, tid, reinterpret_cast<void*>(debug_register_offset(reg)), reinterpret_cast<void*>(v));
  };
  unsigned long dr7 = 0;
  for (std::size_t i = 0; i < kDebugRegisterSlots; ++i) {
    if (!t.slots[i]) continue;
    dr7 |= kDr7LocalEnable << (2 * i);
    if (t.written[i] == t.slots[i]) continue;
    if (t.dr7 & (kDr7LocalEnable << (2 * i))) {  // the kernel checks an enabled slot's new address at once
      if (poke(7, t.dr7 & ~(kDr7LocalEnable << (2 * i))) != 0) return dr_error(tid, "DR7", errno);
      t.dr7 &= ~(kDr7LocalEnable << (2 * i));
    }
    if (poke(static_cast<int>(i), static_cast<unsigned long>(t.slots[i])) != 0) {
      if (errno == ESRCH) return {};  // exited meanwhile: its exit status follows
      return trace_os_error(Errc::kUnsupported, errno,
                            fmt::format("the kernel refused a hardware breakpoint at 0x{:x} in thread {} of pid {} "
                                        "(DR{})",
                                        t.slots[i], tid, pid_, i));
    }
    t.written[i] = t.slots[i];
  }
  if (dr7 == t.dr7) return {};
  if (poke(7, dr7) != 0) return dr_error(tid, "DR7", errno);
  t.dr7 = dr7;
  return {};
}

Status Tracer::Impl::dr_error(int tid, const char* reg, int err) const {
  if (err == ESRCH) return {};  // exited meanwhile: its exit status follows
  return trace_os_error(Errc::kUnsupported, err, fmt::format("writing {} of thread {} of pid {}", reg, tid, pid_));
}

Result<int> Tracer::Impl::wait_for(int tid) {
  const auto deadline = std::chrono::steady_clock::now() + kTraceStopDeadline;
  for (int spins = 0;; ++spins) {
    int st = 0;
    const int r = ::waitpid(tid, &st, __WALL | WNOHANG);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return trace_os_error(Errc::kIo, errno, fmt::format("waiting for thread {} of pid {}", tid, pid_));
    if (r > 0) return st;
    const char state = ptrace_process::thread_state(pid_, tid);
    if (state == 0 || state == 'Z' || state == 'X') return 0;  // gone: WIFEXITED(0)
    if (std::chrono::steady_clock::now() > deadline)
      return Error::make(Errc::kIo, "thread {} of pid {} did not stop within {} s", tid, pid_,
                         std::chrono::duration_cast<std::chrono::seconds>(kTraceStopDeadline).count());
    std::this_thread::sleep_for(std::chrono::microseconds(spins < 100 ? 20 : 500));
  }
}

Status Tracer::Impl::seize_all() {
  const long options = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC;
  for (int round = 0;; ++round) {
    LOCKSTEP_TRY(std::vector<int> tids, ptrace_process::list_tids(pid_));
    std::vector<int> fresh;
    for (int tid : tids)
      if (!threads_.count(tid)) fresh.push_back(tid);
    if (fresh.empty()) break;
    if (round > 1000) return Error::make(Errc::kIo, "pid {} keeps creating threads; could not attach them all", pid_);
    for (int tid : fresh) {
      if (::ptrace(PTRACE_SEIZE, tid, nullptr, reinterpret_cast<void*>(options)) != 0) {
        const int e = errno;
        if (e == ESRCH) continue;  // exited between listing and seizing
        if (e == EPERM || e == EACCES) return Error{Errc::kPermission, ptrace_process::ptrace_denied_message(pid_, e)};
        return trace_os_error(Errc::kIo, e, fmt::format("PTRACE_SEIZE of thread {} of pid {}", tid, pid_));
      }
      threads_[tid] = ThreadState{};
      ++seen_;
      ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
    }
    for (int tid : fresh) {
      if (!threads_.count(tid)) continue;
      LOCKSTEP_TRY(int st, wait_for(tid));
      if (WIFEXITED(st) || WIFSIGNALED(st)) {
        threads_.erase(tid);
        continue;
      }
      ThreadState& t = threads_[tid];
      t.stopped = true;
      if ((st >> 16) != PTRACE_EVENT_STOP) t.pending_signal = WSTOPSIG(st);  // a signal that won the race
    }
  }
  if (threads_.empty()) return Error::make(Errc::kIo, "pid {} exited while it was being attached", pid_);
  return {};
}

Result<TraceRegisters> Tracer::Impl::registers(int tid) {
  alignas(8) std::uint8_t raw[sizeof(X8664Regs)] = {};
  iovec iov{raw, sizeof raw};
  if (::ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_PRSTATUS), &iov) != 0)
    return trace_os_error(Errc::kIo, errno, fmt::format("PTRACE_GETREGSET of thread {} of pid {}", tid, pid_));
  TraceRegisters r;
  if (iov.iov_len == sizeof(X8664Regs)) {
    X8664Regs x;
    std::memcpy(&x, raw, sizeof x);
    r = {true, x.rax, x.rbx, x.rcx, x.rdx, x.rsi, x.rdi, x.rbp, x.rsp, x.rip, x.eflags};
  } else if (iov.iov_len == sizeof(I386Regs)) {
    I386Regs x;
    std::memcpy(&x, raw, sizeof x);
    r = {false, x.eax, x.ebx, x.ecx, x.edx, x.esi, x.edi, x.ebp, x.esp, x.eip, x.eflags};
  } else {
    return Error::make(Errc::kUnsupported, "thread {}: NT_PRSTATUS gave {} bytes, neither i386 nor x86-64", tid,
                       iov.iov_len);
  }
  return r;
}

void Tracer::Impl::resume_all() {
  for (auto& [tid, t] : threads_) {
    if (!t.stopped || t.held) continue;
    ::ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(t.pending_signal)));
    t.pending_signal = 0;
    t.stopped = false;  // ESRCH: gone, its exit status follows
  }
}

Result<std::optional<TraceEvent>> Tracer::Impl::handle(int tid, int st) {
  auto cont = [&](ThreadState& t, int sig) {
    ::ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(sig)));
    t.stopped = false;
  };
  if (WIFEXITED(st) || WIFSIGNALED(st)) {
    threads_.erase(tid);
    if (tid != pid_ && !threads_.empty()) return std::optional<TraceEvent>{};
    exited_ = true;
    TraceEvent e;
    e.kind = TraceEvent::Kind::kExited;
    e.exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
    e.signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    return std::optional<TraceEvent>{e};
  }
  if (!WIFSTOPPED(st)) return std::optional<TraceEvent>{};
  auto [it, created] = threads_.try_emplace(tid);
  ThreadState& t = it->second;
  if (created) t.fresh = true, ++seen_;  // a new thread's first stop came before its parent's clone event
  t.stopped = true;
  t.held = false;
  const bool first_stop = t.fresh;
  if (first_stop) {
    t.fresh = false;
    LOCKSTEP_TRY_STATUS(arm(tid, t));
  }
  const int event = st >> 16, sig = WSTOPSIG(st);
  if (event == PTRACE_EVENT_CLONE) {
    unsigned long child = 0;
    if (::ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &child) == 0 && !threads_.count(static_cast<int>(child))) {
      threads_[static_cast<int>(child)].fresh = true;  // armed at its first stop
      ++seen_;
    }
    cont(t, 0);
    return std::optional<TraceEvent>{};
  }
  if (event == PTRACE_EVENT_STOP) {
    if (is_group_stop_signal(sig) && !first_stop) {
      ::ptrace(PTRACE_LISTEN, tid, nullptr, nullptr);  // the program was stopped (SIGSTOP): it stays so
      t.stopped = false;
    } else {
      cont(t, 0);
    }
    return std::optional<TraceEvent>{};
  }
  if (event == PTRACE_EVENT_EXEC) {  // a new image (a wrapper that execs the game): exec cleared the debug registers
    t.written = {}, t.dr7 = 0;
    LOCKSTEP_TRY_STATUS(arm(tid, t));
  }
  if (event != 0) {  // the other events: nothing to do
    cont(t, 0);
    return std::optional<TraceEvent>{};
  }
  if (sig == SIGTRAP) {
    siginfo_t info{};
    if (::ptrace(PTRACE_GETSIGINFO, tid, nullptr, &info) == 0 && info.si_code == TRAP_HWBKPT) {
      TraceEvent e;
      e.kind = TraceEvent::Kind::kHit;
      e.tid = tid;
      LOCKSTEP_TRY(e.regs, registers(tid));
      return std::optional<TraceEvent>{e};
    }
  }
  cont(t, sig);  // the program's own signal: delivered as it would have been
  return std::optional<TraceEvent>{};
}

Status Tracer::Impl::stop_all() {
  // Threads the kernel created that we have not seen stop yet: their first stop is waited for too.
  if (auto tids = ptrace_process::list_tids(pid_); tids.ok())
    for (int tid : *tids)
      if (!threads_.count(tid)) threads_[tid].fresh = true, ++seen_;
  std::vector<int> running;
  for (auto& [tid, t] : threads_)
    if (!t.stopped) {
      if (!t.fresh) ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
      running.push_back(tid);
    }
  for (int tid : running) {
    LOCKSTEP_TRY(int st, wait_for(tid));
    ThreadState& t = threads_[tid];
    if (WIFEXITED(st) || WIFSIGNALED(st)) {
      if (st != 0 || tid == pid_) queued_.emplace_back(tid, st);
      else threads_.erase(tid);
      continue;
    }
    t.stopped = true;
    if (t.fresh) {
      t.fresh = false;
      LOCKSTEP_TRY_STATUS(arm(tid, t));
      continue;
    }
    // Our interrupt's stop, or something that won the race with it (a hit, a signal): kept for
    // next(), and the thread is not resumed before it is handled.
    if (!((st >> 16) == PTRACE_EVENT_STOP && WSTOPSIG(st) == SIGTRAP)) {
      queued_.emplace_back(tid, st);
      t.held = true;
    }
  }
  return {};
}

Status Tracer::Impl::run_to_trap(int tid) {
  ThreadState& t = threads_[tid];
  for (;;) {
    if (::ptrace(PTRACE_CONT, tid, nullptr, nullptr) != 0)
      return trace_os_error(Errc::kIo, errno, fmt::format("PTRACE_CONT of thread {} of pid {}", tid, pid_));
    t.stopped = false;
    LOCKSTEP_TRY(int st, wait_for(tid));
    if (WIFEXITED(st) || WIFSIGNALED(st))
      return Error::make(Errc::kIo, "thread {} of pid {} exited during the snapshot", tid, pid_);
    t.stopped = true;
    if ((st >> 16) == 0 && WSTOPSIG(st) == SIGTRAP) return {};
    if ((st >> 16) == 0 && WSTOPSIG(st) == SIGSYS)
      return Error::make(Errc::kUnsupported, "thread {} of pid {} may not make the system call (SIGSYS)", tid, pid_);
    if ((st >> 16) == 0) t.pending_signal = WSTOPSIG(st);  // the program's: delivered later
  }
}

namespace {

// Whether SIGTRAP is pending for the thread itself (/proc's SigPnd: thread-directed signals, as a
// debug-register hit is).
bool sigtrap_pending(int pid, int tid) {
  std::ifstream in(fmt::format("/proc/{}/task/{}/status", pid, tid));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("SigPnd:", 0) == 0) {
      const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
      return (mask >> (SIGTRAP - 1)) & 1;
    }
  return false;
}

}  // namespace

// A breakpoint hit the kernel raised just before our interrupt stopped the thread stays pending
// behind that stop (the interrupt's trap is reported first): delivered after the detach, with no
// tracer left, SIGTRAP's default action would kill the program. The thread is resumed into that
// signal's stop and detached there with no signal, which drops the hit; any other signal it stops
// with is kept for the detach.
void Tracer::Impl::drop_pending_hits(int tid, ThreadState& t) {
  for (int i = 0; i < 4 && sigtrap_pending(pid_, tid); ++i) {
    if (::ptrace(PTRACE_CONT, tid, nullptr, nullptr) != 0) return;
    auto st = wait_for(tid);
    if (!st.ok() || !WIFSTOPPED(*st)) return;
    if ((*st >> 16) != 0) continue;  // an event stop: resumed again while the hit is pending
    siginfo_t info{};
    const int sig = WSTOPSIG(*st);
    const bool hit = sig == SIGTRAP && ::ptrace(PTRACE_GETSIGINFO, tid, nullptr, &info) == 0 && info.si_code == TRAP_HWBKPT;
    if (!hit && t.pending_signal == 0) t.pending_signal = sig;
  }
}

Status Tracer::Impl::detach_all() {
  if (detached_) return {};
  detached_ = true;
  if (exited_) return {};
  Status stopped = stop_all();
  for (auto& [tid, t] : threads_) {
    if (!t.stopped) continue;
    t.slots = {};
    (void)write_debug_registers(tid, t);
    drop_pending_hits(tid, t);
    ::ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(t.pending_signal)));
  }
  // A signal the program got while we stopped it for the last time: delivered at the detach above
  // for the thread it stopped; a queued one is sent again.
  for (auto [tid, st] : queued_)
    if (WIFSTOPPED(st) && (st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP) ::kill(pid_, WSTOPSIG(st));
  queued_.clear();
  threads_.clear();
  return stopped;
}

Tracer::Tracer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)), pid_(impl_->pid_), is64_(impl_->is64_) {}
Tracer::~Tracer() { (void)detach(); }

std::size_t Tracer::threads_seen() const noexcept { return impl_->seen_; }

namespace {

/// The main thread's register layout decides: refused when 64-bit without allow_64bit.
Status check_width(Tracer::Impl& impl, bool& is64) {
  alignas(8) std::uint8_t raw[sizeof(X8664Regs)] = {};
  iovec iov{raw, sizeof raw};
  const int tid = impl.stopped().empty() ? impl.pid_ : impl.stopped().front();
  if (::ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_PRSTATUS), &iov) != 0)
    return trace_os_error(Errc::kIo, errno, fmt::format("PTRACE_GETREGSET of thread {}", tid));
  is64 = iov.iov_len == sizeof(X8664Regs);
  if (is64 && !impl.allow_64bit_)
    return Error::make(Errc::kUnsupported,
                       "pid {} is a 64-bit process; lockstep records 32-bit processes (--allow-64bit records a "
                       "64-bit one anyway, its blocks below 4 GiB)",
                       impl.pid_);
  return {};
}

}  // namespace

Result<std::unique_ptr<Tracer>> Tracer::attach(int pid, bool allow_64bit) {
  if (pid <= 0) return Error::make(Errc::kUsage, "pid {} is not a process id", pid);
  if (pid == ::getpid()) return Error::make(Errc::kUsage, "pid {} is lockstep itself", pid);
  if (::kill(pid, 0) != 0 && errno == ESRCH) return Error::make(Errc::kNotFound, "no process with pid {}", pid);
  auto impl = std::make_unique<Impl>(pid, allow_64bit);
  Status seized = impl->seize_all();
  if (seized.ok()) seized = check_width(*impl, impl->is64_);
  if (!seized.ok()) {
    (void)impl->detach_all();
    return std::move(seized).error();
  }
  return std::unique_ptr<Tracer>(new Tracer(std::move(impl)));
}

Result<std::unique_ptr<Tracer>> Tracer::launch(const std::vector<std::string>& argv, bool allow_64bit, bool no_aslr) {
  if (argv.empty()) return Error::make(Errc::kUsage, "no program to start");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return trace_os_error(Errc::kIo, errno, "pipe");
  const pid_t child = ::fork();
  if (child < 0) return trace_os_error(Errc::kIo, errno, "fork");
  if (child == 0) {
    ::setpgid(0, 0);  // its own process group: a terminal's Ctrl-C reaches lockstep, not the program
    if (no_aslr) ::personality(static_cast<unsigned long>(::personality(0xffffffff)) | ADDR_NO_RANDOMIZE);
    ::raise(SIGSTOP);
    ::execvp(args[0], args.data());
    const int e = errno;
    (void)!::write(report[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(report[1]);
  int st = 0;
  if (::waitpid(child, &st, WUNTRACED) != child || !WIFSTOPPED(st)) {
    ::close(report[0]);
    return Error::make(Errc::kIo, "{} (pid {}) did not start", argv[0], child);
  }
  auto impl = std::make_unique<Impl>(child, allow_64bit);
  const long options = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC;
  if (::ptrace(PTRACE_SEIZE, child, nullptr, reinterpret_cast<void*>(options)) != 0) {
    const int e = errno;
    ::kill(child, SIGKILL);
    ::close(report[0]);
    if (e == EPERM || e == EACCES) return Error{Errc::kPermission, ptrace_process::ptrace_denied_message(child, e)};
    return trace_os_error(Errc::kIo, e, fmt::format("PTRACE_SEIZE of pid {}", child));
  }
  impl->threads_[child] = Impl::ThreadState{};
  impl->seen_ = 1;
  ::kill(child, SIGCONT);
  for (;;) {  // to the exec's stop: the new image is mapped and none of it has run
    if (::waitpid(child, &st, __WALL) != child) return trace_os_error(Errc::kIo, errno, "waiting for the program");
    if (WIFEXITED(st) || WIFSIGNALED(st)) {
      int e = 0;
      const bool failed = ::read(report[0], &e, sizeof e) == static_cast<ssize_t>(sizeof e);
      ::close(report[0]);
      impl->exited_ = true;
      if (failed) return Error::make(Errc::kNotFound, "cannot execute {}: {}", argv[0], std::strerror(e));
      return Error::make(Errc::kIo, "{} ended before it started", argv[0]);
    }
    if ((st >> 16) == PTRACE_EVENT_EXEC) break;
    const int sig = (st >> 16) == 0 && WSTOPSIG(st) != SIGSTOP ? WSTOPSIG(st) : 0;
    ::ptrace(PTRACE_CONT, child, nullptr, reinterpret_cast<void*>(static_cast<long>(sig)));
  }
  ::close(report[0]);
  impl->threads_[child].stopped = true;
  if (Status w = check_width(*impl, impl->is64_); !w.ok()) {
    ::kill(child, SIGKILL);  // the program lockstep started goes with the refusal
    (void)impl->detach_all();
    return std::move(w).error();
  }
  return std::unique_ptr<Tracer>(new Tracer(std::move(impl)));
}

Status Tracer::set_breakpoints(std::span<const std::uint64_t> addresses, std::size_t reserve) {
  if (addresses.size() + reserve > kDebugRegisterSlots)
    return Error::make(Errc::kUsage, "{} breakpoints and {} reserved slots: a thread has {} debug registers",
                       addresses.size(), reserve, kDebugRegisterSlots);
  impl_->global_.assign(addresses.begin(), addresses.end());
  for (auto& [tid, t] : impl_->threads_)
    if (t.stopped) LOCKSTEP_TRY_STATUS(impl_->arm(tid, t));
    else t.fresh = true;  // set at its next stop
  return {};
}

Status Tracer::thread_breakpoint(int tid, std::size_t reserved_slot, std::uint64_t at) {
  const std::size_t slot = impl_->global_.size() + reserved_slot;
  auto it = impl_->threads_.find(tid);
  if (slot >= kDebugRegisterSlots || it == impl_->threads_.end() || !it->second.stopped)
    return Error::make(Errc::kUsage, "thread breakpoint slot {} in thread {}: no such slot or stopped thread",
                       reserved_slot, tid);
  it->second.slots[slot] = at;
  return impl_->write_debug_registers(tid, it->second);
}

Result<TraceEvent> Tracer::next(std::optional<std::chrono::steady_clock::time_point> deadline) {
  Impl& m = *impl_;
  if (m.exited_ || m.detached_) return Error::make(Errc::kUsage, "the tracer no longer traces pid {}", pid_);
  m.resume_all();
  const sigset_t signals = tracer_signals();
  for (;;) {
    int tid = 0, st = 0;
    if (!m.queued_.empty()) {
      std::tie(tid, st) = m.queued_.front();
      m.queued_.pop_front();
    } else {
      tid = ::waitpid(-1, &st, __WALL | WNOHANG);
      if (tid < 0 && errno == EINTR) continue;
      if (tid < 0 && errno == ECHILD) {  // every tracee is gone and reaped by its parent
        m.exited_ = true;
        TraceEvent e;
        e.kind = TraceEvent::Kind::kExited;
        return e;
      }
      if (tid < 0) return trace_os_error(Errc::kIo, errno, "waitpid");
      if (tid == 0) {
        timespec wait{1, 0};
        if (deadline) {
          const auto left = *deadline - std::chrono::steady_clock::now();
          if (left <= std::chrono::steady_clock::duration::zero()) { TraceEvent e; e.kind = TraceEvent::Kind::kTimeout; return e; }
          const auto ns = std::min<std::int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(left).count(),
                                                 1'000'000'000);
          wait = {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
        }
        siginfo_t info{};
        const int sig = ::sigtimedwait(&signals, &info, &wait);
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
          TraceEvent e;
          e.kind = TraceEvent::Kind::kInterrupted;
          e.signal = sig;
          return e;
        }
        continue;  // SIGCHLD, a timeout or EINTR: look again
      }
    }
    LOCKSTEP_TRY(std::optional<TraceEvent> e, m.handle(tid, st));
    if (e) return *e;
  }
}

Status Tracer::read(std::uint64_t address, std::span<std::uint8_t> out) {
  Impl& m = *impl_;
  if (out.empty()) return {};
  if (m.use_vm_) {
    iovec local{out.data(), out.size()}, remote{reinterpret_cast<void*>(static_cast<std::uintptr_t>(address)), out.size()};
    const ssize_t n = ::process_vm_readv(pid_, &local, 1, &remote, 1, 0);
    if (n == static_cast<ssize_t>(out.size())) return {};
    if (n < 0 && errno != EFAULT && errno != EIO) m.use_vm_ = false;  // not allowed here: /proc/PID/mem
    else return Error::make(Errc::kIo, "pid {}: 0x{:x}..0x{:x} is not readable", pid_, address, address + out.size());
  }
  if (m.mem_fd_ < 0) {
    m.mem_fd_ = ::open(fmt::format("/proc/{}/mem", pid_).c_str(), O_RDONLY | O_CLOEXEC);
    if (m.mem_fd_ < 0) return trace_os_error(Errc::kIo, errno, fmt::format("opening /proc/{}/mem", pid_));
  }
  if (::pread(m.mem_fd_, out.data(), out.size(), static_cast<off_t>(address)) != static_cast<ssize_t>(out.size()))
    return Error::make(Errc::kIo, "pid {}: 0x{:x}..0x{:x} is not readable", pid_, address, address + out.size());
  return {};
}

Status Tracer::read_pieces(std::span<const Piece> pieces) {
  constexpr std::size_t kMaxIov = 1024;  // IOV_MAX
  std::vector<iovec> local, remote;
  for (std::size_t first = 0; first < pieces.size() && impl_->use_vm_; first += kMaxIov) {
    const std::size_t n = std::min(kMaxIov, pieces.size() - first);
    local.clear(), remote.clear();
    std::size_t want = 0;
    for (const Piece& p : pieces.subspan(first, n)) {
      local.push_back({p.out.data(), p.out.size()});
      remote.push_back({reinterpret_cast<void*>(static_cast<std::uintptr_t>(p.address)), p.out.size()});
      want += p.out.size();
    }
    const ssize_t got = ::process_vm_readv(pid_, local.data(), n, remote.data(), n, 0);
    if (got == static_cast<ssize_t>(want)) continue;
    // Short or refused: piece by piece, so that the error names the piece (or /proc/PID/mem is used).
    for (const Piece& p : pieces.subspan(first)) LOCKSTEP_TRY_STATUS(read(p.address, p.out));
    return {};
  }
  if (!impl_->use_vm_)
    for (const Piece& p : pieces) LOCKSTEP_TRY_STATUS(read(p.address, p.out));
  return {};
}

Result<Snapshot> Tracer::snapshot(const LiveSnapshotOptions& options) {
  Impl& m = *impl_;
  LOCKSTEP_TRY_STATUS(m.stop_all());
  LiveSnapshotOptions o = options;
  o.allow_64bit = o.allow_64bit || m.allow_64bit_;
  LOCKSTEP_TRY(Snapshot s, ptrace_process::read_stopped_process(pid_, m, o));
  // The kernel sets RF in a thread's flags at a hardware breakpoint so that it resumes past it; it is
  // the tracer's, not the program's state.
  for (Thread& t : s.threads) t.eflags &= ~0x10000u;
  LOCKSTEP_TRY_STATUS(ptrace_process::finish_snapshot(pid_, o, s));
  s.meta.source = fmt::format("recorded pid {}", pid_);
  return s;
}

Status Tracer::detach() { return impl_->detach_all(); }

}  // namespace lockstep::harness
