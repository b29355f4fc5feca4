// standin_run: runs the stand-in (a static, non-PIE i386 Linux program) under Unicorn, for hosts whose
// kernel does not execute 32-bit programs (ia32_emulation=off: "Exec format error").
//
//   standin_run [--snapshot FILE] [--quiet] STANDIN [ARGS...]
//
// It is a small Linux i386 user-mode emulator: it maps the ELF's PT_LOAD segments, builds the initial
// stack (argv, auxv), a GDT as a 64-bit kernel gives a 32-bit process (user code 0x23, data 0x2b, TLS
// entry 12 = 0x63), and emulates the few system calls a static glibc program makes (int 0x80: brk,
// set_thread_area, open/openat, write, close, uname, kill, exit_group, ...). The stand-in's own
// guest code runs unchanged, so its step log is the same as a native run's.
//
// The pause: when the program sends itself SIGSTOP (--pause-at), a native run stops and a live
// snapshot is taken from outside; here the runner itself writes the whole guest state, as
// `lockstep snapshot --pid` would, to --snapshot FILE (lockstep's snapshot format) and runs on.
//
// Exit status: the program's own, or 3 for a guest fault (an unmapped access, ud2), 2 for bad usage,
// 4 for an unreadable executable.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
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
#include "lockstep/harness/load.hpp"
#include "lockstep/harness/snapshot.hpp"

namespace {

using lockstep::harness::Snapshot;

constexpr std::uint32_t kPage = 0x1000;
constexpr std::uint32_t kStackTop = 0xfffdd000;       // where a 64-bit kernel puts a 32-bit stack
constexpr std::uint32_t kStackSize = 8u << 20;
constexpr std::uint32_t kGdtBase = 0xffffe000;        // emulator-only page, not in the snapshot
constexpr std::uint32_t kMmapBase = 0xf7000000;       // anonymous mmap2 grows up from here
constexpr std::uint32_t kPid = 4242;                  // the pid and tid the program sees
constexpr std::uint16_t kUserCs = 0x23, kUserDs = 0x2b, kTlsSelector = 0x63, kKernelSs = 0x30;
constexpr int kTlsEntry = 12;

std::uint32_t page_down(std::uint32_t a) { return a & ~(kPage - 1); }
std::uint64_t page_up(std::uint64_t a) { return (a + kPage - 1) & ~std::uint64_t{kPage - 1}; }

struct Mapping {
  std::uint32_t base = 0, size = 0;
  std::uint8_t prot = 0;  // lockstep Prot bits (= UC_PROT_*)
  std::string name;
  bool in_snapshot = true;
};

struct Process {
  uc_engine* uc = nullptr;
  std::vector<Mapping> maps;
  std::uint32_t brk_start = 0, brk_cur = 0, mmap_next = kMmapBase;
  std::uint32_t tls_base = 0;
  bool exited = false, faulted = false;
  int exit_code = 0;
  std::string exe;
  std::optional<std::filesystem::path> snapshot_path;
  int snapshots_taken = 0;
  bool quiet = false;
  std::string fault;

  ~Process() {
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
    lockstep::harness::Thread t;
    t.tid = kPid;
    t.eax = 0;  // kill() returns 0 once the process is continued
    t.ebx = reg(UC_X86_REG_EBX), t.ecx = reg(UC_X86_REG_ECX), t.edx = reg(UC_X86_REG_EDX);
    t.esi = reg(UC_X86_REG_ESI), t.edi = reg(UC_X86_REG_EDI), t.ebp = reg(UC_X86_REG_EBP);
    t.esp = reg(UC_X86_REG_ESP), t.eip = reg(UC_X86_REG_EIP), t.eflags = reg(UC_X86_REG_EFLAGS);
    t.cs = kUserCs, t.ds = kUserDs, t.es = kUserDs, t.ss = kUserDs, t.fs = 0, t.gs = kTlsSelector;
    t.fs_base = 0, t.gs_base = tls_base;
    t.x87.control = static_cast<std::uint16_t>(reg(UC_X86_REG_FPCW));
    t.x87.status = static_cast<std::uint16_t>(reg(UC_X86_REG_FPSW));
    // Unicorn keeps one "empty" flag per register; expand to the full tag word (valid or empty)
    std::uint32_t tags = reg(UC_X86_REG_FPTAG);
    t.x87.tag = static_cast<std::uint16_t>(tags);
    for (int i = 0; i < 8; ++i) {
      std::uint8_t f[16] = {};  // Unicorn 2.0.1 writes 8 bytes of mantissa, then the 2-byte exponent
      uc_reg_read(uc, UC_X86_REG_FP0 + i, f);
      std::memcpy(t.x87.st[static_cast<std::size_t>(i)].data(), f, 10);
    }
    t.x87.mxcsr = reg(UC_X86_REG_MXCSR);
    t.x87.valid = true;
    s.threads.push_back(t);
    s.meta.source = "standin_run pid " + std::to_string(kPid) + " (i386 emulated under Unicorn)";
    s.meta.format = "live";
    s.meta.created_unix = static_cast<std::int64_t>(std::time(nullptr));
    s.meta.exe_path = exe;
    if (auto bytes = lockstep::read_file(exe, 64u << 20); bytes.ok()) {
      auto digest = lockstep::sha256(*bytes);
      s.meta.exe_sha256 = lockstep::to_hex(digest);
    }
    s.meta.notes.push_back("taken by standin_run at the program's SIGSTOP (the kernel could not run i386)");
    return lockstep::harness::save_snapshot(s, *snapshot_path);
  }

  std::int32_t syscall();
};

// i386 system call numbers (arch/x86/entry/syscalls/syscall_32.tbl)
enum : std::uint32_t {
  kExit = 1, kRead = 3, kWrite = 4, kOpen = 5, kClose = 6, kGetpid = 20, kKill = 37, kBrk = 45, kIoctl = 54,
  kMunmap = 91, kUname = 122, kMprotect = 125, kLlseek = 140, kWritev = 146, kRtSigaction = 174,
  kRtSigprocmask = 175, kMmap2 = 192, kGettid = 224, kTkill = 238, kSetThreadArea = 243, kExitGroup = 252,
  kSetTidAddress = 258, kTgkill = 270, kOpenat = 295, kSetRobustList = 311,
};
constexpr int kSigStop = 19;

std::int32_t Process::syscall() {
  const std::uint32_t nr = reg(UC_X86_REG_EAX), a1 = reg(UC_X86_REG_EBX), a2 = reg(UC_X86_REG_ECX),
                      a3 = reg(UC_X86_REG_EDX), a4 = reg(UC_X86_REG_ESI), a5 = reg(UC_X86_REG_EDI);
  (void)a5;
  switch (nr) {
    case kExit:
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
    case kGetpid:
    case kGettid:
      return static_cast<std::int32_t>(kPid);
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
    case kSetThreadArea: {
      std::uint32_t desc[4];
      if (!read(a1, desc, sizeof desc)) return -EFAULT;
      if (desc[0] != 0xffffffffu && desc[0] != static_cast<std::uint32_t>(kTlsEntry)) return -EINVAL;
      desc[0] = kTlsEntry;
      tls_base = desc[1];
      const bool pages = (desc[3] >> 4) & 1;
      write_descriptor(kTlsEntry, desc[1], desc[2], false, 3, pages);
      return write(a1, desc, 4) ? 0 : -EFAULT;
    }
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
  uc_err err = uc_emu_start(p.uc, entry, 0, 0, 0);
  if (p.faulted) {
    std::fprintf(stderr, "standin_run: guest fault: %s\n", p.fault.c_str());
    return 3;
  }
  if (err != UC_ERR_OK) {
    std::fprintf(stderr, "standin_run: guest fault: %s at eip 0x%x\n", uc_strerror(err), p.reg(UC_X86_REG_EIP));
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
