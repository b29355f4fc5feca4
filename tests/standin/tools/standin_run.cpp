// standin_run: runs the stand-in (a static, non-PIE i386 Linux program) under Unicorn, for hosts whose
// kernel does not execute 32-bit programs (ia32_emulation=off: "Exec format error").
//
//   standin_run [--snapshot FILE] [--quiet] STANDIN [ARGS...]
//
// It is a small Linux i386 user-mode emulator: it maps the ELF's PT_LOAD segments, builds the initial
// stack (argv, auxv), a GDT as a 64-bit kernel gives a 32-bit process (user code 0x23, data 0x2b, TLS
// entries 12..14 = 0x63, 0x6b, 0x73), and emulates the few system calls a static program makes
// (int 0x80: brk, set_thread_area, modify_ldt, clone, open/openat, write, close, uname, kill,
// exit_group, ...). The stand-in's own guest code runs unchanged, so its step log is the same as a
// native run's.
//
// Threads (clone with CLONE_VM | CLONE_THREAD) run one at a time on the one Unicorn engine, each with
// its own saved CPU context (uc_context) and GDT TLS entries: a thread runs until it makes a system
// call that yields (sched_yield, nanosleep, futex), exits, or has run its time slice (counted in
// translated blocks, so the schedule, and hence every run, is deterministic). nanosleep does not
// sleep: it yields. A single-threaded program has no slice hook at all (it is added at the first
// clone), so the stand-in runs exactly as it did.
//
// The LDT (modify_ldt, as Wine gives every thread's TEB a selector) lives in emulator-only pages
// with LDTR pointing at it, as the kernel's does; `modify_ldt(0, ...)` reads it back.
//
// The pause: when the program sends itself SIGSTOP (--pause-at), a native run stops and a live
// snapshot is taken from outside; here the runner itself writes the whole guest state, as
// `lockstep snapshot --pid` would, to --snapshot FILE (lockstep's snapshot format) and runs on:
// every thread (the one that stopped itself first), each thread's selectors and the FS/GS bases
// behind them, and the process's LDT entries.
//
// Exit status: the program's own, or 3 for a guest fault (an unmapped access, ud2), 2 for bad usage,
// 4 for an unreadable executable.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <unicorn/unicorn.h>

#include "lockstep/base/io.hpp"
#include "lockstep/load/load.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace {

using lockstep::harness::Snapshot;

constexpr std::uint32_t kPage = 0x1000;
constexpr std::uint32_t kStackTop = 0xfffdd000;       // where a 64-bit kernel puts a 32-bit stack
constexpr std::uint32_t kStackSize = 8u << 20;
constexpr std::uint32_t kGdtBase = 0xffffe000;        // emulator-only page, not in the snapshot
constexpr std::uint32_t kLdtBase = 0xfffe0000;        // emulator-only 64 KiB (8192 entries), not in the snapshot
constexpr std::uint32_t kLdtEntries = 8192;
constexpr std::uint64_t kSliceBlocks = 20000;         // a thread's time slice, in translated blocks
constexpr std::uint32_t kMmapBase = 0xf7000000;       // anonymous mmap2 grows up from here
constexpr std::uint32_t kPid = 4242;                  // the pid and tid the program sees
constexpr std::uint16_t kUserCs = 0x23, kUserDs = 0x2b, kKernelSs = 0x30;
constexpr int kTlsEntry = 12;                         // GDT_ENTRY_TLS_MIN on a 64-bit kernel
constexpr int kTlsEntries = 3;                        // 12, 13, 14
// clone flags (linux/sched.h)
constexpr std::uint32_t kCloneVm = 0x100, kCloneThread = 0x10000, kCloneSettls = 0x80000,
                        kCloneParentSettid = 0x100000, kCloneChildCleartid = 0x200000, kCloneChildSettid = 0x1000000;

/// The descriptor Linux's fill_ldt() makes of a `struct user_desc` (asm/ldt.h: entry_number,
/// base_addr, limit, then the bit fields seg_32bit, contents:2, read_exec_only, limit_in_pages,
/// seg_not_present, useable), for modify_ldt and set_thread_area alike: DPL 3, the accessed bit set.
std::uint64_t descriptor_from_user_desc(const std::uint32_t desc[4]) {
  const std::uint32_t base = desc[1], limit = desc[2], bits = desc[3];
  const std::uint32_t seg_32bit = bits & 1, contents = (bits >> 1) & 3, read_exec_only = (bits >> 3) & 1,
                      limit_in_pages = (bits >> 4) & 1, seg_not_present = (bits >> 5) & 1, useable = (bits >> 6) & 1;
  std::uint64_t d = limit & 0xffff;
  d |= std::uint64_t{base & 0xffffff} << 16;
  const std::uint32_t type = ((read_exec_only ^ 1) << 1) | (contents << 2) | 1;
  d |= std::uint64_t{type} << 40;
  d |= std::uint64_t{1} << 44;                 // S: code or data
  d |= std::uint64_t{3} << 45;                 // DPL 3
  d |= std::uint64_t{seg_not_present ^ 1} << 47;
  d |= std::uint64_t{(limit >> 16) & 0xf} << 48;
  d |= std::uint64_t{useable} << 52;
  d |= std::uint64_t{seg_32bit} << 54;
  d |= std::uint64_t{limit_in_pages} << 55;
  d |= std::uint64_t{base >> 24} << 56;
  return d;
}

/// Linux's LDT_empty(): the user_desc that clears an entry.
bool user_desc_is_empty(const std::uint32_t desc[4]) {
  return desc[1] == 0 && desc[2] == 0 && (desc[3] & 0x7f) == 0x28;  // read_exec_only and seg_not_present only
}

std::uint32_t descriptor_base(std::uint64_t d) {
  return static_cast<std::uint32_t>(((d >> 16) & 0xffffff) | (((d >> 56) & 0xff) << 24));
}

/// One guest thread: its CPU state while another runs, its GDT TLS entries (per thread, as the
/// kernel switches them), and the CLONE_CHILD_CLEARTID address.
struct GuestThread {
  std::uint32_t tid = 0;
  uc_context* context = nullptr;
  std::array<std::uint64_t, kTlsEntries> tls{};
  std::uint32_t clear_child_tid = 0;
  bool alive = true;
};

std::uint32_t page_down(std::uint32_t a) { return a & ~(kPage - 1); }
std::uint64_t page_up(std::uint64_t a) { return (a + kPage - 1) & ~std::uint64_t{kPage - 1}; }

struct Mapping {
  std::uint32_t base = 0, size = 0;
  std::uint8_t prot = 0;  // lockstep Prot bits (= UC_PROT_*)
  std::string name;
  bool in_snapshot = true;
};

/// Why emulation stopped short of an exit: the scheduler has something to do.
enum class Switch { kNone, kYield, kClone, kThreadExit, kSliceEnd };

struct Process {
  uc_engine* uc = nullptr;
  std::vector<Mapping> maps;
  std::uint32_t brk_start = 0, brk_cur = 0, mmap_next = kMmapBase;
  std::vector<GuestThread> threads;  ///< threads[current] is the one on the CPU
  std::size_t current = 0;
  std::uint32_t next_tid = kPid + 1;
  Switch pending = Switch::kNone;
  struct CloneRequest {
    std::uint32_t flags = 0, stack = 0, parent_tid_at = 0, tls_at = 0, child_tid_at = 0, tid = 0;
  } clone_request;
  bool slicing = false;            ///< the slice hook is installed (from the first clone)
  std::uint64_t slice_left = 0;
  std::vector<std::uint64_t> ldt;  ///< the LDT's entries (empty until modify_ldt writes one)
  bool exited = false, faulted = false;
  int exit_code = 0;
  std::string exe;
  std::optional<std::filesystem::path> snapshot_path;
  int snapshots_taken = 0;
  bool quiet = false;
  std::string fault;

  ~Process() {
    for (GuestThread& t : threads)
      if (t.context) uc_context_free(t.context);
    if (uc) uc_close(uc);
  }

  bool map(std::uint32_t base, std::uint64_t size, std::uint8_t prot, std::string name, bool in_snapshot = true) {
    for (std::uint64_t a = base; a < std::uint64_t{base} + size; a += kPage) {
      // a page already mapped by an earlier segment keeps its mapping; protections are merged
      auto it = std::find_if(maps.begin(), maps.end(), [&](const Mapping& m) {
        return a >= m.base && a < std::uint64_t{m.base} + m.size;
      });
      if (it != maps.end()) {
        it->prot |= prot;
        uc_mem_protect(uc, it->base, it->size, it->prot);
        continue;
      }
      std::uint64_t end = a;
      while (end < std::uint64_t{base} + size &&
             std::none_of(maps.begin(), maps.end(), [&](const Mapping& m) {
               return end >= m.base && end < std::uint64_t{m.base} + m.size;
             }))
        end += kPage;
      if (uc_mem_map(uc, a, end - a, prot) != UC_ERR_OK) return false;
      maps.push_back({static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(end - a), prot, name, in_snapshot});
      a = end - kPage;
    }
    return true;
  }

  std::uint32_t reg(int r) {
    std::uint32_t v = 0;
    uc_reg_read(uc, r, &v);
    return v;
  }
  void set_reg(int r, std::uint32_t v) { uc_reg_write(uc, r, &v); }
  bool read(std::uint32_t a, void* out, std::size_t n) { return uc_mem_read(uc, a, out, n) == UC_ERR_OK; }
  bool write(std::uint32_t a, const void* in, std::size_t n) { return uc_mem_write(uc, a, in, n) == UC_ERR_OK; }
  std::optional<std::string> read_string(std::uint32_t a, std::size_t max = 4096) {
    std::string s;
    for (std::size_t i = 0; i < max; ++i) {
      char c;
      if (!read(a + static_cast<std::uint32_t>(i), &c, 1)) return std::nullopt;
      if (!c) return s;
      s.push_back(c);
    }
    return std::nullopt;
  }

  void write_descriptor(int index, std::uint32_t base, std::uint32_t limit, bool code, int dpl, bool pages) {
    std::uint64_t d = 0;
    d |= limit & 0xffff;
    d |= std::uint64_t{base & 0xffffff} << 16;
    d |= std::uint64_t{code ? 0xau : 0x2u} << 40;  // code execute/read, or data read/write
    d |= std::uint64_t{1} << 44;                   // code or data (not system)
    d |= std::uint64_t(dpl & 3) << 45;
    d |= std::uint64_t{1} << 47;                   // present
    d |= std::uint64_t{(limit >> 16) & 0xf} << 48;
    d |= std::uint64_t{1} << 54;                   // 32-bit
    if (pages) d |= std::uint64_t{1} << 55;
    d |= std::uint64_t{base >> 24} << 56;
    write(kGdtBase + 8u * static_cast<std::uint32_t>(index), &d, 8);
  }

  void write_gdt_entry(int index, std::uint64_t d) { write(kGdtBase + 8u * static_cast<std::uint32_t>(index), &d, 8); }

  /// The base behind a selector for a thread: its LDT entry, its own GDT TLS entry, or 0 (flat).
  std::uint32_t segment_base(const GuestThread& t, std::uint16_t sel) const {
    const std::uint32_t index = sel >> 3u;
    if (sel & 4) return index < ldt.size() ? descriptor_base(ldt[index]) : 0;
    if (index >= kTlsEntry && index < kTlsEntry + kTlsEntries) return descriptor_base(t.tls[index - kTlsEntry]);
    return 0;
  }

  /// A thread's state for the snapshot. `live`: read from the CPU (the thread on it), else from its
  /// saved context.
  lockstep::harness::Thread snapshot_thread(GuestThread& g, bool live) {
    auto r = [&](int id) {
      std::uint32_t v = 0;
      if (live) uc_reg_read(uc, id, &v);
      else uc_context_reg_read(g.context, id, &v);
      return v;
    };
    lockstep::harness::Thread t;
    t.tid = g.tid;
    t.eax = live ? 0 : r(UC_X86_REG_EAX);  // kill() returns 0 once the process is continued
    t.ebx = r(UC_X86_REG_EBX), t.ecx = r(UC_X86_REG_ECX), t.edx = r(UC_X86_REG_EDX);
    t.esi = r(UC_X86_REG_ESI), t.edi = r(UC_X86_REG_EDI), t.ebp = r(UC_X86_REG_EBP);
    t.esp = r(UC_X86_REG_ESP), t.eip = r(UC_X86_REG_EIP), t.eflags = r(UC_X86_REG_EFLAGS);
    // CS and SS as a 64-bit kernel gives them (Unicorn's own SS is a DPL 0 one, its CS never
    // reloaded); DS, ES, FS and GS as loaded (an LDT selector stays one).
    t.cs = kUserCs, t.ss = kUserDs;
    t.ds = static_cast<std::uint16_t>(r(UC_X86_REG_DS));
    t.es = static_cast<std::uint16_t>(r(UC_X86_REG_ES));
    t.fs = static_cast<std::uint16_t>(r(UC_X86_REG_FS));
    t.gs = static_cast<std::uint16_t>(r(UC_X86_REG_GS));
    t.fs_base = segment_base(g, t.fs), t.gs_base = segment_base(g, t.gs);
    t.x87.control = static_cast<std::uint16_t>(r(UC_X86_REG_FPCW));
    t.x87.status = static_cast<std::uint16_t>(r(UC_X86_REG_FPSW));
    // Unicorn keeps one "empty" flag per register; expand to the full tag word (valid or empty)
    t.x87.tag = static_cast<std::uint16_t>(r(UC_X86_REG_FPTAG));
    for (int i = 0; i < 8; ++i) {
      std::uint8_t f[16] = {};  // Unicorn 2.0.1 writes 8 bytes of mantissa, then the 2-byte exponent
      if (live) uc_reg_read(uc, UC_X86_REG_FP0 + i, f);
      else uc_context_reg_read(g.context, UC_X86_REG_FP0 + i, f);
      std::memcpy(t.x87.st[static_cast<std::size_t>(i)].data(), f, 10);
    }
    t.x87.mxcsr = r(UC_X86_REG_MXCSR);
    t.x87_valid = true;
    return t;
  }

  lockstep::Status take_snapshot() {
    Snapshot s;
    for (const Mapping& m : maps) {
      if (!m.in_snapshot) continue;
      lockstep::harness::Region r;
      r.base = m.base;
      r.bytes.resize(m.size);
      read(m.base, r.bytes.data(), m.size);
      r.prot = m.prot;
      r.name = m.name;
      s.regions.push_back(std::move(r));
    }
    s.sort_regions();
    // The thread that stopped itself first (calls run on threads[0]), then the others by tid.
    s.threads.push_back(snapshot_thread(threads[current], true));
    for (std::size_t i = 0; i < threads.size(); ++i)
      if (i != current && threads[i].alive) s.threads.push_back(snapshot_thread(threads[i], false));
    for (std::uint32_t i = 0; i < ldt.size(); ++i) {
      const auto e = lockstep::harness::LdtEntry::from_descriptor(static_cast<std::uint16_t>(i), ldt[i]);
      if (e.present()) s.ldt.push_back(e);
    }
    s.meta.source = "standin_run pid " + std::to_string(kPid) + " (i386 emulated under Unicorn)";
    s.meta.format = "live";
    s.meta.created_unix = static_cast<std::int64_t>(std::time(nullptr));
    s.meta.exe_path = exe;
    if (auto bytes = lockstep::read_file(exe, 64u << 20); bytes.ok()) {
      auto digest = lockstep::sha256(*bytes);
      s.meta.exe_sha256 = lockstep::to_hex(digest);
    }
    s.meta.notes.push_back("taken by standin_run at the program's SIGSTOP (the kernel could not run i386)");
    if (threads.size() > 1)
      s.meta.notes.push_back("the other threads are where the runner's scheduler left them: at the end of a time "
                             "slice or just after a system call that yielded");
    return lockstep::harness::save_snapshot(s, *snapshot_path);
  }

  std::int32_t syscall();

  /// set_thread_area(u_info) for thread `t`: entry -1 takes the first free TLS entry (12..14).
  std::int32_t set_thread_area(GuestThread& t, std::uint32_t u_info, bool on_cpu) {
    std::uint32_t desc[4];
    if (!read(u_info, desc, sizeof desc)) return -EFAULT;
    std::uint32_t entry = desc[0];
    if (entry == 0xffffffffu) {
      entry = 0;
      for (int i = 0; i < kTlsEntries; ++i)
        if (t.tls[static_cast<std::size_t>(i)] == 0) {
          entry = static_cast<std::uint32_t>(kTlsEntry + i);
          break;
        }
      if (!entry) return -ESRCH;
      desc[0] = entry;
      if (!write(u_info, desc, 4)) return -EFAULT;
    }
    if (entry < static_cast<std::uint32_t>(kTlsEntry) || entry >= static_cast<std::uint32_t>(kTlsEntry + kTlsEntries))
      return -EINVAL;
    const std::uint64_t d = user_desc_is_empty(desc) ? 0 : descriptor_from_user_desc(desc);
    t.tls[entry - kTlsEntry] = d;
    if (on_cpu) write_gdt_entry(static_cast<int>(entry), d);
    return 0;
  }

  /// modify_ldt(func, ptr, bytecount) as arch/x86/kernel/ldt.c does it: 0 reads the LDT (zero-filled
  /// to bytecount), 1 and 0x11 write one entry (old and new mode), 2 reads the (empty) default LDT.
  std::int32_t modify_ldt(std::uint32_t func, std::uint32_t ptr, std::uint32_t bytecount) {
    switch (func) {
      case 0: {
        const std::uint32_t n = std::min<std::uint32_t>(bytecount, kLdtEntries * 8);
        std::vector<std::uint8_t> out(n, 0);
        std::memcpy(out.data(), ldt.data(), std::min<std::size_t>(n, ldt.size() * 8));
        if (n && !write(ptr, out.data(), n)) return -EFAULT;
        return ldt.empty() ? 0 : static_cast<std::int32_t>(n);
      }
      case 2: {
        const std::uint32_t n = std::min<std::uint32_t>(bytecount, 128);
        std::vector<std::uint8_t> zeros(n, 0);
        if (n && !write(ptr, zeros.data(), n)) return -EFAULT;
        return static_cast<std::int32_t>(n);
      }
      case 1:
      case 0x11: {
        std::uint32_t desc[4];
        if (bytecount != sizeof desc) return -EINVAL;
        if (!read(ptr, desc, sizeof desc)) return -EFAULT;
        if (desc[0] >= kLdtEntries) return -EINVAL;
        const std::uint32_t contents = (desc[3] >> 1) & 3, not_present = (desc[3] >> 5) & 1;
        if (contents == 3 && (func == 1 || !not_present)) return -EINVAL;
        std::uint64_t d = 0;
        const bool zero = func == 1 && desc[1] == 0 && desc[2] == 0;  // LDT_zero(), old mode
        if (!user_desc_is_empty(desc) && !zero) {
          d = descriptor_from_user_desc(desc);
          if (func == 1) d &= ~(std::uint64_t{1} << 52);  // old mode: no AVL
        }
        if (ldt.empty()) {
          // First entry: the table's pages (emulator-only, like the GDT) and LDTR.
          if (!map(kLdtBase, kLdtEntries * 8, UC_PROT_READ | UC_PROT_WRITE, "[ldt]", false)) return -ENOMEM;
          uc_x86_mmr ldtr{};
          ldtr.base = kLdtBase;
          ldtr.limit = kLdtEntries * 8 - 1;
          ldtr.flags = 0x82u << 8;  // present LDT system descriptor (QEMU keeps the access byte at bits 8..15)
          uc_reg_write(uc, UC_X86_REG_LDTR, &ldtr);
        }
        if (ldt.size() <= desc[0]) ldt.resize(desc[0] + 1, 0);
        ldt[desc[0]] = d;
        write(kLdtBase + 8 * desc[0], &d, 8);
        return 0;
      }
      default:
        return -ENOSYS;
    }
  }

  /// What the scheduler does when emulation stopped for it (pending != kNone). Returns false on a
  /// runner failure (reported in `fault`).
  bool reschedule() {
    const Switch why = pending;
    pending = Switch::kNone;
    GuestThread& cur = threads[current];
    if (cur.alive) uc_context_save(uc, cur.context);
    if (why == Switch::kClone) {
      if (!slicing) {
        // Time slices from now on; blocks translated before the hook existed must be retranslated.
        uc_hook h;
        uc_hook_add(uc, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(&Process::on_block), this, 1, 0);
        uc_ctl(uc, UC_CTL_WRITE(UC_CTL_TB_FLUSH, 0));
        slicing = true;
      }
      GuestThread child;
      child.tid = clone_request.tid;
      child.tls = cur.tls;
      if (uc_context_alloc(uc, &child.context) != UC_ERR_OK) {
        fault = "cannot allocate a CPU context for a new thread";
        return false;
      }
      uc_context_save(uc, child.context);
      const std::uint32_t zero = 0, stack = clone_request.stack;
      uc_context_reg_write(child.context, UC_X86_REG_EAX, &zero);
      uc_context_reg_write(child.context, UC_X86_REG_ESP, &stack);
      if (clone_request.flags & kCloneSettls) set_thread_area(child, clone_request.tls_at, false);
      if (clone_request.flags & kCloneChildSettid) write(clone_request.child_tid_at, &child.tid, 4);
      if (clone_request.flags & kCloneChildCleartid) child.clear_child_tid = clone_request.child_tid_at;
      threads.push_back(child);
    }
    // Round robin over the live threads.
    std::size_t next = current;
    do next = (next + 1) % threads.size();
    while (!threads[next].alive && next != current);
    if (!threads[next].alive) {
      fault = "every thread has ended without exit_group";
      return false;
    }
    current = next;
    GuestThread& t = threads[current];
    for (int i = 0; i < kTlsEntries; ++i) write_gdt_entry(kTlsEntry + i, t.tls[static_cast<std::size_t>(i)]);
    uc_context_restore(uc, t.context);
    slice_left = kSliceBlocks;
    return true;
  }

  static void on_block(uc_engine* uc, std::uint64_t, std::uint32_t, void* user) {
    auto* p = static_cast<Process*>(user);
    if (p->slice_left && --p->slice_left == 0 && p->pending == Switch::kNone) {
      p->pending = Switch::kSliceEnd;
      uc_emu_stop(uc);
    }
  }
};

// i386 system call numbers (arch/x86/entry/syscalls/syscall_32.tbl)
enum : std::uint32_t {
  kExit = 1, kRead = 3, kWrite = 4, kOpen = 5, kClose = 6, kGetpid = 20, kKill = 37, kBrk = 45, kIoctl = 54,
  kMunmap = 91, kClone = 120, kUname = 122, kModifyLdt = 123, kMprotect = 125, kLlseek = 140, kWritev = 146,
  kSchedYield = 158, kNanosleep = 162, kRtSigaction = 174, kRtSigprocmask = 175, kMmap2 = 192, kGettid = 224,
  kTkill = 238, kFutex = 240, kSetThreadArea = 243, kExitGroup = 252, kSetTidAddress = 258,
  kClockNanosleep = 265, kTgkill = 270, kOpenat = 295, kSetRobustList = 311,
};
constexpr int kSigStop = 19;

std::int32_t Process::syscall() {
  const std::uint32_t nr = reg(UC_X86_REG_EAX), a1 = reg(UC_X86_REG_EBX), a2 = reg(UC_X86_REG_ECX),
                      a3 = reg(UC_X86_REG_EDX), a4 = reg(UC_X86_REG_ESI), a5 = reg(UC_X86_REG_EDI);
  switch (nr) {
    case kExit: {
      // One thread ends; the process ends with its last thread.
      const std::size_t alive = static_cast<std::size_t>(
          std::count_if(threads.begin(), threads.end(), [](const GuestThread& t) { return t.alive; }));
      if (alive > 1) {
        GuestThread& t = threads[current];
        if (t.clear_child_tid) {
          const std::uint32_t zero = 0;
          write(t.clear_child_tid, &zero, 4);
        }
        t.alive = false;
        pending = Switch::kThreadExit;
        uc_emu_stop(uc);
        return 0;
      }
      exited = true;
      exit_code = static_cast<int>(a1 & 0xff);
      uc_emu_stop(uc);
      return 0;
    }
    case kExitGroup:
      exited = true;
      exit_code = static_cast<int>(a1 & 0xff);
      uc_emu_stop(uc);
      return 0;
    case kWrite: {
      std::vector<char> buf(a3);
      if (a3 && !read(a2, buf.data(), a3)) return -EFAULT;
      ssize_t n = ::write(static_cast<int>(a1), buf.data(), a3);
      return n < 0 ? -errno : static_cast<std::int32_t>(n);
    }
    case kWritev: {
      std::int32_t total = 0;
      for (std::uint32_t i = 0; i < a3; ++i) {
        std::uint32_t iov[2];
        if (!read(a2 + 8 * i, iov, 8)) return -EFAULT;
        std::vector<char> buf(iov[1]);
        if (iov[1] && !read(iov[0], buf.data(), iov[1])) return -EFAULT;
        ssize_t n = ::write(static_cast<int>(a1), buf.data(), iov[1]);
        if (n < 0) return -errno;
        total += static_cast<std::int32_t>(n);
      }
      return total;
    }
    case kRead: {
      std::vector<char> buf(a3);
      ssize_t n = ::read(static_cast<int>(a1), buf.data(), a3);
      if (n < 0) return -errno;
      if (n && !write(a2, buf.data(), static_cast<std::size_t>(n))) return -EFAULT;
      return static_cast<std::int32_t>(n);
    }
    case kOpen:
    case kOpenat: {
      std::uint32_t path_at = nr == kOpen ? a1 : a2, flags = nr == kOpen ? a2 : a3, mode = nr == kOpen ? a3 : a4;
      auto path = read_string(path_at);
      if (!path) return -EFAULT;
      // i386 and x86-64 share these flag values; O_LARGEFILE is implied on the host
      int host_flags = static_cast<int>(flags & (O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | O_EXCL | O_CLOEXEC));
      int fd = ::open(path->c_str(), host_flags, mode);
      return fd < 0 ? -errno : fd;
    }
    case kClose:
      if (a1 <= 2) return 0;
      return ::close(static_cast<int>(a1)) < 0 ? -errno : 0;
    case kBrk: {
      if (a1 < brk_start || a1 > brk_start + (256u << 20)) return static_cast<std::int32_t>(brk_cur);
      std::uint64_t have = page_up(brk_cur), want = page_up(a1);
      if (want > have && !map(static_cast<std::uint32_t>(have), want - have, UC_PROT_READ | UC_PROT_WRITE, "[heap]"))
        return static_cast<std::int32_t>(brk_cur);
      brk_cur = a1;
      return static_cast<std::int32_t>(brk_cur);
    }
    case kMmap2: {
      constexpr std::uint32_t kMapAnonymous = 0x20;
      if (!(a4 & kMapAnonymous)) return -ENODEV;
      std::uint32_t at = mmap_next;
      std::uint64_t size = page_up(a2);
      if (size == 0 || at + size > kStackTop - kStackSize) return -ENOMEM;
      std::uint8_t prot = static_cast<std::uint8_t>((a3 & 7) ? (a3 & 7) : std::uint32_t{UC_PROT_READ});
      if (!map(at, size, prot, "[anon]")) return -ENOMEM;
      mmap_next += static_cast<std::uint32_t>(size);
      return static_cast<std::int32_t>(at);
    }
    case kMunmap:
    case kMprotect:
    case kRtSigaction:
    case kRtSigprocmask:
    case kSetRobustList:
      return 0;
    case kSetTidAddress:
      threads[current].clear_child_tid = a1;
      return static_cast<std::int32_t>(threads[current].tid);
    case kGetpid:
      return static_cast<std::int32_t>(kPid);
    case kGettid:
      return static_cast<std::int32_t>(threads[current].tid);
    case kSchedYield:
    case kNanosleep:
    case kClockNanosleep:
    case kFutex:
      // No thread really waits: each yields and returns at once (a futex wait that returns 0 early is
      // a spurious wake-up, which every futex user handles; nanosleep's time is not emulated).
      pending = Switch::kYield;
      uc_emu_stop(uc);
      return 0;
    case kClone: {
      if ((a1 & (kCloneVm | kCloneThread)) != (kCloneVm | kCloneThread)) return -ENOSYS;  // threads only, no fork
      if (a2 == 0) return -EINVAL;
      clone_request = {a1, a2, a3, a4, a5, next_tid++};
      if (a1 & kCloneParentSettid) write(a3, &clone_request.tid, 4);
      pending = Switch::kClone;
      uc_emu_stop(uc);
      return static_cast<std::int32_t>(clone_request.tid);
    }
    case kModifyLdt:
      return modify_ldt(a1, a2, a3);
    case kIoctl:
      return -ENOTTY;
    case kUname: {
      char u[6][65] = {};
      std::strcpy(u[0], "Linux");
      std::strcpy(u[1], "standin_run");
      std::strcpy(u[2], "6.1.0");
      std::strcpy(u[3], "#1");
      std::strcpy(u[4], "i686");
      return write(a1, u, sizeof u) ? 0 : -EFAULT;
    }
    case kSetThreadArea:
      return set_thread_area(threads[current], a1, true);
    case kKill:
    case kTkill:
    case kTgkill: {
      int sig = static_cast<int>(nr == kTgkill ? a3 : a2);
      if (sig == kSigStop) {
        if (snapshot_path) {
          auto st = take_snapshot();
          if (!st.ok()) {
            std::fprintf(stderr, "standin_run: snapshot at SIGSTOP: %s\n", st.error().message.c_str());
            exited = true, exit_code = 4;
            uc_emu_stop(uc);
            return 0;
          }
          ++snapshots_taken;
          if (!quiet) std::fprintf(stderr, "standin_run: snapshot written to %s\n", snapshot_path->c_str());
        }
        return 0;  // stopped and continued
      }
      if (sig == 0) return 0;
      exited = true;
      exit_code = 128 + sig;
      uc_emu_stop(uc);
      return 0;
    }
    default:
      return -ENOSYS;
  }
}

void on_interrupt(uc_engine* uc, std::uint32_t intno, void* user) {
  auto* p = static_cast<Process*>(user);
  if (intno == 0x80) {
    std::int32_t r = p->syscall();
    if (!p->exited) p->set_reg(UC_X86_REG_EAX, static_cast<std::uint32_t>(r));
    return;
  }
  char m[96];
  std::snprintf(m, sizeof m, "interrupt %u (%s) at eip 0x%x", intno, intno == 6 ? "invalid opcode, e.g. ud2" : "fault",
                p->reg(UC_X86_REG_EIP));
  p->fault = m;
  p->faulted = true;
  uc_emu_stop(uc);
}

int usage() {
  std::fprintf(stderr, "usage: standin_run [--snapshot FILE] [--quiet] STANDIN [ARGS...]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Process p;
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; ++i) {
    std::string a = argv[i];
    if (a == "--snapshot" && i + 1 < argc) {
      p.snapshot_path = argv[++i];
    } else if (a == "--quiet") {
      p.quiet = true;
    } else {
      return usage();
    }
  }
  if (i >= argc) return usage();
  p.exe = argv[i];
  std::vector<std::string> args(argv + i, argv + argc);

  auto file = lockstep::read_file(p.exe, 256u << 20);
  if (!file.ok()) {
    std::fprintf(stderr, "standin_run: %s\n", file.error().message.c_str());
    return 4;
  }
  const std::vector<std::uint8_t>& elf = *file;
  auto u32 = [&](std::size_t off) {
    std::uint32_t v = 0;
    if (off + 4 <= elf.size()) std::memcpy(&v, elf.data() + off, 4);
    return v;
  };
  auto u16 = [&](std::size_t off) {
    std::uint16_t v = 0;
    if (off + 2 <= elf.size()) std::memcpy(&v, elf.data() + off, 2);
    return v;
  };
  if (elf.size() < 52 || std::memcmp(elf.data(), "\x7f" "ELF\x01\x01", 6) != 0 || u16(16) != 2 || u16(18) != 3) {
    std::fprintf(stderr, "standin_run: %s: not a static i386 ELF executable\n", p.exe.c_str());
    return 2;
  }
  const std::uint32_t entry = u32(24), phoff = u32(28);
  const std::uint16_t phentsize = u16(42), phnum = u16(44);
  if (phentsize != 32 || phoff + std::uint64_t{phnum} * 32 > elf.size()) {
    std::fprintf(stderr, "standin_run: %s: bad program headers\n", p.exe.c_str());
    return 2;
  }

  if (uc_open(UC_ARCH_X86, UC_MODE_32, &p.uc) != UC_ERR_OK) {
    std::fprintf(stderr, "standin_run: Unicorn refused to open an i386 engine\n");
    return 4;
  }
  std::uint32_t highest = 0, phdr_addr = 0;
  for (std::uint16_t k = 0; k < phnum; ++k) {
    const std::size_t ph = phoff + 32u * k;
    const std::uint32_t type = u32(ph), off = u32(ph + 4), vaddr = u32(ph + 8), filesz = u32(ph + 16),
                        memsz = u32(ph + 20), flags = u32(ph + 24);
    if (type != 1 /* PT_LOAD */ || memsz == 0) continue;
    if (off + std::uint64_t{filesz} > elf.size() || filesz > memsz) {
      std::fprintf(stderr, "standin_run: %s: segment %u runs past the file\n", p.exe.c_str(), k);
      return 2;
    }
    std::uint8_t prot = static_cast<std::uint8_t>(((flags & 4) ? UC_PROT_READ : 0) | ((flags & 2) ? UC_PROT_WRITE : 0) |
                                                  ((flags & 1) ? UC_PROT_EXEC : 0));
    const std::uint32_t base = page_down(vaddr);
    if (!p.map(base, page_up(std::uint64_t{vaddr} + memsz) - base, prot, p.exe)) {
      std::fprintf(stderr, "standin_run: cannot map segment %u at 0x%x\n", k, vaddr);
      return 4;
    }
    if (filesz) p.write(vaddr, elf.data() + off, filesz);
    if (off <= phoff && phoff < off + filesz) phdr_addr = vaddr + (phoff - off);
    highest = std::max(highest, static_cast<std::uint32_t>(page_up(std::uint64_t{vaddr} + memsz)));
  }
  p.brk_start = p.brk_cur = highest;

  // GDT as a 64-bit kernel gives a 32-bit process, plus a DPL 0 stack segment for Unicorn's CPL 0
  p.map(kGdtBase, kPage, UC_PROT_READ | UC_PROT_WRITE, "[gdt]", false);
  p.write_descriptor(kUserCs >> 3, 0, 0xfffff, true, 3, true);
  p.write_descriptor(kUserDs >> 3, 0, 0xfffff, false, 3, true);
  p.write_descriptor(kKernelSs >> 3, 0, 0xfffff, false, 0, true);
  uc_x86_mmr gdtr{};
  gdtr.base = kGdtBase;
  gdtr.limit = 32 * 8 - 1;
  uc_reg_write(p.uc, UC_X86_REG_GDTR, &gdtr);
  p.set_reg(UC_X86_REG_DS, kUserDs);
  p.set_reg(UC_X86_REG_ES, kUserDs);
  p.set_reg(UC_X86_REG_SS, kKernelSs);

  // the initial stack: argc, argv, envp (empty), auxv; strings and AT_RANDOM's bytes above
  p.map(kStackTop - kStackSize, kStackSize, UC_PROT_READ | UC_PROT_WRITE, "[stack]");
  std::uint32_t sp = kStackTop;
  std::vector<std::uint32_t> argv_at(args.size());
  for (std::size_t k = args.size(); k-- > 0;) {
    sp -= static_cast<std::uint32_t>(args[k].size() + 1);
    p.write(sp, args[k].c_str(), args[k].size() + 1);
    argv_at[k] = sp;
  }
  sp -= 16;
  const std::uint32_t random_at = sp;
  std::uint8_t random[16];
  for (int k = 0; k < 16; ++k) random[k] = static_cast<std::uint8_t>(0x5a + k);  // fixed: deterministic runs
  p.write(random_at, random, 16);
  std::vector<std::uint32_t> words;
  words.push_back(static_cast<std::uint32_t>(args.size()));
  for (auto a : argv_at) words.push_back(a);
  words.push_back(0);  // end of argv
  words.push_back(0);  // end of envp
  const std::uint32_t auxv[][2] = {{3, phdr_addr}, {4, 32}, {5, phnum}, {6, kPage}, {9, entry}, {11, 0}, {12, 0},
                                   {13, 0}, {14, 0}, {23, 0}, {25, random_at}, {0, 0}};
  for (auto& av : auxv) words.push_back(av[0]), words.push_back(av[1]);
  sp = (sp - 4u * static_cast<std::uint32_t>(words.size())) & ~15u;
  p.write(sp, words.data(), 4 * words.size());
  p.set_reg(UC_X86_REG_ESP, sp);

  uc_hook hook;
  uc_hook_add(p.uc, &hook, UC_HOOK_INTR, reinterpret_cast<void*>(on_interrupt), &p, 1, 0);
  GuestThread main_thread;
  main_thread.tid = kPid;
  if (uc_context_alloc(p.uc, &main_thread.context) != UC_ERR_OK) {
    std::fprintf(stderr, "standin_run: cannot allocate a CPU context\n");
    return 4;
  }
  p.threads.push_back(main_thread);
  std::uint32_t pc = entry;
  uc_err err = UC_ERR_OK;
  for (;;) {
    err = uc_emu_start(p.uc, pc, 0, 0, 0);
    if (p.faulted || err != UC_ERR_OK || p.exited || p.pending == Switch::kNone) break;
    if (!p.reschedule()) {
      std::fprintf(stderr, "standin_run: %s\n", p.fault.c_str());
      return 3;
    }
    pc = p.reg(UC_X86_REG_EIP);
  }
  if (p.faulted) {
    std::fprintf(stderr, "standin_run: guest fault: %s\n", p.fault.c_str());
    return 3;
  }
  if (err != UC_ERR_OK) {
    std::fprintf(stderr, "standin_run: guest fault: %s at eip 0x%x (thread %u)\n", uc_strerror(err),
                 p.reg(UC_X86_REG_EIP), p.threads[p.current].tid);
    return 3;
  }
  if (!p.exited) {
    std::fprintf(stderr, "standin_run: the program stopped without exiting (eip 0x%x)\n", p.reg(UC_X86_REG_EIP));
    return 3;
  }
  if (p.snapshot_path && p.snapshots_taken == 0 && !p.quiet)
    std::fprintf(stderr, "standin_run: the program never stopped itself: no snapshot written\n");
  return p.exit_code;
}
