// Holding every thread of a live process in a ptrace stop while its snapshot is read (ptrace(2):
// PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_CONT, PTRACE_DETACH): private to the live snapshot.
#pragma once

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "live_parts.hpp"

namespace lockstep::harness::ptrace_process {

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

}  // namespace lockstep::harness::ptrace_process
