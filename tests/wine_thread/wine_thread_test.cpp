// The Wine-style test original (wine_thread.c): a thread per LDT selector, TEBs read through FS.
//
//  - Emulated (every host): the project's i386 runner runs it, snapshots it at its SIGSTOP with
//    every thread and the LDT, and `lockstep call` of each FS-reading function returns exactly what
//    the program printed as its own result; qemu-i386 prints the same results as the runner.
//  - Native i386 (a kernel that runs i386): the same through a live snapshot. Skipped, with the
//    reason, where the kernel cannot run i386.
//  - Live, many threads: 16 workers (half asleep in nanosleep, half spinning) and a main thread in
//    read(2) are snapshotted 50 times; every snapshot holds the 17 threads, the 17 LDT entries and
//    each thread's TEB as FS's base; no thread is left stopped or traced; the program's own checks
//    (every worker re-reads its TEB through FS all the time) find no failure. On the 64-bit build
//    of the same program here (allow_64bit); on the i386 build where the kernel runs it.
//  - A process that keeps creating threads, and one that exits, during snapshots: each snapshot
//    succeeds or fails with kIo (exit 4), never hangs.
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
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lockstep/base/io.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/live/live.hpp"
#include "lockstep/load/load.hpp"

extern char** environ;

namespace lockstep::harness {
namespace {

namespace fs = std::filesystem;

constexpr int kWorkers = 16;
constexpr std::uint16_t kFirstSelector = (7 << 3) | 7;  // 0x3f: LDT entry 7, RPL 3

std::uint32_t tls_value(int thread, int slot) { return 0x7150000u + static_cast<std::uint32_t>(thread) * 0x100u + static_cast<std::uint32_t>(slot); }

/// What the program printed: its functions, its TEBs and its own results.
struct Printed {
  std::map<std::string, std::uint32_t> fn;
  std::vector<std::uint32_t> teb;  ///< teb[k]: thread k's TEB (LDT entry 7 + k)
  struct Result {
    std::string name;
    std::uint32_t arg = 0, value = 0;
  };
  std::vector<Result> results;
  std::string summary;
  bool ready = false;

  void take(const std::string& line) {
    std::istringstream in(line);
    std::string kind, name;
    in >> kind;
    if (kind == "fn") {
      std::string a;
      in >> name >> a;
      fn[name] = static_cast<std::uint32_t>(std::stoul(a, nullptr, 16));
    } else if (kind == "teb") {
      std::size_t k;
      std::string a;
      in >> k >> a;
      if (teb.size() <= k) teb.resize(k + 1);
      teb[k] = static_cast<std::uint32_t>(std::stoul(a, nullptr, 16));
    } else if (kind == "result") {
      Result r;
      std::string v;
      in >> r.name >> r.arg >> v;
      r.value = static_cast<std::uint32_t>(std::stoul(v, nullptr, 16));
      results.push_back(r);
    } else if (kind == "summary") {
      summary = line;
    } else if (kind == "ready") {
      ready = true;
    }
  }
};

Printed parse(const std::string& text) {
  Printed p;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) p.take(l);
  return p;
}

/// A child process with stdin and stdout on pipes.
class Child {
 public:
  ~Child() { finish(); }

  /// Returns the errno of a failed spawn (ENOEXEC: the kernel cannot run it).
  int start(const std::vector<std::string>& argv) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) return errno;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = ::posix_spawnp(&pid_, argv[0].c_str(), &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    in_ = in[1];
    out_ = out[0];
    if (rc != 0) pid_ = -1;
    return rc;
  }

  /// Reads lines into `printed` until `until` holds or the output ends (false) or 60 s pass.
  template <class Pred>
  bool read_until(Printed& printed, Pred until) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!until(printed)) {
      if (auto nl = buf_.find('\n'); nl != std::string::npos) {
        text_ += buf_.substr(0, nl + 1);
        printed.take(buf_.substr(0, nl));
        buf_.erase(0, nl + 1);
        continue;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{out_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char tmp[4096];
      const ssize_t n = ::read(out_, tmp, sizeof tmp);
      if (n <= 0) return until(printed);
      buf_.append(tmp, static_cast<std::size_t>(n));
    }
    return true;
  }

  void close_stdin() {
    if (in_ >= 0) ::close(in_);
    in_ = -1;
  }

  /// Closes stdin, reads the rest, waits; the exit status (or -1).
  int finish() {
    if (pid_ <= 0) return -1;
    close_stdin();
    Printed ignore;
    read_until(ignore, [](const Printed&) { return false; });
    int st = 0;
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
    if (out_ >= 0) ::close(out_);
    out_ = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }

  int pid() const { return pid_; }
  const std::string& text() const { return text_; }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::string buf_, text_;
};

/// Runs a program to its end; its exit status and output.
std::pair<int, std::string> run(const std::vector<std::string>& argv) {
  Child c;
  if (int e = c.start(argv); e != 0) return {-e, ""};
  const int rc = c.finish();
  return {rc, c.text()};
}

bool on_path(const std::string& exe) {
  const char* path = std::getenv("PATH");
  std::istringstream in(path ? path : "");
  for (std::string d; std::getline(in, d, ':');)
    if (!d.empty() && ::access((fs::path(d) / exe).c_str(), X_OK) == 0) return true;
  return false;
}

/// Whether this kernel runs i386 programs (an ia32_emulation=0 kernel says ENOEXEC).
bool kernel_runs_i386() {
  Child c;
  if (c.start({WINE_THREAD32, "--print"}) != 0) return false;
  return c.finish() == 0;
}

fs::path work_dir(const std::string& name) {
  const fs::path d = fs::path(LOCKSTEP_BINARY_DIR) / "tests" / "wine_thread" / "tmp" / name;
  fs::create_directories(d);
  return d;
}

/// A profile naming the program's FS-reading functions (cdecl, as gcc -m32 compiles them).
fs::path write_profile(const fs::path& dir, const Printed& p) {
  std::string toml = "[profile]\nname = \"wine-thread\"\n";
  for (const auto& [name, addr] : p.fn)
    toml += fmt::format("[[function]]\naddress = 0x{:x}\nname = \"wine::{}\"\nconvention = \"cdecl\"\nargs = [{}]\nreturns = \"eax\"\n",
                        addr, name, name == "tls_slot" ? "\"slot:u32\"" : "");
  const fs::path f = dir / "wine_thread.toml";
  EXPECT_TRUE(write_file_atomic(f, toml).ok());
  return f;
}

/// `lockstep call` of one function on one snapshot thread; the eax it returned.
std::optional<std::uint32_t> lockstep_call(const fs::path& snap, const fs::path& profile, const std::string& fn,
                                           std::optional<std::uint32_t> arg, std::size_t thread = 0) {
  std::vector<std::string> args = {"call", snap.string(), "--profile", profile.string(), "--fn", "wine::" + fn,
                                   "--thread", std::to_string(thread)};
  if (arg) args.insert(args.end(), {"--arg", std::to_string(*arg)});
  std::ostringstream out, err;
  const int rc = cli::run(args, cli::Io{out, err}, /*bindings: these commands run no port*/ {});
  EXPECT_EQ(rc, 0) << fn << ": " << err.str() << out.str();
  const std::string text = out.str();
  const auto at = text.find("eax = 0x");
  if (rc != 0 || at == std::string::npos) return std::nullopt;
  return static_cast<std::uint32_t>(std::stoul(text.substr(at + 6, 10), nullptr, 16));
}

/// Every result the program printed, recomputed by `lockstep call` on thread 0 of the snapshot.
void expect_calls_match(const fs::path& snap, const fs::path& profile, const Printed& p) {
  ASSERT_GE(p.results.size(), 10u);
  for (const auto& r : p.results) {
    const bool takes_arg = r.name == "tls_slot";
    EXPECT_EQ(lockstep_call(snap, profile, r.name, takes_arg ? std::optional<std::uint32_t>(r.arg) : std::nullopt),
              r.value)
        << r.name << "(" << r.arg << ")";
  }
}

/// The snapshot holds the program's threads and LDT as the program set them up: one LDT entry per
/// thread at 7 + k based at TEB k, FS of every thread one of those selectors with that TEB as base,
/// the main thread (threads[0]) on the first.
void expect_threads_and_ldt(const Snapshot& s, const Printed& p, std::size_t threads) {
  ASSERT_EQ(p.teb.size(), static_cast<std::size_t>(kWorkers + 1));
  ASSERT_EQ(s.threads.size(), threads);
  for (int k = 0; k <= kWorkers; ++k) {
    const LdtEntry* e = s.find_ldt(static_cast<std::uint16_t>(7 + k));
    ASSERT_NE(e, nullptr) << "LDT entry " << 7 + k;
    EXPECT_EQ(e->base, p.teb[static_cast<std::size_t>(k)]);
    EXPECT_EQ(e->byte_limit(), 0x1fffu);
    EXPECT_EQ(e->access & 0xf6, 0xf2) << "present, DPL 3, read/write data";
  }
  EXPECT_EQ(s.threads[0].fs, kFirstSelector);
  EXPECT_EQ(s.threads[0].fs_base, p.teb[0]);
  std::set<std::uint16_t> selectors;
  for (const Thread& t : s.threads) {
    ASSERT_TRUE(t.fs & 4) << "thread " << t.tid << " fs 0x" << std::hex << t.fs;
    const std::size_t k = (t.fs >> 3) - 7u;
    ASSERT_LT(k, p.teb.size());
    EXPECT_EQ(t.fs_base, p.teb[k]) << "thread " << t.tid;
    selectors.insert(t.fs);
  }
  EXPECT_EQ(selectors.size(), static_cast<std::size_t>(kWorkers + 1)) << "every worker on its own TEB";
}

/// Every worker thread's own TEB through `lockstep call --thread`: Self and a TLS slot.
void expect_worker_calls(const fs::path& snap, const fs::path& profile, const Snapshot& s, const Printed& p) {
  for (std::size_t i = 1; i < s.threads.size(); i += 5) {
    const int k = (s.threads[i].fs >> 3) - 7;
    EXPECT_EQ(lockstep_call(snap, profile, "teb_self", std::nullopt, i), p.teb[static_cast<std::size_t>(k)]) << "thread " << i;
    EXPECT_EQ(lockstep_call(snap, profile, "tls_slot", 5, i), tls_value(k, 5)) << "thread " << i;
  }
}

/// The output with every "ldt E HIGH LOW" line's accessed bit (bit 8 of the high word) cleared.
std::string without_accessed_bits(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string l; std::getline(in, l);) {
    if (l.rfind("ldt ", 0) == 0) {
      std::istringstream f(l);
      std::string kind, e, hi, lo;
      f >> kind >> e >> hi >> lo;
      l = fmt::format("ldt {} 0x{:08x} {}", e, std::stoul(hi, nullptr, 16) & ~0x100ul, lo);
    }
    out += l + "\n";
  }
  return out;
}

TEST(WineThreadEmulated, RunnerPrintsWhatTheProgramPrintsNatively) {
  // The runner's system calls (modify_ldt writing and reading the table back included) against the
  // kernel's own, byte for byte.
  auto [rc, runner] = run({STANDIN_RUN_EXE, WINE_THREAD32, "--print"});
  ASSERT_EQ(rc, 0) << runner;
  const Printed p = parse(runner);
  EXPECT_GE(p.results.size(), 10u);
  EXPECT_NE(runner.find("ldt_read 256\nldt 7 0x"), std::string::npos) << runner;
  if (!kernel_runs_i386()) GTEST_SKIP() << "this kernel cannot run i386 programs (no IA-32 emulation)";
  auto [nrc, native] = run({WINE_THREAD32, "--print"});
  ASSERT_EQ(nrc, 0) << native;
  EXPECT_EQ(runner, native);
}

TEST(WineThreadEmulated, RunnerAndQemuPrintTheSameResults) {
  auto [rc, runner] = run({STANDIN_RUN_EXE, WINE_THREAD32, "--print"});
  ASSERT_EQ(rc, 0) << runner;
  if (!on_path("qemu-i386")) GTEST_SKIP() << "qemu-i386 is not installed (scripts/setup installs qemu-user)";
  auto [qrc, qemu] = run({"qemu-i386", WINE_THREAD32, "--print"});
  ASSERT_EQ(qrc, 0) << qemu;
  // QEMU's modify_ldt leaves a new entry's accessed bit clear where Linux (and the runner) set it;
  // everything else, the descriptors' other bits included, must be the same.
  EXPECT_EQ(without_accessed_bits(runner), without_accessed_bits(qemu));
  EXPECT_EQ(parse(runner).results.size(), parse(qemu).results.size());
}

TEST(WineThreadEmulated, ThreadsUnderQemuKeepTheirTebs) {
  if (!on_path("qemu-i386")) GTEST_SKIP() << "qemu-i386 is not installed (scripts/setup installs qemu-user)";
  Child c;
  ASSERT_EQ(c.start({"qemu-i386", WINE_THREAD32, "--wait"}), 0);
  Printed p;
  ASSERT_TRUE(c.read_until(p, [](const Printed& x) { return x.ready; })) << c.text();
  ::usleep(200000);
  EXPECT_EQ(c.finish(), 0) << c.text();
  EXPECT_NE(c.text().find("summary threads 16 "), std::string::npos) << c.text();
  EXPECT_NE(c.text().find(" failures 0\n"), std::string::npos) << c.text();
}

TEST(WineThreadEmulated, RunnerSnapshotCallsReturnTheNativeResults) {
  const fs::path dir = work_dir("emulated");
  const fs::path snap = dir / "wine_thread.lks";
  fs::remove(snap);
  auto [rc, text] = run({STANDIN_RUN_EXE, "--quiet", "--snapshot", snap.string(), WINE_THREAD32, "--stop-self"});
  ASSERT_EQ(rc, 0) << text;
  const Printed p = parse(text);
  EXPECT_NE(p.summary.find("summary threads 16 "), std::string::npos) << text;
  EXPECT_NE(p.summary.find(" failures 0"), std::string::npos) << text;
  auto s = load_snapshot(snap);
  ASSERT_TRUE(s.ok()) << s.error().message;
  expect_threads_and_ldt(*s, p, kWorkers + 1);
  const fs::path profile = write_profile(dir, p);
  expect_calls_match(snap, profile, p);
  expect_worker_calls(snap, profile, *s, p);
}

/// A live snapshot of a running `PROGRAM --wait`, saved to `snap`.
void snapshot_running(const std::string& program, const fs::path& snap, bool is64, Printed& p, Child& c) {
  ASSERT_EQ(c.start({program, "--wait"}), 0);
  ASSERT_TRUE(c.read_until(p, [](const Printed& x) { return x.ready; })) << c.text();
  LiveSnapshotOptions opt;
  opt.allow_64bit = is64;
  auto s = snapshot_live(c.pid(), opt);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_TRUE(save_snapshot(*s, snap).ok());
}

TEST(WineThreadNative, LiveSnapshotCallsReturnTheNativeResults) {
  if (!kernel_runs_i386())
    GTEST_SKIP() << "this kernel cannot run i386 programs (no IA-32 emulation); the runner test covers the "
                    "emulated path";
  const fs::path dir = work_dir("native");
  const fs::path snap = dir / "wine_thread.lks";
  Printed p;
  Child c;
  snapshot_running(WINE_THREAD32, snap, false, p, c);
  EXPECT_EQ(c.finish(), 0) << c.text();
  auto s = load_snapshot(snap);
  ASSERT_TRUE(s.ok()) << s.error().message;
  expect_threads_and_ldt(*s, p, kWorkers + 1);
  const fs::path profile = write_profile(dir, p);
  expect_calls_match(snap, profile, p);
  expect_worker_calls(snap, profile, *s, p);
}

TEST(WineThreadLive, WithoutTheLdtReadNothingRunsInsideAndTheNotesSaySo) {
  // read_ldt off (`lockstep snapshot --no-ldt`): no system call runs in the process, the snapshot has
  // no LDT, and each thread's LDT FS selector is noted as having no entry.
  const bool i386 = kernel_runs_i386();
  Child c;
  ASSERT_EQ(c.start({i386 ? WINE_THREAD32 : WINE_THREAD64, "--wait"}), 0);
  Printed p;
  ASSERT_TRUE(c.read_until(p, [](const Printed& x) { return x.ready; })) << c.text();
  LiveSnapshotOptions opt;
  opt.allow_64bit = !i386;
  opt.read_ldt = false;
  auto s = snapshot_live(c.pid(), opt);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(s->ldt.empty());
  ASSERT_EQ(s->threads.size(), static_cast<std::size_t>(kWorkers + 1));
  std::size_t noted = 0;
  for (const auto& n : s->meta.notes) noted += n.find("is an LDT selector without an LDT entry") != std::string::npos;
  EXPECT_EQ(noted, static_cast<std::size_t>(kWorkers + 1));
  if (i386) {
    for (const Thread& t : s->threads) EXPECT_EQ(t.fs_base, 0u) << "thread " << t.tid;
  }
  EXPECT_EQ(c.finish(), 0) << c.text();
}

TEST(WineThreadLive, UnderASeccompFilterNothingRunsInside) {
  // A filter could kill the process for a system call it does not expect: no LDT read, a note.
  const bool i386 = kernel_runs_i386();
  Child c;
  ASSERT_EQ(c.start({i386 ? WINE_THREAD32 : WINE_THREAD64, "--seccomp"}), 0);
  Printed p;
  ASSERT_TRUE(c.read_until(p, [](const Printed& x) { return x.ready; })) << c.text();
  LiveSnapshotOptions opt;
  opt.allow_64bit = !i386;
  auto s = snapshot_live(c.pid(), opt);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(s->ldt.empty());
  bool noted = false;
  for (const auto& n : s->meta.notes) noted |= n.find("seccomp filter") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(c.finish(), 0) << c.text();
  EXPECT_NE(c.text().find(" failures 0\n"), std::string::npos) << c.text();
}

std::string task_states(int pid) {
  std::string states;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path("/proc") / std::to_string(pid) / "task", ec)) {
    auto text = read_file(e.path() / "status", 1 << 16);
    if (!text.ok()) continue;
    const std::string t(text->begin(), text->end());
    const auto st = t.find("State:\t"), tr = t.find("TracerPid:\t");
    if (st != std::string::npos) states += t[st + 7];
    if (tr != std::string::npos && t.compare(tr + 11, 2, "0\n") != 0) states += '!';  // still traced
  }
  return states;
}

/// 50 snapshots of the running program; none may leave a thread stopped or traced, and the
/// program's own results must come out unchanged.
void many_snapshots(const std::string& program, bool is64) {
  Child c;
  ASSERT_EQ(c.start({program, "--wait"}), 0);
  Printed p;
  ASSERT_TRUE(c.read_until(p, [](const Printed& x) { return x.ready; })) << c.text();
  double stopped_total = 0, stopped_max = 0;
  std::uint64_t bytes = 0;
  for (int i = 0; i < 50; ++i) {
    LiveSnapshotTiming timing;
    LiveSnapshotOptions opt;
    opt.allow_64bit = is64;
    opt.hash_executable = false;
    opt.timing = &timing;
    auto s = snapshot_live(c.pid(), opt);
    ASSERT_TRUE(s.ok()) << "snapshot " << i << ": " << s.error().message;
    expect_threads_and_ldt(*s, p, kWorkers + 1);
    if (::testing::Test::HasFailure()) return;
    const std::string states = task_states(c.pid());
    EXPECT_EQ(states.find_first_of("t!"), std::string::npos) << "snapshot " << i << " left " << states;
    stopped_total += timing.stopped_seconds;
    stopped_max = std::max(stopped_max, timing.stopped_seconds);
    bytes = timing.bytes;
  }
  EXPECT_EQ(c.finish(), 0) << c.text();
  const Printed end = parse(c.text());
  EXPECT_NE(end.summary.find("summary threads 16 "), std::string::npos) << c.text();
  EXPECT_NE(end.summary.find(" failures 0"), std::string::npos) << c.text();
  // The results the main thread prints before and after are the same program's: unchanged.
  std::printf("  50 snapshots of %zu threads, %llu bytes: stopped %.2f ms on average, %.2f ms at most\n",
              static_cast<std::size_t>(kWorkers + 1), static_cast<unsigned long long>(bytes),
              stopped_total / 50 * 1e3, stopped_max * 1e3);
}

TEST(WineThreadLive, ManyThreadsSurviveRepeatedSnapshots64) {
  // The 64-bit build of the same program: the same LDT selectors in FS, the same threads.
  many_snapshots(WINE_THREAD64, true);
}

TEST(WineThreadLive, ManyThreadsSurviveRepeatedSnapshots32) {
  if (!kernel_runs_i386()) GTEST_SKIP() << "this kernel cannot run i386 programs (no IA-32 emulation)";
  many_snapshots(WINE_THREAD32, false);
}

/// The executable PT_LOAD segments of an ELF32 file, added where the snapshot has no region.
void add_code_segments(Snapshot& s, const std::string& exe) {
  auto file = read_file(exe, 16u << 20);
  ASSERT_TRUE(file.ok());
  const auto& f = *file;
  auto u32 = [&](std::size_t o) { std::uint32_t v; std::memcpy(&v, f.data() + o, 4); return v; };
  const std::uint32_t phoff = u32(28);
  const std::uint16_t phnum = static_cast<std::uint16_t>(f[44] | (f[45] << 8));
  for (std::uint16_t i = 0; i < phnum; ++i) {
    const std::size_t ph = phoff + 32u * i;
    if (u32(ph) != 1 || !(u32(ph + 24) & 1)) continue;  // PT_LOAD, executable
    const std::uint32_t off = u32(ph + 4), vaddr = u32(ph + 8), filesz = u32(ph + 16);
    if (s.find(vaddr)) continue;
    Region r{vaddr, std::vector<std::uint8_t>(f.begin() + off, f.begin() + off + filesz), kProtRead | kProtExec, exe};
    s.regions.push_back(std::move(r));
  }
  s.sort_regions();
}

TEST(WineThreadCore, TebBasesOfLdtSelectorsComeFromTheirSelfPointers) {
  // A core holds no LDT: the reader finds each thread's TEB as the one self-pointing page whose
  // stack range holds the thread's esp, and says so. The main thread's TEB describes a nominal stack
  // (its esp lies outside it), so its base stays unknown, with a note.
  if (!kernel_runs_i386()) GTEST_SKIP() << "this kernel cannot run i386 programs (no IA-32 emulation)";
  if (!on_path("gcore")) GTEST_SKIP() << "gdb's gcore is not installed";
  const fs::path dir = work_dir("core");
  Child c;
  ASSERT_EQ(c.start({WINE_THREAD32, "--wait"}), 0);
  Printed p;
  ASSERT_TRUE(c.read_until(p, [](const Printed& x) { return x.ready; })) << c.text();
  const fs::path core = dir / ("core." + std::to_string(c.pid()));
  fs::remove(core);
  auto [grc, glog] = run({"gcore", "-o", (dir / "core").string(), std::to_string(c.pid())});
  EXPECT_EQ(c.finish(), 0) << c.text();
  if (grc != 0 || !fs::exists(core)) GTEST_SKIP() << "gcore could not write a core here: " << glog;
  auto s = load_snapshot(core);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->threads.size(), static_cast<std::size_t>(kWorkers + 1));
  EXPECT_TRUE(s->ldt.empty());
  int found = 0;
  for (const Thread& t : s->threads) {
    ASSERT_TRUE(t.fs & 4);
    const std::size_t k = (t.fs >> 3) - 7u;
    ASSERT_LT(k, p.teb.size());
    if (k == 0) {
      EXPECT_EQ(t.fs_base, 0u);
    } else {
      EXPECT_EQ(t.fs_base, p.teb[k]) << "thread " << t.tid;
      ++found;
    }
  }
  EXPECT_EQ(found, kWorkers);
  bool heuristic = false, unknown = false;
  for (const auto& n : s->meta.notes) {
    heuristic |= n.find("(a heuristic)") != std::string::npos;
    unknown |= n.find("base left 0") != std::string::npos;
  }
  EXPECT_TRUE(heuristic && unknown);
  // A worker's TEB through `lockstep call` on the core. gcore leaves the unmodified code pages out
  // (and writes no NT_FILE to refill them from), so the program's code segment is laid back in from
  // its file first, as a user maps the original's image over a snapshot.
  add_code_segments(*s, WINE_THREAD32);
  const fs::path with_code = dir / "core.lks";
  ASSERT_TRUE(save_snapshot(*s, with_code).ok());
  const fs::path profile = write_profile(dir, p);
  const int k = (s->threads[1].fs >> 3) - 7;
  EXPECT_EQ(lockstep_call(with_code, profile, "teb_self", std::nullopt, 1), p.teb[static_cast<std::size_t>(k)]);
  EXPECT_EQ(lockstep_call(with_code, profile, "tls_slot", 9, 1), tls_value(k, 9));
  fs::remove(core);
}

TEST(WineThreadLive, ThreadsAppearingNeverHangASnapshot) {
  // A thread keeps creating short-lived threads: each snapshot either holds every thread or says
  // one appeared (kIo, exit 4); none hangs, and the program runs on unharmed.
  Child c;
  ASSERT_EQ(c.start({WINE_THREAD64, "--churn"}), 0);
  Printed p;
  ASSERT_TRUE(c.read_until(p, [](const Printed& x) { return x.ready; })) << c.text();
  int ok = 0;
  for (int i = 0; i < 20; ++i) {
    LiveSnapshotOptions opt;
    opt.allow_64bit = true;
    opt.hash_executable = false;
    auto s = snapshot_live(c.pid(), opt);
    if (s.ok()) {
      ++ok;
      EXPECT_GE(s->threads.size(), static_cast<std::size_t>(kWorkers + 2));
    } else {
      EXPECT_EQ(exit_code_for(s.error().code), kExitEnvironment) << s.error().message;
    }
    EXPECT_EQ(task_states(c.pid()).find_first_of("t!"), std::string::npos);
  }
  EXPECT_GT(ok, 0);
  EXPECT_EQ(c.finish(), 0) << c.text();
  EXPECT_NE(c.text().find(" failures 0\n"), std::string::npos) << c.text();
}

TEST(WineThreadLive, AProcessThatExitsNeverHangsASnapshot) {
  // Snapshots taken while the program starts its threads and exits (--print exits at once): each
  // succeeds, or finds no process (kNotFound) or loses it midway (kIo: exit 4). None hangs.
  for (int round = 0; round < 10; ++round) {
    Child c;
    ASSERT_EQ(c.start({WINE_THREAD64, "--print"}), 0);
    for (int i = 0; i < 5; ++i) {
      LiveSnapshotOptions opt;
      opt.allow_64bit = true;
      opt.hash_executable = false;
      auto s = snapshot_live(c.pid(), opt);
      if (!s.ok()) {
        EXPECT_TRUE(s.error().code == Errc::kIo || s.error().code == Errc::kNotFound) << s.error().message;
      }
    }
    EXPECT_EQ(c.finish(), 0);
  }
}

}  // namespace
}  // namespace lockstep::harness
