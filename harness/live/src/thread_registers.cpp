// A stopped thread's registers, x87 state and segment bases, read with ptrace(2) (GETREGSET with
// NT_PRSTATUS, NT_PRFPREG, NT_PRXFPREG; GET_THREAD_AREA) for an i386 or an x86-64 tracee.
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

#ifndef PTRACE_GET_THREAD_AREA
#define PTRACE_GET_THREAD_AREA 25
#endif

namespace lockstep::harness::ptrace_process {
namespace {

struct I387Fsave {
  std::uint32_t cwd, swd, twd, fip, fcs, foo, fos;
  std::uint8_t st_space[80];  ///< ST(0)..ST(7), 10 bytes each, stack order
};
static_assert(sizeof(I387Fsave) == 108);
constexpr std::size_t kFxsaveMxcsr = 24;


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


}  // namespace

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

}  // namespace lockstep::harness::ptrace_process
