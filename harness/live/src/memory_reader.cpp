// Reading a stopped process's memory: every readable mapping below 4 GiB as regions, into buffers
// prepared while it still ran, through process_vm_readv or /proc/PID/mem; the modules it maps.
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

namespace lockstep::harness::ptrace_process {

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

namespace {

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

/// Reads [m.start, m.end) from /proc/PID/mem. Pages the kernel refuses are skipped (noted); each
/// readable run becomes its own region.
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

Status read_memory(int pid, const std::vector<MapsEntry>& maps, const LiveSnapshotOptions& options,
                   PreparedBuffers& prepared, Snapshot& s) {
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

  return {};
}

}  // namespace lockstep::harness::ptrace_process
