// `lockstep snapshot` and `lockstep info` through lockstep::cli::run, the entry point the executable
// uses: output, exit codes, --help.
#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "lockstep/cli/cli.hpp"
#include "lockstep/load/load.hpp"

extern char** environ;

namespace lockstep::cli {
namespace {

namespace fs = std::filesystem;
using harness::Snapshot;

struct CliRun {
  int code;
  std::string out, err;
};

CliRun run_cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = run(args, Io{out, err}, /*bindings: these commands run no port*/ {});
  return {code, out.str(), err.str()};
}

fs::path dir() {
  fs::path d = fs::path(LOCKSTEP_BINARY_DIR) / "tests" / "snapshot" / "cli";
  fs::create_directories(d);
  return d;
}

Snapshot small() {
  Snapshot s;
  s.regions.push_back({0x00401000, std::vector<std::uint8_t>(0x2000, 0x90), harness::kProtRead | harness::kProtExec,
                       "/opt/game/GAME.EXE"});
  s.regions.push_back({0x00630838, std::vector<std::uint8_t>(0x558 * 8, 0), harness::kProtRead | harness::kProtWrite,
                       "[anon]"});
  harness::Thread t;
  t.tid = 77;
  t.eax = 0xdeadbeef;
  t.eip = 0x0041b66c;
  t.fs = 0x3b;
  t.fs_base = 0x7ffdf000;
  t.x87.control = 0x027f;
  t.x87.status = 0x3800;  // TOP = 7
  t.x87.tag = 0x3fff;     // physical 7 valid
  t.x87.st[0] = {0, 0, 0, 0, 0, 0, 0, 0xc0, 0x00, 0x40};  // 3.0
  t.x87_valid = true;
  s.threads.push_back(t);
  s.meta.format = "live";
  s.meta.source = "live pid 77";
  s.meta.created_unix = 1764460800;  // 2025-11-30 00:00:00 UTC
  s.meta.exe_path = "/opt/game/GAME.EXE";
  s.meta.notes.push_back("[vvar]: skipped");
  return s;
}

TEST(CliInfo, PrintsRegionsThreadsAndMetadata) {
  const fs::path p = dir() / "small.lks";
  ASSERT_TRUE(harness::save_snapshot(small(), p).ok());
  const CliRun r = run_cli({"info", p.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* want : {"regions     2, 18.7 KiB (19136 bytes)", "0x00401000 0x00403000     0x2000  r-x  /opt/game/GAME.EXE",
                           "0x00630838 0x006332f8     0x2ac0  rw-  [anon]", "thread 77", "eax 0xdeadbeef",
                           "eip 0x0041b66c", "fs 0x003b", "fs_base 0x7ffdf000", "x87 control 0x027f  status 0x3800",
                           "tag 0x3fff  mxcsr 0x00001f80", "st0 valid   4000 c000000000000000  3",
                           "st1 empty", "created     2025-11-30 00:00:00 UTC", "[vvar]: skipped"})
    EXPECT_NE(r.out.find(want), std::string::npos) << "missing \"" << want << "\" in:\n" << r.out;
}

TEST(CliInfo, BadFilesGiveExitCode2AndTheReason) {
  const fs::path p = dir() / "garbage.lks";
  {
    std::FILE* f = std::fopen(p.c_str(), "wb");
    std::fputs("garbage!", f);
    std::fclose(f);
  }
  CliRun r = run_cli({"info", p.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad-magic"), std::string::npos) << r.err;
  r = run_cli({"info", (dir() / "missing.lks").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("missing.lks"), std::string::npos) << r.err;
  r = run_cli({"info"});
  EXPECT_EQ(r.code, 2);
}

TEST(CliHelp, EveryCommandHasHelp) {
  for (const char* cmd : {"snapshot", "info"}) {
    const CliRun r = run_cli({cmd, "--help"});
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_NE(r.out.find(cmd), std::string::npos) << r.out;
  }
  EXPECT_NE(run_cli({"snapshot", "--help"}).out.find("--pid"), std::string::npos);
  const CliRun top = run_cli({"--help"});
  EXPECT_EQ(top.code, 0);
  EXPECT_NE(top.out.find("snapshot"), std::string::npos);
  EXPECT_NE(top.out.find("info"), std::string::npos);
}

TEST(CliHelp, FooterListsEveryExitCode) {
  const CliRun top = run_cli({"--help"});
  for (const char* code : {"0 ok", "1 mismatch", "2 bad input", "3 guest fault", "4 environment", "5 internal",
                           "6 a search"})
    EXPECT_NE(top.out.find(code), std::string::npos) << code << " missing from:\n" << top.out;
}

TEST(CliVersion, FlagAndCommandPrintTheProjectVersion) {
  // The expected version is CMake's project(VERSION), handed to this test separately.
  const std::string want = std::string("lockstep ") + LOCKSTEP_PROJECT_VERSION + " (unicorn ";
  const CliRun flag = run_cli({"--version"});
  EXPECT_EQ(flag.code, 0) << flag.err;
  EXPECT_EQ(flag.out.rfind(want, 0), 0u) << flag.out;
  const CliRun cmd = run_cli({"version"});
  EXPECT_EQ(cmd.code, 0) << cmd.err;
  EXPECT_EQ(cmd.out, flag.out);
}

TEST(CliSnapshot, UsageErrors) {
  CliRun r = run_cli({"snapshot", "-o", (dir() / "x.lks").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--pid"), std::string::npos) << r.err;
  r = run_cli({"snapshot", "--pid", "12"});
  EXPECT_EQ(r.code, 2);  // no -o
  r = run_cli({"snapshot", "--pid", "2147483000", "-o", (dir() / "x.lks").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no process"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir() / "x.lks"));
}

TEST(CliSnapshot, SnapshotsARunningProgramThenInfoReadsIt) {
  // The 32-bit program where the kernel runs it, else its 64-bit build with --allow-64bit.
  pid_t pid = -1;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  bool is64 = false;
  const char* argv32[] = {LOCKSTEP_DEMO_TARGET32, "--wait", nullptr};
  int rc = ::posix_spawn(&pid, LOCKSTEP_DEMO_TARGET32, &fa, nullptr, const_cast<char**>(argv32), environ);
  if (rc == ENOEXEC) {
    is64 = true;
    const char* argv64[] = {LOCKSTEP_DEMO_TARGET64, "--wait", nullptr};
    rc = ::posix_spawn(&pid, LOCKSTEP_DEMO_TARGET64, &fa, nullptr, const_cast<char**>(argv64), environ);
  }
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  ASSERT_EQ(rc, 0);
  std::string text;
  char buf[512];
  while (text.find("ready\n") == std::string::npos) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    ASSERT_GT(n, 0) << "the target ended before printing ready";
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);

  const fs::path p = dir() / "live.lks";
  fs::remove(p);
  std::vector<std::string> args = {"snapshot", "--pid", std::to_string(pid), "-o", p.string()};
  if (is64) args.push_back("--allow-64bit");
  const CliRun r = run_cli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("1 threads"), std::string::npos) << r.out;
  const CliRun info = run_cli({"info", p.string()});
  EXPECT_EQ(info.code, 0) << info.err;
  EXPECT_NE(info.out.find("thread " + std::to_string(pid)), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("x87 control 0x027f"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("[heap]"), std::string::npos) << info.out;
  ::kill(pid, SIGTERM);
  int st = 0;
  ::waitpid(pid, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "the target did not exit cleanly after the snapshot";
}

}  // namespace
}  // namespace lockstep::cli
