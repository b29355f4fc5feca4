// System calls run inside a stopped thread of the tracee, and the one it is for: reading the
// process's LDT with modify_ldt(2) into a buffer mapped in the tracee for the purpose.
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
namespace {

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

}  // namespace

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

}  // namespace lockstep::harness::ptrace_process
