// Live snapshots (live.hpp): /proc/PID/maps + /proc/PID/mem, every thread frozen with ptrace.
// Kernel interfaces: proc(5) (maps, mem, task/), ptrace(2) (PTRACE_SEIZE/INTERRUPT, GETREGSET with
// NT_PRSTATUS/NT_PRFPREG/NT_PRXFPREG, GET_THREAD_AREA); their pitfalls are in harness/docs/readers.md.
#include "lockstep/harness/live.hpp"

#include <asm/ldt.h>  // struct user_desc
#include <elf.h>      // NT_PRSTATUS, NT_PRFPREG, NT_PRXFPREG
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>

#include "lockstep/base/io.hpp"

#ifndef PTRACE_GET_THREAD_AREA
#define PTRACE_GET_THREAD_AREA 25
#endif

namespace lockstep::harness {
namespace {

constexpr std::uint64_t kFourGiB = std::uint64_t{1} << 32;
constexpr std::uint64_t kPage = 4096;

// --- raw kernel layouts of a 32-bit tracee's regsets (arch/x86/include/asm/user_32.h) ---

/// i386 `user_regs_struct`, 68 bytes: what NT_PRSTATUS gives for a 32-bit tracee.
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

/// i386 `user_i387_struct` (FSAVE form), 108 bytes: NT_PRFPREG.
struct I387Fsave {
  std::uint32_t cwd, swd, twd, fip, fcs, foo, fos;
  std::uint8_t st_space[80];  ///< ST(0)..ST(7), 10 bytes each, stack order
};
static_assert(sizeof(I387Fsave) == 108);
constexpr std::size_t kFxsaveSize = 512;  ///< NT_PRXFPREG, `user_fxsr_struct`
constexpr std::size_t kFxsaveMxcsr = 24;

Error os_error(Errc code, int err, std::string msg) {
  return Error{code, msg + ": " + std::strerror(err)};
}

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

/// Holds every thread of a process in a ptrace stop; the destructor detaches them all (resuming
/// them, and re-delivering any signal that arrived while they were stopped) on every path.
class ThreadFreezer {
 public:
  explicit ThreadFreezer(int pid) : pid_(pid) {}
  ThreadFreezer(const ThreadFreezer&) = delete;
  ThreadFreezer& operator=(const ThreadFreezer&) = delete;
  ~ThreadFreezer() { release(); }

  /// Seizes and stops every thread, re-scanning /proc/PID/task until no new thread appears.
  Status freeze_all() {
    for (int round = 0;; ++round) {
      LOCKSTEP_TRY(std::vector<int> tids, list_tids(pid_));
      bool any_new = false;
      for (int tid : tids) {
        if (threads_.count(tid) || gone_.count(tid)) continue;
        any_new = true;
        LOCKSTEP_TRY_STATUS(freeze(tid));
      }
      if (!any_new) break;
      if (round > 1000)
        return Error::make(Errc::kIo, "pid {} keeps creating threads; could not stop them all", pid_);
    }
    if (threads_.empty()) return Error::make(Errc::kNotFound, "pid {} has no threads left to stop", pid_);
    return {};
  }

  /// The stopped threads, main thread (tid == pid) first, then by tid.
  std::vector<int> stopped() const {
    std::vector<int> out;
    for (const auto& [tid, t] : threads_)
      if (t.stopped) out.push_back(tid);
    std::stable_partition(out.begin(), out.end(), [&](int t) { return t == pid_; });
    return out;
  }

  void release() {
    for (auto& [tid, t] : threads_) {
      if (!t.stopped) {
        // Seized but not yet in a stop (an error came between): stop it so that DETACH is allowed.
        ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
        int st = 0;
        if (wait_stop(tid, st) != WaitResult::kStopped) continue;  // exited: nothing to detach
      }
      ::ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(t.pending_signal)));
    }
    threads_.clear();
  }

 private:
  struct Traced {
    bool stopped = false;
    int pending_signal = 0;  ///< a signal that arrived before our interrupt; re-delivered at detach
  };
  enum class WaitResult { kStopped, kGone, kError };

  WaitResult wait_stop(int tid, int& st) {
    for (;;) {
      const int r = ::waitpid(tid, &st, __WALL);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return errno == ECHILD ? WaitResult::kGone : WaitResult::kError;
      if (WIFEXITED(st) || WIFSIGNALED(st)) return WaitResult::kGone;
      if (WIFSTOPPED(st)) {
        // Either our PTRACE_EVENT_STOP or a signal-delivery stop that won the race: both are stops.
        if ((st >> 16) != PTRACE_EVENT_STOP) threads_[tid].pending_signal = WSTOPSIG(st);
        return WaitResult::kStopped;
      }
    }
  }

  Status freeze(int tid) {
    if (::ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
      const int e = errno;
      if (e == ESRCH) {  // the thread exited between listing and seizing
        gone_.insert(tid);
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
    int st = 0;
    switch (wait_stop(tid, st)) {
      case WaitResult::kStopped: threads_[tid].stopped = true; return {};
      case WaitResult::kGone: threads_.erase(tid); gone_.insert(tid); return {};
      case WaitResult::kError: break;
    }
    return os_error(Errc::kIo, errno, fmt::format("waiting for thread {} of pid {} to stop", tid, pid_));
  }

  int pid_;
  std::map<int, Traced> threads_;
  std::set<int> gone_;
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
  if (::ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_PRFPREG), &fiov) == 0 && fiov.iov_len == sizeof fx)
    t.x87 = x87_from_fxsave(fx);
  else
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
    t.x87.valid = true;
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
    if (sel & 4) {
      notes.push_back(fmt::format("thread {}: {}=0x{:04x} is an LDT selector; its base cannot be read "
                                  "through ptrace: 0 recorded",
                                  tid, reg, sel));
      return 0;
    }
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

std::string region_name(const MapsEntry& m) { return m.path.empty() ? "[anon]" : m.path; }

/// Reads [m.start, m.end) from /proc/PID/mem. Pages the kernel refuses are skipped (noted); each
/// readable run becomes its own region.
void read_mapping(int mem_fd, const MapsEntry& m, std::uint8_t prot, Snapshot& s) {
  std::uint64_t pos = m.start;
  while (pos < m.end) {
    // One readable run from pos.
    Region run{static_cast<GuestAddr>(pos), {}, prot, region_name(m)};
    run.bytes.resize(static_cast<std::size_t>(m.end - pos));
    std::size_t filled = 0;
    int err = 0;
    while (pos < m.end) {
      const ssize_t n = ::pread(mem_fd, run.bytes.data() + filled, static_cast<std::size_t>(m.end - pos),
                                static_cast<off_t>(pos));
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

bool is_special_unreadable(const std::string& path) {
  return path == "[vvar]" || path == "[vvar_vclock]" || path == "[vsyscall]";
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

Result<Snapshot> snapshot_live(int pid, const LiveSnapshotOptions& options) {
#if !defined(__x86_64__) && !defined(__i386__)
  (void)options;
  return Error::make(Errc::kUnsupported, "live snapshots need an x86 Linux host (pid {})", pid);
#else
  if (pid <= 0) return Error::make(Errc::kUsage, "pid {} is not a process id", pid);
  if (pid == ::getpid()) return Error::make(Errc::kUsage, "pid {} is lockstep itself; it cannot snapshot itself", pid);
  if (::kill(pid, 0) != 0 && errno == ESRCH) return Error::make(Errc::kNotFound, "no process with pid {}", pid);

  ThreadFreezer freezer(pid);
  LOCKSTEP_TRY_STATUS(freezer.freeze_all());

  Snapshot s;
  s.meta.format = "live";
  s.meta.source = fmt::format("live pid {}", pid);
  s.meta.created_unix = static_cast<std::int64_t>(std::time(nullptr));

  // Registers first: a 64-bit process is refused before its memory is read.
  for (int tid : freezer.stopped()) {
    LOCKSTEP_TRY(Thread t, read_thread(pid, tid, options.allow_64bit, s.meta.notes));
    s.threads.push_back(t);
  }

  // The maps are read only now that every thread is stopped: they cannot change under us.
  const std::string maps_path = fmt::format("/proc/{}/maps", pid);
  auto maps_text = read_proc_text(maps_path, 64u << 20);
  if (!maps_text.ok()) return std::move(maps_text).error().wrap("pid {}", pid);
  LOCKSTEP_TRY(std::vector<MapsEntry> maps, parse_proc_maps(*maps_text));

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
    read_mapping(mem_fd, m, prot, s);
  }
  for (const auto& [path, range] : files)
    s.meta.modules.push_back(Module{path, static_cast<GuestAddr>(range.first),
                                    static_cast<std::uint32_t>(range.second - range.first)});
  std::sort(s.meta.modules.begin(), s.meta.modules.end(),
            [](const Module& a, const Module& b) { return a.base < b.base; });

  // The executable: its path, and its hash through /proc/PID/exe (works even if it was deleted).
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

  freezer.release();  // resume the process as soon as it has been read
  s.sort_regions();
  LOCKSTEP_TRY_STATUS(s.validate());
  return s;
#endif
}

}  // namespace lockstep::harness
