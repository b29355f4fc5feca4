// The two ways of recording the stand-in (scripts/record-standin --mode native|emulated) and what
// they must share.
//
// The emulated recording (the project's i386 runner, cross-checked by qemu-i386) is the canonical one:
// every machine can make it, with the same bytes, so everything compared with checked-in bytes uses
// it. The native recording (the kernel runs the stand-in, a live snapshot at its pause) is what a user
// with a game gets; its snapshot differs from the emulated one (the kernel's stack placement, the pid
// in the registers at the pause, the vdso, the x87 status word), so its cases are not the checked-in
// ones — but its step log must be the emulated one byte for byte, every car step must re-run under
// Unicorn to its PHYS record, and the port must match every case captured from it.
//
// Where the kernel cannot execute i386 programs the native half skips, saying so; the mode checks of
// the script run everywhere.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "../standin/standin_process.hpp"
#include "lockstep/cases/corpus.hpp"
#include "lockstep/cli/cli.hpp"
#include "pod/bindings/bindings.hpp"

namespace {

namespace fs = std::filesystem;
using namespace lockstep;

const fs::path kRoot = LOCKSTEP_SOURCE_DIR;
const fs::path kProfile = kRoot / "harness/profiles/pod.toml";
const fs::path kCorpus = kRoot / "cases/standin";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Shell {
  int rc = -1;
  std::string output;  ///< stdout and stderr together
};

/// Runs scripts/record-standin with `args` (after --build/--no-build), output into `log`.
Shell record_standin(const std::string& args, const fs::path& log) {
  const std::string cmd = (kRoot / "scripts/record-standin").string() + " --build '" + LOCKSTEP_BINARY_DIR +
                          "' --no-build " + args + " > '" + log.string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(log)};
}

int lockstep_cli(const std::vector<std::string>& args, std::string& out) {
  std::ostringstream o, e;
  const int rc = cli::run(args, cli::Io{o, e}, pod::bindings::all());
  out = o.str() + e.str();
  return rc;
}

class RecordingModes : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(LOCKSTEP_BINARY_DIR) / "tests" / "pipeline" /
           ("recording-modes-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(RecordingModes, TheModeIsAlwaysNamed) {
  const auto r = record_standin("--steps 4 --pause-at 2 '" + (dir_ / "rec").string() + "'", dir_ / "log");
  EXPECT_EQ(r.rc, 2) << r.output;
  EXPECT_NE(r.output.find("--mode emulated"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "rec" / "snapshot.lks"));

  const auto bad = record_standin("--mode fast --steps 4 --pause-at 2 '" + (dir_ / "rec").string() + "'", dir_ / "log2");
  EXPECT_EQ(bad.rc, 2) << bad.output;
  EXPECT_NE(bad.output.find("not 'fast'"), std::string::npos) << bad.output;
}

TEST_F(RecordingModes, NativeOnAKernelWithoutI386IsRefusedNotReplaced) {
  if (standin_test::native_i386()) GTEST_SKIP() << "this kernel executes i386 programs: --mode native records";
  const auto r = record_standin("--mode native --steps 4 --pause-at 2 '" + (dir_ / "rec").string() + "'", dir_ / "log");
  // Refused with the environment's exit code and the way out, never silently emulated instead.
  EXPECT_EQ(r.rc, 4) << r.output;
  EXPECT_NE(r.output.find("Use --mode emulated"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "rec" / "snapshot.lks"));
}

TEST_F(RecordingModes, EmulatedRecordsTheSameEverywhere) {
  // A short emulated recording says what it is, and its step log is the one qemu-i386 recorded too
  // (record-standin fails otherwise).
  const auto r = record_standin("--mode emulated --steps 12 --pause-at 4 '" + (dir_ / "rec").string() + "'", dir_ / "log");
  ASSERT_EQ(r.rc, 0) << r.output;
  const std::string record = slurp(dir_ / "rec" / "record.txt");
  EXPECT_NE(record.find("mode: emulated\n"), std::string::npos) << record;
  EXPECT_TRUE(fs::exists(dir_ / "rec" / "snapshot.lks"));
  EXPECT_GT(fs::file_size(dir_ / "rec" / "steps.log"), 0u);
}

TEST_F(RecordingModes, RecorderLogsWhatTheStandinLogsItself) {
  // --mode recorder: lockstep record from outside the program, with the stand-in's record profile.
  // The script compares its log with the stand-in's own (record by record) and runs check-steps.
  const auto r = record_standin("--mode recorder --steps 60 --pause-at 20 '" + (dir_ / "rec").string() + "'", dir_ / "log");
  if (!standin_test::native_i386()) {
    EXPECT_EQ(r.rc, 77) << r.output;  // skipped, saying why, with nothing recorded
    EXPECT_NE(r.output.find("skipped"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "rec" / "steps.log"));
    GTEST_SKIP() << standin_test::native_unavailable_reason();
  }
  ASSERT_EQ(r.rc, 0) << r.output;
  const std::string record = slurp(dir_ / "rec" / "record.txt");
  EXPECT_NE(record.find("mode: recorder\n"), std::string::npos) << record;
  EXPECT_NE(record.find("steps matched: 480 / 480"), std::string::npos) << record;  // 60 steps of 8 cars
  EXPECT_TRUE(fs::exists(dir_ / "rec" / "snapshot.lks"));
}

TEST_F(RecordingModes, NativeAgreesWithEmulated) {
  if (!standin_test::native_i386()) GTEST_SKIP() << standin_test::native_unavailable_reason();
  // The checked-in corpus's recording (scripts/capture-standin), both ways: 400 steps, the snapshot at
  // step 100, captured with its sampling (--every 9 --max 3).
  const std::string common = "--steps 400 --pause-at 100 ";
  const auto nat = record_standin("--mode native " + common + "'" + (dir_ / "native").string() + "'", dir_ / "native.log");
  ASSERT_EQ(nat.rc, 0) << nat.output;
  const auto emu = record_standin("--mode emulated " + common + "'" + (dir_ / "emulated").string() + "'", dir_ / "emulated.log");
  ASSERT_EQ(emu.rc, 0) << emu.output;
  EXPECT_NE(slurp(dir_ / "native" / "record.txt").find("mode: native\n"), std::string::npos);

  // 1. The step log does not depend on the kernel: byte for byte.
  const std::string native_log = slurp(dir_ / "native" / "steps.log");
  ASSERT_FALSE(native_log.empty());
  EXPECT_TRUE(native_log == slurp(dir_ / "emulated" / "steps.log"))
      << "the native step log differs from the emulated one (cmp the two in " << dir_ << ")";

  // 2. Every car step of the native recording re-runs under Unicorn to its PHYS record.
  std::string out;
  const auto nsnap = (dir_ / "native" / "snapshot.lks").string(), nlog = (dir_ / "native" / "steps.log").string();
  EXPECT_EQ(lockstep_cli({"check-steps", nsnap, nlog, "--profile", kProfile.string()}, out), 0) << out;

  // 3. The checked-in corpus's functions captured from the native recording: as many cases of each as
  //    the emulated capture (the same calls, the same sampling), and the port matches every one.
  auto manifest = cases::read_manifest(kCorpus);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  std::vector<std::string> args{"capture", nsnap, nlog, "--profile", kProfile.string(), "--every", "9", "--max", "3",
                                "--quiet", "-o", (dir_ / "corpus").string()};
  for (const auto& f : manifest->functions) args.insert(args.end(), {"--fn", f.name});
  ASSERT_EQ(lockstep_cli(args, out), 0) << out;
  auto native_manifest = cases::read_manifest(dir_ / "corpus");
  ASSERT_TRUE(native_manifest.ok()) << native_manifest.error().message;
  ASSERT_EQ(native_manifest->functions.size(), manifest->functions.size());
  for (std::size_t i = 0; i < manifest->functions.size(); ++i) {
    SCOPED_TRACE(manifest->functions[i].name);
    EXPECT_EQ(native_manifest->functions[i].name, manifest->functions[i].name);
    EXPECT_EQ(native_manifest->functions[i].cases, manifest->functions[i].cases - manifest->functions[i].poked);
  }
  // The functions the race never calls are excluded as the checked-in corpus's gate excludes them.
  EXPECT_EQ(lockstep_cli({"replay", (dir_ / "corpus").string(), "--profile", kProfile.string(), "--exclusions",
                          LOCKSTEP_SOURCE_DIR "/tests/gate/standin-exclusions.txt"},
                         out),
            0)
      << out;
}

}  // namespace
