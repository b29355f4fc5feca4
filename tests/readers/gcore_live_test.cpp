// A real ELF core: a 32-bit program (core_target/spin.c) is started, `gcore` dumps it, the live
// reader (live.hpp) snapshots the same process, and the two must agree on every byte of every region
// both hold, on the registers and x87 state, and on the GS base where both have it (gdb's gcore up to
// 13.1 writes no NT_386_TLS, so the core has no GS base: the test says so and compares it only when
// present). Skips with a message when the kernel cannot run 32-bit programs or gcore is absent.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <tuple>

#include "lockstep/readers/elf_core.hpp"
#include "lockstep/live/live.hpp"

namespace lockstep::harness {
namespace {

#if defined(LOCKSTEP_TEST_CORE_TARGET) && defined(LOCKSTEP_GCORE)

/// The spinning target; killed and reaped on scope exit.
struct Target {
  pid_t pid = -1;
  int out = -1;
  int exec_errno = 0;
  std::string ready_line;

  Target() {
    int out_pipe[2], err_pipe[2];
    if (pipe(out_pipe) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) return;
    pid = fork();
    if (pid == 0) {
      dup2(out_pipe[1], 1);
      close(out_pipe[0]);
      close(err_pipe[0]);
      execl(LOCKSTEP_TEST_CORE_TARGET, LOCKSTEP_TEST_CORE_TARGET, static_cast<char*>(nullptr));
      const int e = errno;  // tell the parent why exec failed (ENOEXEC: no 32-bit support)
      (void)!write(err_pipe[1], &e, sizeof e);
      _exit(127);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    out = out_pipe[0];
    if (read(err_pipe[0], &exec_errno, sizeof exec_errno) != sizeof exec_errno) exec_errno = 0;
    close(err_pipe[0]);
    if (exec_errno) return;
    pollfd p{out, POLLIN, 0};
    if (poll(&p, 1, 10000) == 1) {
      char buf[256] = {};
      const ssize_t n = read(out, buf, sizeof buf - 1);
      if (n > 0) ready_line.assign(buf, static_cast<std::size_t>(n));
    }
  }
  ~Target() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    if (out >= 0) close(out);
  }
};

TEST(GcoreVersusLive, SameProcessSameBytesAndRegisters) {
  Target t;
  ASSERT_GT(t.pid, 0) << "fork failed";
  if (t.exec_errno == ENOEXEC)
    GTEST_SKIP() << "this kernel cannot run 32-bit programs (exec of " << LOCKSTEP_TEST_CORE_TARGET
                 << " gave ENOEXEC: ia32 emulation is off), so there is no 32-bit process to gcore";
  ASSERT_EQ(t.exec_errno, 0) << std::strerror(t.exec_errno);
  ASSERT_EQ(t.ready_line.rfind("ready ", 0), 0u) << "target did not start: '" << t.ready_line << "'";
  unsigned long marker = 0, tls = 0;
  ASSERT_EQ(std::sscanf(t.ready_line.c_str(), "ready %lx %lx", &marker, &tls), 2) << t.ready_line;
  // Let it reach its `jmp .`: "ready" is printed before the program leaves fflush, and a process
  // still inside the write (or just after it) changes its stack and stdio buffer between gcore and the
  // live snapshot. On a loaded machine a fixed sleep is not enough, so wait until /proc/PID/syscall has
  // said "running" (in user code, no system call) for three looks in a row, at most 10 s.
  {
    const std::string syscall_file = "/proc/" + std::to_string(t.pid) + "/syscall";
    int running = 0;
    for (int i = 0; i < 200 && running < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      std::ifstream in(syscall_file);
      std::string word;
      in >> word;
      running = word == "running" ? running + 1 : 0;
    }
    ASSERT_EQ(running, 3) << "the target never settled in its spin loop (" << syscall_file << ")";
  }

  const auto dir = std::filesystem::temp_directory_path() / ("lockstep_gcore_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string prefix = (dir / "core").string();
  const std::string cmd = std::string(LOCKSTEP_GCORE) + " -o '" + prefix + "' " + std::to_string(t.pid) +
                          " >'" + (dir / "gcore.log").string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::filesystem::path core_path = prefix + "." + std::to_string(t.pid);
  ASSERT_EQ(rc, 0) << "gcore failed (see " << (dir / "gcore.log").string() << ")";
  ASSERT_TRUE(std::filesystem::exists(core_path));

  auto live = snapshot_live(t.pid);
  ASSERT_TRUE(live.ok()) << live.error().message;
  auto core = load_elf_core(core_path);
  ASSERT_TRUE(core.ok()) << core.error().message;
  std::filesystem::remove_all(dir);
  const Snapshot& c = core->snapshot;
  const Snapshot& l = *live;

  // Registers: the one thread, as both readers saw it.
  ASSERT_EQ(c.threads.size(), 1u);
  ASSERT_EQ(l.threads.size(), 1u);
  const Thread& ct = c.threads[0];
  const Thread& lt = l.threads[0];
  EXPECT_EQ(ct.tid, lt.tid);
  EXPECT_EQ(ct.eax, 0x11111111u);
  EXPECT_EQ(ct.edi, 0x66666666u);
  for (auto [name, a, b] : {std::tuple{"eax", ct.eax, lt.eax}, {"ebx", ct.ebx, lt.ebx}, {"ecx", ct.ecx, lt.ecx},
                            {"edx", ct.edx, lt.edx}, {"esi", ct.esi, lt.esi}, {"edi", ct.edi, lt.edi},
                            {"ebp", ct.ebp, lt.ebp}, {"esp", ct.esp, lt.esp}, {"eip", ct.eip, lt.eip},
                            {"eflags", ct.eflags, lt.eflags}})
    EXPECT_EQ(a, b) << name;
  EXPECT_EQ(ct.cs, lt.cs);
  EXPECT_EQ(ct.ds, lt.ds);
  EXPECT_EQ(ct.es, lt.es);
  EXPECT_EQ(ct.fs, lt.fs);
  EXPECT_EQ(ct.gs, lt.gs);
  EXPECT_EQ(ct.ss, lt.ss);
  EXPECT_EQ(ct.x87.control, 0x027f);
  EXPECT_EQ(ct.x87.control, lt.x87.control);
  EXPECT_EQ(ct.x87.status, lt.x87.status);
  EXPECT_EQ(ct.x87.tag, lt.x87.tag);
  EXPECT_EQ(ct.x87.st, lt.x87.st);
  EXPECT_EQ(ct.x87.mxcsr, lt.x87.mxcsr);
  if (core->has_tls_notes) {
    EXPECT_EQ(ct.gs_base, lt.gs_base);
  } else {
    std::printf("gcore wrote no NT_386_TLS: GS base compared only in the live snapshot (0x%08x)\n", lt.gs_base);
    EXPECT_NE(lt.gs_base, 0u);
  }

  // Memory: every byte both hold.
  std::uint64_t compared = 0, differing = 0;
  for (const Region& cr : c.regions) {
    for (const Region& lr : l.regions) {
      const std::uint64_t lo = std::max<std::uint64_t>(cr.base, lr.base), hi = std::min(cr.end(), lr.end());
      for (std::uint64_t a = lo; a < hi; ++a) {
        ++compared;
        if (cr.bytes[a - cr.base] != lr.bytes[a - lr.base] && differing++ < 10)
          ADD_FAILURE() << "byte 0x" << std::hex << a << " differs: core " << int{cr.bytes[a - cr.base]} << " (" << cr.name
                        << "), live " << int{lr.bytes[a - lr.base]} << " (" << lr.name << ")";
      }
    }
  }
  std::printf("compared %llu bytes core vs live, %llu differ; core %zu regions (%llu bytes), live %zu regions (%llu bytes)\n",
              static_cast<unsigned long long>(compared), static_cast<unsigned long long>(differing), c.regions.size(),
              static_cast<unsigned long long>(c.total_bytes()), l.regions.size(),
              static_cast<unsigned long long>(l.total_bytes()));
  EXPECT_EQ(differing, 0u);
  EXPECT_GT(compared, 8192u);
  // The marker array is in both, with the program's pattern.
  auto m = c.read(static_cast<GuestAddr>(marker), 8192);
  ASSERT_TRUE(m.ok()) << m.error().message;
  for (unsigned i = 0; i < 8192; ++i) ASSERT_EQ((*m)[i], static_cast<std::uint8_t>(i * 13 + 5)) << i;
  auto w = c.read(static_cast<GuestAddr>(tls), 4);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ((*w)[0] | ((*w)[1] << 8), 0x5151);
}

#else

TEST(GcoreVersusLive, SameProcessSameBytesAndRegisters) {
  GTEST_SKIP() << "gcore or a 32-bit C compiler was not found at configure time";
}

#endif

}  // namespace
}  // namespace lockstep::harness
