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

#include "live_parts.hpp"
#include "thread_freezer.hpp"

namespace lockstep::harness {

namespace {

using namespace ptrace_process;

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

  LOCKSTEP_TRY_STATUS(read_memory(pid, maps, options, prepared, s));
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
