// /proc reading for live snapshots and the recorder: text files read to their end, the thread ids of
// a process, a thread's scheduler state, the maps parser (proc(5)).
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

namespace lockstep::harness {

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

using ptrace_process::read_proc_text;

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

}  // namespace lockstep::harness
