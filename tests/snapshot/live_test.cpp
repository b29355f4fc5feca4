// Live snapshots of a real running program (tests/snapshot/demo_target32.c): the snapshot holds the
// bytes the program wrote at the addresses it printed, the TLS base points at its TLS block, the x87
// state is the one it set (control word 0x027f, ST(0) = 1.0, ST(1) = pi), and the program runs on
// unharmed afterwards (answers SIGUSR1, no tracer left, exits cleanly on SIGTERM).
//
// The 32-bit build is the real test. Hosts whose kernel cannot run 32-bit programs (a PVM guest,
// ia32_emulation=0) skip it, and the same checks run on the 64-bit build of the same source through
// LiveSnapshotOptions::allow_64bit (its stack is above 4 GiB, so that check becomes "skipped and noted").
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "lockstep/base/io.hpp"
#include "lockstep/live/live.hpp"
#include "lockstep/load/load.hpp"

extern char** environ;

namespace lockstep::harness {
namespace {

namespace fs = std::filesystem;

/// A running demo_target process with its stdout on a pipe.
class Target {
 public:
  ~Target() { stop(); }

  /// Starts `path --wait`; returns the errno of a failed spawn (ENOEXEC: the kernel cannot run it).
  int start(const std::string& path) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return errno;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    const char* argv[] = {path.c_str(), "--wait", nullptr};
    const int rc = ::posix_spawn(&pid_, path.c_str(), &fa, nullptr, const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(fds[1]);
    out_ = fds[0];
    if (rc != 0) pid_ = -1;
    return rc;
  }

  /// The next output line, or nullopt after `timeout_ms`.
  std::optional<std::string> line(int timeout_ms = 10000) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      if (auto nl = buf_.find('\n'); nl != std::string::npos) {
        std::string l = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return l;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{out_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char tmp[256];
      const ssize_t n = ::read(out_, tmp, sizeof tmp);
      if (n <= 0) return std::nullopt;
      buf_.append(tmp, static_cast<std::size_t>(n));
    }
  }

  /// Reads "name 0xADDR" lines up to "ready".
  bool read_addresses() {
    while (auto l = line()) {
      if (*l == "ready") return true;
      const auto sp = l->find(' ');
      if (sp == std::string::npos) return false;
      addr[l->substr(0, sp)] = std::stoull(l->substr(sp + 1), nullptr, 16);
    }
    return false;
  }

  int stop() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    int st = 0;
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
    if (out_ >= 0) ::close(out_);
    out_ = -1;
    return st;
  }

  int pid() const { return pid_; }
  std::map<std::string, std::uint64_t> addr;

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string buf_;
};

std::string proc_status_field(int pid, const std::string& field) {
  std::string text;
  if (FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/status").c_str(), "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, field.c_str(), field.size()) == 0 && line[field.size()] == ':') text = line + field.size() + 1;
    std::fclose(f);
  }
  while (!text.empty() && (text.front() == '\t' || text.front() == ' ')) text.erase(0, 1);
  while (!text.empty() && (text.back() == '\n')) text.pop_back();
  return text;
}

/// The process is running normally again: no tracer, not stopped, answers a signal.
void expect_unharmed(Target& t, int pings_so_far) {
  EXPECT_EQ(proc_status_field(t.pid(), "TracerPid"), "0");
  ASSERT_EQ(::kill(t.pid(), SIGUSR1), 0);
  auto l = t.line(10000);
  ASSERT_TRUE(l.has_value()) << "the target did not answer SIGUSR1 after the snapshot";
  EXPECT_EQ(*l, "alive " + std::to_string(pings_so_far + 1));
  EXPECT_NE(proc_status_field(t.pid(), "State").substr(0, 1), "t");
}

std::vector<std::uint8_t> bytes_of(const Snapshot& s, std::uint64_t a, std::uint32_t n) {
  auto r = s.read(static_cast<GuestAddr>(a), n);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : std::vector<std::uint8_t>{};
}

// 1.0 and pi as 80-bit extended values (Intel SDM vol. 1 §4.2.2: 64-bit significand with explicit
// integer bit, 15-bit exponent biased by 16383): pi = 0xC90FDAA22168C235 (rounded) × 2^(1-63).
constexpr std::array<std::uint8_t, 10> kOne = {0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f};
constexpr std::array<std::uint8_t, 10> kPi = {0x35, 0xc2, 0x68, 0x21, 0xa2, 0xda, 0x0f, 0xc9, 0x00, 0x40};

/// The checks shared by the 32- and 64-bit builds.
void check_snapshot_of_target(Target& t, const std::string& exe, bool is64) {
  for (const char* k : {"global", "heap", "stack", "tls", "tp"}) ASSERT_TRUE(t.addr.count(k)) << k;
  LiveSnapshotOptions opt;
  opt.allow_64bit = is64;
  auto snap = snapshot_live(t.pid(), opt);
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  const Snapshot& s = *snap;
  EXPECT_TRUE(s.validate().ok());

  // Memory: the bytes the program wrote, at the addresses it printed.
  const std::string global = "lockstep-global!";
  EXPECT_EQ(bytes_of(s, t.addr["global"], 16), std::vector<std::uint8_t>(global.begin(), global.end()));
  std::vector<std::uint8_t> heap(64), stack(32);
  for (int i = 0; i < 64; ++i) heap[i] = static_cast<std::uint8_t>(0xa5 ^ i);
  for (int i = 0; i < 32; ++i) stack[i] = static_cast<std::uint8_t>(0x5a ^ i);
  EXPECT_EQ(bytes_of(s, t.addr["heap"], 64), heap);
  EXPECT_EQ(bytes_of(s, t.addr["tls"], 4), (std::vector<std::uint8_t>{0x42, 0xee, 0xff, 0xc0}));
  const Region* gr = s.find(static_cast<GuestAddr>(t.addr["global"]));
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(gr->prot, kProtRead | kProtWrite);
  if (!is64) {
    EXPECT_EQ(bytes_of(s, t.addr["stack"], 32), stack);
    const Region* sr = s.find(static_cast<GuestAddr>(t.addr["stack"]));
    ASSERT_NE(sr, nullptr);
    EXPECT_EQ(sr->name, "[stack]");
  } else {
    ASSERT_GE(t.addr["stack"], std::uint64_t{1} << 32);
    bool noted = false;
    for (const auto& n : s.meta.notes) noted |= n.find("[stack]: above 4 GiB: skipped") != std::string::npos;
    EXPECT_TRUE(noted) << "the 64-bit stack above 4 GiB is not listed as skipped";
  }

  // The thread: TLS base = the thread pointer the program read from its own segment, which holds
  // glibc's TCB self pointer; the __thread variable sits just below it (TLS variant II).
  ASSERT_EQ(s.threads.size(), 1u);
  const Thread& th = s.threads[0];
  EXPECT_EQ(th.tid, static_cast<std::uint32_t>(t.pid()));
  const std::uint32_t tls_base = is64 ? th.fs_base : th.gs_base;
  EXPECT_EQ(tls_base, t.addr["tp"]);
  if (!is64) {
    EXPECT_NE(th.gs, 0) << "a 32-bit Linux thread reaches its TLS through gs";
    EXPECT_EQ(th.cs, 0x23) << "the 32-bit user code segment on an x86-64 kernel";
  }
  auto self = s.read(tls_base, 4);
  ASSERT_TRUE(self.ok()) << self.error().message;
  std::uint32_t self_ptr;
  std::memcpy(&self_ptr, self->data(), 4);
  EXPECT_EQ(self_ptr, tls_base);
  EXPECT_LT(t.addr["tls"], tls_base);
  EXPECT_GE(t.addr["tls"] + 4096, tls_base);

  // x87: the state the program left (fninit; fldcw 0x027f; fldpi; fld1).
  EXPECT_TRUE(th.x87_valid);
  EXPECT_EQ(th.x87.control, 0x027f);
  EXPECT_EQ((th.x87.status >> 11) & 7, 6) << "two values pushed: TOP = 6";
  EXPECT_EQ(th.x87.tag, 0x0fff) << "physical registers 6 and 7 valid, the rest empty";
  EXPECT_EQ(th.x87.st[0], kOne);
  EXPECT_EQ(th.x87.st[1], kPi);
  EXPECT_EQ(th.x87.mxcsr, 0x1f80u);

  // Metadata.
  EXPECT_EQ(s.meta.format, "live");
  EXPECT_EQ(s.meta.source, "live pid " + std::to_string(t.pid()));
  EXPECT_EQ(fs::path(s.meta.exe_path), fs::canonical(exe));
  auto exe_bytes = read_file(exe);
  ASSERT_TRUE(exe_bytes.ok());
  EXPECT_EQ(s.meta.exe_sha256, to_hex(sha256(*exe_bytes)));
  EXPECT_GT(s.meta.created_unix, 1600000000);
  bool exe_module = false;
  for (const auto& m : s.meta.modules) exe_module |= fs::path(m.name) == fs::canonical(exe) && m.base <= t.addr["global"];
  EXPECT_TRUE(exe_module);

  // It runs on.
  expect_unharmed(t, 0);

  // And the snapshot survives the file.
  const fs::path p = fs::path(LOCKSTEP_BINARY_DIR) / "tests" / "snapshot" / (is64 ? "live64.lks" : "live32.lks");
  ASSERT_TRUE(save_snapshot(s, p).ok());
  auto back = load_snapshot(p);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, s);
}

TEST(LiveSnapshot, Static32BitProgram) {
  Target t;
  const int rc = t.start(LOCKSTEP_DEMO_TARGET32);
  if (rc == ENOEXEC)
    GTEST_SKIP() << "this kernel cannot run 32-bit programs (exec gives ENOEXEC: no IA-32 emulation, e.g. a PVM "
                    "guest); the 64-bit build of the same checks runs instead";
  ASSERT_EQ(rc, 0) << std::strerror(rc);
  ASSERT_TRUE(t.read_addresses());
  check_snapshot_of_target(t, LOCKSTEP_DEMO_TARGET32, false);
  const int st = t.stop();
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
}

TEST(LiveSnapshot, Static64BitProgramWithAllow64bit) {
  Target t;
  ASSERT_EQ(t.start(LOCKSTEP_DEMO_TARGET64), 0);
  ASSERT_TRUE(t.read_addresses());
  check_snapshot_of_target(t, LOCKSTEP_DEMO_TARGET64, true);
  const int st = t.stop();
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
}

TEST(LiveSnapshot, RefusedProcessIsReleasedUnharmed) {
  // Without allow_64bit a 64-bit process is refused after its threads were stopped: the error path
  // must resume them too.
  Target t;
  ASSERT_EQ(t.start(LOCKSTEP_DEMO_TARGET64), 0);
  ASSERT_TRUE(t.read_addresses());
  auto snap = snapshot_live(t.pid());
  ASSERT_FALSE(snap.ok());
  EXPECT_EQ(snap.error().code, Errc::kUnsupported);
  EXPECT_NE(snap.error().message.find("64-bit"), std::string::npos) << snap.error().message;
  expect_unharmed(t, 0);
  // Twice in a row is fine too (nothing was left attached).
  EXPECT_FALSE(snapshot_live(t.pid()).ok());
  expect_unharmed(t, 1);
}

TEST(LiveSnapshot, NoSuchProcess) {
  auto snap = snapshot_live(2147483000);
  ASSERT_FALSE(snap.ok());
  EXPECT_EQ(snap.error().code, Errc::kNotFound);
  auto self = snapshot_live(static_cast<int>(::getpid()));
  ASSERT_FALSE(self.ok());
  EXPECT_EQ(self.error().code, Errc::kUsage);
}

TEST(LiveSnapshot, PtraceDeniedIsAPermissionError) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: drops to an unprivileged user to be refused";
  Target t;
  ASSERT_EQ(t.start(LOCKSTEP_DEMO_TARGET64), 0);
  ASSERT_TRUE(t.read_addresses());
  // A child that is not root (and not the target's user) tries; it reports the Errc in its exit code.
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(100);
    LiveSnapshotOptions opt;
    opt.allow_64bit = true;
    auto snap = snapshot_live(t.pid(), opt);
    if (snap.ok()) ::_exit(101);
    ::_exit(snap.error().code == Errc::kPermission && snap.error().message.find("ptrace_scope") != std::string::npos
                ? 0
                : 102);
  }
  int st = 0;
  ASSERT_EQ(::waitpid(child, &st, 0), child);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0) << "100: could not drop privileges, 101: not refused, 102: wrong error";
  expect_unharmed(t, 0);
}

TEST(ProcMaps, ParsesEveryKindOfLine) {
  const char* text =
      "08048000-080e9000 r-xp 00000000 fd:01 1234   /opt/demo target (deleted)\n"
      "080e9000-080eb000 rw-p 000a0000 fd:01 1234   /opt/demo target (deleted)\n"
      "09a5c000-09a7e000 rw-p 00000000 00:00 0      [heap]\n"
      "f7fc6000-f7fca000 r--p 00000000 00:00 0      [vvar]\n"
      "f7ff0000-f7ff1000 ---p 00000000 00:00 0 \n"
      "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";
  auto maps = parse_proc_maps(text);
  ASSERT_TRUE(maps.ok()) << maps.error().message;
  ASSERT_EQ(maps->size(), 6u);
  EXPECT_EQ((*maps)[0].start, 0x08048000u);
  EXPECT_EQ((*maps)[0].end, 0x080e9000u);
  EXPECT_TRUE((*maps)[0].read && (*maps)[0].exec && !(*maps)[0].write && !(*maps)[0].shared);
  EXPECT_EQ((*maps)[0].path, "/opt/demo target (deleted)");
  EXPECT_EQ((*maps)[1].offset, 0xa0000u);
  EXPECT_EQ((*maps)[1].inode, 1234u);
  EXPECT_EQ((*maps)[2].path, "[heap]");
  EXPECT_EQ((*maps)[4].path, "");
  EXPECT_FALSE((*maps)[4].read);
  EXPECT_EQ((*maps)[5].start, 0xffffffffff600000u);
  EXPECT_EQ((*maps)[5].path, "[vsyscall]");

  auto bad = parse_proc_maps("08048000-080e9000 r-xp 00000000 fd:01 1234 /a\nnot a maps line\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::kMalformed);
  EXPECT_NE(bad.error().message.find("line 2"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace lockstep::harness
