// `lockstep record` on a real program (tests/snapshot/record_target.c) that writes its own state log
// at the same points: the recorder's log must hold the same records (tag, step, racer, every block's
// address and bytes), whether it started the program or attached to it; new threads are followed; the
// snapshot it takes is the state of its step's first record, with the program's own code bytes; the
// program runs on untraced afterwards; and the faults (a crash, an early exit, a point that is not
// code, an unreadable block, a point never hit, SIGINT, ptrace refused) end as capture/docs/record.md
// says.
//
// The 32-bit build is the real program; where the kernel cannot run it, those tests skip and the same
// checks run on the 64-bit build (`--allow-64bit`). The two builds differ only where the profile reads
// a pointer (its size) and the PHYS point's argument (the stack at esp+4, or rdi).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "lockstep/base/result.hpp"
#include "lockstep/capture/state_log.hpp"
#include "lockstep/cli/cli.hpp"
#include "lockstep/load/load.hpp"

extern char** environ;

namespace lockstep::cli {
namespace {

namespace fs = std::filesystem;
using capture::Record;
using capture::RecordKind;

struct CliRun {
  int code;
  std::string out, err;
};

CliRun run_cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = run(args, Io{out, err}, {});
  return {code, out.str(), err.str()};
}

fs::path dir(const std::string& name) {
  fs::path d = fs::path(LOCKSTEP_BINARY_DIR) / "tests" / "snapshot" / "record" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// What `record_target --addresses` prints; empty when the kernel cannot run that build.
std::map<std::string, std::string> target_addresses(const std::string& exe) {
  std::map<std::string, std::string> out;
  FILE* p = ::popen((exe + " --addresses 2>/dev/null").c_str(), "r");
  if (!p) return out;
  char line[256];
  while (std::fgets(line, sizeof line, p)) {
    std::string l(line);
    if (!l.empty() && l.back() == '\n') l.pop_back();
    if (auto sp = l.find(' '); sp != std::string::npos) out[l.substr(0, sp)] = l.substr(sp + 1);
  }
  ::pclose(p);
  return out;
}

/// One build of the target and the profile of its recording points.
struct Target {
  std::string exe;
  bool is64 = false;
  std::map<std::string, std::string> a;

  /// The profile: STEP at sim_step's entry, CTRL at controller's return (the racer from a global),
  /// PHYS at log_phys's entry (the racer from the car pointer in its argument). `step_blocks`
  /// replaces the STEP record's blocks; `extra` (another [[record]]) replaces the CTRL and PHYS
  /// points (a thread has four debug registers, and CTRL's return takes two of them).
  std::string profile(const std::string& step_blocks = "[\"frame\", \"car\"]", const std::string& extra = "") const {
    const std::string ptr = is64 ? "u64" : "u32";
    const std::string arg = is64 ? "rdi" : "u32(esp+4)";
    const std::string car_blocks = "[\"car[instance]\", \"frame\", { at = \"" + ptr + "(car[instance]+" + a.at("trail_offset") +
                                   ")\", size = \"i32(car[instance]+24)*4\" }]";
    std::ostringstream t;
    t << "[profile]\nname = \"record-target\"\n\n"
      << "[[function]]\naddress = " << a.at("sim_step") << "\nname = \"sim_step\"\nconvention = \"cdecl\"\nreturns = \"none\"\n\n"
      << "[[function]]\naddress = " << a.at("controller")
      << "\nname = \"controller\"\nconvention = \"cdecl\"\nargs = [\"car:ptr\"]\nreturns = \"none\"\n\n"
      << "[[struct]]\nname = \"car\"\nsize = " << a.at("car_size") << "\n\n"
      << "[[instance]]\nname = \"car\"\nstruct = \"car\"\nbase = " << a.at("cars") << "\ncount = 4\n\n"
      << "[[label]]\nname = \"frame\"\naddress = " << a.at("frame") << "\nsize = 16\n\n"
      << "[[label]]\nname = \"current\"\naddress = " << a.at("current") << "\nsize = 4\n\n"
      << "[[record]]\ntag = \"STEP\"\nat = \"sim_step\"\nstep = \"i32(frame)\"\nblocks = " << step_blocks << "\n\n"
      << (extra.empty() ? "[[record]]\ntag = \"CTRL\"\nat = \"controller\"\npoint = \"return\"\ninstance = \"i32(current)\"\n"
                          "step = \"i32(frame)\"\nblocks = " + car_blocks + "\n\n" +
                          "[[record]]\ntag = \"PHYS\"\nat = " + a.at("log_phys") + "\ninstance = \"index(" + arg + ", car)\"\n" +
                          "step = \"i32(frame)\"\nblocks = " + car_blocks + "\n\n"
                        : "")
      << extra;
    return t.str();
  }
  std::vector<std::string> width_flag() const { return is64 ? std::vector<std::string>{"--allow-64bit"} : std::vector<std::string>{}; }
};

std::optional<Target> target(int width) {
  Target t;
  t.exe = width == 64 ? LOCKSTEP_RECORD_TARGET64 : LOCKSTEP_RECORD_TARGET32;
  t.is64 = width == 64;
  t.a = target_addresses(t.exe);
  if (t.a.empty()) return std::nullopt;
  return t;
}

fs::path write_profile(const fs::path& d, const std::string& text) {
  const fs::path p = d / "target.toml";
  std::ofstream(p) << text;
  return p;
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// The record_target process a test attaches to, its stdout on a pipe.
class Running {
 public:
  ~Running() { stop(); }
  bool start(const std::vector<std::string>& argv) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    std::vector<char*> args;
    for (const auto& s : argv) args.push_back(const_cast<char*>(s.c_str()));
    args.push_back(nullptr);
    const int rc = ::posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(fds[1]);
    out_ = fds[0];
    if (rc != 0) return pid_ = -1, false;
    pollfd p{out_, POLLIN, 0};
    char buf[16] = {};
    return ::poll(&p, 1, 10000) == 1 && ::read(out_, buf, sizeof buf) > 0 && std::string(buf).starts_with("ready");
  }
  /// SIGTERM and the exit status.
  int stop() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    int st = 0;
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
    ::close(out_);
    return st;
  }
  int pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
};

std::string tracer_pid(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  for (std::string l; std::getline(f, l);)
    if (l.starts_with("TracerPid:")) return l.substr(l.find_first_not_of(" \t", 10));
  return "";
}

/// Running, untraced, and no thread stopped.
void expect_unharmed(int pid) {
  EXPECT_EQ(::kill(pid, 0), 0) << "the program is gone";
  EXPECT_EQ(tracer_pid(pid), "0");
}

capture::StateLog read_log(const fs::path& p) {
  auto log = capture::read_state_log(p);
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message);
  return log.ok() ? *log : capture::StateLog{};
}

std::tuple<RecordKind, std::uint32_t, std::int32_t> key(const Record& r) { return {r.kind, r.step, r.instance}; }

class Record32And64 : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    t_ = target(GetParam());
    if (!t_) GTEST_SKIP() << "this kernel cannot execute " << GetParam() << "-bit programs (" << (GetParam() == 64 ? LOCKSTEP_RECORD_TARGET64 : LOCKSTEP_RECORD_TARGET32) << ")";
  }
  std::optional<Target> t_;
};

TEST_P(Record32And64, StartedProgramLogsTheSameRecordsAsItself) {
  const fs::path d = dir("started" + std::to_string(GetParam()));
  const fs::path profile = write_profile(d, t_->profile());
  auto r = run_cli(concat(concat({"record", "--profile", profile.string(), "-o", (d / "rec.log").string()}, t_->width_flag()),
                          {"--", t_->exe, (d / "own.log").string(), "40", "--threads", "3"}));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("(5 threads)"), std::string::npos) << r.out;  // main, 3 idle, the race: all made after the start
  const auto own = read_log(d / "own.log"), rec = read_log(d / "rec.log");
  ASSERT_EQ(own.records.size(), 40u * 9);  // a STEP record and four CTRL/PHYS pairs a step
  ASSERT_EQ(rec.records.size(), own.records.size());
  for (std::size_t i = 0; i < own.records.size(); ++i) ASSERT_EQ(rec.records[i], own.records[i]) << "record " << i;
  EXPECT_EQ(rec.header.producer, "lockstep-record");
}

TEST_P(Record32And64, AttachedRecordingHoldsWholeStepsAndTheSnapshotItsFirstState) {
  const fs::path d = dir("attached" + std::to_string(GetParam()));
  Running p;
  ASSERT_TRUE(p.start({t_->exe, (d / "own.log").string(), "0", "--step-us", "300", "--threads", "2", "--ready"}));
  const fs::path profile = write_profile(d, t_->profile());
  auto r = run_cli(concat({"record", "--profile", profile.string(), "-o", (d / "rec.log").string(), "--pid",
                           std::to_string(p.pid()), "--steps", "12", "--snapshot-at", "0", "--snapshot",
                           (d / "snap.lks").string()},
                          t_->width_flag()));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  expect_unharmed(p.pid());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const int st = p.stop();
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;

  const auto rec = read_log(d / "rec.log"), own = read_log(d / "own.log");
  ASSERT_EQ(rec.records.size(), 12u * 9) << r.out;  // whole steps only: the one attached inside is left out
  // The recorder writes the current layout; the program writes version 1 itself: the same records.
  EXPECT_EQ(rec.header.version, 2u);
  EXPECT_EQ(own.header.version, 1u);
  const std::uint32_t first = rec.records.front().step;
  EXPECT_EQ(rec.records.front().kind, RecordKind::kStep);
  EXPECT_EQ(rec.records.back().step, first + 11);
  std::map<std::tuple<RecordKind, std::uint32_t, std::int32_t>, const Record*> by_key;
  for (const Record& o : own.records) by_key[key(o)] = &o;
  for (const Record& x : rec.records) {
    auto it = by_key.find(key(x));
    ASSERT_NE(it, by_key.end()) << "step " << x.step << " instance " << x.instance << " not in the program's own log";
    EXPECT_EQ(x, *it->second) << "step " << x.step << " instance " << x.instance;
  }

  auto snap = harness::load_snapshot(d / "snap.lks");
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  EXPECT_EQ(snap->threads.size(), 4u);  // main, two idle threads, the race
  const std::string code = t_->a.at("code");
  auto bytes = snap->read(static_cast<std::uint32_t>(std::stoul(t_->a.at("sim_step"), nullptr, 16)), 16);
  ASSERT_TRUE(bytes.ok());
  std::string hex;
  for (std::uint8_t b : *bytes) hex += fmt::format("{:02x}", b);
  EXPECT_EQ(hex, code) << "the snapshot's code at sim_step is not the program's own";
  for (const capture::Block& b : rec.records.front().blocks) {  // the state of the first record is the snapshot's
    auto have = snap->read(b.address, static_cast<std::uint32_t>(b.bytes.size()));
    ASSERT_TRUE(have.ok());
    EXPECT_EQ(*have, b.bytes) << fmt::format("block 0x{:x}", b.address);
  }
}

TEST_P(Record32And64, ACrashEndsTheLogOnWholeStepsWithItsOwnExitCode) {
  const fs::path d = dir("crash" + std::to_string(GetParam()));
  const fs::path profile = write_profile(d, t_->profile());
  auto r = run_cli(concat(concat({"record", "--profile", profile.string(), "-o", (d / "rec.log").string()}, t_->width_flag()),
                          {"--", t_->exe, (d / "own.log").string(), "30", "--crash-at", "10"}));
  EXPECT_EQ(r.code, kExitProgramEnded) << r.out << r.err;
  EXPECT_NE(r.out.find("killed by signal 11"), std::string::npos) << r.out;
  const auto rec = read_log(d / "rec.log");
  ASSERT_EQ(rec.records.size(), 10u * 9);
  EXPECT_EQ(rec.records.back().step, 9u);

  // --steps past the program's end: it ended first.
  auto early = run_cli(concat(concat({"record", "--profile", profile.string(), "-o", (d / "early.log").string(), "--steps", "50",
                                      "--tags", "STEP,CTRL,PHYS"},
                                     t_->width_flag()),
                              {"--", t_->exe, (d / "own2.log").string(), "20"}));
  EXPECT_EQ(early.code, kExitProgramEnded) << early.out << early.err;
  EXPECT_EQ(read_log(d / "early.log").records.size(), 20u * 9);
}

TEST_P(Record32And64, UnreadableBlocksAreSkippedAndAPointNeverHitIsNamed) {
  const fs::path d = dir("skips" + std::to_string(GetParam()));
  const std::string never = "[[record]]\ntag = \"FRAM\"\nat = " + t_->a.at("never") +
                            "\npass = \"hits\"\nstep = \"i32(frame)\"\nblocks = [\"frame\"]\n";
  const fs::path profile = write_profile(d, t_->profile("[\"frame\", { at = \"0x10\", size = \"4\", if = \"i32(frame) - 7\" }]", never));
  auto r = run_cli(concat(concat({"record", "--profile", profile.string(), "-o", (d / "rec.log").string()}, t_->width_flag()),
                          {"--", t_->exe, (d / "own.log").string(), "15"}));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("STEP at 0x"), std::string::npos);
  // the block at 0x10 is read at every step but 7
  EXPECT_NE(r.out.find("15 hits, 1 records, 14 skipped"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("14 records skipped"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("FRAM at 0x"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("was never hit"), std::string::npos) << r.err;
  const auto rec = read_log(d / "rec.log");
  ASSERT_EQ(rec.records.size(), 1u);  // step 7's STEP record, whole
  EXPECT_EQ(rec.records[0].step, 7u);
  EXPECT_EQ(rec.records[0].blocks.size(), 1u);
}

TEST_P(Record32And64, RefusedBeforeAttachingAndDetachedOnSigint) {
  const fs::path d = dir("refused" + std::to_string(GetParam()));
  Running p;
  ASSERT_TRUE(p.start({t_->exe, (d / "own.log").string(), "0", "--step-us", "300", "--ready"}));
  // A point in data: refused with nothing attached.
  const std::string data_point =
      "[[record]]\ntag = \"FRAM\"\nat = " + t_->a.at("frame") + "\npass = \"hits\"\nstep = \"0\"\nblocks = [\"frame\"]\n";
  const fs::path bad = write_profile(d, t_->profile("[\"frame\"]", data_point));
  auto r = run_cli(concat({"record", "--profile", bad.string(), "-o", (d / "bad.log").string(), "--pid",
                           std::to_string(p.pid())},
                          t_->width_flag()));
  EXPECT_EQ(r.code, kExitBadInput) << r.out << r.err;
  EXPECT_NE(r.err.find("not executable"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "bad.log"));
  expect_unharmed(p.pid());

  // SIGINT while recording: the recorder detaches, the log holds what was recorded, exit 0.
  const fs::path profile = write_profile(d, t_->profile());
  const pid_t child = ::fork();
  if (child == 0) {
    auto c = run_cli(concat({"record", "--profile", profile.string(), "-o", (d / "rec.log").string(), "--pid",
                             std::to_string(p.pid())},
                            t_->width_flag()));
    ::_exit(c.code);
  }
  for (int i = 0; i < 500 && tracer_pid(p.pid()) != std::to_string(child); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(child, SIGINT);
  int st = 0;
  ASSERT_EQ(::waitpid(child, &st, 0), child);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
  EXPECT_GT(read_log(d / "rec.log").records.size(), 0u);
  expect_unharmed(p.pid());
  st = p.stop();
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
}

INSTANTIATE_TEST_SUITE_P(Widths, Record32And64, ::testing::Values(32, 64),
                         [](const auto& p) { return std::to_string(p.param) + "bit"; });

TEST(Record, SixtyFourBitProgramNeedsAllow64bit) {
  auto t = target(64);
  ASSERT_TRUE(t);
  const fs::path d = dir("width");
  const fs::path profile = write_profile(d, t->profile());
  auto r = run_cli({"record", "--profile", profile.string(), "-o", (d / "rec.log").string(), "--", t->exe,
                    (d / "own.log").string(), "5"});
  EXPECT_EQ(r.code, kExitBadInput) << r.out << r.err;
  EXPECT_NE(r.err.find("64-bit"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "rec.log"));
}

TEST(Record, PtraceRefusedIsExit4NamingPtraceScope) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: drops to an unprivileged user to be refused";
  auto t = target(64);
  ASSERT_TRUE(t);
  // Under /tmp: the unprivileged child must reach the profile and the log's folder.
  char tmpl[] = "/tmp/lockstep-record-denied-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const fs::path d = tmpl;
  fs::permissions(d, fs::perms::all);
  Running p;
  ASSERT_TRUE(p.start({t->exe, (d / "own.log").string(), "0", "--step-us", "300", "--ready"}));
  const fs::path profile = write_profile(d, t->profile());
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(100);
    auto c = run_cli({"record", "--profile", profile.string(), "-o", (d / "rec.log").string(), "--pid",
                      std::to_string(p.pid()), "--allow-64bit"});
    if (c.code == kExitEnvironment && c.err.find("ptrace_scope") != std::string::npos) ::_exit(0);
    std::fprintf(stderr, "exit %d: %s%s", c.code, c.out.c_str(), c.err.c_str());
    ::_exit(101);
  }
  int st = 0;
  ASSERT_EQ(::waitpid(child, &st, 0), child);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "100: could not drop privileges, 101: not exit 4 naming ptrace_scope";
  EXPECT_FALSE(fs::exists(d / "rec.log"));
  expect_unharmed(p.pid());
  p.stop();
  fs::remove_all(d);
}

}  // namespace
}  // namespace lockstep::cli
